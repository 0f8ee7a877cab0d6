package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk/internal/ocrtest"
)

// TestOCRVisionChunk: a photographed page (PNG) and a scanned PDF page go
// through chunk with --ocr openai:MODEL to a vision endpoint on loopback,
// which checks that it received a PNG page and answers its text: the
// chunks hold the answer at exact offsets, pages and approximate boxes,
// the records say how the text was read; the estimate is printed before
// the requests and the usage after; a refused key is named.
func TestOCRVisionChunk(t *testing.T) {
	const answer = "Invoice 2041\n\nThe amount of 120 euros is due by the end of the month.\nPay by bank transfer.\n\nThank you."
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, `{"error": {"message": "Incorrect API key provided"}}`, http.StatusUnauthorized)
			return
		}
		if model, images := ocrtest.ChatImages(r); model == "vis" && len(images) > 0 {
			ocrtest.ChatAnswer(w, answer, 850, 30)
			return
		}
		http.Error(w, `{"error": "no PNG image for model vis"}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("GOCHUNK_OCR_MODEL", "")

	dir := t.TempDir()
	photo := ocrtest.Draw(t, 1200, 1600, ocrtest.Lines(100, 200, 24, "Invoice 2041")...)
	os.WriteFile(filepath.Join(dir, "photo.png"), ocrtest.PNG(t, photo), 0o644)
	os.WriteFile(filepath.Join(dir, "scan.pdf"), ocrtest.ScanPDF(t, photo), 0o644)

	for _, name := range []string{"photo.png", "scan.pdf"} {
		before := calls.Load()
		out, errs, code := runCmd(t, "", "chunk", "--ocr", "openai:vis", "--llm-url", srv.URL+"/v1", "--size", "12", filepath.Join(dir, name))
		if code != 0 {
			t.Fatalf("chunk %s: exit %d: %s", name, code, errs)
		}
		if calls.Load() != before+1 {
			t.Errorf("%s: %d requests, want 1", name, calls.Load()-before)
		}
		recs := decodeLines(t, out)
		var text strings.Builder
		for _, r := range recs {
			if r.End-r.Start != len(r.Text) || r.Pages != [2]int{1, 1} || len(r.Boxes) == 0 {
				t.Errorf("%s: chunk [%d, %d) of %d bytes, pages %v, boxes %v", name, r.Start, r.End, len(r.Text), r.Pages, r.Boxes)
			}
			text.WriteString(r.Text + " ")
		}
		if got, want := strings.Join(strings.Fields(text.String()), " "), strings.Join(strings.Fields(answer), " "); got != want {
			t.Errorf("%s: chunks hold %q, want %q", name, got, want)
		}
		est, used := strings.Index(errs, "1 page(s) to send"), strings.Index(errs, "1 request(s) (0 answered from the cache), 850 prompt tokens, 30 completion tokens")
		if est < 0 || used < est {
			t.Errorf("%s: want the estimate before and the usage after on standard error: %s", name, errs)
		}
	}
	// extract takes the endpoint from OPENAI_BASE_URL.
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	out, errs, code := runCmd(t, "", "extract", "--ocr", "openai:vis", filepath.Join(dir, "photo.png"))
	if code != 0 || !strings.Contains(out, "Pay by bank transfer.") {
		t.Errorf("extract: exit %d, %q: %s", code, out, errs)
	}
	// A refused key: the error names the file and the fix.
	t.Setenv("OPENAI_API_KEY", "wrong")
	_, errs, code = runCmd(t, "", "chunk", "--ocr", "openai:vis", filepath.Join(dir, "scan.pdf"))
	if code == 0 || !strings.Contains(errs, "scan.pdf") || !strings.Contains(errs, "OPENAI_API_KEY") {
		t.Errorf("a refused key: exit %d: %s", code, errs)
	}
}
