package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func chatServer(t *testing.T, handle func(n int64, req map[string]any, w http.ResponseWriter)) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		handle(n, req, w)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func reply(w http.ResponseWriter, content string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}},
		"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 2}})
}

func TestCacheAndDisk(t *testing.T) {
	srv, calls := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) { reply(w, "hello") })
	dir := t.TempDir()
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", CacheDir: dir})
	req := Request{Messages: []Message{{Role: "user", Content: "hi"}}}
	r1, err := c.Complete(context.Background(), req)
	if err != nil || r1.Content != "hello" || r1.Cached || r1.PromptTokens != 3 {
		t.Fatalf("%+v %v", r1, err)
	}
	r2, _ := c.Complete(context.Background(), req)
	if !r2.Cached || calls.Load() != 1 {
		t.Errorf("memory cache: %+v, %d calls", r2, calls.Load())
	}
	c2, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", CacheDir: dir})
	if r3, _ := c2.Complete(context.Background(), req); !r3.Cached || r3.Content != "hello" || calls.Load() != 1 {
		t.Errorf("disk cache: %+v, %d calls", r3, calls.Load())
	}
	// Another model is another key.
	c3, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "other", CacheDir: dir})
	c3.Complete(context.Background(), req)
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2", calls.Load())
	}
}

// A server that refuses response_format is asked again without it.
func TestResponseFormatRefused(t *testing.T) {
	srv, calls := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) {
		if _, ok := req["response_format"]; ok {
			http.Error(w, `{"error": "unknown field response_format"}`, http.StatusBadRequest)
			return
		}
		reply(w, `{"ok": true}`)
	})
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", JSONMode: true})
	r, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}, Schema: json.RawMessage(`{"type":"object"}`)})
	if err != nil || r.Content != `{"ok": true}` || calls.Load() != 2 {
		t.Errorf("%+v %v %d", r, err, calls.Load())
	}
}

func TestErrors(t *testing.T) {
	srv, calls := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) {
		http.Error(w, "bad key", http.StatusUnauthorized)
	})
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	if _, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}}); err == nil || !strings.Contains(err.Error(), "401") || calls.Load() != 1 {
		t.Errorf("401 must not be retried: %v, %d calls", err, calls.Load())
	}
	srv2, _ := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	c2, _ := New(Config{BaseURL: srv2.URL + "/v1", Model: "m", Retries: 1, Timeout: time.Second})
	if _, err := c2.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}}); !errors.Is(err, ErrUnreachable) {
		t.Errorf("503 after retries: %v", err)
	}
	if _, err := New(Config{}); err == nil {
		t.Error("no model accepted")
	}
}

func TestParseJSON(t *testing.T) {
	var v struct{ A int }
	for _, s := range []string{`{"A": 1}`, "```json\n{\"A\": 1}\n```", `Here you go: {"A": 1} hope it helps`} {
		v.A = 0
		if err := ParseJSON(s, &v); err != nil || v.A != 1 {
			t.Errorf("%q: %v %v", s, v, err)
		}
	}
	for _, s := range []string{"no json", `{"A": "x"}`, "{"} {
		if err := ParseJSON(s, &v); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestPrompts(t *testing.T) {
	for _, name := range []string{"split_v1", "propositions_v1"} {
		p, err := LoadPrompt(name)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(map[string]any{"First": 1, "Last": 2, "MaxSplit": 1, "Pieces": []map[string]any{{"N": 1, "Text": "a"}},
			"Sentences": []map[string]any{{"N": 1, "Text": "a"}}})
		if err != nil || len(req.Messages) != 2 || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[1].Content, "a") {
			t.Errorf("%s: %+v %v", name, req, err)
		}
	}
	if _, err := LoadPrompt("nope"); err == nil {
		t.Error("unknown prompt loaded")
	}
}

// Requests carry max_completion_tokens and no temperature unless one is
// set (reasoning models refuse both max_tokens and a temperature); an
// older server that refuses max_completion_tokens is asked again with
// max_tokens; HTTP attempts after a 429 are counted apart from calls.
func TestReasoningModelParameters(t *testing.T) {
	var seen []map[string]any
	srv, _ := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) {
		seen = append(seen, req)
		switch {
		case n == 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error": "slow down"}`, http.StatusTooManyRequests)
		case req["max_completion_tokens"] != nil && n == 2:
			http.Error(w, `{"error": {"message": "Unrecognized request argument supplied: max_completion_tokens"}}`, http.StatusBadRequest)
		default:
			reply(w, "ok")
		}
	})
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", MaxTokens: 100})
	r, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
	if err != nil || r.Content != "ok" || r.Attempts != 3 || r.Usage().HTTPAttempts != 3 || r.Usage().Calls != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, ok := seen[0]["temperature"]; ok || seen[0]["max_completion_tokens"] != 100.0 || seen[0]["max_tokens"] != nil {
		t.Errorf("first request %v", seen[0])
	}
	if last := seen[len(seen)-1]; last["max_tokens"] != 100.0 || last["max_completion_tokens"] != nil {
		t.Errorf("after the refusal %v", last)
	}
	zero := 0.0
	c2, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m2", Temperature: &zero})
	c2.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi again"}}})
	if seen[len(seen)-1]["temperature"] != 0.0 {
		t.Errorf("a temperature set is sent: %v", seen[len(seen)-1])
	}
}

// RequestsPerMinute spaces the requests sent, however many callers ask at
// once. The test checks the slots the limiter hands out, not wall-clock
// gaps between arrivals, which a loaded machine's scheduler can shrink.
func TestRequestsPerMinute(t *testing.T) {
	srv, _ := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) { reply(w, "ok") })
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", RequestsPerMinute: 1200, Concurrency: 8}) // one per 50 ms
	gap := 50 * time.Millisecond
	var mu sync.Mutex
	var slots []time.Time
	now := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s := c.reserveSlot(now)
			mu.Lock()
			slots = append(slots, s)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(slots, func(a, b time.Time) int { return a.Compare(b) })
	for i, s := range slots {
		if want := now.Add(time.Duration(i) * gap); !s.Equal(want) {
			t.Errorf("slot %d at %v after the first ask, want %v", i, s.Sub(now), want.Sub(now))
		}
	}
	// A caller asking later than the last slot starts at once, and the
	// next one a gap after it.
	later := slots[len(slots)-1].Add(time.Hour)
	if s := c.reserveSlot(later); !s.Equal(later) {
		t.Errorf("an idle limiter gave a slot %v after the ask", s.Sub(later))
	}
	if s := c.reserveSlot(later); !s.Equal(later.Add(gap)) {
		t.Errorf("the next slot is %v after the ask, want %v", s.Sub(later), gap)
	}
	// Requests through Complete take their slots from the same limiter.
	c2, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", RequestsPerMinute: 60000, Concurrency: 8})
	before := time.Now()
	for i := range 4 {
		wg.Go(func() {
			if _, err := c2.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: fmt.Sprint(i)}}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if next := c2.reserveSlot(before); next.Sub(before) < 4*time.Millisecond {
		t.Errorf("four requests left the next slot %v after they began, want at least 4 ms", next.Sub(before))
	}
	// A cancelled context stops a request waiting for its slot.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	slow, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", RequestsPerMinute: 1, Retries: -1})
	slow.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "first"}}})
	if _, err := slow.Complete(ctx, Request{Messages: []Message{{Role: "user", Content: "second"}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait gave %v", err)
	}
}

// A message with images is sent as a text part and image_url parts
// holding base64 data URLs; a message without is sent as a string, as
// before. The cache key holds the images' bytes: another image is asked
// again, the same one answered from the cache.
func TestImageParts(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	srv, calls := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		reply(w, fmt.Sprintf("answer %d", n))
	})
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	ask := func(data []byte) Response {
		t.Helper()
		r, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "system", Content: "read"},
			{Role: "user", Content: "the page", Images: []Image{{MIME: "image/png", Data: data, Detail: "high"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := ask([]byte("page one"))
	r2 := ask([]byte("page two"))
	r3 := ask([]byte("page one"))
	if r1.Content == r2.Content || r3.Content != r1.Content || !r3.Cached || r3.Attempts != 0 || calls.Load() != 2 {
		t.Errorf("answers %q %q %q (cached %v), %d calls: another image must be another key, the same one cached", r1.Content, r2.Content, r3.Content, r3.Cached, calls.Load())
	}
	msgs := got[0]["messages"].([]any)
	if s, ok := msgs[0].(map[string]any)["content"].(string); !ok || s != "read" {
		t.Errorf("a message without images: content %v, want the string", msgs[0])
	}
	parts, ok := msgs[1].(map[string]any)["content"].([]any)
	if !ok || len(parts) != 2 {
		t.Fatalf("content %v, want a text part and an image part", msgs[1])
	}
	text, img := parts[0].(map[string]any), parts[1].(map[string]any)
	if text["type"] != "text" || text["text"] != "the page" || img["type"] != "image_url" {
		t.Errorf("parts %v %v", text, img)
	}
	iu := img["image_url"].(map[string]any)
	if iu["url"] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString([]byte("page one")) || iu["detail"] != "high" {
		t.Errorf("image_url %v", iu)
	}
}

// The finish reason and a refusal are kept with the answer.
func TestFinishReasonAndRefusal(t *testing.T) {
	srv, _ := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) {
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "", "refusal": "no"}, "finish_reason": "length"}}})
	})
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	r, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}})
	if err != nil || r.FinishReason != "length" || r.Refusal != "no" {
		t.Errorf("%+v %v", r, err)
	}
}

// A prompt without a schema file asks for a plain answer.
func TestPlainPrompt(t *testing.T) {
	p, err := LoadPrompt("ocr_v1")
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(nil)
	if err != nil || req.Schema != nil || len(req.Messages) != 2 || !strings.Contains(req.Messages[0].Content, "reading") && !strings.Contains(req.Messages[0].Content, "reads") {
		t.Errorf("%+v %v", req, err)
	}
}

// An empty base URL is $OPENAI_BASE_URL where it is set.
func TestBaseURLFromEnvironment(t *testing.T) {
	srv, calls := chatServer(t, func(n int64, req map[string]any, w http.ResponseWriter) { reply(w, "hi") })
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1/")
	c, _ := New(Config{Model: "m"})
	if _, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}}); err != nil || calls.Load() != 1 {
		t.Errorf("%v, %d calls", err, calls.Load())
	}
}
