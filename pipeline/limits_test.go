package pipeline_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/pipeline"
)

// A source's reader limits reach the office and HTML readers (and its
// attachments), and what a reader repaired is the loaded document's
// warning.
func TestLoadReaderLimits(t *testing.T) {
	ctx := context.Background()
	p, err := pipeline.New(ctx, pipeline.Config{}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:tbl><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`))
	z.Close()
	small := officedoc.Limits{MaxTableCells: 1}
	for _, src := range []pipeline.Source{
		{ID: "a.docx", File: buf.Bytes(), FileName: "a.docx", Limits: small},
		{ID: "a.html", HTML: "<table><tr><td>a</td><td>b</td></tr></table>", Limits: small},
	} {
		if _, err := p.Load(ctx, src); !errors.Is(err, officedoc.ErrTooLarge) || !strings.Contains(err.Error(), "MaxTableCells") {
			t.Errorf("%s: %v", src.ID, err)
		}
		src.Limits = officedoc.Limits{}
		if _, err := p.Load(ctx, src); err != nil {
			t.Errorf("%s, default limits: %v", src.ID, err)
		}
	}
	mail := "From: Jos\xe9 <j@example.com>\r\nTo: t@example.com\r\nSubject: Caf\xe9\r\n\r\nBody.\r\n"
	l, err := p.Load(ctx, pipeline.Source{ID: "m.eml", File: []byte(mail), FileName: "m.eml"})
	if err != nil || !strings.HasPrefix(l.Text, "# Café") || !strings.Contains(l.Warning, "header Subject") {
		t.Errorf("%v: %q, warning %q", err, l.Text, l.Warning)
	}
}
