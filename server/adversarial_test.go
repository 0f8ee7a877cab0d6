package server

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
)

// answerOK checks that an answer is well-formed: JSON, and for an error
// the API's error shape in the project's words (no Go types).
func answerOK(t *testing.T, what string, code int, body []byte) api.ErrorBody {
	t.Helper()
	var e api.ErrorBody
	if !json.Valid(body) {
		t.Errorf("%s: %d, not JSON: %.200s", what, code, body)
		return e
	}
	if code >= 400 {
		if json.Unmarshal(body, &e) != nil || e.Error.Message == "" || e.Error.Type == "" {
			t.Errorf("%s: %d without the error shape: %.200s", what, code, body)
		}
		for _, goish := range []string{"Go struct", "of type ", "json: ", "api.", "[]string", "map["} {
			if strings.Contains(e.Error.Message, goish) {
				t.Errorf("%s: the error names Go: %q", what, e.Error.Message)
			}
		}
	}
	if code >= 500 && code != 503 && code != 504 {
		t.Errorf("%s: %d: %s", what, code, body)
	}
	return e
}

// The bounded adversarial suite: each request of the issues' reproductions
// and each class of bad input gets its answer (status, error kind, words
// naming what to fix), and the server stays healthy after every one.
func TestAdversarialRequests(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxDocuments = 50 })
	deepJSON := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	var deepHTML strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&deepHTML, "<div>word%d ", i)
	}
	blank := strings.Repeat("\n", 1<<20)
	oneToken := strings.Repeat("a", 1<<20)
	many := make([]string, 51)
	for i := range many {
		many[i] = "x"
	}
	manyJSON, _ := json.Marshal(map[string]any{"model": "lexical", "input": many})
	big := func(chunker, text string) string {
		b, _ := json.Marshal(map[string]any{"chunker": chunker, "text": text})
		return string(b)
	}
	for _, c := range []struct {
		name, path, body string
		status           int
		kind, words      string // the error's type, and words its message holds
	}{
		{"mst distance_threshold 1e9", "/v1/chunk", `{"chunker":"mst","config":{"distance_threshold":1000000000},"text":"a b. c d. e f."}`, 400, "invalid_chunker", `"distance_threshold" of mst: want an integer from 2 to 4096`},
		{"mst distance_threshold 2^62", "/v1/chunk", `{"chunker":"mst","config":{"distance_threshold":4611686018427387904},"text":"a b. c d. e f."}`, 400, "invalid_chunker", "from 2 to 4096"},
		{"size 2^61", "/v1/chunk", `{"chunker":"recursive","config":{"size":2305843009213693952},"text":"a b c"}`, 400, "invalid_chunker", `"size" of recursive: want an integer from 1 to 1073741824`},
		{"size as text", "/v1/chunk", `{"config":{"size":"ten"},"text":"a b c"}`, 400, "invalid_chunker", `want an integer, got "ten"`},
		{"chunker as a number", "/v1/chunk", `{"chunker":5,"text":"x"}`, 400, "invalid_json", `field "chunker": want a string, got a number`},
		{"documents as a string", "/v1/chunk", `{"documents":"x"}`, 400, "invalid_json", `field "documents": want a list of objects, got a string`},
		{"document text as a list", "/v1/chunk", `{"documents":[{"text":["x"]}]}`, 400, "invalid_json", `field "documents.text": want a string, got a list`},
		{"unknown field", "/v1/chunk", `{"txt":"x"}`, 400, "invalid_json", `unknown field "txt" (known: chunker, config, tokenizer, embed, trace, context, parents, render_pages, documents, text)`},
		{"lone surrogate", "/v1/chunk", `{"text":"a \ud800 b"}`, 400, "invalid_json", `surrogate`},
		{"reversed surrogates", "/v1/chunk", `{"text":"\udc00\ud800"}`, 400, "invalid_json", `surrogate`},
		{"a valid pair", "/v1/chunk", `{"text":"emoji \ud83d\ude00 here, and an escaped \\ud800 that is text"}`, 200, "", ""},
		{"deep JSON", "/v1/chunk", `{"config":` + deepJSON + `}`, 400, "", ""},
		{"not JSON", "/v1/chunk", `{"text": "x",}`, 400, "invalid_json", "not valid JSON at byte"},
		{"empty body", "/v1/chunk", ``, 400, "invalid_json", "the body is empty"},
		{"truncated body", "/v1/chunk", `{"text": "x"`, 400, "invalid_json", "ends before"},
		{"an array body", "/v1/chunk", `["x"]`, 400, "invalid_json", "must be a JSON object"},
		{"text and documents", "/v1/chunk", `{"text":"a","documents":[{"text":"b"}]}`, 400, "ambiguous_input", "not both"},
		{"too many documents", "/v1/chunk", `{"documents":[` + strings.TrimSuffix(strings.Repeat(`{"text":"x"},`, 51), ",") + `]}`, 413, "too_many_documents", "limit is 50"},
		{"too many embeddings inputs", "/v1/embeddings", string(manyJSON), 413, "too_many_documents", "limit is 50"},
		{"embed max_size 2^62", "/embed", `{"documents":[{"id":"a","text":"x y z.","chunking_config":{"max_size":4611686018427387904}}]}`, 200, "", ""},
		{"deep HTML", "/v1/chunk", func() string {
			b, _ := json.Marshal(map[string]any{"documents": []map[string]string{{"html": deepHTML.String()}}})
			return string(b)
		}(), 200, "", ""},
		{"a megabyte of blank lines, sentence", "/v1/chunk", big("sentence", blank), 200, "", ""},
		{"a megabyte of blank lines, markdown", "/v1/chunk", big("markdown", blank), 200, "", ""},
		{"a megabyte of blank lines, adaptive", "/v1/chunk", big("adaptive", blank), 200, "", ""},
		{"a megabyte of blank lines, semantic", "/v1/chunk", big("semantic", blank), 200, "", ""},
		{"a megabyte-long token, dp", "/v1/chunk", big("dp", oneToken), 200, "", ""},
		{"a megabyte-long token, mst", "/v1/chunk", big("mst", oneToken), 200, "", ""},
		{"huge number_of_chunks", "/v1/chunk", `{"chunker":"semantic","config":{"number_of_chunks":1073741824},"text":"One. Two. Three."}`, 200, "", ""},
		{"search k too large", "/v1/search", `{"query":"x","k":100000}`, 400, "", ""},
		{"dimensions negative", "/v1/embeddings", `{"model":"lexical","input":"x","dimensions":-1}`, 400, "invalid_dimensions", ""},
	} {
		code, body, _ := post(t, ts.URL+c.path, c.body)
		e := answerOK(t, c.name, code, body)
		if code != c.status && !(c.path == "/v1/search" && code == 404) { // no store: search is refused either way
			t.Errorf("%s: %d, want %d: %.300s", c.name, code, c.status, body)
		}
		if c.kind != "" && e.Error.Type != c.kind {
			t.Errorf("%s: error type %q, want %q", c.name, e.Error.Type, c.kind)
		}
		if !strings.Contains(e.Error.Message, c.words) {
			t.Errorf("%s: %q does not say %q", c.name, e.Error.Message, c.words)
		}
		if c.status == 200 && strings.Contains(string(body), `"error":"`) && !strings.Contains(c.name, "embed") {
			t.Errorf("%s: a document failed: %.300s", c.name, body)
		}
		resp, err := http.Get(ts.URL + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("after %s the server is not healthy: %v", c.name, err)
		}
		resp.Body.Close()
	}
	// A wrong method on a known path is 405 with Allow; an unknown path 404.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/chunk", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /v1/chunk: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if code, _, h := post(t, ts.URL+"/healthz", ""); code != 405 || !strings.Contains(h.Get("Allow"), "GET") {
		t.Errorf("POST /healthz: %d, Allow %q", code, h.Get("Allow"))
	}
	if code, _, _ := post(t, ts.URL+"/v2/nothing", "{}"); code != 404 {
		t.Errorf("an unknown path: %d", code)
	}
}

// FuzzAPI sends random bodies to every endpoint: every answer is
// well-formed JSON, no request is a 500 (a recovered panic is a bug), and
// the server stays healthy.
func FuzzAPI(f *testing.F) {
	for _, seed := range []string{
		`{"text": "Hello. World."}`, `{"chunker":"mst","config":{"distance_threshold":7},"text":"a b. c d."}`,
		`{"chunker":"semantic","config":{"size":3},"documents":[{"id":"1","text":"x y z. a b c."}]}`,
		`{"documents":[{"id":"a","text":"x","chunking_config":{"max_size":2}}]}`, `{"model":"lexical","input":["a",[1,2]]}`,
		`{"chunker":"table","documents":[{"html":"<table><tr><th>a</th></tr><tr><td>b</td></tr></table>"}]}`,
		`{"chunker":"s2","documents":[{"elements":[{"text":"x","page":1,"bbox":[0,0,1,1]}]}]}`, `{"query":"x"}`,
		// Issue 48's template attacks.
		`{"text":"x","context":{"mode":"template","template":"{{range 100000}}{{printf \"%01000000d\" 0}}{{end}}{{.Text}}"}}`,
		`{"text":"x","context":{"mode":"template","template":"{{range 1500000000}}{{end}}{{.Text}}"}}`,
		`{"text":"x","context":{"mode":"template","template":"{{$a := \"ab\"}}{{range 64}}{{$a = printf \"%s%s\" $a $a}}{{end}}{{.Text}}"}}`,
	} {
		for i := range 4 {
			f.Add(uint8(i), seed)
		}
	}
	// Issue 48's expansion attacks, small enough for a seed: a 12 KB DOCX
	// of 8 MB, alone and attached to a message, chunked with dp (a memory
	// factor of 11).
	var docx bytes.Buffer
	z := zip.NewWriter(&docx)
	w, _ := z.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>A`))
	w.Write(bytes.Repeat([]byte(" "), 8<<20))
	w.Write([]byte(`</w:t></w:r></w:p></w:body></w:document>`))
	z.Close()
	msg := mailgen.Message("Bomb", "Attached.", mailgen.Attachment{Name: "a.docx", Media: "application/octet-stream", Data: docx.Bytes()},
		mailgen.Attachment{Name: "b.docx", Media: "application/octet-stream", Data: docx.Bytes()})
	// And the PDFs (internal/pdfgen's attacks): a form XObject bomb 20
	// deep (4.7 KB; also written as PDF 1.5 writers do, and as the third
	// of five pages), a page of 4 MB of content (13 KB) and one of a
	// Flate-compressed 100 MB stream (281 KB), a page of a million
	// characters (4.2 KB); their pages drawn too (render_pages).
	for _, file := range []struct {
		name string
		data []byte
	}{{"a.docx", docx.Bytes()}, {"m.eml", msg}, {"forms.pdf", pdfgen.FormBomb(20)}, {"compact.pdf", pdfgen.FormBombCompact(20)},
		{"page3.pdf", pdfgen.WithFormBombPage(5, 3, 20)}, {"content.pdf", pdfgen.BigContent(4 << 20)},
		{"stream.pdf", pdfgen.BigContent(100 << 20)}, {"chars.pdf", pdfgen.ManyChars(1_000_000)}} {
		b, _ := json.Marshal(map[string]any{"chunker": "dp", "documents": []map[string]any{{"file_base64": base64.StdEncoding.EncodeToString(file.data), "file_name": file.name}}})
		f.Add(uint8(0), string(b))
		if strings.HasSuffix(file.name, ".pdf") {
			b, _ := json.Marshal(map[string]any{"render_pages": true, "documents": []map[string]any{{"pdf_base64": base64.StdEncoding.EncodeToString(file.data)}}})
			f.Add(uint8(0), string(b))
		}
	}
	s, err := New(f.Context(), DefaultConfig(), nil)
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	paths := []string{"/v1/chunk", "/embed", "/v1/embeddings", "/v1/search"}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		if len(body) > 1<<19 { // the seeds' 100 MB stream is 375 KB
			return
		}
		path := paths[int(which)%len(paths)]
		rec := httptest.NewRecorder()
		req, _ := http.NewRequest(http.MethodPost, path, strings.NewReader(body))
		h.ServeHTTP(rec, req)
		answerOK(t, path+" "+body, rec.Code, rec.Body.Bytes())
		rec = httptest.NewRecorder()
		req, _ = http.NewRequest(http.MethodGet, "/healthz", nil)
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("unhealthy after %s %q", path, body)
		}
	})
}

// The memory budget holds for what a request's text costs, not only for
// its size: one run of megabytes without white space is one BPE
// pre-token, whose merges need tens of bytes per byte, so such a request
// is refused where ordinary text of the same size fits.
func TestBudgetCountsLongRuns(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxMemory = 256 << 20 })
	prose := strings.Repeat("A short sentence of prose. ", 6<<20/27)
	for _, c := range []struct {
		name, text string
		status     int
	}{
		{"prose", prose, 200},
		{"one run", strings.Repeat("a", len(prose)), 413},
		{"blank lines", strings.Repeat("\n", len(prose)), 413},
	} {
		body, _ := json.Marshal(map[string]any{"chunker": "sentence", "tokenizer": "cl100k_base", "text": c.text})
		code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
		answerOK(t, c.name, code, b)
		if code != c.status {
			t.Errorf("%s: %d, want %d: %.200s", c.name, code, c.status, b)
		}
	}
	// Counted in runes, the same run costs no more than its size.
	body, _ := json.Marshal(map[string]any{"chunker": "sentence", "text": strings.Repeat("a", len(prose))})
	if code, b, _ := post(t, ts.URL+"/v1/chunk", string(body)); code != 200 {
		t.Errorf("one run in runes: %d %.200s", code, b)
	}
}

// An office file expands its parts in memory: the reservation counts what
// its zip directory declares, within the reader's bounds. A 200 KB DOCX
// whose document part declares 150 MB is refused, by the budget (413) or
// by the reader before it expands the part (its bound is 100 times the
// file, at least 64 MiB); the same text in a small DOCX gets 200. Before,
// both were reserved by their base64 body alone.
func TestBudgetCountsOfficeExpansion(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxMemory = 256 << 20 })
	docx := func(words int) string {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		w, _ := z.Create("word/document.xml")
		w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Hello from Word.`))
		w.Write(bytes.Repeat([]byte(" "), words))
		w.Write([]byte(`</w:t></w:r></w:p></w:body></w:document>`))
		z.Close()
		return base64.StdEncoding.EncodeToString(buf.Bytes())
	}
	for _, c := range []struct {
		name   string
		spaces int
		status int
	}{{"small", 100, 200}, {"expands to 150 MB", 150 << 20, 413}} {
		f := docx(c.spaces)
		body, _ := json.Marshal(map[string]any{"chunker": "recursive", "documents": []map[string]any{{"file_base64": f, "file_name": "a.docx"}}})
		code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
		answerOK(t, c.name, code, b)
		if c.status == 413 && code == 200 && strings.Contains(string(b), "expands beyond the reader's bounds") {
			continue // refused by the reader, by its declared size
		}
		if code != c.status {
			t.Errorf("%s (%d bytes of base64): %d, want %d: %.200s", c.name, len(f), code, c.status, b)
		}
	}
}

// Context templates come from requests: each attack of issue 48 gets a
// clear 400 at once and gives back its concurrency slot, so that other
// clients are served after. Before, the 150-byte printf request ran until
// the server died, and two {{range 1500000000}} requests held both slots
// of this server for 80 s after their 504s (a third client got 429).
func TestContextTemplateAttacks(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.MaxConcurrent = 2; c.RequestTimeout = 5 * time.Second })
	chunk := func(tmpl string) string {
		b, _ := json.Marshal(map[string]any{"text": "Some text to chunk.", "context": map[string]any{"mode": "template", "template": tmpl}})
		return string(b)
	}
	// Twenty megabytes of output: before the bound, answered 200 (with the
	// twenty megabytes as the chunk's embedded text); stop there when so.
	code, body, _ := post(t, ts.URL+"/v1/chunk", chunk(`{{range 20}}{{printf "%01000000d" 0}}{{end}}{{.Text}}`))
	if e := answerOK(t, "20 MB of context", code, body); code != 400 || e.Error.Type != "invalid_context" {
		t.Fatalf("20 MB of context: %d %.300s", code, body)
	}
	for _, c := range []struct{ name, tmpl, words string }{
		{"the 150-byte request", `{{range 100000}}{{printf "%01000000d" 0}}{{end}}{{.Text}}`, "would make more than"},
		{"a range over a variable", `{{$n := 1500000000}}{{range $n}}{{end}}{{.Text}}`, "loop iterations"},
		{"recursion", `{{define "x"}}{{template "x"}}{{template "x"}}{{end}}{{template "x"}}{{.Text}}`, "cannot recurse"},
	} {
		code, body, _ := post(t, ts.URL+"/v1/chunk", chunk(c.tmpl))
		e := answerOK(t, c.name, code, body)
		if code != 400 || e.Error.Type != "invalid_context" || !strings.Contains(e.Error.Message, c.words) {
			t.Errorf("%s: %d %.300s, want 400 saying %q", c.name, code, body, c.words)
		}
	}
	// Two loops of a billion at once, as many as the server serves: both
	// refused, and their slots free for the next client.
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() {
			resp, err := http.Post(ts.URL+"/v1/chunk", "application/json", strings.NewReader(chunk(`{{range 1500000000}}{{end}}{{.Text}}`)))
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	if codes[0] != 400 || codes[1] != 400 {
		t.Errorf("two loops of a billion: %v, want 400 each", codes)
	}
	for i := range 3 {
		if code, body, _ := post(t, ts.URL+"/v1/chunk", `{"text": "A client after the attacks."}`); code != 200 {
			t.Errorf("a client after the attacks (%d): %d %.200s", i, code, body)
		}
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the template attacks the server is not healthy: %v", err)
	}
	resp.Body.Close()
}
