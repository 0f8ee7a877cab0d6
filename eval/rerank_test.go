package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/llm"
)

// rerankStub serves a rerank API on loopback: it scores each document by
// whether it contains the query's last word, in Cohere's shape or TEI's.
func rerankStub(t *testing.T, tei bool, failFirst int32) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= failFirst {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		word := req.Query[strings.LastIndexByte(req.Query, ' ')+1:]
		type res struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out []res
		for i, d := range req.Documents {
			s := 0.1 / float64(i+1)
			if strings.Contains(d, word) {
				s = 1
			}
			out = append(out, res{i, s})
		}
		if tei {
			var list []map[string]any
			for _, o := range out {
				list = append(list, map[string]any{"index": o.Index, "score": o.Score})
			}
			json.NewEncoder(w).Encode(list)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestAPIReranker(t *testing.T) {
	docs := []string{"alpha beta", "gamma delta", "the zebra runs", "epsilon"}
	for _, tei := range []bool{false, true} {
		srv, calls := rerankStub(t, tei, 1) // the first call fails with 503: retried
		r, err := NewReranker("api:"+srv.URL, RerankerModels{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Rerank(context.Background(), "find the zebra", docs, 2)
		if err != nil || !slices.Equal(got, []int{2, 0}) || calls.Load() != 2 {
			t.Errorf("tei=%v: %v, %v after %d calls", tei, got, err, calls.Load())
		}
	}
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results": [{"index": 9, "relevance_score": 1}]}`)
	}))
	defer garbage.Close()
	if _, err := (&APIReranker{URL: garbage.URL}).Rerank(context.Background(), "q", docs, 2); err == nil {
		t.Error("an index out of range was accepted")
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no model", 400) }))
	defer bad.Close()
	if _, err := (&APIReranker{URL: bad.URL}).Rerank(context.Background(), "q", docs, 2); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("a 400 gave %v", err)
	}
	if _, err := NewReranker("llm", RerankerModels{}); err == nil {
		t.Error("llm without a model was accepted")
	}
	if r, err := NewReranker("", RerankerModels{}); r != nil || err != nil {
		t.Errorf("no spec: %v, %v", r, err)
	}
	for _, spec := range []string{"onnx:", "cohere"} {
		if _, err := NewReranker(spec, RerankerModels{}); err == nil || !strings.Contains(err.Error(), "want api:URL, onnx:MODEL or llm") {
			t.Errorf("--rerank %q: %v", spec, err)
		}
	}
	failing := RerankerModels{CrossEncoder: func(string) (*embed.CrossEncoder, error) { return nil, errors.New("no model.onnx in x") }}
	if _, err := NewReranker("onnx:x", failing); err == nil || !strings.Contains(err.Error(), "--rerank onnx:x: no model.onnx") {
		t.Errorf("a model that does not load: %v", err)
	}
}

// chat returns the models of a reranker on the chat model m.
func chat(m *llm.Client) RerankerModels {
	return RerankerModels{Chat: func() (*llm.Client, error) { return m, nil }}
}

// chatStub answers every chat completion with content and counts calls.
func chatStub(t *testing.T, content string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 3}})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestLLMReranker(t *testing.T) {
	docs := []string{"a", "b", "c"}
	srv, calls := chatStub(t, `{"ranking": [3, 1]}`)
	model, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", JSONMode: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReranker("llm", chat(model))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := r.Rerank(context.Background(), "q", docs, 3)
		if err != nil || !slices.Equal(got, []int{2, 0, 1}) {
			t.Errorf("%v, %v", got, err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls: the second ranking should come from the cache", calls.Load())
	}
	srv2, _ := chatStub(t, `{"ranking": [7]}`)
	model2, _ := llm.New(llm.Config{BaseURL: srv2.URL, Model: "m"})
	r2, _ := NewReranker("llm", chat(model2))
	if _, err := r2.Rerank(context.Background(), "q", docs, 2); err == nil {
		t.Error("a passage that was not shown was accepted")
	}
}

// An evaluation with a reranker reports the reranked metrics beside the
// retrieval's, and latency per stage.
func TestEvaluateWithReranker(t *testing.T) {
	text := "Apples are red. Bananas are yellow. The zebra has stripes. Grass is green. Sky is blue."
	start := strings.Index(text, "The zebra")
	d := &Dataset{Name: "t", Corpora: []*Corpus{{ID: "c", Text: text}},
		Questions: []Question{{Text: "which animal is the zebra", References: []Reference{{Corpus: "c", Start: start, End: start + len("The zebra has stripes.")}}}}}
	srv, _ := rerankStub(t, false, 0)
	rr, _ := NewReranker("api:"+srv.URL, RerankerModels{})
	ch := sentenceChunker()
	// A retriever that ranks the zebra last: only the reranker finds it.
	res, err := Evaluate(context.Background(), d, Config{Name: "x", Chunker: ch}, Options{K: 1, Reranker: rr, RerankTop: 5,
		NewRetriever: func() Retriever { return fixedRetriever{4, 3, 1, 0, 2} }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Overall.Recall != 0 || res.Reranked == nil || res.Reranked.Recall != 1 || res.Reranker == "" {
		t.Errorf("retrieval recall %v, reranked %+v", res.Overall.Recall, res.Reranked)
	}
	for _, stage := range []string{"retrieval", "rerank", "end_to_end", "chunking_amortised"} {
		if _, ok := res.Latency[stage]; !ok {
			t.Errorf("no latency for %s: %v", stage, res.Latency)
		}
	}
}

// sentenceChunker cuts ASCII text after each ". ".
func sentenceChunker() gochunk.Chunker {
	return chunkerFunc(func(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
		var out []gochunk.Chunk
		at := 0
		for i, s := range strings.SplitAfter(doc.Text, ". ") {
			out = append(out, gochunk.Chunk{Index: i, Text: s, Spans: []gochunk.Span{{Start: at, End: at + len(s), StartRune: at, EndRune: at + len(s)}}})
			at += len(s)
		}
		return out, nil
	})
}

type chunkerFunc func(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error)

func (f chunkerFunc) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	return f(ctx, doc)
}

// fixedRetriever returns the same ranking for every query.
type fixedRetriever []int

func (f fixedRetriever) Name() string                                    { return "fixed" }
func (f fixedRetriever) Index(ctx context.Context, texts []string) error { return nil }
func (f fixedRetriever) Search(ctx context.Context, q string, k int) ([]int, error) {
	return f[:min(k, len(f))], nil
}
