package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/layout"
)

// checkInputMode reports a --input value loadDocument does not know.
func checkInputMode(mode string) error {
	switch mode {
	case "", "auto", "text", "pdf", "elements":
		return nil
	}
	return usageError{fmt.Errorf("--input %q: want auto, text, pdf or elements", mode)}
}

// loadDocument reads one input as a document: a PDF (its extracted text and
// layout elements), layout elements as JSON, or text. mode is auto (PDF by
// the .pdf extension, else text), text, pdf or elements.
//
// The returned function releases the input, which the document's text may
// point into: call it once the document and its chunks are no longer used.
func loadDocument(ctx context.Context, e env, name, mode string, policy gochunk.InvalidUTF8Policy, progress func(done, total int)) (doc gochunk.Document, warn string, release func(), err error) {
	release = func() {}
	doc, warn, err = loadDocumentWith(ctx, e, name, mode, policy, progress, &release)
	return doc, warn, release, err
}

func loadDocumentWith(ctx context.Context, e env, name, mode string, policy gochunk.InvalidUTF8Policy, progress func(done, total int), release *func()) (gochunk.Document, string, error) {
	if mode == "auto" || mode == "" {
		mode = "text"
		if strings.EqualFold(filepath.Ext(name), ".pdf") {
			mode = "pdf"
		}
	}
	doc := gochunk.Document{ID: name, Metadata: map[string]any{"source": name}}
	switch mode {
	case "pdf":
		var els []gochunk.Element
		var err error
		if name == "-" {
			els, err = layout.ExtractPDFReader(ctx, e.stdin, layout.PDFOptions{Progress: progress})
		} else {
			els, err = layout.ExtractPDF(ctx, name, layout.PDFOptions{Progress: progress})
		}
		if err != nil {
			return doc, "", err
		}
		doc.Text, doc.Elements = layout.Assemble(els)
		return doc, "", nil
	case "elements":
		data, free, err := readInput(e.stdin, name)
		defer free() // the elements are parsed into new strings
		if err != nil {
			return doc, "", err
		}
		els, err := layout.ParseElements([]byte(data))
		if err != nil {
			return doc, "", err
		}
		doc.Text, doc.Elements = layout.Assemble(els)
		return doc, "", nil
	case "text":
		text, free, err := readInput(e.stdin, name)
		*release = free
		if err != nil {
			return doc, "", err
		}
		text, repaired, err := gochunk.PrepareText(text, policy)
		if err != nil {
			return doc, "", err
		}
		doc.Text = text
		if repaired {
			return doc, "invalid UTF-8 replaced with U+FFFD; offsets refer to the repaired text", nil
		}
		return doc, "", nil
	}
	return doc, "", checkInputMode(mode)
}

func cmdExtract(e env, args []string) int {
	fs := flagSet(e, "gochunk extract", `Usage: gochunk extract [--elements] FILE

Prints the text that chunk offsets of a non-text input refer to: for a PDF,
its text blocks in reading order (columns detected; repeated headers and
footers left out) joined by blank lines, exactly as the chunkers see it.
With --elements, prints its layout elements instead, one JSON object per
line: type, text, page, bbox (x0, y0, x1, y1, y down), page size, order,
start and end offsets in the text, and excluded for headers and footers.
Needs Poppler's pdftotext for PDFs.

Flags:
`)
	elements := fs.Bool("elements", false, "print the layout elements as JSONL")
	input := fs.String("input", "auto", "input kind: auto (by extension), pdf, elements (layout JSON) or text")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(e.stderr, "gochunk extract: give one FILE")
		return exitUsage
	}
	doc, _, release, err := loadDocument(e.ctx, e, files[0], *input, gochunk.Reject, nil)
	defer release()
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk extract:", err)
		return exitCode(err)
	}
	if !*elements {
		io.WriteString(e.stdout, doc.Text)
		return exitOK
	}
	enc := jsonEncoder(e.stdout)
	for _, el := range doc.Elements {
		if err := enc.Encode(el); err != nil {
			return exitInput
		}
	}
	return exitOK
}
