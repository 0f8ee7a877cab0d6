package pipeline_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/pipeline"
)

// Config.MaxText and Config.TextRatio bound the text of every document
// the pipeline reads (a PDF's characters too), where its Source leaves
// the bounds zero; a Source's own bound takes precedence.
func TestConfigTextBounds(t *testing.T) {
	ctx := context.Background()
	html := "<p>" + strings.Repeat("Glaciers carve valleys as ice moves downhill. ", 200) + "</p>" // 9.2 KB of text
	var lines []string
	for range 60 {
		lines = append(lines, "Compilers translate source code into machine code, pass by pass.")
	}
	pdf := pdfgen.Plain([][]string{lines}) // 3.9 K characters
	p, err := pipeline.New(ctx, pipeline.Config{MaxText: 2000}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Load(ctx, pipeline.Source{ID: "a.html", HTML: html}); !errors.Is(err, officedoc.ErrTooLarge) || !strings.Contains(err.Error(), "MaxText") {
		t.Errorf("html over max_text: %v", err)
	}
	if _, err := p.Load(ctx, pipeline.Source{ID: "a.pdf", PDF: pdf}); !errors.Is(err, layout.ErrTooLarge) {
		t.Errorf("pdf over max_text: %v", err)
	}
	if _, err := p.Load(ctx, pipeline.Source{ID: "a.html", HTML: html, Limits: officedoc.Limits{MaxText: 1 << 20}}); err != nil {
		t.Errorf("a source's own bound: %v", err)
	}
	// TextRatio: 2 × a document's size (but never below MinText, here
	// 100 bytes): a DOCX of 9 KB of text compresses to far less.
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>` + strings.Repeat("Glaciers carve valleys. ", 400) + `</w:t></w:r></w:p></w:body></w:document>`))
	z.Close()
	docx := pipeline.Source{ID: "a.docx", File: buf.Bytes(), FileName: "a.docx", Limits: officedoc.Limits{MinText: 100}}
	p, err = pipeline.New(ctx, pipeline.Config{TextRatio: 2}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Load(ctx, docx); !errors.Is(err, officedoc.ErrTooLarge) {
		t.Errorf("docx over text_ratio: %v", err)
	}
	for _, cfg := range []pipeline.Config{{}, {TextRatio: 1000}} {
		p, err := pipeline.New(ctx, cfg, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Load(ctx, docx); err != nil {
			t.Errorf("%+v: docx: %v", cfg, err)
		}
	}
	for _, cfg := range []pipeline.Config{{}, {TextRatio: 1}} {
		p, err := pipeline.New(ctx, cfg, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Load(ctx, pipeline.Source{ID: "a.html", HTML: html}); err != nil {
			t.Errorf("%+v: html: %v", cfg, err)
		}
		if _, err := p.Load(ctx, pipeline.Source{ID: "a.pdf", PDF: pdf}); err != nil {
			t.Errorf("%+v: pdf: %v", cfg, err)
		}
	}
}

// Config.PDFMemory bounds PDFium's memory: a page whose text needs more
// is reported as PDFium running out of memory, where the default bound
// reads it; below what PDFium holds before reading, it is refused.
func TestConfigPDFMemory(t *testing.T) {
	ctx := context.Background()
	pdf := pdfgen.ManyChars(150_000) // ~250 B a character inside PDFium: ~37 MB
	for _, c := range []struct {
		memory int64
		fails  bool
	}{{32 << 20, true}, {0, false}} {
		p, err := pipeline.New(ctx, pipeline.Config{PDFMemory: c.memory}, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Load(ctx, pipeline.Source{ID: "many.pdf", PDF: pdf})
		if c.fails != errors.Is(err, layout.ErrPDFMemory) || !c.fails && err != nil {
			t.Errorf("pdf_memory %d: %v", c.memory, err)
		}
	}
	if _, err := pipeline.New(ctx, pipeline.Config{PDFMemory: 16 << 20}, pipeline.Options{}); err == nil || !strings.Contains(err.Error(), "pdf_memory") {
		t.Errorf("pdf_memory of 16 MiB: %v", err)
	}
}
