package split

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/memtest"
	"github.com/gochunk/gochunk/internal/textgen"
)

// memoryText returns about n bytes of generated prose, chat lines and
// numbered clauses, in turn: many short sentences a megabyte.
func memoryText(n int) string {
	r := rand.New(rand.NewPCG(3, 5))
	var b strings.Builder
	for seed := uint64(1); b.Len() < n; seed++ {
		b.WriteString(textgen.Prose(8<<10, seed))
		for range 40 + r.IntN(40) {
			fmt.Fprintf(&b, "user%d: %s\n", r.IntN(9), [...]string{"ok", "thanks, that works", "see the log above?", "yes."}[r.IntN(4)])
		}
		b.WriteString("\n")
		for k := range 10 + r.IntN(10) {
			fmt.Fprintf(&b, "%d. The licensee shall keep clause %d in every copy.\n", k+1, r.IntN(100))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// allocatedPerByte returns the bytes c allocates chunking text, per byte.
func allocatedPerByte(t *testing.T, c gochunk.Chunker, text string) float64 {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Chunk(ctx, gochunk.Document{Text: text[:64<<10]}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.Chunk(ctx, gochunk.Document{Text: text}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
}

// TestCodeAllocation: the code chunker on text of no known language cuts
// by lines, and must not copy the text for a parser it then does not use
// (it did: a byte more allocated a byte of input, 2.2 in all; 1.2 without).
func TestCodeAllocation(t *testing.T) {
	c, err := NewCode(DefaultCodeConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	text := memoryText(4 << 20)
	if per := allocatedPerByte(t, c, text); per > 1.6 {
		t.Errorf("code allocated %.2f bytes a byte of input; want at most 1.6", per)
	} else {
		t.Logf("code allocated %.2f bytes a byte of input", per)
	}
}

// TestAdaptiveLiveHeap bounds the live heap adaptive needs per byte of
// input, chunks included: its units were 32 bytes (pack.Piece), the
// search's costs, density masses, best costs and sizes 8 bytes each and
// where each chunk starts 8, and cohesion kept every word of the text as
// an id (1.55 bytes a byte of this text in all). Pieces are 16 bytes now
// and their break a byte, the units are made from them as they are read,
// what the search looks back at is a ring, where each chunk starts two
// bytes, and cohesion holds the words of its windows only: 0.53.
// leastLivePerByte returns the live heap run needs per byte of an n-byte
// input (memtest.PeakLive), measured up to six times until it is within
// limit, the least of them: a collection that marks while the machine is
// busy counts what run allocates meanwhile as live, so a busy machine only
// adds to the figure (1.21 and 1.30 once each for markdown's 0.66 while
// other packages' tests ran, at load averages of 20-30). The old code's
// figures (1.73, 1.55) are over their limits in every run.
func leastLivePerByte(t *testing.T, n int, limit float64, run func()) float64 {
	t.Helper()
	least := math.Inf(1)
	for range 6 {
		least = min(least, float64(memtest.PeakLive(run))/float64(n))
		if least <= limit {
			break
		}
	}
	return least
}

func TestAdaptiveLiveHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the chunker's")
	}
	a, err := NewAdaptive(DefaultAdaptiveConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	text := memoryText(4 << 20)
	var chunks []gochunk.Chunk
	per := leastLivePerByte(t, len(text), 0.8, func() {
		chunks, err = a.Chunk(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			t.Fatal(err)
		}
	})
	if per > 0.8 {
		t.Errorf("adaptive held %.2f bytes a byte of input at its peak (%d chunks); want at most 0.8", per, len(chunks))
	} else {
		t.Logf("adaptive held %.2f bytes a byte of input at its peak (%d chunks)", per, len(chunks))
	}
}
