package embed

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

// countingEncoder counts the Count calls made of it.
type countingEncoder struct {
	tokenize.Encoder
	counts atomic.Int64
}

func (c *countingEncoder) Count(text string) int {
	c.counts.Add(1)
	return c.Encoder.Count(text)
}

// TestOpenAICountsShortTextsOnce checks that a text sent whole is counted
// once: the embedder used to count every text again after the answers
// came, to learn whether it had been split.
func TestOpenAICountsShortTextsOnce(t *testing.T) {
	srv, _ := fakeOpenAI(t, nil)
	tk, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	enc := &countingEncoder{Encoder: tk}
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Tokenizer: enc, MaxTokens: 512, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"alpha beta", "gamma delta", "epsilon"}
	if _, err := o.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if got := enc.counts.Load(); got != int64(len(texts)) {
		t.Fatalf("counted %d times for %d short texts, want once each", got, len(texts))
	}
}
