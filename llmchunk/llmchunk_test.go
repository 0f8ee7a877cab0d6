package llmchunk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/tokenize"
)

var pieceRe = regexp.MustCompile(`(?s)<\|start_chunk_(\d+)\|>(.*?)<\|end_chunk_(\d+)\|>`)
var sentRe = regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)

// fakeModel answers like a careful model: for split prompts it splits
// before every piece that starts with "Topic"; for proposition prompts it
// turns each sentence into one proposition per comma-separated part,
// citing the sentence. behave may replace an answer (return true to skip
// the normal one).
func fakeModel(t *testing.T, behave func(n int64, w http.ResponseWriter, user string) bool) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		var req struct {
			Messages []llm.Message `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		user := req.Messages[len(req.Messages)-1].Content
		if behave != nil && behave(n, w, user) {
			return
		}
		var content string
		if strings.Contains(user, "<|start_chunk_") {
			var splits []int
			ms := pieceRe.FindAllStringSubmatch(user, -1)
			for i := 1; i < len(ms); i++ {
				if strings.HasPrefix(strings.TrimSpace(ms[i][2]), "Topic") {
					var prev int
					fmt.Sscan(ms[i-1][1], &prev)
					splits = append(splits, prev)
				}
			}
			if splits == nil && strings.Contains(user, "give at least one") {
				var last int
				fmt.Sscan(ms[len(ms)-2][1], &last)
				splits = []int{last}
			}
			b, _ := json.Marshal(map[string]any{"split_after": splits})
			content = string(b)
		} else {
			type prop struct {
				Text    string `json:"text"`
				Sources []int  `json:"sources"`
			}
			var props []prop
			for _, m := range sentRe.FindAllStringSubmatch(user, -1) {
				var n int
				fmt.Sscan(m[1], &n)
				for _, part := range strings.Split(m[2], ",") {
					if strings.TrimSpace(part) != "" {
						props = append(props, prop{strings.TrimSpace(part), []int{n}})
					}
				}
			}
			b, _ := json.Marshal(map[string]any{"propositions": props})
			content = "```json\n" + string(b) + "\n```"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": len(user) / 4, "completion_tokens": len(content) / 4},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func client(t *testing.T, url string, mod ...func(*llm.Config)) *llm.Client {
	cfg := llm.Config{BaseURL: url, Model: "fake", Retries: 2, Timeout: 2 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var topics = "Topic one: cats. Cats purr and sleep, they chase mice. Cats are independent animals, they like warm places.\n\n" +
	"Topic two: rivers. Rivers flow to the sea, they carry sediment. Floods happen in spring, after snow melts.\n\n" +
	"Topic three: music. Music has rhythm and melody, it moves people. Orchestras play symphonies, bands play songs."

func TestSplitFollowsTheModel(t *testing.T) {
	srv, _ := fakeModel(t, nil)
	c, err := NewSplit(SplitConfig{Size: 400, PieceSize: 30, WindowTokens: 400, Retries: 2, Prompt: "split_v1"}, nil, client(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunktest.Check(t, c, topics, chunktest.Options{Limit: 400})
	var starts []string
	for _, ch := range chunks {
		starts = append(starts, ch.Text[:min(9, len(ch.Text))])
	}
	if len(chunks) != 3 || !strings.HasPrefix(chunks[1].Text, "Topic two") || !strings.HasPrefix(chunks[2].Text, "Topic three") {
		t.Errorf("chunks start with %q", starts)
	}
	u := chunks[0].Stats.LLM
	if u == nil || u.Calls == 0 || u.PromptTokens == 0 || u.LatencyMS <= 0 {
		t.Errorf("accounting %+v", u)
	}
}

func TestSplitValidationAndRetries(t *testing.T) {
	cases := []struct {
		name      string
		behave    func(n int64, w http.ResponseWriter, user string) bool
		fallbacks bool
		retries   bool
	}{
		{"malformed json then valid", func(n int64, w http.ResponseWriter, user string) bool {
			if n == 1 {
				answer(w, "sure! the splits are three and five")
				return true
			}
			return false
		}, false, true},
		{"out of range forever", func(n int64, w http.ResponseWriter, user string) bool {
			answer(w, `{"split_after": [999]}`)
			return true
		}, true, true},
		{"decreasing forever", func(n int64, w http.ResponseWriter, user string) bool {
			answer(w, `{"split_after": [5, 2]}`)
			return true
		}, true, true},
		{"429 then fine", func(n int64, w http.ResponseWriter, user string) bool {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return true
			}
			return false
		}, false, false},
		{"context length", func(n int64, w http.ResponseWriter, user string) bool {
			http.Error(w, `{"error": {"message": "This model's maximum context length is 10 tokens", "code": "context_length_exceeded"}}`, http.StatusBadRequest)
			return true
		}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeModel(t, tc.behave)
			c, _ := NewSplit(SplitConfig{Size: 120, PieceSize: 30, WindowTokens: 200, Retries: 2, Prompt: "split_v1"}, nil, client(t, srv.URL))
			chunks := chunktest.Check(t, c, topics, chunktest.Options{Limit: 120})
			u := chunks[0].Stats.LLM
			if tc.fallbacks && u.Fallbacks == 0 || !tc.fallbacks && u.Fallbacks != 0 {
				t.Errorf("fallbacks %d", u.Fallbacks)
			}
			if tc.retries && u.Retries == 0 {
				t.Errorf("no corrective retry: %+v", u)
			}
		})
	}
}

func answer(w http.ResponseWriter, content string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5}})
}

// An endpoint that is down gives an error and no chunks.
func TestEndpointDown(t *testing.T) {
	srv, _ := fakeModel(t, nil)
	url := srv.URL
	srv.Close()
	cl := client(t, url, func(c *llm.Config) { c.Retries = 1 })
	s, _ := NewSplit(DefaultSplitConfig(), nil, cl)
	chunks, err := s.Chunk(context.Background(), gochunk.Document{ID: "d", Text: topics})
	if chunks != nil || !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), `"d"`) {
		t.Errorf("chunks %d, err %v", len(chunks), err)
	}
	p, _ := NewPropositions(DefaultPropositionsConfig(), nil, cl)
	if chunks, err := p.Chunk(context.Background(), gochunk.Document{Text: topics}); chunks != nil || err == nil {
		t.Errorf("propositions: %d %v", len(chunks), err)
	}
}

func TestTimeout(t *testing.T) {
	srv, _ := fakeModel(t, func(n int64, w http.ResponseWriter, user string) bool {
		time.Sleep(300 * time.Millisecond)
		return false
	})
	cl := client(t, srv.URL, func(c *llm.Config) { c.Timeout = 50 * time.Millisecond; c.Retries = -1 })
	s, _ := NewSplit(DefaultSplitConfig(), nil, cl)
	if _, err := s.Chunk(context.Background(), gochunk.Document{Text: topics}); err == nil {
		t.Error("no error after a timeout")
	}
}

func TestPropositions(t *testing.T) {
	srv, calls := fakeModel(t, nil)
	cl := client(t, srv.URL)
	p, err := NewPropositions(PropositionsConfig{Size: 80, PassageTokens: 200, Retries: 1, Prompt: "propositions_v1"}, nil, cl)
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunktest.Check(t, p, topics, chunktest.Options{Limit: 80, Derived: true, Overlap: true})
	found := false
	for _, ch := range chunks {
		if ch.Metadata["derived"] != true {
			t.Error("chunk not marked derived")
		}
		for _, pr := range ch.Metadata["propositions"].([]string) {
			if pr == "they chase mice." {
				found = true
			}
		}
	}
	if !found {
		t.Error("propositions missing")
	}
	// The answers are cached: a second run asks nothing.
	before := calls.Load()
	p.Chunk(context.Background(), gochunk.Document{Text: topics})
	if calls.Load() != before {
		t.Errorf("second run made %d calls", calls.Load()-before)
	}
}

// Sentences the model forgets are kept; propositions citing nothing valid
// are aligned lexically.
func TestPropositionsRepair(t *testing.T) {
	srv, _ := fakeModel(t, func(n int64, w http.ResponseWriter, user string) bool {
		answer(w, `{"propositions": [{"text": "Rivers carry sediment to the sea", "sources": [99]}]}`)
		return true
	})
	p, _ := NewPropositions(DefaultPropositionsConfig(), tokenize.Words{}, client(t, srv.URL))
	chunks := chunktest.Check(t, p, topics, chunktest.Options{Counter: tokenize.Words{}, Limit: 512, Derived: true, Overlap: true})
	all := ""
	for _, ch := range chunks {
		all += ch.Text + "\n"
	}
	if !strings.Contains(all, "Rivers carry sediment to the sea") || !strings.Contains(all, "Orchestras play symphonies") {
		t.Errorf("text %q", all)
	}
}

func TestNeedsAModel(t *testing.T) {
	if _, err := NewSplit(DefaultSplitConfig(), nil, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("split without a model: %v", err)
	}
	if _, err := NewPropositions(DefaultPropositionsConfig(), nil, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("propositions without a model: %v", err)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add(topics, uint8(60))
	f.Add("Topic a. b. Topic c.", uint8(10))
	srv, _ := fakeModel(&testing.T{}, nil)
	f.Cleanup(srv.Close)
	cl, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake"})
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		if !utf8Valid(text) {
			return
		}
		limit := int(size%200) + 8
		c, err := NewSplit(SplitConfig{Size: limit, PieceSize: 10, WindowTokens: 100, Retries: 1, Prompt: "split_v1"}, nil, cl)
		if err != nil {
			t.Fatal(err)
		}
		chunktest.Check(t, c, text, chunktest.Options{Limit: limit})
	})
}

func FuzzPropositions(f *testing.F) {
	f.Add(topics, uint8(60))
	f.Add("a, b. c, d, e.", uint8(4))
	srv, _ := fakeModel(&testing.T{}, nil)
	f.Cleanup(srv.Close)
	cl, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake"})
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		if !utf8Valid(text) {
			return
		}
		limit := int(size%200) + 8
		c, err := NewPropositions(PropositionsConfig{Size: limit, PassageTokens: 100, Retries: 1, Prompt: "propositions_v1"}, nil, cl)
		if err != nil {
			t.Fatal(err)
		}
		chunktest.Check(t, c, text, chunktest.Options{Limit: limit, Derived: true, Overlap: true})
	})
}
