package pipeline

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/ocr/vision"
)

// visionStub is a vision chat endpoint on loopback: it checks that each
// request carries a PNG page image (its size is recorded) and answers
// the page's text.
func visionStub(t *testing.T, text string) (*httptest.Server, *atomic.Int64, *[][2]int) {
	t.Helper()
	var calls atomic.Int64
	var mu sync.Mutex
	var sizes [][2]int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if _, images := ocrtest.ChatImages(r); len(images) > 0 {
			b := images[0].Bounds()
			mu.Lock()
			sizes = append(sizes, [2]int{b.Dx(), b.Dy()})
			mu.Unlock()
			ocrtest.ChatAnswer(w, text, 900, 40)
			return
		}
		http.Error(w, `{"error": "the request has no PNG image"}`, http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls, &sizes
}

// TestVisionOCR: an image and a scanned PDF page are read by a vision
// chat model (--ocr openai:MODEL) through the pipeline's OCR stage: the
// page goes to the endpoint as a PNG, the answer's lines become the
// document's elements with exact offsets, the records name the engine and
// the approximate boxes, the estimate comes before and the usage after.
func TestVisionOCR(t *testing.T) {
	const answer = "A Scanned Contract\n\nThe parties agree to the terms below.\nPayment is due in thirty days.\n\nSigned in Paris."
	srv, calls, sizes := visionStub(t, answer)
	_, pdfData := scans(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, ocrtest.Draw(t, 1200, 1600, ocrtest.Lines(100, 200, 24, ocrLines...)...)); err != nil {
		t.Fatal(err)
	}
	pngData := buf.Bytes()
	dir := t.TempDir()
	pngPath, pdfPath := filepath.Join(dir, "scan.png"), filepath.Join(dir, "scan.pdf")
	os.WriteFile(pngPath, pngData, 0o644)
	os.WriteFile(pdfPath, pdfData, 0o644)
	t.Setenv("GOCHUNK_OCR_MODEL", "")
	var mu sync.Mutex
	var notices []string
	cfg := Config{OCR: OCRConfig{Engine: "openai:vis"}, LLM: LLMConfig{URL: srv.URL + "/v1", CacheDir: filepath.Join(dir, "cache")}}
	cfg.Embedder.Notice = func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }
	ctx := context.Background()
	p, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []Source{{Path: pngPath}, {Path: pdfPath}} {
		l, err := p.Load(ctx, src)
		if err != nil {
			t.Fatalf("%s: %v", src.Path, err)
		}
		for _, want := range []string{"A Scanned Contract", "The parties agree to the terms below.", "Payment is due in thirty days.", "Signed in Paris."} {
			if !strings.Contains(l.Text, want) {
				t.Errorf("%s: text %q lacks %q", src.Path, l.Text, want)
			}
		}
		if strings.Index(l.Text, "Contract") > strings.Index(l.Text, "Paris") {
			t.Errorf("%s: reading order lost: %q", src.Path, l.Text)
		}
		if len(l.Elements) < 2 {
			t.Errorf("%s: %d elements, want the answer's blocks", src.Path, len(l.Elements))
		}
		for _, e := range l.Elements {
			if e.Page != 1 || e.BBox[2] <= e.BBox[0] {
				t.Errorf("%s: element %+v has no page or box", src.Path, e)
			}
			if !e.Excluded && l.Text[e.Start:e.End] != e.Text {
				t.Errorf("%s: element offsets [%d, %d) hold %q, not %q", src.Path, e.Start, e.End, l.Text[e.Start:e.End], e.Text)
			}
		}
		if l.Metadata["ocr"] != "openai:vis" || l.Metadata["ocr_boxes"] != vision.Boxes {
			t.Errorf("%s: metadata %v, want ocr openai:vis and ocr_boxes %s", src.Path, l.Metadata, vision.Boxes)
		}
		if strings.HasSuffix(src.Path, ".pdf") && l.Metadata["ocr_pages"] != 1 {
			t.Errorf("%s: ocr_pages %v", src.Path, l.Metadata["ocr_pages"])
		}
		// Chunks come out of it as out of any document.
		r, err := p.Chunk(ctx, gochunk.Document{ID: src.Path, Text: l.Text, Elements: l.Elements, Metadata: l.Metadata})
		if err != nil || len(r.Chunks) == 0 {
			t.Errorf("%s: chunk: %v, %d chunks", src.Path, err, len(r.Chunks))
		}
	}
	if calls.Load() != 2 || len(*sizes) != 2 || (*sizes)[0] != [2]int{1200, 1600} || (*sizes)[1] != [2]int{1583, 2048} {
		t.Errorf("%d requests, images %v: want the PNG page as it is and the PDF page drawn at 200 dpi scaled to 1583×2048", calls.Load(), *sizes)
	}
	// The estimate before each document's requests, the usage after.
	if len(notices) != 4 || !strings.Contains(notices[0], "1 page(s) to send") || !strings.Contains(notices[0], "prompt tokens") ||
		!strings.Contains(notices[1], "1 request(s) (0 answered from the cache), 900 prompt tokens, 40 completion tokens") {
		t.Errorf("notices %q", notices)
	}
	// Again, from the cache on disk: no request.
	q, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Load(ctx, Source{Path: pngPath}); err != nil || calls.Load() != 2 {
		t.Errorf("again: %v, %d requests, want 2 (cached)", err, calls.Load())
	}
	if n := notices[len(notices)-1]; !strings.Contains(n, "(1 answered from the cache), 0 prompt tokens") {
		t.Errorf("usage from the cache: %q", n)
	}
}

// A vision engine's errors reach the caller named, and a bad engine name
// is a configuration error.
func TestVisionOCRErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": {"message": "Incorrect API key provided"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	pngData, _ := scans(t)
	ctx := context.Background()
	p, err := New(ctx, Config{OCR: OCRConfig{Engine: "openai:vis"}, LLM: LLMConfig{URL: srv.URL + "/v1"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Load(ctx, Source{File: pngData, FileName: "scan.png", ID: "scan.png"})
	if err == nil || !strings.Contains(err.Error(), "scan.png") || !strings.Contains(err.Error(), "OPENAI_API_KEY") || !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("401: %v", err)
	}
	for _, e := range []string{"openai:", "tesseract", "openai"} {
		if _, err := New(ctx, Config{OCR: OCRConfig{Engine: e}}, Options{}); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("engine %q: %v", e, err)
		}
	}
}
