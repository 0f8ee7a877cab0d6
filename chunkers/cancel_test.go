package chunkers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/tokenize"
)

// cancellingWords is a word counter that cancels a context at its nth
// count and then counts the calls that still come.
type cancellingWords struct {
	tokenize.Words
	n      int64
	calls  *atomic.Int64
	after  *atomic.Int64
	cancel context.CancelFunc
}

func (c cancellingWords) Count(text string) int {
	switch k := c.calls.Add(1); {
	case k == c.n:
		c.cancel()
	case k > c.n:
		c.after.Add(1)
	}
	return c.Words.Count(text)
}

// Cancellation reaches the loops that run long: cancelled in the middle of
// a large document, every chunker stops with the context's error after a
// bounded amount of further work (counted in its calls to the counter,
// not in time), so a request past its deadline frees its core.
func TestCancellationStopsWork(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "Sentence %d talks about topic %d in a few words. ", i, i%113)
		if i%7 == 6 {
			b.WriteString("\n\n")
		}
	}
	text := b.String()
	reg := chunkers.New()
	for _, info := range reg.List() {
		if info.UsesLLM || info.Name == "late" || info.Name == "fast" {
			continue // a model; fast counts nothing (it cuts bytes)
		}
		t.Run(info.Name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls, after atomic.Int64
			counter := cancellingWords{n: 2000, calls: &calls, after: &after, cancel: cancel}
			c, err := reg.New(info.Name, []byte(`{"size": 200}`), chunkers.Env{Counter: counter})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Chunk(ctx, gochunk.Document{Text: text})
			if calls.Load() < counter.n {
				t.Skipf("only %d counts on 4 MB: nothing to cancel in the middle of", calls.Load())
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled after %d counts: %v, want the context's error", counter.n, err)
			}
			if a := after.Load(); a > 50_000 {
				t.Errorf("%d counts after the cancellation (of %d in all)", a, calls.Load())
			}
		})
	}
}
