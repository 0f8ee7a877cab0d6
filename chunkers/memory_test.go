package chunkers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/memtest"
	"github.com/gochunk/gochunk/internal/textgen"
)

// mixedText returns about n bytes of generated text of the kinds that make
// many short units per megabyte: paragraphs of prose, runs of chat lines
// and numbered clauses, in turn.
func mixedText(n int) string {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	for seed := uint64(1); b.Len() < n; seed++ {
		b.WriteString(textgen.Prose(8<<10, seed))
		for range 40 + r.IntN(40) {
			fmt.Fprintf(&b, "user%d: %s\n", r.IntN(9), [...]string{"ok", "thanks, that works", "see the log above?", "yes.", "no idea, sorry"}[r.IntN(5)])
		}
		b.WriteString("\n")
		for k := range 10 + r.IntN(10) {
			fmt.Fprintf(&b, "%d. The licensee shall keep clause %d in every copy.\n", k+1, r.IntN(100))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// liveGrowth bounds the growth of some chunkers' peak live heap per byte
// of input, with room for the sampling's swing, where what it was before
// is well above it: mst kept every edge of its graph as a 24-byte Edge
// and sorted a copy (2.4 bytes a byte, 0.8-1.4 since), sentence held
// every sentence's range and piece (1.6, 0.2-0.3 since).
var liveGrowth = map[string]float64{"mst": 2, "sentence": 0.8}

// The server reserves a chunker's memory factor (Spec.Memory, measured on
// whole processes at 30 MB of mixed text) times the input. A process at
// its peak holds the input (memory-mapped, once) and the heap, which the
// collector lets grow to twice the live heap by default. What grows with
// the input is what counts at scale (a batch of vectors is the same at 1
// and at 30 MB): so twice the growth of an embedding chunker's peak live
// heap per byte of input, plus the input, must stay within its factor. A
// change that keeps every vector or every edge of a graph breaks this
// before it breaks a server's budget. (The rule-based chunkers allocate
// too little for the collector to sample their peak at 1 MB; their
// growth is logged.)
func TestLiveHeapWithinMemoryFactor(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("chunks 1 and 4 MB with every chunker; not under -short or the race detector")
	}
	const small, large = 1 << 20, 4 << 20
	text := mixedText(large)
	r := chunkers.New()
	for _, name := range r.Names() {
		spec, _ := r.Lookup(name)
		if spec.UsesLLM || name == "late" {
			continue // they need a model
		}
		env := chunkers.Env{}
		if spec.Embeds {
			// The pipeline's embedder without its cache, which is bounded
			// in entries (65,536) and in the vectors it keeps (embed's
			// TestCacheKeepsSparseVectorsSmall): it grows with the input
			// only until it is full.
			env.Embedder = embed.NewLexical(embed.LexicalConfig{})
		}
		c, err := r.New(name, nil, env)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ctx := context.Background()
		if _, err := c.Chunk(ctx, gochunk.Document{Text: text[:64<<10]}); err != nil { // tables loaded, pools warm
			t.Fatalf("%s: %v", name, err)
		}
		peak := func(n int) float64 {
			var chunks []gochunk.Chunk
			p := memtest.PeakLive(func() {
				chunks, err = c.Chunk(ctx, gochunk.Document{Text: text[:n]})
			})
			if err != nil || len(chunks) == 0 {
				t.Fatalf("%s: %d chunks, %v", name, len(chunks), err)
			}
			return float64(p)
		}
		ps, pl := peak(small), peak(large)
		perByte := max(0, pl-ps) / (large - small)
		t.Logf("%-12s peak live heap %5.1f MB at 1 MB, %5.1f MB at 4 MB: %.2f bytes a byte of input (memory factor %g)", name, ps/(1<<20), pl/(1<<20), perByte, spec.Memory)
		if spec.Embeds && 2*perByte+1 > spec.Memory {
			t.Errorf("%s: peak live heap grows by %.2f bytes a byte of input: twice that and the input (%.2f) exceed its memory factor %g", name, perByte, 2*perByte+1, spec.Memory)
		}
		if b, ok := liveGrowth[name]; ok && perByte > b {
			t.Errorf("%s: peak live heap grows by %.2f bytes a byte of input, want at most %g", name, perByte, b)
		}
	}
}

// The sentence chunker allocates less than a byte per byte of input: it
// packs a window of sentences at a time instead of holding every
// sentence's range and piece (48 bytes a sentence, about twice the input
// of short sentences).
func TestSentenceAllocation(t *testing.T) {
	text := mixedText(4 << 20)
	c, err := chunkers.New().New("sentence", nil, chunkers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.Chunk(ctx, gochunk.Document{Text: text[:64<<10]})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.Chunk(ctx, gochunk.Document{Text: text}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text)); perByte > 1 {
		t.Errorf("sentence allocated %.2f bytes a byte of input; want at most 1", perByte)
	} else {
		t.Logf("sentence allocated %.2f bytes a byte of input", perByte)
	}
}

// BenchmarkMemory chunks 4 MB of generated mixed text with every chunker
// (the lexical embedder behind the pipeline's cache for those that embed)
// and reports, per byte of input, the peak live heap (peak-live-B/B, at
// GOGC=25 while measured) and the bytes allocated (alloc-B/B), besides
// the time.
//
//	go test ./chunkers -run '^$' -bench Memory -benchtime 1x -cpu 2
func BenchmarkMemory(b *testing.B) {
	text := mixedText(4 << 20)
	r := chunkers.New()
	for _, name := range r.Names() {
		spec, _ := r.Lookup(name)
		if spec.UsesLLM || name == "late" {
			continue
		}
		b.Run(name, func(b *testing.B) {
			env := chunkers.Env{}
			if spec.Embeds {
				env.Embedder = embed.NewCached(embed.NewLexical(embed.LexicalConfig{}), embed.CacheOptions{})
			}
			c, err := r.New(name, nil, env)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var peak float64
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				b.StopTimer()
				peak = max(peak, float64(memtest.PeakLive(func() {
					if _, err = c.Chunk(ctx, gochunk.Document{Text: text}); err != nil {
						b.Fatal(err)
					}
				})))
				b.StartTimer()
				if _, err := c.Chunk(ctx, gochunk.Document{Text: text}); err != nil {
					b.Fatal(err)
				}
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			if _, err := c.Chunk(ctx, gochunk.Document{Text: text}); err != nil {
				b.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			b.ReportMetric(peak/float64(len(text)), "peak-live-B/B")
			b.ReportMetric(float64(ms.TotalAlloc-before)/float64(len(text)), "alloc-B/B")
		})
	}
}
