package pipeline

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A PDF's document says which engine read it, its pages, and how many
// header and footer blocks were left out; an unknown engine is refused by
// name.
func TestPDFMetadata(t *testing.T) {
	var buf bytes.Buffer
	paras := []string{"Paragraph one is about glaciers.", "Paragraph two is about compilers."}
	for range 5 {
		paras = append(paras, paras...)
	}
	if err := pdfgen.Write(&buf, pdfgen.TwoColumn("Metadata", paras, "Running Header")); err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), Config{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Load(context.Background(), Source{ID: "m.pdf", PDF: buf.Bytes(), Metadata: map[string]any{"team": "docs"}})
	if err != nil {
		t.Fatal(err)
	}
	md := d.Metadata
	pages, _ := md["pages"].(int)
	if md["pdf_engine"] != "pdfium" || pages < 2 || md["dropped_headers_footers"] != 2*pages || md["team"] != "docs" {
		t.Errorf("metadata %v", md)
	}
	if _, err := New(context.Background(), Config{PDFEngine: "mupdf"}, Options{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("an unknown engine: %v", err)
	}
	if _, err := New(context.Background(), Config{Attachments: "inline"}, Options{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("an unknown attachments value: %v", err)
	}
}
