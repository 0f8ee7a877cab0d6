package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/pipeline"
)

// proseDOCX returns a DOCX whose one paragraph is about n bytes of
// generated prose (it compresses to about a third).
func proseDOCX(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, err := z.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>`))
	w.Write([]byte(textgen.Prose(n, 1)))
	w.Write([]byte(`</w:t></w:r></w:p></w:body></w:document>`))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postAll sends body to url from n clients at once and returns their
// statuses and answers.
func postAll(url, body string, n int) ([]int, [][]byte) {
	codes, bodies := make([]int, n), make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				bodies[i] = []byte(err.Error())
				return
			}
			defer resp.Body.Close()
			codes[i] = resp.StatusCode
			bodies[i], _ = io.ReadAll(resp.Body)
		})
	}
	wg.Wait()
	return codes, bodies
}

// healthyAfter checks that the server answers /healthz and serves an
// ordinary client.
func healthyAfter(t *testing.T, url, what string) {
	t.Helper()
	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after %s the server is not healthy: %v", what, err)
	}
	resp.Body.Close()
	if code, b, _ := post(t, url+"/v1/chunk", `{"text": "A client after the attack."}`); code != 200 {
		t.Errorf("a client after %s: %d %.200s", what, code, b)
	}
}

// An office file's text is reserved times the chunker's memory factor,
// not three times over whatever the chunker: the same 4.5 MB DOCX (13 MB
// of prose) fits a 350 MiB budget (242 MiB for requests) with fast (2-3
// bytes a byte) and is refused with dp (6-11). Before, both were reserved
// alike (125 MB for dp, which then held several times that) and both
// answered 200.
func TestBudgetCountsChunkerFactor(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxMemory = 350 << 20; c.RequestTimeout = 30 * time.Second })
	f := base64.StdEncoding.EncodeToString(proseDOCX(t, 13<<20))
	for _, c := range []struct {
		chunker string
		status  int
	}{{"dp", 413}, {"fast", 200}} {
		body, _ := json.Marshal(map[string]any{"chunker": c.chunker, "documents": []map[string]any{{"file_base64": f, "file_name": "a.docx"}}})
		code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
		e := answerOK(t, c.chunker, code, b)
		if code != c.status {
			t.Fatalf("%s: %d, want %d: %.300s", c.chunker, code, c.status, b)
		}
		if code == 413 && (e.Error.Type != "over_memory_budget" || !strings.Contains(e.Error.Message, "memory budget")) {
			t.Errorf("%s: %+v", c.chunker, e.Error)
		}
	}
	healthyAfter(t, ts.URL, "a large DOCX")
}

// An e-mail's attachments are reserved as the message is read, before
// they are: eight 1 MB DOCX attachments of 3 MB of prose each take a
// message of 11 MB to about 100 MB more than its size says. Four copies
// at once are all refused (413, or 503 while the others hold the
// budget), each naming the message, and the server serves clients after.
// Before, attachments were not reserved at all: all four answered 200.
func TestBudgetCountsAttachments(t *testing.T) {
	_, ts := newTest(t, func(c *Config) {
		c.MaxMemory = 256 << 20
		c.RequestTimeout = 30 * time.Second
		c.QueueWait = time.Second
	})
	doc := proseDOCX(t, 3<<20)
	var atts []mailgen.Attachment
	for i := range 8 {
		atts = append(atts, mailgen.Attachment{Name: fmt.Sprintf("part%d.docx", i), Media: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: doc})
	}
	msg := mailgen.Message("Reports", "Eight reports are attached.", atts...)
	body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"id": "m", "file_base64": base64.StdEncoding.EncodeToString(msg), "file_name": "m.eml"}}})
	codes, bodies := postAll(ts.URL+"/v1/chunk", string(body), 4)
	for i, code := range codes {
		e := answerOK(t, "attachments", code, bodies[i])
		switch {
		case code == 413 && e.Error.Type == "over_memory_budget":
			if !strings.Contains(e.Error.Message, `document "m"`) || !strings.Contains(e.Error.Message, "8 attachments") {
				t.Errorf("copy %d: %q does not name the message and its attachments", i, e.Error.Message)
			}
		case code == 503 && e.Error.Type == "memory_busy":
		default:
			t.Errorf("copy %d: %d, want 413 (or 503): %.300s", i, code, bodies[i])
		}
	}
	healthyAfter(t, ts.URL, "four messages of attachments")
	// A message whose attachments fit is served, its attachments too.
	small := mailgen.Message("Notes", "One note.", mailgen.Attachment{Name: "n.docx", Media: "application/octet-stream", Data: proseDOCX(t, 4<<10)})
	body, _ = json.Marshal(map[string]any{"documents": []map[string]any{{"id": "s", "file_base64": base64.StdEncoding.EncodeToString(small), "file_name": "s.eml"}}})
	code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
	var resp api.ChunkResponse
	if code != 200 || json.Unmarshal(b, &resp) != nil || len(resp.Documents) != 2 || resp.Documents[1].Error != "" || len(resp.Documents[1].Chunks) == 0 {
		t.Errorf("a small message: %d %.300s", code, b)
	}
}

// Attachments count against the request's document limit.
func TestAttachmentsCountAsDocuments(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxDocuments = 5 })
	var atts []mailgen.Attachment
	for i := range 5 {
		atts = append(atts, mailgen.Attachment{Name: fmt.Sprintf("n%d.txt", i), Media: "text/plain", Data: []byte("A note.")})
	}
	msg := mailgen.Message("Notes", "Five notes.", atts...)
	body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"id": "m", "file_base64": base64.StdEncoding.EncodeToString(msg), "file_name": "m.eml"}}})
	code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
	e := answerOK(t, "five attachments", code, b)
	if code != 413 || e.Error.Type != "too_many_documents" || !strings.Contains(e.Error.Message, "attachments included") {
		t.Errorf("a message of five attachments with a limit of five documents: %d %.300s", code, b)
	}
	msg = mailgen.Message("Notes", "Four notes.", atts[:4]...)
	body, _ = json.Marshal(map[string]any{"documents": []map[string]any{{"id": "m", "file_base64": base64.StdEncoding.EncodeToString(msg), "file_name": "m.eml"}}})
	if code, b, _ := post(t, ts.URL+"/v1/chunk", string(body)); code != 200 {
		t.Errorf("four attachments: %d %.300s", code, b)
	}
}

// The documents of a request (an e-mail's attachments among them) that
// have not started when its context ends are not started: past the
// deadline, the work left is that of the documents in flight. Before, all
// forty were read and chunked after the 504.
func TestRunStopsWithItsContext(t *testing.T) {
	s, _ := newTest(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := httptest.NewRequest(http.MethodPost, "/v1/chunk", nil).WithContext(ctx)
	var calls atomic.Int32
	errs := make([]error, 40)
	_, ok := s.run(httptest.NewRecorder(), r, s.base, errs, false, func(i int) (pipeline.Result, error) {
		calls.Add(1)
		cancel() // the deadline passes while the first documents are read
		return pipeline.Result{}, nil
	})
	if n := int(calls.Load()); !ok || n > runtime.GOMAXPROCS(0) {
		t.Errorf("%d of 40 documents started after the context ended (%d at once)", n, runtime.GOMAXPROCS(0))
	}
	if errs[len(errs)-1] == nil {
		t.Error("a document not started has no error")
	}
}

// A PDF is reserved by the content its pages draw, not its file size: a
// 35 KB PDF whose page draws 12 MB of content (PDFium holds about 20
// bytes a byte of it) is refused by a 256 MiB budget, a small PDF of the
// same shape is served. Before, both reserved 64 MiB and 32 times the
// file, and the first answered 200.
func TestBudgetCountsPDFContent(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxMemory = 256 << 20; c.RequestTimeout = 30 * time.Second })
	for _, c := range []struct {
		name    string
		content int
		status  int
	}{{"12 MB of content", 12 << 20, 413}, {"8 KB of content", 8 << 10, 200}} {
		pdf := pdfgen.BigContent(c.content)
		body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"pdf_base64": base64.StdEncoding.EncodeToString(pdf)}}})
		code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
		e := answerOK(t, c.name, code, b)
		if code != c.status {
			t.Errorf("%s (a PDF of %d bytes): %d, want %d: %.300s", c.name, len(pdf), code, c.status, b)
		}
		if code == 413 && e.Error.Type != "over_memory_budget" {
			t.Errorf("%s: %+v", c.name, e.Error)
		}
	}
	healthyAfter(t, ts.URL, "a PDF of large content")
}

// PDFium's memory, all PDFs read at once together, is held to half of
// what requests may reserve (1 GiB at most), unless configured.
func TestPDFMemoryFollowsBudget(t *testing.T) {
	for _, c := range []struct{ budget, configured, want int64 }{
		{512 << 20, 0, (512<<20 - 64<<20 - 64<<20) / 2}, // the cache (1/8) and the process come off first
		{16 << 30, 0, 1 << 30},
		{512 << 20, 64 << 20, 64 << 20},
	} {
		s, _ := newTest(t, func(cfg *Config) { cfg.MaxMemory, cfg.Pipeline.PDFMemory = c.budget, c.configured })
		if got := s.base.Config().PDFMemory; got != c.want {
			t.Errorf("budget %d, configured %d: PDF memory %d, want %d", c.budget, c.configured, got, c.want)
		}
	}
}
