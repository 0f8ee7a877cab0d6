package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk"
)

// contextServer is a loopback OpenAI-compatible chat endpoint that answers
// a context request with the passage's first word and the length of the
// document it was sent, and keeps the requests.
type contextServer struct {
	mu   sync.Mutex
	docs []string // the system message of each request
}

func (cs *contextServer) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		sys, user := req.Messages[0].Content, req.Messages[1].Content
		passage := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(user, "<passage>\n"), "\n</passage>"))
		doc := sys[strings.Index(sys, "<document>\n")+len("<document>\n") : strings.LastIndex(sys, "\n</document>")]
		cs.mu.Lock()
		cached := 0
		for _, d := range cs.docs {
			if d == doc {
				cached = len(doc) / 4 // as OpenAI reports a prefix read from its cache
			}
		}
		cs.docs = append(cs.docs, doc)
		cs.mu.Unlock()
		answer, _ := json.Marshal(map[string]string{"context": "On " + strings.Fields(passage)[0] + ", from a text of " + itoa(len(doc)) + " bytes."})
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": string(answer)}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": len(sys+user) / 4, "completion_tokens": 12, "prompt_tokens_details": map[string]int{"cached_tokens": cached}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// Context mode llm: the model, a loopback stub, writes each chunk's context
// from the whole document; the embedded text is the context, a blank line
// and the chunk; answers are cached on disk, so a second run asks nothing.
func TestContextLLM(t *testing.T) {
	cs := &contextServer{}
	url := cs.start(t)
	cache := t.TempDir()
	text := "Alpha particles are helium nuclei. They stop in paper.\n\nBeta particles are electrons. They stop in aluminium.\n\nGamma rays are photons. Lead slows them."
	build := func() *Pipeline {
		p, err := New(context.Background(), Config{Chunker: "recursive", Params: json.RawMessage(`{"size": 60}`),
			LLM: LLMConfig{URL: url, Model: "stub", CacheDir: cache}, Context: ContextConfig{Mode: "llm"}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	res, err := build().Run(context.Background(), gochunk.Document{ID: "physics.txt", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chunks) != 3 || len(cs.docs) != 3 {
		t.Fatalf("%d chunks, %d requests", len(res.Chunks), len(cs.docs))
	}
	for i, c := range res.Chunks {
		want := "On " + strings.Fields(c.Text)[0] + ", from a text of " + itoa(len(text)) + " bytes.\n\n" + c.Text
		if res.EmbedTexts[i] != want {
			t.Errorf("chunk %d embedded as %q, want %q", i, res.EmbedTexts[i], want)
		}
	}
	if u := res.ContextUsage; u.Calls != 3 || u.CompletionTokens != 36 || u.CachedPromptTokens == 0 {
		t.Errorf("usage %+v: want 3 calls, 36 completion tokens and the document read from the cache after the first", u)
	}
	again, err := build().Run(context.Background(), gochunk.Document{ID: "physics.txt", Text: text})
	if err != nil || len(cs.docs) != 3 || again.ContextUsage.CachedCalls != 3 || again.EmbedTexts[2] != res.EmbedTexts[2] {
		t.Errorf("second run: %d requests in all, usage %+v, %v", len(cs.docs), again.ContextUsage, err)
	}
}

// A document over document_tokens is sent as the chunk's section, and
// the estimate asks nothing.
func TestContextLLMWindowAndEstimate(t *testing.T) {
	cs := &contextServer{}
	url := cs.start(t)
	var sb strings.Builder
	for _, s := range []string{"Cats", "Dogs", "Birds"} {
		sb.WriteString("# " + s + "\n\n" + strings.Repeat(s+" are animals people keep at home. ", 30) + "\n\n")
	}
	text := sb.String()
	cfg := Config{Chunker: "markdown", Params: json.RawMessage(`{"size": 400}`), LLM: LLMConfig{URL: url, Model: "stub"},
		Context: ContextConfig{Mode: "llm", DocumentTokens: 400}}
	p, err := New(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), gochunk.Document{ID: "pets.md", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range cs.docs {
		if len(d) >= len(text) || !strings.HasPrefix(d, "# ") || strings.Count(d, "# ") != 1 {
			t.Errorf("sent %d bytes starting %.20q: want one section of the %d", len(d), d, len(text))
		}
	}
	cfg.Context.Estimate = true
	cfg.LLM = LLMConfig{} // the estimate needs no model
	pe, err := New(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(cs.docs)
	est, err := pe.Run(context.Background(), gochunk.Document{ID: "pets.md", Text: text})
	if err != nil || len(cs.docs) != before || est.EmbedTexts != nil {
		t.Fatalf("estimate: %v, %d requests", err, len(cs.docs)-before)
	}
	if e := est.ContextEstimate; e.Requests != len(res.Chunks) || e.PromptTokens <= e.RepeatedTokens || e.CompletionTokens != 60*e.Requests {
		t.Errorf("estimate %+v for %d chunks", e, len(res.Chunks))
	}
	// Without a model, mode llm is refused before any document.
	cfg.Context.Estimate = false
	if _, err := New(context.Background(), cfg, Options{}); !errors.Is(err, ErrNoModel) {
		t.Errorf("context llm without a model: %v", err)
	}
}
