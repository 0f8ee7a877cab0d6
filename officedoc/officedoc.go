// Package officedoc reads office documents into layout elements whose
// text keeps the document's structure in markdown form, the contract of
// package htmldoc: headings as "## Title" (with their levels), list items
// as "- item" or "1. item" indented by nesting, tables as pipe tables with
// a header row, slides' and sheets' numbers in their headings, speaker
// notes as captions, footnotes and endnotes of Word and OpenDocument texts
// as pandoc writes them ("[^1]" where referenced, "[^1]: text" at the end
// of the document; comments are not read). The document's text is the elements' texts joined by
// blank lines (layout.Assemble), so the markdown and table-aware chunkers
// see the structure and chunk offsets refer to that text.
//
// It reads Word (DOCX), PowerPoint (PPTX), Excel (XLSX), OpenDocument
// (ODT, ODS, ODP), EPUB, e-mail (.eml) and mailboxes (.mbox) with the standard library's zip, XML and MIME packages; nothing
// calls a program. Zip archives are read with bounds on their expanded
// size (each part within what is left of the archive's bound) and XML
// with a bound on its depth, so a zip bomb or a deeply nested file is an
// error, never unbounded memory. What a document expands to is bounded
// too (Limits): a table's cells by what its source holds (rows and
// columns without text left out, a sparse table not padded), the cells
// of a table and of a document, and the text of a document, relative to
// its size and in all, each checked while the document is read.
package officedoc

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// ErrFormat reports a document that is not what its kind says, or is
// corrupt; ErrTooLarge one that expands beyond the reader's bounds (a zip
// bomb, a table padded to a sheet's edge): its error names the bound.
var (
	ErrFormat   = errors.New("not a readable document of its kind")
	ErrTooLarge = htmldoc.ErrTooLarge
)

// Limits bound what a document expands to (see htmldoc.Limits; a zero
// field means its default, DefaultLimits).
type Limits = htmldoc.Limits

// DefaultLimits returns the default bounds: 4,194,304 cells per table,
// 16,777,216 per document, text of min(max(100 × the file's size, 1 MiB),
// 128 MiB), 1,000 attachments.
func DefaultLimits() Limits { return htmldoc.DefaultLimits() }

// Options configure Read.
type Options struct {
	// Limits bound what the document expands to (zero fields: defaults).
	Limits Limits
	// Attachments, when true, returns an e-mail's (or a mailbox's)
	// attachments of a kind gochunk reads as Files, to be read as
	// documents of their own (see ElementsAndAttachments); when false
	// they are sections of the message.
	Attachments bool
}

// Result is a document read.
type Result struct {
	Elements []gochunk.Element
	// Files are an e-mail's attachments read as documents of their own
	// (Options.Attachments).
	Files []File
	// Warnings say what reading repaired or left out, each naming its
	// part: an attachment that could not be decoded or read, a header of
	// raw 8-bit bytes read as Latin-1, attachments past MaxAttachments.
	Warnings []string
}

// maxWarnings bounds the warnings of one document; a last one counts the
// others.
const maxWarnings = 20

// Read reads data as a document of kind (see Kinds) within opt.Limits.
// It stops with ctx's error when ctx is done (checked between parts and
// elements: an e-mail's attachments stop at the deadline too).
func Read(ctx context.Context, kind string, data []byte, opt Options) (Result, error) {
	d := &doc{ctx: ctx, budget: htmldoc.NewBudget(opt.Limits, int64(len(data))), separate: opt.Attachments}
	if n, ok := expansionBound(kind, data); ok {
		d.budget.CapText(n, fmt.Sprintf("%d times what its parts declare they expand to and %d bytes (Estimate's bound)", textPerPart, textSlack))
	}
	els, err := d.read(kind, data, 0)
	if err != nil {
		if errors.Is(err, ErrFormat) {
			return Result{}, fmt.Errorf("%s: %w; %s", kind, err, repairAdvice(kind, data))
		}
		return Result{}, fmt.Errorf("%s: %w", kind, err)
	}
	// Every text is UTF-8: a reader that let other bytes through (an
	// HTML body in a charset it does not say) is repaired here.
	repaired := 0
	for i := range els {
		if !utf8.ValidString(els[i].Text) {
			els[i].Text = strings.ToValidUTF8(els[i].Text, "\uFFFD")
			repaired++
		}
	}
	if repaired > 0 {
		d.warn(fmt.Sprintf("%d blocks of text held bytes that are not UTF-8, replaced with U+FFFD", repaired))
	}
	if d.dropped > 0 {
		d.warnings = append(d.warnings, fmt.Sprintf("and %d more warnings", d.dropped))
	}
	return Result{Elements: els, Files: d.files, Warnings: d.warnings}, nil
}

// repairAdvice says what to do with a document of kind that cannot be
// read (ErrFormat): an empty file, a damaged one or one of another
// format under the kind's name.
func repairAdvice(kind string, data []byte) string {
	if len(bytes.TrimSpace(data)) == 0 {
		return "the file is empty: check that it was saved or copied whole"
	}
	switch kind {
	case "docx", "pptx", "xlsx":
		return "the file is damaged, or is not " + strings.ToUpper(kind) + " under that name: open it in Office or LibreOffice and save it again as " + strings.ToUpper(kind) + ", then give that copy"
	case "odt", "ods", "odp":
		return "the file is damaged, or is not " + strings.ToUpper(kind) + " under that name: open it in LibreOffice and save it again, then give that copy"
	case "epub":
		return "the file is damaged, or is not an EPUB under that name: open it in an e-book editor (for example Calibre) and save it again, then give that copy"
	case "eml", "mbox":
		return "the file is damaged, or is not an e-mail message under that name: save the message again from the mail program (as .eml), then give that copy"
	}
	return "give a document of a kind this package reads (see Kinds)"
}

// doc is the state of one document's read: its context, its budget (text
// and cells), its warnings and the attachments it returns as files.
type doc struct {
	ctx      context.Context
	budget   *htmldoc.Budget
	warnings []string
	dropped  int
	separate bool
	files    []File
	skipped  int    // attachments past MaxAttachments
	where    string // the part being read, for warnings: "message 3: "
}

func (d *doc) warn(w string) {
	if len(d.warnings) < maxWarnings {
		d.warnings = append(d.warnings, d.where+w)
	} else {
		d.dropped++
	}
}

// emit appends elements to els, their text counted against the budget.
func (d *doc) emit(els *[]gochunk.Element, es ...gochunk.Element) error {
	if err := d.ctx.Err(); err != nil {
		return err
	}
	for _, e := range es {
		if err := d.budget.Text(int64(len(e.Text)) + 2); err != nil {
			return err
		}
	}
	*els = append(*els, es...)
	return nil
}

// newTable returns a table counted against the document's budget.
func (d *doc) newTable() *mdtable.Table { return mdtable.New(d.budget) }

// writeTable appends a table element of tb's text (counted by its Write),
// if it has any; sheet names its cells by reference when it is sparse.
func (d *doc) writeTable(els *[]gochunk.Element, tb *mdtable.Table, page int, sheet bool) error {
	st := mdtable.Style{Delim: " --- |"}
	if sheet {
		st.Ref = cellRef
	}
	md, err := tb.Write(st)
	if err != nil || md == "" {
		return err
	}
	*els = append(*els, gochunk.Element{Type: "table", Text: md, Page: page})
	return nil
}

// cell returns a table cell's text as a pipe table holds it: one line,
// pipes escaped.
func cell(s string) string {
	if plainCell(s) {
		return s // most cells: no copy
	}
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

// plainCell tells whether s is a cell's text as it stands: ASCII without
// pipes, control characters, or white space other than single spaces
// between words.
func plainCell(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' && (c != ' ' || i == 0 || i == len(s)-1 || s[i-1] == ' ') || c == '|' || c >= 0x7f {
			return false
		}
	}
	return true
}

// cellRef names a cell of a sheet: "C7" for row 6, column 2 (from 0).
func cellRef(row, col int) string { return colName(col) + strconv.Itoa(row+1) }

// colName is a column's letters: 0 is A, 26 is AA.
func colName(c int) string {
	var b []byte
	for c++; c > 0; c = (c - 1) / 26 {
		b = append(b, byte('A'+(c-1)%26))
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

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
	if u, ok := fromUTF16(data[:min(len(data), 8192)&^1]); ok {
		head = string(u[:min(len(u), 4096)]) // a message saved as UTF-16
	}
	n := 0
	for _, h := range []string{"\nFrom:", "\nTo:", "\nSubject:", "\nDate:", "\nMessage-ID:", "\nMIME-Version:"} {
		if strings.Contains("\n"+head, h) || strings.Contains("\n"+strings.ToLower(head), strings.ToLower(h)) {
			n++
		}
	}
	if n >= 3 || mimeEntity(head) {
		return "eml"
	}
	return ""
}

// mimeEntity tells whether head starts with a MIME entity's header: header
// fields from the first line on, among them MIME-Version and Content-Type
// (an S/MIME signed message saved as .p7s, a web archive saved as .mht),
// though without the sender and subject Sniff looks for in a message.
func mimeEntity(head string) bool {
	version, ctype := false, false
	for i, line := range strings.Split(head, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if i == 0 {
				return false
			}
			continue // a field's continuation
		}
		if !isFieldName([]byte(line)) {
			return false
		}
		name, _, _ := strings.Cut(line, ":")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "mime-version":
			version = true
		case "content-type":
			ctype = true
		}
	}
	return version && ctype
}

// Elements reads data as a document of kind (see Kinds) within the
// default Limits; an e-mail's attachments are sections of it ("##
// Attachment: name").
func Elements(kind string, data []byte) ([]gochunk.Element, error) {
	r, err := Read(context.Background(), kind, data, Options{})
	return r.Elements, err
}

// ElementsAndAttachments is Elements, but an e-mail's (or a mailbox's)
// attachments of a kind gochunk reads (this package's kinds, PDF, HTML,
// text) are returned as files, to be read as documents of their own; the
// message names them in its last paragraph. Other kinds have none.
func ElementsAndAttachments(kind string, data []byte) ([]gochunk.Element, []File, error) {
	r, err := Read(context.Background(), kind, data, Options{Attachments: true})
	return r.Elements, r.Files, err
}

// read reads data as a document of kind, depth levels inside others (an
// attachment of an e-mail), counted against d's budget.
func (d *doc) read(kind string, data []byte, depth int) ([]gochunk.Element, error) {
	switch kind {
	case "eml":
		return d.readEmail(data, depth)
	case "mbox":
		return d.readMbox(data, depth)
	case "docx", "pptx", "xlsx", "epub", "odt", "ods", "odp":
		a, err := d.openArchive(data)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "docx":
			return docxElements(a)
		case "pptx":
			return pptxElements(a)
		case "xlsx":
			return xlsxElements(a)
		case "epub":
			return epubElements(a)
		default:
			return odfElements(a)
		}
	}
	return nil, fmt.Errorf("%w: unknown kind %q", ErrFormat, kind)
}

// archive is a zip archive read within the bounds.
type archive struct {
	d     *doc
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

// Estimate returns the most bytes of text reading data can produce
// under the default Limits, from the zip directory alone (no part is
// expanded), for a memory budget to reserve before reading (the reader
// refuses more, with ErrTooLarge, while it reads):
//
//   - for DOCX, PPTX and EPUB, textPerPart (3) times the sizes its parts
//     declare they expand to, plus textSlack (64 KiB), within the text
//     bound: the reader holds them to it;
//   - for the other kinds (XLSX, whose shared strings and ODF, whose
//     repeated rows a cell may stand for many times; e-mail, whose
//     attachments expand), the text bound itself, min(max(100 × its size,
//     1 MiB), 128 MiB) (Limits.TextLimit).
//
// The expanded parts themselves are held too while a part is read
// (Expansion); e-mail attachments read as documents of their own each
// have their own bound, by their own size. err is ErrFormat for a zip
// whose directory cannot be read.
func Estimate(data []byte) (textBytes int64, err error) {
	return EstimateLimits(data, Limits{})
}

// EstimateLimits is Estimate under lim (zero fields: defaults).
func EstimateLimits(data []byte, lim Limits) (textBytes int64, err error) {
	limit := lim.TextLimit(int64(len(data)))
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		if _, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
			return 0, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	}
	if n, ok := expansionBound(Sniff(data), data); ok {
		return min(n, limit), nil
	}
	return limit, nil
}

// textPerPart and textSlack bound the text of a DOCX, PPTX or EPUB by what
// its parts declare: text is at most the XML it comes from, a table's
// padding at most three times its cells (each at least a dozen bytes of
// XML), markup's prefixes ("## ", "- ") shorter than the elements they
// replace; a part read twice (a slide or chapter listed twice) counts
// twice.
const (
	textPerPart = 3
	textSlack   = 64 << 10
)

// expansionBound returns textPerPart times the sizes data's zip parts
// declare, plus textSlack, for the kinds whose text that bounds (DOCX,
// PPTX, EPUB), and whether it did.
func expansionBound(kind string, data []byte) (int64, bool) {
	switch kind {
	case "docx", "pptx", "epub":
	default:
		return 0, false
	}
	if Sniff(data) != kind {
		return 0, false
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0, false
	}
	declared := int64(0)
	for _, f := range z.File {
		declared += int64(min(f.UncompressedSize64, maxPartBytes+1))
	}
	return textPerPart*min(declared, archiveLimit(len(data))) + textSlack, true
}

func (d *doc) openArchive(data []byte) (*archive, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	a := &archive{d: d, z: z, files: map[string]*zip.File{}, limit: archiveLimit(len(data))}
	for _, f := range z.File {
		a.files[f.Name] = f
	}
	return a, nil
}

// has tells whether the archive holds the part name.
func (a *archive) has(name string) bool { _, ok := a.files[name]; return ok }

// part returns the bytes of the part name, within the bounds: a part is
// read with what is left of the archive's bound as its limit (and at most
// maxPartBytes), so that no part is held whole before the total is
// checked.
func (a *archive) part(name string) ([]byte, error) {
	if err := a.d.ctx.Err(); err != nil {
		return nil, err
	}
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: no part %s", ErrFormat, name)
	}
	left := min(a.limit-a.read, maxPartBytes)
	if f.UncompressedSize64 > uint64(left) {
		return nil, a.tooLarge(name, left)
	}
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	defer r.Close()
	// The declared size may lie (the zip reader refuses a part past it,
	// but not one short of it): read one byte more than allowed.
	buf := bytes.NewBuffer(make([]byte, 0, f.UncompressedSize64+1))
	if _, err := io.Copy(buf, io.LimitReader(r, left+1)); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	if int64(buf.Len()) > left {
		return nil, a.tooLarge(name, left)
	}
	a.read += int64(buf.Len())
	return buf.Bytes(), nil
}

// tooLarge is the error of a part that expands past left bytes.
func (a *archive) tooLarge(name string, left int64) error {
	if left == maxPartBytes {
		return fmt.Errorf("%w (a zip bomb?): part %s expands past %d bytes, the bound on one part", ErrTooLarge, name, maxPartBytes)
	}
	return fmt.Errorf("%w (a zip bomb?): part %s expands past the %d bytes left of the archive's bound, %d bytes (%d times its size, at least %d, at most %d)",
		ErrTooLarge, name, left, a.limit, maxExpansion, minTotalBytes, maxTotalBytes)
}

// resolve returns the part a relationship's target names, relative to the
// part from.
func resolve(from, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(target, "/")
	}
	return path.Clean(path.Join(path.Dir(from), target))
}

// walkXML calls fn with each token of the XML part name, refusing
// nesting deeper than maxXMLDepth; its own errors name the part. Entities
// other than XML's own are not expanded (encoding/xml knows no DTD), so
// entity bombs cannot grow. Markup compatibility is resolved on the way
// (one branch of each mc:AlternateContent) and each Office Math equation
// comes as one text run of its linear form (see alternates).
func walkXML(name string, data []byte, fn func(xml.Token) error) error {
	fn = (&alternates{fn: fn}).token
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: part %s: %v", ErrFormat, name, err)
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxXMLDepth {
				return fmt.Errorf("%w: part %s: XML nested deeper than %d elements", ErrFormat, name, maxXMLDepth)
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
	err = walkXML(name, data, func(t xml.Token) error {
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "Relationship" {
			if attr(e, "TargetMode") != "External" {
				out[attr(e, "Id")] = resolve(part, attr(e, "Target"))
			}
		}
		return nil
	})
	return out, err
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
