package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
)

func cmdExtract(e env, args []string) int {
	fs := flagSet(e, "gochunk extract", `Usage: gochunk extract [--elements] [--invalid-utf8 POLICY] FILE

Prints the text that chunk offsets of a non-text input refer to: for a PDF,
its text blocks in reading order (columns detected; repeated headers and
footers left out) joined by blank lines, exactly as the chunkers see it.
With --elements, prints its layout elements instead, one JSON object per
line: type, text, page, bbox (x0, y0, x1, y1, y down), page size, order,
start and end offsets in the text, and excluded for headers and footers.
PDFs are read in the process by PDFium (--pdf-engine poppler uses Poppler's
pdftotext instead); office documents, EPUB, e-mail, Outlook messages, RTF
and HTML by gochunk's own readers. A file of a format gochunk recognises
and does not read (an image, a Word, Excel or PowerPoint 97-2003 file, an
archive, audio, a binary file) is refused by name with what to do instead,
and extract exits 1: it never prints a binary file's bytes.

Flags:
`)
	elements := fs.Bool("elements", false, "print the layout elements as JSONL")
	input := fs.String("input", "auto", "input kind: auto (by extension and content), text, pdf, html, elements (layout JSON), docx, pptx, xlsx, odt, ods, odp, epub, eml, mbox, msg (Outlook) or rtf")
	engine := fs.String("pdf-engine", "pdfium", "what reads PDFs: pdfium (in the process) or poppler (Poppler's pdftotext, which must be installed)")
	invalid := fs.String("invalid-utf8", "reject", "what to do with text that is not UTF-8: reject (an error naming the byte and the encoding it reads as), repair (replace invalid bytes with U+FFFD) or decode (read a file in the legacy encoding recognised); as chunk reads it")
	withOCR := ocrFlags(fs) // ocr.go
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		return fail(e, "extract", usagef("give one FILE"))
	}
	cfg := pipeline.Config{Input: *input, PDFEngine: *engine, InvalidUTF8: gochunk.InvalidUTF8Policy(*invalid), PDFNotice: func(s string) { fmt.Fprintln(e.stderr, "gochunk:", s) }}
	withOCR(&cfg)
	pl, err := pipeline.New(e.ctx, cfg, pipeline.Options{})
	if err != nil {
		return fail(e, "extract", err)
	}
	doc, err := pl.Load(e.ctx, pipeline.Source{Path: files[0], Reader: e.stdin})
	defer doc.Release()
	if err != nil {
		return fail(e, "extract", errors.New(fileError(files[0], err))) // as chunk and index name it
	}
	if err := pl.CheckText(doc); err != nil {
		return fail(e, "extract", errors.New(fileError(files[0], err)))
	}
	if doc.Warning != "" {
		fmt.Fprintf(e.stderr, "gochunk extract: %s: %s\n", files[0], doc.Warning)
	}
	if !*elements {
		io.WriteString(e.stdout, doc.Text)
		return exitOK
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for _, el := range doc.Elements {
		if err := enc.Encode(el); err != nil {
			return exitInput
		}
	}
	return exitOK
}
