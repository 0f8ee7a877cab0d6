package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/internal/mapfile"
	"github.com/gochunk/gochunk/internal/textenc"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/msgdoc"
	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/rtfdoc"
)

// Source is one input to load: a file (Path), a stream (Reader), or a
// document already in memory (Text, Elements or PDF).
type Source struct {
	// ID names the document in errors and records; empty means Path.
	ID string
	// Path is a file to read; "-" (or empty, with Reader set) means
	// Reader. Large files are memory-mapped, not copied.
	Path string
	// Reader is read when Path is "-" or empty.
	Reader io.Reader
	// Kind is auto, text, pdf, html, elements, an office kind (docx,
	// pptx, xlsx, odt, ods, odp, epub, eml; see package officedoc), msg or
	// rtf; empty means the pipeline's Config.Input.
	Kind string
	// Text, Elements and PDF hold a document in memory: text (with its
	// layout elements, if any), layout elements alone (the text is
	// assembled from them), or a PDF file's bytes. They take precedence
	// over Path and Reader.
	Text     string
	Elements []gochunk.Element
	PDF      []byte
	// HTML is an HTML document in memory: its structure becomes markdown
	// (see package htmldoc).
	HTML string
	// File is a document file's bytes in memory, of any kind Load reads
	// (chosen by FileName's extension, else by its content).
	File     []byte
	FileName string
	// Metadata is carried along (chunkers may read hints from it, such as
	// the code chunker's "language").
	Metadata map[string]any
	// RecordMetadata, when set, is put on each of the document's records
	// (Result.Metadata), as LangChain's split_documents copies a
	// document's metadata onto its chunks: JSON Lines input sets it to
	// its line's "metadata" (see ParseJSONLine).
	RecordMetadata map[string]any
	// Progress, when set, hears how many pages of a PDF were read.
	Progress func(done, total int)
	// Limits bound what an office, EPUB, e-mail, Outlook, RTF or HTML
	// document expands to: cells per table and per document, text per
	// document (see officedoc.Limits; zero fields: Config.MaxText and
	// Config.TextRatio, else their defaults); Limits.MaxText also bounds
	// a PDF's characters. Its attachments inherit them.
	Limits officedoc.Limits

	depth int // how deep in attachments this source is
}

// pdfMetadata is a PDF's document metadata: the source's, with the engine
// that read it, its pages, and how many header and footer blocks
// (repeated in the margins, or page numbers) were left out of its text.
func pdfMetadata(md map[string]any, eng layout.PDFEngine, els []gochunk.Element) map[string]any {
	out := make(map[string]any, len(md)+3)
	maps.Copy(out, md)
	pages, dropped := 0, 0
	for _, e := range els {
		pages = max(pages, e.Page)
		if e.Excluded {
			dropped++
		}
	}
	out["pdf_engine"], out["pages"], out["dropped_headers_footers"] = eng.Name(), pages, dropped
	return out
}

// limits returns l with the configuration's text bounds (Config.MaxText,
// Config.TextRatio) where l leaves them zero.
func (p *Pipeline) limits(l officedoc.Limits) officedoc.Limits {
	if l.MaxText <= 0 {
		l.MaxText = p.cfg.MaxText
	}
	if l.TextRatio <= 0 {
		l.TextRatio = p.cfg.TextRatio
	}
	return l
}

// IsAttachment reports whether the source is a document found inside
// another (Loaded.Attachments).
func (s Source) IsAttachment() bool { return s.depth > 0 }

// maxAttachmentDepth bounds attachments of attachments (an e-mail
// forwarded as an attachment of an e-mail ...).
const maxAttachmentDepth = 8

// attachments makes each file attached to the document id a source of its
// own: "id/name", with the parent's metadata and "attachment_of".
func attachments(id string, parent Source, files []officedoc.File) []Source {
	if len(files) == 0 || parent.depth >= maxAttachmentDepth {
		return nil
	}
	out := make([]Source, len(files))
	for i, f := range files {
		md := make(map[string]any, len(parent.Metadata)+1)
		maps.Copy(md, parent.Metadata)
		md["attachment_of"] = id
		out[i] = Source{ID: id + "/" + f.Name, File: f.Data, FileName: f.Name, Metadata: md, Progress: parent.Progress, Limits: parent.Limits, depth: parent.depth + 1}
	}
	return out
}

// Loaded is a document ready to chunk.
type Loaded struct {
	gochunk.Document
	// Warning, when not empty, says what loading changed (invalid UTF-8
	// repaired).
	Warning string
	// Attachments are documents found inside this one, to be loaded as
	// documents of their own: an e-mail's attachments (Config.Attachments),
	// each with the ID "id/name" and "attachment_of" in its metadata.
	// Stream loads and runs them after their parent.
	Attachments []Source
	release     func() error
}

// Release frees the input the document's text may point into (a
// memory-mapped file): call it once the document and its chunks' texts
// are no longer used. Records built before keep their own copies only
// where they were encoded.
func (l *Loaded) Release() {
	if l.release != nil {
		l.release()
		l.release = nil
	}
}

// fileKind returns the kind of a document file's bytes: by its name's
// extension, else by its content (a PDF, an office zip, HTML), else text.
func fileKind(name string, data []byte) string {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case ext == ".pdf" || bytes.HasPrefix(data, []byte("%PDF-")):
		return "pdf"
	case officedoc.Kinds[ext] != "":
		return officedoc.Kinds[ext]
	case ext == ".html" || ext == ".htm" || ext == ".xhtml":
		return "html"
	}
	if k := officedoc.Sniff(data); k != "" {
		return k
	}
	return "memory-text"
}

// Load reads src as a document. A PDF is read by Config.PDFEngine: PDFium
// in the process by default (its module is compiled, or loaded from the
// user's cache, on the first PDF), or Poppler's programs, whose temporary
// copy of a PDF from a stream or memory is removed when Load returns, also
// when ctx is cancelled.
func (p *Pipeline) Load(ctx context.Context, src Source) (_ Loaded, err error) {
	defer recovered("load", &err)
	id := src.ID
	if id == "" {
		id = src.Path
	}
	out := Loaded{Document: gochunk.Document{ID: id, Metadata: src.Metadata}}
	src.Limits = p.limits(src.Limits)
	kind := src.Kind
	if kind == "" {
		kind = p.cfg.Input
	}
	switch {
	case src.PDF != nil:
		kind = "pdf"
	case src.HTML != "":
		kind = "html"
	case src.File != nil:
		kind = fileKind(src.FileName, src.File)
		if kind == "pdf" {
			src.PDF = src.File
		}
	case src.Elements != nil || src.Text != "" || src.Path == "" && src.Reader == nil:
		kind = "memory"
	case kind == "" || kind == "auto":
		switch ext := strings.ToLower(filepath.Ext(src.Path)); {
		case ext == ".pdf":
			kind = "pdf"
		case ext == ".html" || ext == ".htm" || ext == ".xhtml":
			kind = "html"
		case officedoc.Kinds[ext] != "":
			kind = officedoc.Kinds[ext]
		default:
			kind = "auto-text" // text, unless its bytes are an office document's
		}
	}
	switch kind {
	case "memory-text":
		out.Text = string(src.File)
		err = p.loadSniffed(ctx, &out, src, id) // text, unless its content says otherwise
	case "memory":
		out.Text, out.Elements = src.Text, src.Elements
		if src.Text == "" {
			if err = layout.Validate(src.Elements); err == nil {
				out.Text, out.Elements = layout.Assemble(src.Elements)
			}
		}
		err = p.prepare(&out, err)
	case "pdf":
		var els []gochunk.Element
		var warns []string // pages left out or cut, the others read
		popt := layout.PDFOptions{Progress: src.Progress, Warn: func(s string) { warns = append(warns, s) }}
		if src.Limits.MaxText > 0 {
			popt.MaxChars = int(min(src.Limits.MaxText, math.MaxInt))
		}
		if popt.Engine, err = p.res.pdfEngine(ctx); err != nil {
			break
		}
		var ocrPages int // read by OCR (pipeline/ocr.go), where it is configured
		els, ocrPages, err = p.extractPDF(ctx, src, popt)
		if err == nil {
			out.Text, out.Elements = layout.Assemble(els)
			out.Metadata = pdfMetadata(src.Metadata, popt.Engine, els)
			if ocrPages > 0 {
				out.Metadata["ocr_pages"] = ocrPages
				p.addOCRMetadata(out.Metadata) // pipeline/ocr.go
			}
			out.Warning = strings.Join(warns, "; ")
		}
	case "html":
		var els []gochunk.Element
		if src.HTML != "" {
			els, err = htmldoc.ElementsLimited(strings.NewReader(src.HTML), src.Limits)
		} else if src.File != nil {
			els, err = htmldoc.ElementsLimited(bytes.NewReader(src.File), src.Limits)
		} else {
			var data string
			var free func() error
			if data, free, err = read(src); err == nil {
				els, err = htmldoc.ElementsLimited(strings.NewReader(data), src.Limits)
			}
			free()
		}
		if err == nil {
			out.Text, out.Elements = layout.Assemble(els)
		}
	case "elements":
		var data string
		var free func() error
		data, free, err = read(src)
		if err == nil {
			var els []gochunk.Element
			if els, err = layout.ParseElements([]byte(data)); err == nil {
				out.Text, out.Elements = layout.Assemble(els)
			}
		}
		free() // the elements are parsed into new strings
	case "text", "auto-text":
		out.Text, out.release, err = read(src)
		if err == nil && kind == "auto-text" {
			// Read by what its content is (an office zip, a PDF, an
			// Outlook message, RTF, text), or refused by name.
			err = p.loadSniffed(ctx, &out, src, id)
			break
		}
		err = p.prepare(&out, err)
	case "msg", "rtf":
		out.Text, out.release, err = read(src)
		if err == nil {
			if f := sniff(unsafeBytes(out.Text)); f.kind != kind {
				err = fmt.Errorf("%s: --input %s, but its content is not %s", cmpName(id), kind, map[string]string{"msg": "an Outlook message", "rtf": "RTF"}[kind])
				break
			}
			err = p.loadSniffed(ctx, &out, src, id)
		}
	case "docx", "pptx", "xlsx", "epub", "eml", "mbox", "odt", "ods", "odp":
		var data string
		var free func() error
		if src.File != nil {
			data, free = string(src.File), func() error { return nil }
		} else {
			data, free, err = read(src)
		}
		if err == nil && kind != "eml" && kind != "mbox" && (strings.HasPrefix(data, msgdoc.Magic) || rtfdoc.Is(unsafeBytes(data))) {
			// An Outlook message, RTF, or a Word, Excel or PowerPoint
			// file of before 2007 or encrypted, named as a new one.
			out.Text, out.release = data, free
			err = p.loadSniffed(ctx, &out, src, id)
			break
		}
		if err == nil {
			// Within the source's limits; a broken attachment or a
			// repaired header is a warning, the message kept.
			var r officedoc.Result
			r, err = officedoc.Read(ctx, kind, []byte(data), officedoc.Options{Limits: src.Limits, Attachments: p.cfg.Attachments != "sections"})
			if err == nil {
				out.Text, out.Elements = layout.Assemble(r.Elements)
				out.Attachments = attachments(id, src, r.Files)
				out.Warning = strings.Join(r.Warnings, "; ")
			}
		}
		free() // the elements and files hold new memory
	default:
		err = configError("input", kind, "want auto, text, pdf, html, elements, docx, pptx, xlsx, odt, ods, odp, epub, eml, mbox, msg or rtf")
	}
	if err != nil {
		out.Release()
		return Loaded{}, err
	}
	return out, nil
}

// prepare applies the invalid-UTF-8 policy to a loaded text. Rejecting is
// left to the chunkers, which check their input (and to Offsets), so that
// a large text is not validated twice.
func (p *Pipeline) prepare(l *Loaded, err error) error {
	if err != nil || p.cfg.InvalidUTF8 == gochunk.Reject {
		return err
	}
	if p.cfg.InvalidUTF8 == gochunk.Decode {
		return decodeLegacy(l)
	}
	text, repaired, err := gochunk.PrepareText(l.Text, p.cfg.InvalidUTF8)
	if err != nil {
		return err
	}
	l.Text = text
	if repaired {
		l.Warning = "invalid UTF-8 replaced with U+FFFD; offsets refer to the repaired text"
	}
	return nil
}

// read returns the bytes of a file or stream source as a string, without
// copying a memory-mapped file, and the function that releases them.
func read(src Source) (string, func() error, error) {
	var data []byte
	free := func() error { return nil }
	var err error
	if src.Path == "-" || src.Path == "" {
		if src.Reader == nil {
			return "", free, fmt.Errorf("read: no input: give a path or a reader")
		}
		// A regular file (a shell's redirect) is mapped, a pipe read
		// outside the heap at its exact size: as a file named costs.
		data, free, err = mapfile.ReadAll(src.Reader)
	} else {
		data, free, err = mapfile.Read(src.Path)
	}
	if free == nil {
		free = func() error { return nil }
	}
	if err != nil {
		return "", free, fmt.Errorf("read: %w", err)
	}
	if len(data) == 0 {
		return "", free, nil
	}
	// The bytes are never written: use them as the string, without a copy
	// of the whole input.
	return unsafe.String(unsafe.SliceData(data), len(data)), free, nil
}

// ParseJSONLine reads one line of JSON Lines input: a document as
// {"id": "…", "text": "…", "metadata": {…}}, the form gochunk index reads
// on standard input, gochunk chunk with --jsonl and gochunk-beam with
// --jsonl. An id may be a string or a number (kept as written); metadata is
// optional. The source has the line's id, text and metadata, which is
// also its RecordMetadata (carried onto each record). When the line is not
// such a document the error says why, and the source's ID is the line's id
// where it has one.
func ParseJSONLine(line []byte) (Source, error) {
	var v struct {
		ID, Text, Metadata json.RawMessage
	}
	const want = `not a JSON object of "id", "text" and "metadata"`
	if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '{' {
		return Source{}, errors.New(want)
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return Source{}, fmt.Errorf("%s: %v", want, strings.TrimPrefix(err.Error(), "json: "))
	}
	var src Source
	switch id := bytes.TrimSpace(v.ID); {
	case len(id) == 0 || string(id) == "null":
		return src, errors.New(`"id" is missing: each line needs one, a string or a number naming its document`)
	case id[0] == '"':
		if err := json.Unmarshal(id, &src.ID); err != nil {
			return src, fmt.Errorf(`"id": %v`, err)
		}
		if src.ID == "" {
			return src, errors.New(`"id" is empty`)
		}
	default:
		var n json.Number
		if err := json.Unmarshal(id, &n); err != nil {
			return src, errors.New(`"id" must be a string or a number`)
		}
		src.ID = n.String()
	}
	switch text := bytes.TrimSpace(v.Text); {
	case len(text) == 0 || string(text) == "null":
		return src, errors.New(`"text" is missing or null`)
	case text[0] != '"':
		return src, errors.New(`"text" must be a string`)
	default:
		if err := json.Unmarshal(text, &src.Text); err != nil {
			return src, fmt.Errorf(`"text": %v`, err)
		}
	}
	if md := bytes.TrimSpace(v.Metadata); len(md) > 0 && string(md) != "null" {
		if err := json.Unmarshal(md, &src.Metadata); err != nil {
			return src, errors.New(`"metadata" must be an object`)
		}
		src.RecordMetadata = src.Metadata
	}
	return src, nil
}

// JSONLineError is a line of JSON Lines input that is not a document.
type JSONLineError struct {
	// Name is the input's name, Line the line's number (from 1), ID the
	// line's id where it has one.
	Name string
	Line int
	ID   string
	Err  error
}

// Error names the input, the line and its id.
func (e *JSONLineError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("%s line %d (id %q): %v", e.Name, e.Line, e.ID, e.Err)
	}
	return fmt.Sprintf("%s line %d: %v", e.Name, e.Line, e.Err)
}

// Unwrap returns why the line is not a document.
func (e *JSONLineError) Unwrap() error { return e.Err }

// ReadJSONLines reads JSON Lines of documents from r (see ParseJSONLine),
// named name in errors, and calls yield with each line's source, or with a
// *JSONLineError for a line that is not a document (the lines after it
// are read on). Blank lines are skipped. It returns yield's error, ctx's
// when it is cancelled, or the error of reading r.
func ReadJSONLines(ctx context.Context, r io.Reader, name string, yield func(Source, error) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			src, perr := ParseJSONLine(line)
			if perr != nil {
				perr = &JSONLineError{Name: name, Line: n, ID: src.ID, Err: perr}
			}
			if yerr := yield(src, perr); yerr != nil {
				return yerr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// decodeLegacy reads a loaded text that is not UTF-8 in the legacy
// encoding it is recognised to be in (invalid_utf8 decode), and refuses
// one in no encoding it recognises.
func decodeLegacy(l *Loaded) error {
	if utf8.ValidString(l.Text) {
		return nil
	}
	name, enc, ok := textenc.Detect(unsafeBytes(l.Text))
	if !ok {
		return fmt.Errorf("%w, in no legacy encoding gochunk recognises: set invalid_utf8 to repair (--invalid-utf8 repair) to replace the invalid bytes with U+FFFD, or convert the file to UTF-8 (iconv -f ENCODING -t UTF-8)", gochunk.CheckUTF8(l.Text))
	}
	text, err := textenc.Decode(unsafeBytes(l.Text), enc)
	if err != nil {
		return fmt.Errorf("decode as %s: %w", name, err)
	}
	l.Release()
	l.Text = text
	l.Warning = "read as " + name + " (recognised: the file is not UTF-8); offsets refer to the text as UTF-8"
	return nil
}

// CheckText returns what a chunker would say of the loaded text under
// the configured invalid_utf8 policy: nil when it is UTF-8 (or was
// repaired or decoded on loading), else the invalid-UTF-8 error with the
// encoding the text reads as and the settings that read it. A caller
// that writes the text out instead of chunking it (gochunk extract)
// checks it so.
func (p *Pipeline) CheckText(l Loaded) error {
	return p.explainInvalidUTF8(gochunk.CheckUTF8(l.Text), l.Text)
}

// explainInvalidUTF8 adds to a chunker's invalid-UTF-8 error what to do:
// the encoding the text looks written in, where one is recognised, and
// the settings that read it.
func (p *Pipeline) explainInvalidUTF8(err error, text string) error {
	if err == nil || p.cfg.InvalidUTF8 != gochunk.Reject || !errors.Is(err, gochunk.ErrInvalidUTF8) {
		return err
	}
	if name, _, ok := textenc.Detect(unsafeBytes(text)); ok {
		return fmt.Errorf("%w: the text reads as %s: set invalid_utf8 to decode (--invalid-utf8 decode) to read it so, or to repair to replace the invalid bytes with U+FFFD", err, name)
	}
	return fmt.Errorf("%w: set invalid_utf8 to repair (--invalid-utf8 repair) to replace the invalid bytes with U+FFFD, or convert the text to UTF-8", err)
}
