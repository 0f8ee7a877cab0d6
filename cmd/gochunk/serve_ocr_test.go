package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
)

// postFiles posts files (name to bytes) to the server's /v1/chunk with
// trace on, and returns the status and the decoded answer (or the error
// body).
func postFiles(t *testing.T, addr string, files map[string][]byte, order ...string) (int, api.ChunkResponse, string) {
	t.Helper()
	var docs []map[string]any
	for _, name := range order {
		docs = append(docs, map[string]any{"id": name, "file_name": name, "file_base64": base64.StdEncoding.EncodeToString(files[name])})
	}
	body, _ := json.Marshal(map[string]any{"documents": docs, "trace": true, "config": map[string]any{"size": 60}})
	resp, err := http.Post("http://"+addr+"/v1/chunk", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out api.ChunkResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	return resp.StatusCode, out, string(b)
}

// checkChunks checks a document's chunks: exact offsets into its text,
// pages and boxes, and returns their text joined by spaces.
func checkChunks(t *testing.T, d api.ChunkResult) string {
	t.Helper()
	if d.Error != "" || len(d.Chunks) == 0 {
		t.Fatalf("document %s: %q, %d chunks", d.ID, d.Error, len(d.Chunks))
	}
	var text []string
	for _, c := range d.Chunks {
		if c.Start < 0 || c.End > len(d.Text) || d.Text[c.Start:c.End] != c.Text || c.Pages[0] < 1 || len(c.Boxes) == 0 {
			t.Errorf("document %s: chunk [%d, %d) %q, pages %v, %d boxes; text %q", d.ID, c.Start, c.End, c.Text, c.Pages, len(c.Boxes), d.Text)
		}
		text = append(text, c.Text)
	}
	return strings.Join(strings.Fields(strings.Join(text, " ")), " ")
}

// pageAnswer is the vision stub's text of page k of ocrtest.GreyPages.
func pageAnswer(k int) string {
	return fmt.Sprintf("Page %d of the scanned report.\nIts text was read by the vision model.", k)
}

// visionStub is a loopback vision chat endpoint answering pageAnswer of
// each marked page after delay, counting the requests in flight.
type visionStub struct {
	*httptest.Server
	mu             sync.Mutex
	inFlight, most int
	calls          int
}

func newVisionStub(t *testing.T, delay time.Duration) *visionStub {
	s := &visionStub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.inFlight++
		s.calls++
		s.most = max(s.most, s.inFlight)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
		model, images := ocrtest.ChatImages(r)
		if model != "vis" || len(images) != 1 {
			http.Error(w, `{"error": {"message": "want one PNG page for model vis"}}`, http.StatusBadRequest)
			return
		}
		time.Sleep(delay)
		b := images[0].Bounds()
		g := color.GrayModel.Convert(images[0].At(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()/2)).(color.Gray)
		ocrtest.ChatAnswer(w, pageAnswer((int(g.Y)+10)/20), 900, 20)
	}))
	t.Cleanup(s.Close)
	return s
}

// gochunk serve --ocr openai:MODEL reads images and scanned PDFs posted to
// /v1/chunk through the vision model, as gochunk chunk does: the chunks
// hold each page's answer in page order at exact offsets, with pages and
// boxes, and a document's pages are sent --llm-concurrency at once. The
// settings come from the flags, the environment (GOCHUNK_OCR) or
// --config's keys alike. Before, serve had no --ocr flag (and its
// --config refused the key).
func TestServeOCRVision(t *testing.T) {
	stub := newVisionStub(t, 50*time.Millisecond)
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("GOCHUNK_OCR_MODEL", "")
	const n = 6
	pages := ocrtest.GreyPages(n, 170, 220)
	files := map[string][]byte{"photo.png": ocrtest.PNG(t, pages[0]), "scan.pdf": ocrtest.ScanPDF(t, pages...)}
	var want []string
	for k := 1; k <= n; k++ {
		want = append(want, pageAnswer(k))
	}
	wantPDF := strings.Join(strings.Fields(strings.Join(want, " ")), " ")

	s := serveInProcess(t, nil, "--port", "0", "--ocr", "openai:vis", "--llm-url", stub.URL+"/v1", "--llm-concurrency", "4", "--ocr-dpi", "40")
	code, resp, body := postFiles(t, s.addr, files, "photo.png", "scan.pdf")
	if code != http.StatusOK || len(resp.Documents) != 2 {
		t.Fatalf("POST /v1/chunk: %d %s", code, body)
	}
	if got := checkChunks(t, resp.Documents[0]); got != strings.Join(strings.Fields(pageAnswer(1)), " ") {
		t.Errorf("photo.png: %q", got)
	}
	if got := checkChunks(t, resp.Documents[1]); got != wantPDF {
		t.Errorf("scan.pdf: %q, want the pages' answers in order %q", got, wantPDF)
	}
	last := 0
	for _, c := range resp.Documents[1].Chunks {
		if c.Pages[0] < last {
			t.Errorf("scan.pdf: chunk on pages %v after page %d", c.Pages, last)
		}
		last = c.Pages[1]
	}
	if last != n {
		t.Errorf("scan.pdf: the last chunk ends on page %d, want %d", last, n)
	}
	stub.mu.Lock()
	most, calls := stub.most, stub.calls
	stub.mu.Unlock()
	if calls != n+1 || most < 2 || most > 4 {
		t.Errorf("%d requests, %d in flight at most; want %d, 2 to 4 (--llm-concurrency 4)", calls, most, n+1)
	}
	logged := false
	for _, r := range s.records() {
		logged = logged || r["engine"] == "openai:vis"
	}
	if !logged {
		t.Errorf("no log line names the OCR engine: %v", s.records())
	}
	s.stop()

	// The environment and --config give the same settings.
	path := filepath.Join(t.TempDir(), "serve.yaml")
	os.WriteFile(path, []byte("port: 0\nocr: openai:vis\nocr_dpi: 40\nllm_url: "+stub.URL+"/v1\n"), 0o644)
	for name, run := range map[string]func() *served{
		"GOCHUNK_OCR": func() *served {
			return serveInProcess(t, map[string]string{"GOCHUNK_OCR": "auto,openai:vis", "GOCHUNK_LLM_URL": stub.URL + "/v1", "GOCHUNK_OCR_DPI": "40"}, "--port", "0")
		},
		"--config": func() *served { return serveInProcess(t, nil, "--config", path) },
	} {
		s := run()
		code, resp, body := postFiles(t, s.addr, files, "scan.pdf")
		if code != http.StatusOK || len(resp.Documents) != 1 || checkChunks(t, resp.Documents[0]) != wantPDF {
			t.Errorf("%s: %d %.300s", name, code, body)
		}
		s.stop()
	}
}

// A server without OCR answers an image 415 and a scanned PDF 422
// (needs_ocr), each naming the flags that give it OCR; --ocr always
// without models stops serve before it serves.
func TestServeWithoutOCR(t *testing.T) {
	t.Setenv("GOCHUNK_OCR_MODEL", "")
	page := ocrtest.GreyPages(1, 170, 220)
	files := map[string][]byte{"photo.png": ocrtest.PNG(t, page[0]), "scan.pdf": ocrtest.ScanPDF(t, page...)}
	s := serveInProcess(t, nil, "--port", "0")
	for name, want := range map[string]int{"photo.png": http.StatusUnsupportedMediaType, "scan.pdf": http.StatusUnprocessableEntity} {
		code, _, body := postFiles(t, s.addr, files, name)
		if code != want || !strings.Contains(body, "--ocr-model") || !strings.Contains(body, "--ocr openai:MODEL") || !strings.Contains(body, name) {
			t.Errorf("%s: %d %s; want %d naming the document and --ocr-model and --ocr openai:MODEL", name, code, body, want)
		}
	}
	s.stop()
	_, errs, code := runCmd(t, "", "serve", "--port", "0", "--ocr", "always")
	if code == 0 || !strings.Contains(errs, "--ocr-model") {
		t.Errorf("serve --ocr always without models: exit %d: %s", code, errs)
	}
	_, errs, code = runCmd(t, "", "serve", "--port", "0", "--ocr-model", t.TempDir())
	if code == 0 || !strings.Contains(errs, "OCR") {
		t.Errorf("serve --ocr-model of an empty directory: exit %d: %s", code, errs)
	}
}

// gochunk serve --ocr-model reads a photographed page and a scanned PDF
// with npm's PP-OCR models, as chunk does.
func TestServeOCRModels(t *testing.T) {
	models, lib := ocrtest.Models(t), onnxtest.Library(t)
	lines := []string{"Scanned contracts and faxed forms exist only as images.", "Their text is read by OCR into the same layout elements."}
	page := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, lines...)...)
	files := map[string][]byte{"photo.png": ocrtest.PNG(t, page), "scan.pdf": ocrtest.ScanPDF(t, page)}
	s := serveInProcess(t, nil, "--port", "0", "--ocr-model", models, "--onnx-library", lib, "--request-timeout", "300")
	code, resp, body := postFiles(t, s.addr, files, "photo.png", "scan.pdf")
	if code != http.StatusOK || len(resp.Documents) != 2 {
		t.Fatalf("POST /v1/chunk: %d %.500s", code, body)
	}
	for _, d := range resp.Documents {
		if got, want := checkChunks(t, d), strings.Join(lines, " "); ocrtest.CER(got, want) > 0.02 {
			t.Errorf("%s: %q, want %q", d.ID, got, want)
		}
	}
}
