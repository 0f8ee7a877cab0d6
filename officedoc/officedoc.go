// Package officedoc reads office documents into layout elements whose
// text keeps the document's structure in markdown form, the contract of
// package htmldoc: headings as "## Title" (with their levels), list items
// as "- item" or "1. item" indented by nesting, tables as pipe tables with
// a header row, slides' and sheets' numbers in their headings, speaker
// notes as captions. The document's text is the elements' texts joined by
// blank lines (layout.Assemble), so the markdown and table-aware chunkers
// see the structure and chunk offsets refer to that text.
//
// It reads Word (DOCX), PowerPoint (PPTX), Excel (XLSX), OpenDocument
// (ODT, ODS, ODP), EPUB, e-mail (.eml) and mailboxes (.mbox) with the standard library's zip, XML and MIME packages; nothing
// calls a program. Zip archives are read with bounds on their expanded
// size and XML with a bound on its depth, so a zip bomb or a deeply nested
// file is an error, never unbounded memory.
package officedoc

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/gochunk/gochunk"
)

// ErrFormat reports a document that is not what its kind says, or is
// corrupt; ErrTooLarge one whose parts expand beyond the bounds.
var (
	ErrFormat   = errors.New("not a readable document of its kind")
	ErrTooLarge = errors.New("the document expands beyond the reader's bounds (a zip bomb?)")
)

// Limits bound what a reader expands: the bytes of one part of an
// archive, of all its parts (100 times the archive, at least 64 MiB, at
// most 1 GiB: office XML compresses 5 to 20 times), and the nesting of
// XML elements.
const (
	maxPartBytes  = 256 << 20
	maxTotalBytes = 1 << 30
	minTotalBytes = 64 << 20
	maxExpansion  = 100
	maxXMLDepth   = 1024
)

// Kinds are the document kinds the package reads, by file extension.
var Kinds = map[string]string{
	".docx": "docx", ".docm": "docx", ".pptx": "pptx", ".pptm": "pptx", ".xlsx": "xlsx", ".xlsm": "xlsx",
	".epub": "epub", ".eml": "eml", ".odt": "odt", ".ods": "ods", ".odp": "odp", ".mbox": "mbox",
}

// Sniff returns the kind of data by its content ("" when it is none of
// the package's): an OOXML or EPUB zip by its parts, an e-mail by its
// headers.
func Sniff(data []byte) string {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return ""
		}
		for _, f := range z.File {
			switch f.Name {
			case "word/document.xml":
				return "docx"
			case "ppt/presentation.xml":
				return "pptx"
			case "xl/workbook.xml":
				return "xlsx"
			case "mimetype":
				if r, err := f.Open(); err == nil {
					b, _ := io.ReadAll(io.LimitReader(r, 100))
					r.Close()
					switch string(b) {
					case "application/vnd.oasis.opendocument.text":
						return "odt"
					case "application/vnd.oasis.opendocument.spreadsheet":
						return "ods"
					case "application/vnd.oasis.opendocument.presentation":
						return "odp"
					case "application/epub+zip":
						return "epub"
					}
				}
			}
		}
		for _, f := range z.File {
			if f.Name == "META-INF/container.xml" {
				return "epub"
			}
		}
		return ""
	}
	head := string(data[:min(len(data), 4096)])
	n := 0
	for _, h := range []string{"\nFrom:", "\nTo:", "\nSubject:", "\nDate:", "\nMessage-ID:", "\nMIME-Version:"} {
		if strings.Contains("\n"+head, h) || strings.Contains("\n"+strings.ToLower(head), strings.ToLower(h)) {
			n++
		}
	}
	if n >= 3 {
		return "eml"
	}
	return ""
}

// Elements reads data as a document of kind (see Kinds); an e-mail's
// attachments are sections of it ("## Attachment: name").
func Elements(kind string, data []byte) ([]gochunk.Element, error) {
	return elements(kind, data)
}

// ElementsAndAttachments is Elements, but an e-mail's (or a mailbox's)
// attachments of a kind gochunk reads (this package's kinds, PDF, HTML,
// text) are returned as files, to be read as documents of their own; the
// message names them in its last paragraph. Other kinds have none.
func ElementsAndAttachments(kind string, data []byte) ([]gochunk.Element, []File, error) {
	var els []gochunk.Element
	var files []File
	var err error
	switch kind {
	case "eml":
		els, files, err = readEmail(data, true)
	case "mbox":
		els, files, err = readMbox(data, true)
	default:
		els, err = elements(kind, data)
		return els, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", kind, err)
	}
	return els, files, nil
}

func elements(kind string, data []byte) ([]gochunk.Element, error) {
	var els []gochunk.Element
	var err error
	switch kind {
	case "eml":
		els, err = emailElements(data)
	case "mbox":
		els, err = mboxElements(data)
	case "docx", "pptx", "xlsx", "epub", "odt", "ods", "odp":
		var a *archive
		if a, err = openArchive(data); err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		switch kind {
		case "docx":
			els, err = docxElements(a)
		case "pptx":
			els, err = pptxElements(a)
		case "xlsx":
			els, err = xlsxElements(a)
		case "epub":
			els, err = epubElements(a)
		default:
			els, err = odfElements(a)
		}
	default:
		return nil, fmt.Errorf("%w: unknown kind %q", ErrFormat, kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return els, nil
}

// archive is a zip archive read within the bounds.
type archive struct {
	z     *zip.Reader
	files map[string]*zip.File
	read  int64 // bytes expanded so far
	limit int64 // the most bytes all parts may expand to
}

// archiveLimit is the most bytes the parts of an archive of n bytes may
// expand to.
func archiveLimit(n int) int64 {
	return min(max(int64(n)*maxExpansion, minTotalBytes), maxTotalBytes)
}

// Expansion returns the most bytes reading data can expand its parts to,
// for a memory budget to reserve before reading: for a zip (the OOXML,
// OpenDocument and EPUB kinds), the uncompressed sizes its directory
// declares, within the reader's bound (the zip reader refuses a part that
// expands past its declared size); for anything else its own size. An
// e-mail's attachments are read within their own bounds, which this does
// not count.
func Expansion(data []byte) int64 {
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return int64(len(data))
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return int64(len(data))
	}
	limit := archiveLimit(len(data))
	var total int64
	for _, f := range z.File {
		total += int64(min(f.UncompressedSize64, maxPartBytes+1))
		if total >= limit {
			return limit
		}
	}
	return total
}

func openArchive(data []byte) (*archive, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	a := &archive{z: z, files: map[string]*zip.File{}, limit: archiveLimit(len(data))}
	for _, f := range z.File {
		a.files[f.Name] = f
	}
	return a, nil
}

// has tells whether the archive holds the part name.
func (a *archive) has(name string) bool { _, ok := a.files[name]; return ok }

// part returns the bytes of the part name, within the bounds.
func (a *archive) part(name string) ([]byte, error) {
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: no part %s", ErrFormat, name)
	}
	if f.UncompressedSize64 > maxPartBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes", ErrTooLarge, name, f.UncompressedSize64)
	}
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	defer r.Close()
	// The declared size may lie: read one byte more than allowed.
	b, err := io.ReadAll(io.LimitReader(r, maxPartBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	if len(b) > maxPartBytes {
		return nil, fmt.Errorf("%w: %s expands past %d bytes", ErrTooLarge, name, maxPartBytes)
	}
	if a.read += int64(len(b)); a.read > a.limit {
		return nil, fmt.Errorf("%w: its parts expand past %d bytes, %d times its size", ErrTooLarge, a.limit, maxExpansion)
	}
	return b, nil
}

// resolve returns the part a relationship's target names, relative to the
// part from.
func resolve(from, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(target, "/")
	}
	return path.Clean(path.Join(path.Dir(from), target))
}

// walkXML calls fn with each token of an XML part, refusing nesting
// deeper than maxXMLDepth. Entities other than XML's own are not
// expanded (encoding/xml knows no DTD), so entity bombs cannot grow.
func walkXML(data []byte, fn func(xml.Token) error) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrFormat, err)
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxXMLDepth {
				return fmt.Errorf("%w: XML nested deeper than %d elements", ErrFormat, maxXMLDepth)
			}
		case xml.EndElement:
			depth--
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

// attr returns the value of the attribute local (any namespace).
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// rid returns an element's relationship id (r:id, the "id" attribute in
// a namespace), not its plain "id".
func rid(e xml.StartElement) string {
	for _, a := range e.Attr {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}

// relationships reads a part's relationships (its _rels/NAME.rels): id to
// target part.
func relationships(a *archive, part string) (map[string]string, error) {
	name := path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	out := map[string]string{}
	if !a.has(name) {
		return out, nil
	}
	data, err := a.part(name)
	if err != nil {
		return nil, err
	}
	err = walkXML(data, func(t xml.Token) error {
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "Relationship" {
			if attr(e, "TargetMode") != "External" {
				out[attr(e, "Id")] = resolve(part, attr(e, "Target"))
			}
		}
		return nil
	})
	return out, err
}

// table returns rows as a markdown pipe table, the first row its header.
func table(rows [][]string) string {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return ""
	}
	var sb strings.Builder
	line := func(cells []string) {
		sb.WriteByte('|')
		for i := range width {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			c = strings.ReplaceAll(strings.Join(strings.Fields(c), " "), "|", `\|`)
			sb.WriteString(" " + c + " |")
		}
		sb.WriteByte('\n')
	}
	line(rows[0])
	sb.WriteByte('|')
	for range width {
		sb.WriteString(" --- |")
	}
	sb.WriteByte('\n')
	for _, r := range rows[1:] {
		line(r)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// heading returns a heading element of level 1 to 6.
func heading(level int, text string) gochunk.Element {
	level = min(max(level, 1), 6)
	typ := "heading"
	if level == 1 {
		typ = "title"
	}
	return gochunk.Element{Type: typ, Text: strings.Repeat("#", level) + " " + oneLine(text)}
}

// oneLine joins a text's lines and runs of white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
