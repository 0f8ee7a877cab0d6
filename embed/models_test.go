package embed_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/embedstub"
	"github.com/gochunk/gochunk/tokenize"
)

func TestLookupModel(t *testing.T) {
	for _, c := range []struct {
		name      string
		limit     int
		tokenizer string
	}{
		{"nomic-embed-text", 2048, "nomic-ai/nomic-embed-text-v1.5"},
		{"nomic-embed-text:latest", 2048, "nomic-ai/nomic-embed-text-v1.5"},
		{"nomic-embed-text:v1.5", 2048, "nomic-ai/nomic-embed-text-v1.5"},
		{"nomic-ai/nomic-embed-text-v1.5", 8192, "nomic-ai/nomic-embed-text-v1.5"},
		{"mxbai-embed-large:335m", 512, "mixedbread-ai/mxbai-embed-large-v1"},
		{"all-minilm", 256, "sentence-transformers/all-MiniLM-L6-v2"},
		{"all-minilm:33m", 256, "sentence-transformers/all-MiniLM-L12-v2"},
		{"snowflake-arctic-embed:335m", 512, "Snowflake/snowflake-arctic-embed-m"},
		{"snowflake-arctic-embed:137m", 2048, "Snowflake/snowflake-arctic-embed-m-long"},
		{"snowflake-arctic-embed2", 8192, "Snowflake/snowflake-arctic-embed-l-v2.0"},
		{"bge-m3:567m", 8192, "BAAI/bge-m3"},
		{"embeddinggemma:300m", 2048, "google/embeddinggemma-300m"},
		{"qwen3-embedding:8b", 32768, "Qwen/Qwen3-Embedding-0.6B"},
		{"Qwen/Qwen3-Embedding-4B", 32768, "Qwen/Qwen3-Embedding-4B"},
		{"text-embedding-3-small", 8191, "cl100k_base"},
	} {
		m, ok := embed.LookupModel(c.name)
		if !ok || m.Limit != c.limit || m.Tokenizer != c.tokenizer || m.Source == "" {
			t.Errorf("%s: %+v %v, want limit %d, tokenizer %s", c.name, m, ok, c.limit, c.tokenizer)
		}
	}
	if _, ok := embed.LookupModel("my-model"); ok {
		t.Error("an unknown model is known")
	}
	if got := embed.OpenAILimit("my-model"); got != 8191 {
		t.Errorf("OpenAILimit of an unknown model %d, want 8191", got)
	}
}

// notices collects what an embedder says.
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(s string) { n.mu.Lock(); n.lines = append(n.lines, s); n.mu.Unlock() }
func (n *notices) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}

// longText is n words of running prose.
func longText(n int) string {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while embeddings of long documents are split into pieces")
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[i%len(words)])
		if i%17 == 16 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// TestOpenAIFitsOllama: openai:nomic-embed-text against a stub of Ollama
// counts in the model's WordPiece tokenizer (from the hub cache, offline)
// and its limit (Ollama's /api/show, lowered by num_ctx), so a text far
// over it is sent in pieces the server takes; the stub refuses (400) any
// input over the limit counted as the model counts, and never has to.
func TestOpenAIFitsOllama(t *testing.T) {
	file := embedstub.WordPiece(t, "..")
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	cache := embedstub.HubCache(t, "nomic-ai/nomic-embed-text-v1.5", file)
	for _, c := range []struct {
		numCtx, want int
	}{{0, 2046}, {512, 510}} {
		srv := embedstub.Ollama(t, tok, 2, 2048, c.numCtx)
		var said notices
		em, err := embed.New(context.Background(), "openai:nomic-embed-text:latest", embed.Options{BaseURL: srv.URL, CacheDir: cache, Offline: true, Notice: said.add})
		if err != nil {
			t.Fatal(err)
		}
		got, limit := embed.TokenizerOf(em)
		if got == nil || !strings.Contains(got.Name(), "models--nomic-ai--nomic-embed-text-v1.5") || limit != c.want {
			name := "none"
			if got != nil {
				name = got.Name()
			}
			t.Fatalf("num_ctx %d: tokenizer %s, limit %d; want the cached one, %d (said: %s)", c.numCtx, name, limit, c.want, &said)
		}
		// Over its limit, a text is embedded whole, in pieces: never
		// reported as cut, wrapped in a cache or not.
		if cut, _ := embed.Truncates(embed.NewCached(em, embed.CacheOptions{})); cut != nil {
			t.Error("an OpenAI-compatible model is said to cut long texts")
		}
		text := longText(6000)
		if tok.Count(text)+2 <= 2048 {
			t.Fatal("the text is not over the limit")
		}
		vs, err := em.Embed(context.Background(), []string{text, "short"})
		if err != nil {
			t.Fatalf("num_ctx %d: %v", c.numCtx, err)
		}
		inputs, longest, refused := srv.Stats()
		if len(vs) != 2 || refused > 0 || longest > limit+2 || inputs < 3 {
			t.Errorf("num_ctx %d: %d inputs, the longest %d tokens, %d refused; limit %d", c.numCtx, inputs, longest, refused, limit+2)
		}
	}
}

// TestOpenAIFitsTEI: a model served by Text Embeddings Inference under its
// hub id gets TEI's max_input_length, which is lower than the table's.
func TestOpenAIFitsTEI(t *testing.T) {
	file := embedstub.WordPiece(t, "..")
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	cache := embedstub.HubCache(t, "nomic-ai/nomic-embed-text-v1.5", file)
	srv := embedstub.TEI(t, tok, 2, 512, "nomic-ai/nomic-embed-text-v1.5")
	var said notices
	em, err := embed.New(context.Background(), "openai:nomic-ai/nomic-embed-text-v1.5", embed.Options{BaseURL: srv.URL, CacheDir: cache, Offline: true, Notice: said.add})
	if err != nil {
		t.Fatal(err)
	}
	if _, limit := embed.TokenizerOf(em); limit != 510 {
		t.Fatalf("limit %d, want 510 (said: %s)", limit, &said)
	}
	if !strings.Contains(said.String(), "/info says it takes 512 tokens") {
		t.Errorf("notices: %s", &said)
	}
	if _, err := em.Embed(context.Background(), []string{longText(3000)}); err != nil {
		t.Fatal(err)
	}
	if _, longest, refused := srv.Stats(); refused > 0 || longest > 512 {
		t.Errorf("the longest input %d tokens, %d refused", longest, refused)
	}
}

// TestOpenAIModelNotSettled: a known model whose tokenizer is not in the
// cache while offline, and a model neither known nor told by its server,
// are warnings that say what to pass; no request leaves the machine.
func TestOpenAIModelNotSettled(t *testing.T) {
	file := embedstub.WordPiece(t, "..")
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	srv := embedstub.Ollama(t, tok, 2, 2048, 0)
	var said notices
	em, err := embed.New(context.Background(), "openai:nomic-embed-text", embed.Options{BaseURL: srv.URL, CacheDir: t.TempDir(), Offline: true, Notice: said.add})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := embed.TokenizerOf(em); got != nil {
		t.Errorf("tokenizer %s without one in the cache", got.Name())
	}
	for _, want := range []string{"not in the hub cache", "--tokenizer hf:", "nomic-ai/nomic-embed-text-v1.5"} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("notices lack %q: %s", want, &said)
		}
	}

	vllm := embedstub.TEI(t, tok, 0, 1<<20, "x") // only its /v1/embeddings is asked of below
	said = notices{}
	em, err = embed.New(context.Background(), "openai:my-model", embed.Options{BaseURL: strings.Replace(vllm.URL, "/v1", "/other/v1", 1), Notice: said.add})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := embed.TokenizerOf(em); got != nil {
		t.Errorf("tokenizer %s for an unknown model", got.Name())
	}
	for _, want := range []string{"does not know this model's input limit or tokenizer", "--tokenizer hf:", "--size"} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("notices lack %q: %s", want, &said)
		}
	}

	// The model's tokenizer given (--tokenizer hf:…) and the limit told
	// by the server: settled.
	said = notices{}
	em, err = embed.New(context.Background(), "openai:my-model", embed.Options{BaseURL: srv.URL, ModelTokenizer: tok, Notice: said.add})
	if err != nil {
		t.Fatal(err)
	}
	if got, limit := embed.TokenizerOf(em); got != tok || limit != 2048 {
		t.Errorf("given tokenizer: taken %v, limit %d; want it and 2048 (said: %s)", got == tok, limit, &said)
	}
}

// TestServerLimitAsksASilentServerOnce: a server that takes the
// connection and never answers is asked once, so making an embedder
// against it waits one timeout, not one per path.
func TestServerLimitAsksASilentServerOnce(t *testing.T) {
	var asked atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	n, _, err := embed.ServerLimit(context.Background(), srv.Client(), srv.URL+"/v1", "", "m", 200*time.Millisecond)
	if err == nil || n != 0 {
		t.Fatalf("limit %d, error %v: want the timeout", n, err)
	}
	if got := asked.Load(); got != 1 {
		t.Errorf("the silent server was asked %d times, want 1", got)
	}
}

// TestOpenAIBaseURLFromEnvironment: with no base URL given, the openai
// embedder takes $OPENAI_BASE_URL, as the LLM clients do, and asks that
// server its limit and its vectors.
func TestOpenAIBaseURLFromEnvironment(t *testing.T) {
	file := embedstub.WordPiece(t, "..")
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	cache := embedstub.HubCache(t, "nomic-ai/nomic-embed-text-v1.5", file)
	srv := embedstub.Ollama(t, tok, 2, 2048, 512)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	var said notices
	em, err := embed.New(context.Background(), "openai:nomic-embed-text", embed.Options{CacheDir: cache, Offline: true, Notice: said.add})
	if err != nil {
		t.Fatal(err)
	}
	if _, limit := embed.TokenizerOf(em); limit != 510 {
		t.Errorf("limit %d, want the server's 512 less 2 special tokens (said: %s)", limit, &said)
	}
	if _, err := em.Embed(context.Background(), []string{"a text"}); err != nil {
		t.Fatal(err)
	}
	if inputs, _, _ := srv.Stats(); inputs != 1 {
		t.Errorf("the server of $OPENAI_BASE_URL embedded %d inputs, want 1", inputs)
	}
}
