package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOpenAI serves /v1/embeddings with a deterministic 3-dimensional
// vector per input; behave may alter the answer of a request.
func fakeOpenAI(t *testing.T, behave func(n int64, w http.ResponseWriter, req embeddingsRequest) bool) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req embeddingsRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if behave != nil && behave(n, w, req) {
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose
			s := req.Input[i]
			data = append(data, item{i, []float32{float32(len(s)), float32(strings.Count(s, "a")), 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestOpenAIBatchingAndOrder(t *testing.T) {
	var sizes []int
	srv, _ := fakeOpenAI(t, func(_ int64, _ http.ResponseWriter, req embeddingsRequest) bool {
		sizes = append(sizes, len(req.Input))
		return false
	})
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxBatchInputs: 3, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "", "aaa", "b", "aa", "abc"}
	vs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if s == "" {
			if vs[i][0] != 0 || len(vs[i]) != 3 {
				t.Errorf("empty text: %v", vs[i])
			}
			continue
		}
		if vs[i][0] != float32(len(s)) || vs[i][1] != float32(strings.Count(s, "a")) {
			t.Errorf("text %q got %v", s, vs[i])
		}
	}
	if len(sizes) != 2 || sizes[0] != 3 || sizes[1] != 3 || o.Dim() != 3 {
		t.Errorf("batches %v dim %d", sizes, o.Dim())
	}
}

func TestOpenAIRetries(t *testing.T) {
	srv, calls := fakeOpenAI(t, func(n int64, w http.ResponseWriter, _ embeddingsRequest) bool {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return true
		case 2:
			http.Error(w, "oops", http.StatusBadGateway)
			return true
		}
		return false
	})
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Retries: 3})
	if _, err := o.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls, want 3", calls.Load())
	}
}

func TestOpenAIErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		behave func(int64, http.ResponseWriter, embeddingsRequest) bool
		cfg    OpenAIConfig
		want   error
		text   string
	}{
		{"fewer vectors", func(_ int64, w http.ResponseWriter, _ embeddingsRequest) bool {
			w.Write([]byte(`{"data":[{"index":0,"embedding":[1,2]}]}`))
			return true
		}, OpenAIConfig{}, ErrCount, ""},
		{"wrong dimension", nil, OpenAIConfig{Dimensions: 5}, ErrDimension, ""},
		{"bad request not retried", func(_ int64, w http.ResponseWriter, _ embeddingsRequest) bool {
			http.Error(w, "bad model", http.StatusBadRequest)
			return true
		}, OpenAIConfig{}, nil, "400"},
		{"server keeps failing", func(_ int64, w http.ResponseWriter, _ embeddingsRequest) bool {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return true
		}, OpenAIConfig{Retries: -1}, nil, "503"},
		{"timeout", func(_ int64, w http.ResponseWriter, _ embeddingsRequest) bool {
			time.Sleep(300 * time.Millisecond)
			return false
		}, OpenAIConfig{Timeout: 50 * time.Millisecond, Retries: -1}, context.DeadlineExceeded, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeOpenAI(t, tc.behave)
			tc.cfg.BaseURL, tc.cfg.Model = srv.URL+"/v1", "m"
			o, _ := NewOpenAI(tc.cfg)
			_, err := o.Embed(ctx, []string{"a", "b"})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %v, want %v / %q", err, tc.want, tc.text)
			}
		})
	}
}

// A text longer than MaxTokens is split, embedded in pieces and pooled.
func TestOpenAILongInput(t *testing.T) {
	var inputs []string
	srv, _ := fakeOpenAI(t, func(_ int64, _ http.ResponseWriter, req embeddingsRequest) bool {
		inputs = append(inputs, req.Input...)
		return false
	})
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxTokens: 10})
	long := strings.Repeat("word ", 35)
	vs, err := o.Embed(context.Background(), []string{long})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 4 || strings.Join(inputs, "") != long {
		t.Errorf("pieces %q", inputs)
	}
	if n := vs[0][0]*vs[0][0] + vs[0][1]*vs[0][1] + vs[0][2]*vs[0][2]; n < 0.999 || n > 1.001 {
		t.Errorf("pooled vector not normalised: %v", vs[0])
	}
}

func TestCache(t *testing.T) {
	srv, calls := fakeOpenAI(t, nil)
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m"})
	dir := t.TempDir()
	c := NewCached(o, CacheOptions{Entries: 2, Dir: dir})
	ctx := context.Background()
	first, err := c.Embed(ctx, []string{"aa", "b", "aa"})
	if err != nil || calls.Load() != 1 {
		t.Fatalf("first: %v, %d calls", err, calls.Load())
	}
	again, _ := c.Embed(ctx, []string{"b", "aa"})
	if calls.Load() != 1 || again[1][1] != first[0][1] {
		t.Errorf("second call hit the endpoint: %d calls", calls.Load())
	}
	if hits, misses := c.Stats(); hits != 2 || misses != 2 {
		t.Errorf("stats %d/%d", hits, misses)
	}
	// A new cache on the same directory reads the vectors from disk.
	c2 := NewCached(o, CacheOptions{Dir: dir})
	if _, err := c2.Embed(ctx, []string{"aa", "b"}); err != nil || calls.Load() != 1 {
		t.Errorf("disk cache not used: %v, %d calls", err, calls.Load())
	}
	// Eviction: more texts than entries, memory only.
	m := NewCached(NewLexical(LexicalConfig{}), CacheOptions{Entries: 2})
	m.Embed(ctx, []string{"one", "two", "three"})
	if len(m.store.items) != 2 {
		t.Errorf("%d entries, want 2", len(m.store.items))
	}
}

// A Model2Vec model loads from a (fake) hub by id, into the cache, and
// then offline from the cache.
func TestStaticFromHub(t *testing.T) {
	src := tinyModelDir(t, 11, 3, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/acme/tiny-m2v/resolve/main/")
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(b)
		w.Header().Set("X-Repo-Commit", "abc123")
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	}))
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL)
	cache := t.TempDir()
	e, err := New(context.Background(), "static:acme/tiny-m2v", Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 3 {
		t.Errorf("dim %d", e.Dim())
	}
	srv.Close()
	if _, err := New(context.Background(), "static:acme/tiny-m2v", Options{CacheDir: cache, Offline: true}); err != nil {
		t.Errorf("offline load from cache: %v", err)
	}
	if _, err := New(context.Background(), "static:acme/other", Options{CacheDir: cache, Offline: true}); err == nil {
		t.Error("offline load of a model never downloaded: no error")
	}
}

// Vectors from the cache are the caller's: changing them does not change
// the cache.
func TestCacheReturnsCopies(t *testing.T) {
	c := NewCached(NewLexical(LexicalConfig{Dim: 8}), CacheOptions{})
	ctx := context.Background()
	a, _ := c.Embed(ctx, []string{"some words here", "some words here"})
	a[0][0], a[1][1] = 42, 43
	b, _ := c.Embed(ctx, []string{"some words here"})
	if b[0][0] == 42 || b[0][1] == 43 {
		t.Error("the cache returned a shared slice")
	}
}

// A hanging embedding server fails a run through the timeout and the
// retries given: the server never answers until the client gives up, so an
// error after exactly two requests proves both (no wall-clock bound is
// asserted).
func TestOpenAITimeoutAndRetries(t *testing.T) {
	var hits atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" { // New asks the model's limit
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	em, err := New(context.Background(), "openai:m", Options{BaseURL: srv.URL + "/v1", Timeout: 100 * time.Millisecond, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = em.Embed(context.Background(), []string{"hello"})
	if err == nil || hits.Load() != 2 {
		t.Errorf("err %v after %d requests", err, hits.Load())
	}
}
