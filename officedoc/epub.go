package officedoc

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// epubElements reads an EPUB's chapters in reading order (the package's
// spine), each XHTML part through package htmldoc, after the book's title.
func epubElements(a *archive) ([]gochunk.Element, error) {
	data, err := a.part("META-INF/container.xml")
	if err != nil {
		return nil, err
	}
	var opf string
	err = walkXML(data, func(t xml.Token) error {
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
	var title strings.Builder
	inTitle := false
	err = walkXML(data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "item":
				if mt := attr(e, "media-type"); mt == "application/xhtml+xml" || mt == "text/html" {
					items[attr(e, "id")] = resolve(opf, attr(e, "href"))
				}
			case "itemref":
				spine = append(spine, attr(e, "idref"))
			case "title":
				inTitle = title.Len() == 0
			}
		case xml.CharData:
			if inTitle {
				title.Write(e)
			}
		case xml.EndElement:
			if e.Name.Local == "title" {
				inTitle = false
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var els []gochunk.Element
	if t := oneLine(title.String()); t != "" {
		els = append(els, heading(1, t))
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
		chapter, err := htmldoc.Elements(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(part), err)
		}
		// The book's title page repeats the title: keep it once.
		for _, e := range chapter {
			if len(els) > 0 && e.Text == els[0].Text {
				continue
			}
			els = append(els, e)
		}
	}
	return els, nil
}
