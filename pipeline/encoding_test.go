package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
	"golang.org/x/text/encoding/japanese"
)

// A text file in a legacy encoding: rejected by default with the encoding
// it reads as and the setting that reads it; read as that encoding with
// invalid_utf8 decode, with a warning; and bytes in no encoding recognised
// are refused by decode too.
func TestLegacyEncodings(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	text := strings.Repeat("昨日の夜、私たちは町を長い間散歩して、この夏に読んだ本について話しました。", 4)
	sjis, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, sjis, 0o644); err != nil {
		t.Fatal(err)
	}

	reject, err := pipeline.New(ctx, pipeline.Config{}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := reject.Load(ctx, pipeline.Source{Path: file})
	if err != nil {
		t.Fatal(err)
	}
	_, err = reject.Run(ctx, doc.Document)
	if !errors.Is(err, gochunk.ErrInvalidUTF8) || !strings.Contains(err.Error(), "shift_jis") || !strings.Contains(err.Error(), "--invalid-utf8 decode") {
		t.Errorf("rejected: %v, want the encoding and the setting named", err)
	}
	if _, err := reject.Offsets(ctx, doc.Document); err == nil || !strings.Contains(err.Error(), "shift_jis") {
		t.Errorf("rejected by Offsets: %v", err)
	}
	doc.Release()

	decode, err := pipeline.New(ctx, pipeline.Config{InvalidUTF8: gochunk.Decode}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err = decode.Load(ctx, pipeline.Source{Path: file})
	if err != nil || doc.Text != text || !strings.Contains(doc.Warning, "shift_jis") {
		t.Fatalf("decoded: %.40q %q %v", doc.Text, doc.Warning, err)
	}
	r, err := decode.Run(ctx, doc.Document)
	if err != nil || len(r.Chunks) == 0 {
		t.Fatalf("decoded text chunked: %d chunks, %v", len(r.Chunks), err)
	}
	for _, c := range r.Chunks {
		if doc.Text[c.Start():c.End()] != c.Text {
			t.Fatalf("chunk %q is not the decoded text at its offsets", c.Text)
		}
	}
	doc.Release()

	// Valid UTF-8 is left as it is.
	doc, err = decode.Load(ctx, pipeline.Source{ID: "utf8", Text: "déjà vu"})
	if err != nil || doc.Text != "déjà vu" || doc.Warning != "" {
		t.Errorf("UTF-8 under decode: %q %q %v", doc.Text, doc.Warning, err)
	}
	// Bytes of no encoding recognised: refused, naming the byte and repair.
	noise := filepath.Join(dir, "noise.txt")
	if err := os.WriteFile(noise, []byte("ok \xff\xfe\x80\x81 \xc3 bad \xfe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := decode.Load(ctx, pipeline.Source{Path: noise}); !errors.Is(err, gochunk.ErrInvalidUTF8) || !strings.Contains(err.Error(), "repair") {
		t.Errorf("unrecognised bytes under decode: %v", err)
	}
	if _, err := pipeline.New(ctx, pipeline.Config{InvalidUTF8: "guess"}, pipeline.Options{}); err == nil || !strings.Contains(err.Error(), "decode") {
		t.Errorf("unknown policy: %v", err)
	}
}

// OCR on every page without an engine to do it is a configuration error
// naming the settings that give one (it read no page by OCR, silently).
func TestOCRAlwaysNeedsAnEngine(t *testing.T) {
	t.Setenv("GOCHUNK_OCR_MODEL", "")
	ctx := context.Background()
	_, err := pipeline.New(ctx, pipeline.Config{OCR: pipeline.OCRConfig{Mode: "always"}}, pipeline.Options{})
	if !errors.Is(err, gochunk.ErrConfig) || !strings.Contains(err.Error(), "--ocr-model") || !strings.Contains(err.Error(), "openai:MODEL") {
		t.Errorf("ocr always without an engine: %v", err)
	}
	if _, err := pipeline.New(ctx, pipeline.Config{OCR: pipeline.OCRConfig{Mode: "always", Engine: "openai:vl"}}, pipeline.Options{}); err != nil {
		t.Errorf("ocr always with a vision model: %v", err)
	}
}
