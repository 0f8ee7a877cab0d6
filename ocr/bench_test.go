package ocr_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
	"github.com/gochunk/gochunk/ocr"
)

// letterPage draws a US Letter page at 200 dpi (1,700 × 2,200 pixels):
// 40 lines of prose at 30 pixels an em (11 pt), as a scanned report
// holds.
func letterPage() []string {
	words := strings.Fields(`Chunking splits a document into pieces that fit a model's window, and each
		piece keeps exact offsets into the extracted text. Scanned contracts, faxed forms, photographed
		receipts and old reports exist only as images: their text is read by a detector that finds the
		lines and a recogniser that reads them, 2024-05-17, 3.14 + 2.71 = 5.85, page 12 of 40.`)
	var lines []string
	for i := 0; len(lines) < 40; i++ {
		var sb strings.Builder
		for sb.Len() < 70 {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[(i*11+sb.Len())%len(words)])
		}
		lines = append(lines, sb.String())
	}
	return lines
}

// BenchmarkRead reads a full page of text (npm's PP-OCRv4 models on
// ONNX Runtime; skipped without them) and reports pages a second and the
// page's character error rate.
func BenchmarkRead(b *testing.B) {
	e := ocrtest.Engine(b)
	lines := letterPage()
	want := strings.Join(lines, "\n")
	img := ocrtest.Draw(b, 1700, 2200, ocrtest.Lines(150, 200, 30, lines...)...)
	ctx := context.Background()
	var cer float64
	for b.Loop() {
		p, err := e.Read(ctx, img)
		if err != nil {
			b.Fatal(err)
		}
		cer = ocrtest.CER(p.Text(), want)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(100*cer, "CER%")
}

// TestReadAfterLargerPage reads a small page, a full page, and the small
// page again: the second reading is the first (the memory the full page
// left behind is reused, and holds nothing of it).
func TestReadAfterLargerPage(t *testing.T) {
	e := ocrtest.Engine(t)
	ctx := context.Background()
	small := page(t)
	first, err := e.Read(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Read(ctx, ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(150, 200, 30, letterPage()...)...)); err != nil {
		t.Fatal(err)
	}
	again, err := e.Read(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Lines) != len(first.Lines) {
		t.Fatalf("%d lines after a full page, %d before:\n%s\n--\n%s", len(again.Lines), len(first.Lines), again.Text(), first.Text())
	}
	for i := range first.Lines {
		a, b := first.Lines[i], again.Lines[i]
		if a.Text != b.Text || a.Box != b.Box || a.Confidence != b.Confidence {
			t.Errorf("line %d after a full page: %q %v %v, before: %q %v %v", i, b.Text, b.Box, b.Confidence, a.Text, a.Box, a.Confidence)
		}
	}
}

// TestReadBatchesAtOnce reads a full page with engines that read the
// recogniser's batches one at a time (Threads 1) and three at a time:
// the lines, their boxes and confidences are the same (each batch holds
// the same lines either way, and each run is on one thread).
func TestReadBatchesAtOnce(t *testing.T) {
	dir := ocrtest.Models(t)
	lib := onnxtest.Library(t)
	img := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(150, 200, 30, letterPage()...)...)
	var pages []*ocr.Page
	for _, threads := range []int{1, 3} {
		e, err := ocr.New(ocr.Options{ModelDir: dir, ONNXRuntimeLibrary: lib, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		p, err := e.Read(context.Background(), img)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	one, three := pages[0], pages[1]
	if len(one.Lines) < 30 {
		t.Fatalf("%d lines read, want 40:\n%s", len(one.Lines), one.Text())
	}
	if len(three.Lines) != len(one.Lines) {
		t.Fatalf("%d lines three batches at a time, %d one at a time:\n%s\n--\n%s", len(three.Lines), len(one.Lines), three.Text(), one.Text())
	}
	for i := range one.Lines {
		a, b := one.Lines[i], three.Lines[i]
		if a.Text != b.Text || a.Box != b.Box || a.Confidence != b.Confidence {
			t.Errorf("line %d three at a time: %q %v %v, one at a time: %q %v %v", i, b.Text, b.Box, b.Confidence, a.Text, a.Box, a.Confidence)
		}
	}
}
