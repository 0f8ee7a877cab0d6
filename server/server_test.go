package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/semantic"
	"github.com/gochunk/gochunk/store"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/tokenize"
)

func newTest(t *testing.T, mod func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	cfg := DefaultConfig()
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

func post(t *testing.T, url, body string, header ...string) (int, []byte, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

func TestEmbedReferenceAPI(t *testing.T) {
	_, ts := newTest(t, nil)
	body := `{"documents": [
		{"id": "doc1", "text": "First document text. These are separated by delimiters such as. Or? And!"},
		{"id": "doc2", "text": "Second document text.", "chunking_config": {"optimal_size": 300, "max_size": 400, "lambda_size": 1.5, "chunk_penalty": 2.0}},
		{"id": "bad", "text": "x", "chunking_config": {"optimal_size": 600, "max_size": 400}},
		{"id": "", "text": "no id"},
		{"id": "doc1", "text": "duplicate"},
		{"id": "notext"}]}`
	code, b, _ := post(t, ts.URL+"/embed", body)
	if code != 200 {
		t.Fatalf("status %d: %s", code, b)
	}
	// Field names exactly as the reference: decode into a generic map.
	var resp map[string][]map[string]any
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	docs := resp["documents"]
	if len(docs) != 6 {
		t.Fatalf("%d documents", len(docs))
	}
	for _, d := range docs[:2] {
		if d["error"] != "" {
			t.Errorf("%v: error %v", d["id"], d["error"])
		}
		chunks := d["chunks"].([]any)
		if len(chunks) == 0 {
			t.Fatalf("%v: no chunks", d["id"])
		}
		c := chunks[0].(map[string]any)
		for _, k := range []string{"text", "embedding", "num_sentences", "token_count", "chunk_index"} {
			if _, ok := c[k]; !ok {
				t.Errorf("chunk lacks %q", k)
			}
		}
		if len(c) != 5 {
			t.Errorf("chunk has fields %v", c)
		}
		// token_count is in the embedder's tokens (cl100k_base for the
		// lexical embedder, which has none), as the reference counts model
		// tokens, not runes.
		cl, _ := tokenize.New("cl100k_base")
		if n := c["token_count"].(float64); int(n) != cl.Count(c["text"].(string)) {
			t.Errorf("token_count %v, want the cl100k_base count %d", n, cl.Count(c["text"].(string)))
		}
	}
	if n := docs[0]["chunks"].([]any)[0].(map[string]any)["num_sentences"].(float64); n != 4 {
		t.Errorf("num_sentences %v, want 4", n)
	}
	for i, want := range map[int]string{2: "optimal_size (600) must not exceed max_size (400)", 3: "missing id", 4: "duplicate id", 5: "missing text"} {
		if e, _ := docs[i]["error"].(string); !strings.Contains(e, want) || len(docs[i]["chunks"].([]any)) != 0 {
			t.Errorf("document %d: error %q, want %q", i, e, want)
		}
	}
}

func TestBadRequests(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.BodyLimit = 1 << 20; c.MaxDocuments = 100 })
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf(`{"id":"%d","text":"x"}`, i)
	}
	tests := []struct {
		name, path, body string
		code             int
		want             string
	}{
		{"malformed json", "/embed", `{"documents": [`, 400, "the body ends before its JSON does"},
		{"unknown field", "/embed", `{"documents": [{"id": "a", "txt": "x"}]}`, 400, "txt"},
		{"no documents", "/embed", `{"documents": []}`, 400, "no documents"},
		// The same words as the command line's.
		{"mistyped parameter", "/v1/chunk", `{"chunker": "savgol", "config": {"size": "ten"}, "documents": [{"text": "x"}]}`, 400, `parameter "size" of savgol: want an integer, got "ten"`},
		{"unknown parameter", "/v1/chunk", `{"chunker": "savgol", "config": {"overlap": 3}, "documents": [{"text": "x"}]}`, 400, `unknown parameter "overlap" for savgol (it has: size,`},
		{"too many documents", "/embed", `{"documents": [` + strings.Join(many, ",") + `]}`, 413, "limit is 100"},
		{"body too large", "/embed", `{"documents": [{"id": "a", "text": "` + strings.Repeat("x", 2<<20) + `"}]}`, 413, "over 1048576 bytes"},
		{"invalid utf-8", "/embed", "{\"documents\": [{\"id\": \"a\", \"text\": \"bad \xff\"}]}", 400, "invalid UTF-8 at byte 40"},
		{"unknown chunker", "/v1/chunk", `{"chunker": "nope", "text": "x"}`, 400, "unknown chunker"},
		{"negative size", "/v1/chunk", `{"chunker": "recursive", "config": {"size": -3}, "text": "x"}`, 400, `"size" of recursive: want an integer from 1 to 1073741824, got -3`},
		{"unknown parameter", "/v1/chunk", `{"chunker": "recursive", "config": {"sise": 3}, "text": "x"}`, 400, "sise"},
		{"unknown tokenizer", "/v1/chunk", `{"tokenizer": "gpt9", "text": "x"}`, 400, "unknown tokenizer"},
		{"unknown model", "/v1/embeddings", `{"model": "ada", "input": "x"}`, 400, "not served"},
		{"bad input", "/v1/embeddings", `{"model": "lexical", "input": [1.5]}`, 400, "not a token id"},
		{"empty input", "/v1/embeddings", `{"model": "lexical", "input": ""}`, 400, "empty string"},
		{"no input", "/v1/embeddings", `{"model": "lexical", "input": []}`, 400, "empty list"},
		{"chunk document without text", "/v1/chunk", `{"documents": [{"id": "a", "text": "x"}, {"id": "b"}]}`, 400, "document 1 has no text"},
		{"lexical shortened", "/v1/embeddings", `{"model": "lexical", "input": "x", "dimensions": 8}`, 400, "cannot give 8"},
		{"wrong dimensions", "/v1/embeddings", `{"model": "lexical", "input": "x", "dimensions": 3}`, 400, "1024 dimensions"},
		{"not found", "/nope", `{}`, 404, "no endpoint"},
		{"unknown context", "/v1/chunk", `{"context": {"mode": "summary"}, "text": "x"}`, 400, `context.mode "summary": want none, headings, template or llm`},
		{"negative parents", "/v1/chunk", `{"parents": -1, "text": "x"}`, 400, `"parents"`},
		{"template without text", "/v1/chunk", `{"context": {"mode": "template", "template": "{{.Title}}"}, "text": "x"}`, 400, "must use {{.Text}}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, b, h := post(t, ts.URL+tc.path, tc.body)
			var eb api.ErrorBody
			if code != tc.code || json.Unmarshal(b, &eb) != nil || !strings.Contains(eb.Error.Message, tc.want) || eb.Error.RequestID == "" {
				t.Errorf("status %d (want %d), body %.300s", code, tc.code, b)
			}
			if h.Get("Content-Type") != "application/json" {
				t.Errorf("content type %q", h.Get("Content-Type"))
			}
		})
	}
	// The server keeps serving.
	if code, _, _ := post(t, ts.URL+"/v1/chunk", `{"text": "still alive"}`); code != 200 {
		t.Errorf("after bad requests: %d", code)
	}
}

// A request's context reaches its records: exact text and offsets, the
// embedded text with the heading path, lines.
func TestChunkContext(t *testing.T) {
	_, ts := newTest(t, nil)
	text := "# Guide\n\nIntro.\n\n## Install\n\nRun the installer."
	body, _ := json.Marshal(map[string]any{"config": map[string]any{"size": 20}, "context": map[string]any{"mode": "headings"}, "parents": 60,
		"documents": []map[string]any{{"id": "guide.md", "text": text}}})
	code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
	var resp api.ChunkResponse
	if code != 200 || json.Unmarshal(b, &resp) != nil || len(resp.Documents) != 1 {
		t.Fatalf("status %d: %.300s", code, b)
	}
	found := false
	for _, c := range resp.Documents[0].Chunks {
		if text[c.Start:c.End] != c.Text || c.Lines[0] < 1 || c.Parent == nil || c.Parent.Start > c.Start || c.Parent.End < c.End {
			t.Errorf("chunk %+v", c)
		}
		if strings.Contains(c.Text, "installer") {
			found = true
			if c.EmbedText != "Guide > Install\n\n"+c.Text || c.Lines != [2]int{7, 7} {
				t.Errorf("embedded as %q, lines %v", c.EmbedText, c.Lines)
			}
		}
	}
	if !found {
		t.Errorf("no chunk holds the last line: %.300s", b)
	}
}

func TestChunkEndpoint(t *testing.T) {
	_, ts := newTest(t, nil)
	body := `{"chunker": "mst", "tokenizer": "words", "embed": true, "documents": [
		{"id": "a", "text": "# Cats\n\nCats purr. Cats sleep.\n\n# Dogs\n\nDogs bark."},
		{"id": "b", "text": "bad \ufffd fine"}]}`
	code, b, _ := post(t, ts.URL+"/v1/chunk", body)
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	var resp api.ChunkResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Tokenizer != "words" || len(resp.Documents) != 2 {
		t.Fatalf("%+v", resp)
	}
	for _, c := range resp.Documents[0].Chunks {
		if len(c.Embedding) != 1024 || c.TokenCount == 0 {
			t.Errorf("chunk %+v", c)
		}
	}
	// Every chunker is served.
	code, b, _ = post(t, ts.URL+"/v1/chunkers", "")
	if code != 405 && code != 404 {
		t.Errorf("POST /v1/chunkers: %d", code)
	}
	resp2, err := http.Get(ts.URL + "/v1/chunkers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	var list struct{ Chunkers []struct{ Name string } }
	json.NewDecoder(resp2.Body).Decode(&list)
	if len(list.Chunkers) < 13 {
		t.Errorf("%d chunkers listed", len(list.Chunkers))
	}
}

// gochunk's own openai provider works against /v1/embeddings.
func TestOpenAIClientAgainstServer(t *testing.T) {
	_, ts := newTest(t, nil)
	o, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "lexical"})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := o.Embed(context.Background(), []string{"the cat sat", "", "markets fell"})
	if err != nil {
		t.Fatal(err)
	}
	local, _ := embed.NewLexical(embed.LexicalConfig{}).Embed(context.Background(), []string{"the cat sat"})
	if len(vs) != 3 || len(vs[0]) != len(local[0]) || !slices.Equal(vs[0], local[0]) {
		t.Errorf("vectors differ from the local lexical embedder")
	}
	code, b, _ := post(t, ts.URL+"/v1/embeddings", `{"model": "lexical", "input": ["a b"], "encoding_format": "base64"}`)
	if code != 200 || !strings.Contains(string(b), `"embedding":"`) {
		t.Errorf("base64: %d %.100s", code, b)
	}
}

// With a token, the API and /metrics need it (a wrong one of any length
// is refused alike); the probes, the OpenAPI description and the
// playground's page stay open.
func TestAuthHealthMetricsOpenAPI(t *testing.T) {
	_, ts := newTest(t, func(c *Config) { c.Token = "s3cret" })
	for _, auth := range []string{"", "Bearer s3cre", "Bearer s3cret2", "Bearer S3CRET", "Basic s3cret", "Bearers3cret", "s3cret", "Bearer"} {
		if code, _, h := post(t, ts.URL+"/v1/chunk", `{"text": "x"}`, "Authorization", auth); code != 401 || h.Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d", auth, code)
		}
	}
	// The scheme is case-insensitive (RFC 9110), the token is not.
	for _, auth := range []string{"Bearer s3cret", "bearer s3cret", "BEARER s3cret", "Bearer  s3cret"} {
		if code, _, _ := post(t, ts.URL+"/v1/chunk", `{"text": "x"}`, "Authorization", auth); code != 200 {
			t.Errorf("Authorization %q: %d", auth, code)
		}
	}
	get := func(path, auth string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, path := range []string{"/healthz", "/readyz", "/openapi.json", "/", "/playground/"} {
		code, b := get(path, "")
		if code != 200 {
			t.Errorf("%s without a token: %d", path, code)
		}
		if path == "/openapi.json" && !json.Valid(b) {
			t.Error("openapi.json is not JSON")
		}
	}
	for _, path := range []string{"/metrics", "/v1/chunkers", "/v1/models"} {
		if code, _ := get(path, ""); code != 401 {
			t.Errorf("%s without a token: %d, want 401", path, code)
		}
	}
	code, b := get("/metrics", "Bearer s3cret")
	if code != 200 || !strings.Contains(string(b), "gochunk_http_requests_total") {
		t.Errorf("metrics with the token: %d, request counts %v", code, strings.Contains(string(b), "gochunk_http_requests_total"))
	}
}

// Excess concurrent requests get 429 with Retry-After, not a queue.
func TestConcurrencyLimit(t *testing.T) {
	s, ts := newTest(t, func(c *Config) { c.MaxConcurrent = 1 })
	s.sem <- struct{}{} // one request in flight
	code, _, h := post(t, ts.URL+"/v1/chunk", `{"text": "x"}`)
	<-s.sem
	if code != 429 || h.Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q", code, h.Get("Retry-After"))
	}
	if code, _, _ := post(t, ts.URL+"/v1/chunk", `{"text": "x"}`); code != 200 {
		t.Errorf("after the slot freed: %d", code)
	}
}

// A panic in a handler becomes a 500 with a request id, and the server
// keeps serving.
func TestPanicRecovered(t *testing.T) {
	s, _ := newTest(t, nil)
	h := s.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), "request id") {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

// An embedder that never answers gives 504 once the request deadline
// passes: it returns only when its context ends, so a 504 proves the
// deadline fired (no wall-clock bound is asserted).
type slowEmbedder struct{ embed.Embedder }

func (s slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestEmbedderTimeout(t *testing.T) {
	_, ts := newTest(t, func(c *Config) {
		c.RequestTimeout = 100 * time.Millisecond
		c.Embedder = slowEmbedder{embed.NewLexical(embed.LexicalConfig{})}
	})
	code, b, _ := post(t, ts.URL+"/embed", `{"documents": [{"id": "a", "text": "One. Two. Three."}]}`)
	if code != 504 || !strings.Contains(string(b), "did not finish") {
		t.Errorf("%d %s", code, b)
	}
}

// Many concurrent requests: all succeed and the answers are right (run
// with -race).
func TestConcurrentRequests(t *testing.T) {
	_, ts := newTest(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"documents": [{"id": "d%d", "text": "Sentence one about topic %d. Sentence two."}]}`, i, i)
			resp, err := http.Post(ts.URL+"/embed", "application/json", bytes.NewReader([]byte(body)))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var er api.EmbedResponse
			if err := json.NewDecoder(resp.Body).Decode(&er); err != nil || resp.StatusCode != 200 || er.Documents[0].ID != fmt.Sprintf("d%d", i) {
				errs <- fmt.Errorf("request %d: %d %v", i, resp.StatusCode, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestLLMChunkerNeedsModel(t *testing.T) {
	_, ts := newTest(t, nil)
	code, b, _ := post(t, ts.URL+"/v1/chunk", `{"chunker": "llm-split", "text": "x"}`)
	if code != 400 || !strings.Contains(string(b), "--llm-model") {
		t.Errorf("%d %s", code, b)
	}
}

// Requests reserve memory from the budget: one that could never fit gets
// 413, one that does not fit while another holds the memory gets 503 with
// Retry-After, and the metrics count them.
func TestMemoryBudget(t *testing.T) {
	s, ts := newTest(t, func(c *Config) {
		c.MaxMemory = 100 << 20 // 100 MiB: 12.5 for the cache, 64 for the process, 23.5 for requests
		c.QueueWait = 50 * time.Millisecond
	})
	big := `{"chunker": "semantic", "text": "` + strings.Repeat("word ", 2<<20) + `"}` // 10 MB, over 23.5 MiB once reserved
	if code, b, _ := post(t, ts.URL+"/v1/chunk", big); code != 413 || !strings.Contains(string(b), "over_memory_budget") {
		t.Errorf("too large: %d %s", code, b)
	}
	release, err := s.budget.Reserve(context.Background(), s.budget.Total()-1<<20, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	code, b, h := post(t, ts.URL+"/v1/chunk", `{"chunker": "recursive", "text": "`+strings.Repeat("word ", 200000)+`"}`)
	if code != 503 || h.Get("Retry-After") == "" || !strings.Contains(string(b), "memory_busy") {
		t.Errorf("busy: %d %s", code, b)
	}
	release()
	if code, b, _ := post(t, ts.URL+"/v1/chunk", `{"text": "fits now"}`); code != 200 {
		t.Errorf("after release: %d %s", code, b)
	}
	rec := httptest.NewRecorder()
	s.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`gochunk_memory_refused_total{reason="too_large"} 1`, `gochunk_memory_refused_total{reason="busy"} 1`, "gochunk_memory_budget_bytes"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// /v1/embeddings takes what OpenAI takes: token arrays (decoded with the
// model's tokenizer, cl100k_base for the lexical one), lists of them, and
// counts usage in tokens; GET /v1/models lists the served models.
func TestOpenAIEmbeddingsInputs(t *testing.T) {
	_, ts := newTest(t, nil)
	cl, _ := tokenize.NewTikToken("cl100k_base")
	ids := cl.Encode("hello world")
	b, _ := json.Marshal(map[string]any{"model": "lexical", "input": [][]int{ids, ids}})
	code, body, _ := post(t, ts.URL+"/v1/embeddings", string(b))
	var tokens api.EmbeddingsResponse
	if code != 200 || json.Unmarshal(body, &tokens) != nil || len(tokens.Data) != 2 || tokens.Usage.PromptTokens != 2*len(ids) {
		t.Fatalf("token arrays: %d %s", code, body)
	}
	_, body, _ = post(t, ts.URL+"/v1/embeddings", `{"model": "lexical", "input": "hello world"}`)
	var text api.EmbeddingsResponse
	json.Unmarshal(body, &text)
	a, _ := json.Marshal(tokens.Data[0].Embedding)
	c, _ := json.Marshal(text.Data[0].Embedding)
	if string(a) != string(c) || text.Usage.PromptTokens != len(ids) {
		t.Errorf("tokens and text differ, or usage %d is not in tokens", text.Usage.PromptTokens)
	}
	resp, err := http.Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list api.ModelList
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if list.Object != "list" || len(list.Data) == 0 || list.Data[0].ID != "lexical" || list.Data[0].Object != "model" {
		t.Errorf("models: %+v", list)
	}
	if resp, _ := http.Get(ts.URL + "/v1/models/nope"); resp.StatusCode != 404 {
		t.Errorf("unknown model: %d", resp.StatusCode)
	}
}

// POST /v1/search searches the store the server was given, with the
// embedder that indexed it.
func TestSearchEndpoint(t *testing.T) {
	ctx := context.Background()
	_, bare := newTest(t, nil)
	if code, body, _ := post(t, bare.URL+"/v1/search", `{"query": "x"}`); code != http.StatusNotFound || !strings.Contains(string(body), "--store") {
		t.Errorf("without a store: %d %s", code, body)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pl, err := pipeline.New(ctx, pipeline.Config{Chunker: "sentence", Params: json.RawMessage(`{"size": 60}`)}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := `{"id": "cats", "text": "Cats purr when they are content. Kittens chase string all day."}
{"id": "markets", "text": "Stock markets fell sharply on Monday. Bond yields rose."}`
	if _, err := index.Run(ctx, st, pl, []index.Source{index.JSONLines{Label: "-", R: strings.NewReader(docs)}}, index.Options{Embed: true}); err != nil {
		t.Fatal(err)
	}
	_, srv := newTest(t, func(c *Config) { c.Store = st })
	for _, mode := range []string{"vector", "keyword", "hybrid"} {
		code, body, _ := post(t, srv.URL+"/v1/search", `{"query": "stock markets", "k": 2, "mode": "`+mode+`"}`)
		var resp api.SearchResponse
		if code != http.StatusOK || json.Unmarshal(body, &resp) != nil || len(resp.Hits) == 0 || resp.Hits[0].Source != "markets" {
			t.Fatalf("%s: %d %s", mode, code, body)
		}
		if h := resp.Hits[0]; !strings.Contains(string(body), `"score":`) || h.Text == "" || h.End <= h.Start {
			t.Errorf("%s: hit %s", mode, body)
		}
	}
	for _, bad := range []string{`{"query": ""}`, `{"query": "x", "mode": "fuzzy"}`, `{"query": "x", "k": 5000}`, `{"k": 1}`,
		`{"query": "x", "expand": "paragraph"}`, `{"query": "x", "merge": -1}`,
		// This store was indexed without parents, so it keeps no texts to expand with.
		`{"query": "stock", "expand": "parent"}`, `{"query": "stock", "expand": "window:1"}`} {
		if code, body, _ := post(t, srv.URL+"/v1/search", bad); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
	// With parents, expand returns exact spans of the stored documents.
	st2, err := store.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	pl2, err := pipeline.New(ctx, pipeline.Config{Chunker: "sentence", Params: json.RawMessage(`{"size": 40}`), Parents: 200}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Run(ctx, st2, pl2, []index.Source{index.JSONLines{Label: "-", R: strings.NewReader(docs)}}, index.Options{}); err != nil {
		t.Fatal(err)
	}
	_, srv2 := newTest(t, func(c *Config) { c.Store = st2 })
	code, body, _ := post(t, srv2.URL+"/v1/search", `{"query": "bond yields", "k": 3, "mode": "keyword", "expand": "parent"}`)
	var resp api.SearchResponse
	if code != http.StatusOK || json.Unmarshal(body, &resp) != nil || len(resp.Hits) == 0 || resp.Hits[0].Expanded == nil ||
		resp.Hits[0].Expanded.Text != "Stock markets fell sharply on Monday. Bond yields rose." {
		t.Fatalf("expand parent: %d %s", code, body)
	}
}

// stuck is an embedder that ignores cancellation: it returns only when
// the test lets it.
type stuck struct{ release chan struct{} }

func (e stuck) Embed(_ context.Context, texts []string) ([][]float32, error) {
	<-e.release
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (stuck) Dim() int        { return 2 }
func (stuck) MaxTokens() int  { return 0 }
func (stuck) ModelID() string { return "stuck" }

// A request past its deadline gets its 504 answer at the deadline, even
// when its work does not stop at once; the work keeps its concurrency slot
// until it has stopped, and the server answers the next request after it.
func TestTimeoutAnswersWhileWorkStops(t *testing.T) {
	em := stuck{release: make(chan struct{})}
	s, ts := newTest(t, func(c *Config) {
		c.RequestTimeout, c.MaxConcurrent, c.Embedder = 300*time.Millisecond, 1, em
	})
	code, b, _ := post(t, ts.URL+"/v1/chunk", `{"chunker": "semantic", "text": "One sentence. Another one here. A third."}`)
	var e api.ErrorBody
	if code != 504 || json.Unmarshal(b, &e) != nil || e.Error.Type != "timeout" {
		t.Fatalf("%d %s", code, b)
	}
	if code, _, _ := post(t, ts.URL+"/v1/chunk", `{"text": "x"}`); code != 429 {
		t.Errorf("while the abandoned work runs: %d, want 429 (its slot is still taken)", code)
	}
	close(em.release)
	for len(s.sem) > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if code, b, _ := post(t, ts.URL+"/v1/chunk", `{"text": "x"}`); code != 200 {
		t.Errorf("after the work stopped: %d %s", code, b)
	}
}

// /embed runs the reference server's DP exactly: the parameters it builds
// from a chunking_config give the chunks of semantic.ReferenceDPConfig,
// fragments included (min_size is gochunk's, off there).
func TestEmbedIsReferenceDP(t *testing.T) {
	text := "# Cats\n\nCats sleep most of the day and hunt at night in the garden.\n\n# Dogs\n\nDogs bark at the postman every single morning.\n\nFin."
	counter, _ := tokenize.NewTikToken("cl100k_base")
	maxSize, optimal := 20, 15 // small chunks, among them fragments gochunk's min_size would join
	viaAPI, err := chunkers.New().New("dp", (&api.ChunkingConfig{MaxSize: &maxSize, OptimalSize: &optimal}).DPParams(), chunkers.Env{Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	cfg := semantic.ReferenceDPConfig()
	cfg.Size, cfg.OptimalSize = maxSize, optimal
	ref, err := semantic.NewDP(cfg, counter, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err1 := viaAPI.Chunk(context.Background(), gochunk.Document{Text: text})
	b, err2 := ref.Chunk(context.Background(), gochunk.Document{Text: text})
	if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("/embed's DP differs from the reference configuration: %v %v\n%+v\n%+v", err1, err2, a, b)
	}
}

// A file of any kind the server reads comes as file_base64, its kind from
// its name or its content.
func TestChunkFileBase64(t *testing.T) {
	_, ts := newTest(t, nil)
	eml := "From: keeper@zoo.example\r\nTo: staff@zoo.example\r\nSubject: Feeding times\r\n\r\nThe penguins eat at noon.\r\n"
	for _, name := range []string{"note.eml", ""} {
		body, _ := json.Marshal(map[string]any{"chunker": "markdown", "documents": []map[string]any{{"file_base64": base64.StdEncoding.EncodeToString([]byte(eml)), "file_name": name}}})
		code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
		var resp api.ChunkResponse
		if code != 200 || json.Unmarshal(b, &resp) != nil || len(resp.Documents[0].Chunks) == 0 {
			t.Fatalf("%q: %d %s", name, code, b)
		}
		text := resp.Documents[0].Chunks[0].Text
		if name != "" && !strings.HasPrefix(text, "# Feeding times") || !strings.Contains(text, "penguins eat at noon") {
			t.Errorf("%q: chunk %q", name, text)
		}
	}
	code, b, _ := post(t, ts.URL+"/v1/chunk", `{"documents": [{"file_base64": "UEsDBAo=", "file_name": "broken.docx"}]}`)
	if code != 200 || !strings.Contains(string(b), `"error":"docx: not a readable document`) {
		t.Errorf("a broken DOCX: %d %s", code, b)
	}
}

// An e-mail's attachments come back as documents of their own, after the
// request's, each naming its message; a broken one fails alone.
func TestChunkEmailAttachments(t *testing.T) {
	_, ts := newTest(t, nil)
	var pdf bytes.Buffer
	if err := pdfgen.Write(&pdf, pdfgen.TwoColumn("Census", []string{"The penguins number two hundred and twelve."}, "Zoo")); err != nil {
		t.Fatal(err)
	}
	msg := mailgen.Message("Reports", "Both files are attached.",
		mailgen.Attachment{Name: "notes.txt", Media: "text/plain", Data: []byte("The otters eat herring.")},
		mailgen.Attachment{Name: "census.pdf", Media: "application/pdf", Data: pdf.Bytes()},
		mailgen.Attachment{Name: "broken.docx", Media: "application/octet-stream", Data: []byte("PK\x03\x04 not a zip")})
	body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"id": "m", "file_base64": base64.StdEncoding.EncodeToString(msg), "file_name": "m.eml"}, {"id": "t", "text": "Plain text."}}})
	resp := chunkDocs(t, ts.URL, string(body))
	var got []string
	for _, d := range resp.Documents {
		text := ""
		for _, c := range d.Chunks {
			text += c.Text
		}
		got = append(got, fmt.Sprintf("%s<%s>%t", d.ID, d.AttachmentOf, d.Error != ""))
		switch d.ID {
		case "m/notes.txt":
			if !strings.Contains(text, "otters eat herring") {
				t.Errorf("%s: %q", d.ID, text)
			}
		case "m/census.pdf":
			if !strings.Contains(text, "two hundred and twelve") {
				t.Errorf("%s: %q", d.ID, text)
			}
		}
	}
	if want := "[m<>false t<>false m/notes.txt<m>false m/census.pdf<m>false m/broken.docx<m>true]"; fmt.Sprint(got) != want {
		t.Errorf("documents %v, want %s", got, want)
	}
}
