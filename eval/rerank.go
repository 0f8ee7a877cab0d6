package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/llm"
)

// Reranker reorders retrieved texts by their relevance to a query, as a
// second stage after retrieval.
type Reranker interface {
	Name() string
	// Rerank returns the indexes of texts, the most relevant first, at
	// most k of them.
	Rerank(ctx context.Context, query string, texts []string, k int) ([]int, error)
}

// RerankerModels are the models a reranker may run on, built on demand:
// only the one the spec names is.
type RerankerModels struct {
	// Chat returns the chat model of "llm" (nil when none is configured).
	Chat func() (*llm.Client, error)
	// CrossEncoder loads the ONNX cross-encoder of "onnx:MODEL".
	CrossEncoder func(model string) (*embed.CrossEncoder, error)
}

// NewReranker returns the reranker of spec: "api:URL" (a rerank endpoint
// of the common shape: POST {"query", "documents", "top_n"} answered by
// {"results": [{"index", "relevance_score"}]}, as Cohere, Jina and vLLM
// serve it, or TEI's list of {"index", "score"}), "onnx:MODEL" (a
// cross-encoder, a local directory or a hub id, in ONNX Runtime) or "llm"
// (a listwise prompt through the OpenAI-compatible chat client). An
// empty spec gives no reranker (nil) and no error.
func NewReranker(spec string, models RerankerModels) (Reranker, error) {
	switch {
	case spec == "":
		return nil, nil
	case strings.HasPrefix(spec, "api:"):
		return &APIReranker{URL: strings.TrimPrefix(spec, "api:"), APIKey: os.Getenv("RERANK_API_KEY")}, nil
	case strings.HasPrefix(spec, "onnx:") && len(spec) > len("onnx:"):
		if models.CrossEncoder == nil {
			return nil, fmt.Errorf("--rerank %s: no loader of cross-encoders given", spec)
		}
		c, err := models.CrossEncoder(strings.TrimPrefix(spec, "onnx:"))
		if err != nil {
			return nil, fmt.Errorf("--rerank %s: %w", spec, err)
		}
		return &CrossEncoderReranker{Model: c}, nil
	case spec == "llm":
		var model *llm.Client
		if models.Chat != nil {
			var err error
			if model, err = models.Chat(); err != nil {
				return nil, fmt.Errorf("--rerank llm: %w", err)
			}
		}
		if model == nil {
			return nil, fmt.Errorf("--rerank llm needs a chat model: give --llm-model (and --llm-url)")
		}
		p, err := llm.LoadPrompt("rerank_v1")
		if err != nil {
			return nil, err
		}
		return &LLMReranker{Model: model, prompt: p}, nil
	}
	return nil, fmt.Errorf("--rerank %q: want api:URL, onnx:MODEL or llm", spec)
}

// CrossEncoderReranker orders passages by a cross-encoder's scores.
type CrossEncoderReranker struct {
	Model *embed.CrossEncoder
}

// Name returns the model's id.
func (c *CrossEncoderReranker) Name() string { return c.Model.ModelID() }

// Rerank implements Reranker; ties keep the retrieved order.
func (c *CrossEncoderReranker) Rerank(ctx context.Context, query string, texts []string, k int) ([]int, error) {
	scores, err := c.Model.Score(ctx, query, texts)
	if err != nil {
		return nil, err
	}
	ids := make([]int, len(texts))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(x, y int) bool { return scores[ids[x]] > scores[ids[y]] })
	return ids[:min(k, len(ids))], nil
}

// APIReranker calls a rerank HTTP API.
type APIReranker struct {
	URL string
	// Model is sent as "model" when set; APIKey as a bearer token.
	Model, APIKey string
	Client        *http.Client
	// Timeout bounds one call (default 60 s); a 429 or 5xx is retried
	// twice.
	Timeout time.Duration
}

// Name returns "api:" and the URL.
func (a *APIReranker) Name() string { return "api:" + a.URL }

// Rerank implements Reranker.
func (a *APIReranker) Rerank(ctx context.Context, query string, texts []string, k int) ([]int, error) {
	body, _ := json.Marshal(map[string]any{"model": a.Model, "query": query, "documents": texts, "texts": texts, "top_n": k, "return_documents": false})
	client := a.Client
	if client == nil {
		client = http.DefaultClient
	}
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	var raw []byte
	for attempt := 0; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		req, err := http.NewRequestWithContext(cctx, http.MethodPost, a.URL, bytes.NewReader(body))
		if err != nil {
			cancel()
			return nil, fmt.Errorf("rerank: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		if a.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+a.APIKey)
		}
		resp, err := client.Do(req)
		if err == nil {
			raw, err = io.ReadAll(io.LimitReader(resp.Body, 16<<20))
			resp.Body.Close()
		}
		cancel()
		retry := err != nil || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		if !retry && resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("rerank %s: %s: %.200s", a.URL, resp.Status, raw)
		}
		if !retry {
			break
		}
		if attempt == 2 {
			if err == nil {
				err = fmt.Errorf("%s: %.200s", resp.Status, raw)
			}
			return nil, fmt.Errorf("rerank %s: %w", a.URL, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(200<<attempt) * time.Millisecond):
		}
	}
	type result struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
		Score          *float64 `json:"score"`
	}
	var results []result
	var wrapped struct {
		Results []result `json:"results"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.Results != nil {
		results = wrapped.Results
	} else if err := json.Unmarshal(raw, &results); err != nil {
		return nil, fmt.Errorf("rerank %s: the answer is neither {\"results\": [...]} nor a list: %.200s", a.URL, raw)
	}
	type scored struct {
		i int
		s float64
	}
	var out []scored
	seen := map[int]bool{}
	for _, r := range results {
		s := r.RelevanceScore
		if s == nil {
			s = r.Score
		}
		if r.Index == nil || s == nil || *r.Index < 0 || *r.Index >= len(texts) || seen[*r.Index] {
			return nil, fmt.Errorf("rerank %s: a result without a valid index and score: %.200s", a.URL, raw)
		}
		seen[*r.Index] = true
		out = append(out, scored{*r.Index, *s})
	}
	sort.SliceStable(out, func(x, y int) bool { return out[x].s > out[y].s })
	ids := make([]int, 0, min(k, len(out)))
	for _, s := range out[:min(k, len(out))] {
		ids = append(ids, s.i)
	}
	return ids, nil
}

// LLMReranker asks a chat model to rank the passages (listwise, prompt
// rerank_v1), with schema-constrained JSON answers and the client's cache.
type LLMReranker struct {
	Model  *llm.Client
	prompt *llm.Prompt
}

// Name returns "llm:" and the model.
func (l *LLMReranker) Name() string { return "llm:" + l.Model.Model() }

// Rerank implements Reranker. Passages the model leaves out follow, in
// their retrieved order; an answer that is not a ranking of the shown
// passages is an error.
func (l *LLMReranker) Rerank(ctx context.Context, query string, texts []string, k int) ([]int, error) {
	type passage struct {
		N    int
		Text string
	}
	ps := make([]passage, len(texts))
	for i, t := range texts {
		ps[i] = passage{i + 1, t}
	}
	req, err := l.prompt.Request(map[string]any{"Query": query, "Passages": ps, "K": k})
	if err != nil {
		return nil, err
	}
	resp, err := l.Model.Complete(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	var ans struct {
		Ranking []int `json:"ranking"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(resp.Content)), &ans); err != nil {
		return nil, fmt.Errorf("rerank: the model's answer is not {\"ranking\": [...]}: %.200s", resp.Content)
	}
	seen := map[int]bool{}
	var ids []int
	for _, n := range ans.Ranking {
		if n < 1 || n > len(texts) {
			return nil, fmt.Errorf("rerank: the model ranked passage %s, which was not shown", strconv.Itoa(n))
		}
		if !seen[n-1] {
			seen[n-1] = true
			ids = append(ids, n-1)
		}
	}
	for i := range texts {
		if !seen[i] {
			ids = append(ids, i)
		}
	}
	return ids[:min(k, len(ids))], nil
}
