package officedoc

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// epubElements reads an EPUB's chapters in reading order (the package's
// spine), each XHTML part through package htmldoc, after the book's
// title, authors and description; the navigation document (its table of
// contents) is left out.
func epubElements(a *archive) ([]gochunk.Element, error) {
	data, err := a.part("META-INF/container.xml")
	if err != nil {
		return nil, err
	}
	var opf string
	err = walkXML("META-INF/container.xml", data, func(t xml.Token) error {
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "rootfile" && opf == "" {
			opf = attr(e, "full-path")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opf == "" {
		return nil, fmt.Errorf("%w: the container names no package document", ErrFormat)
	}
	data, err = a.part(opf)
	if err != nil {
		return nil, err
	}
	items := map[string]string{} // id -> part, for XHTML items
	var spine []string
	var title, text strings.Builder
	var authors []string
	var description string
	inTitle, inMeta := false, ""
	err = walkXML(opf, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "item":
				// The EPUB 3 navigation document (properties "nav") is
				// the table of contents, the chapters' titles again:
				// not read, even where the spine lists it.
				mt := attr(e, "media-type")
				if (mt == "application/xhtml+xml" || mt == "text/html") && !slices.Contains(strings.Fields(attr(e, "properties")), "nav") {
					items[attr(e, "id")] = resolve(opf, attr(e, "href"))
				}
			case "itemref":
				spine = append(spine, attr(e, "idref"))
			case "title":
				inTitle = title.Len() == 0
			case "creator", "description":
				inMeta = e.Name.Local
				text.Reset()
			}
		case xml.CharData:
			if inTitle {
				title.Write(e)
			}
			if inMeta != "" {
				text.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "title":
				inTitle = false
			case "creator":
				if t := oneLine(text.String()); t != "" && len(authors) < 64 {
					authors = append(authors, t)
				}
				inMeta = ""
			case "description":
				if description == "" {
					description = text.String()
				}
				inMeta = ""
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var els []gochunk.Element
	if t := oneLine(title.String()); t != "" {
		if err := a.d.emit(&els, heading(1, t)); err != nil {
			return nil, err
		}
	}
	// The book's authors and description (its blurb, often HTML), as
	// the package's metadata gives them.
	if len(authors) > 0 {
		if err := a.d.emit(&els, gochunk.Element{Type: "paragraph", Text: "Authors: " + strings.Join(authors, ", ")}); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(description) != "" {
		blurb, err := htmldoc.ElementsWithin(strings.NewReader(description), a.d.budget)
		if err != nil {
			return nil, fmt.Errorf("the book's description: %w", err)
		}
		els = append(els, blurb...) // counted by htmldoc
	}
	for _, id := range spine {
		part, ok := items[id]
		if !ok {
			continue
		}
		data, err := a.part(part)
		if err != nil {
			return nil, err
		}
		chapter, err := htmldoc.ElementsWithin(bytes.NewReader(withoutDoctype(data)), a.d.budget)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(part), err)
		}
		// The book's title page repeats the title: keep it once.
		for _, e := range chapter {
			if len(els) > 0 && e.Text == els[0].Text {
				continue
			}
			els = append(els, e) // counted by htmldoc
		}
	}
	return els, nil
}

// withoutDoctype returns an XHTML part without its document type
// declaration: an HTML parser ends the declaration at its first ">", so
// the rest of an internal subset ("<!DOCTYPE html [<!ENTITY % pe ...>
// %pe;]>") would be read as text. The subset's quoted strings and
// comments may hold "]" and ">"; entities it declares are not expanded.
func withoutDoctype(data []byte) []byte {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(bytes.ToUpper(head), []byte("<!DOCTYPE"))
	if i < 0 || bytes.Contains(head[:i], []byte("<html")) {
		return data
	}
	var quote byte
	subset := false
	for j := i + len("<!DOCTYPE"); j < len(data); j++ {
		c := data[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case subset && bytes.HasPrefix(data[j:], []byte("<!--")):
			end := bytes.Index(data[j+4:], []byte("-->"))
			if end < 0 {
				return data
			}
			j += 4 + end + 2
		case c == '[':
			subset = true
		case c == ']':
			subset = false
		case c == '>' && !subset:
			out := make([]byte, 0, len(data)-(j+1-i))
			return append(append(out, data[:i]...), data[j+1:]...)
		}
	}
	return data
}
