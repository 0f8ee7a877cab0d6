package chunkers_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/chunktest"
)

// worstInputs are the inputs that once made chunkers quadratic or made
// them need 150 to 200 times their size: a run of blank lines, one
// character repeated without white space, random letters on one line
// (each one BPE pre-token), and CJK without spaces.
func worstInputs(n int) map[string]string {
	rng := rand.New(rand.NewPCG(1, 2))
	letters := make([]byte, n)
	for i := range letters {
		letters[i] = byte('a' + rng.IntN(26))
	}
	return map[string]string{
		"blank lines":    strings.Repeat("\n", n),
		"one letter":     strings.Repeat("a", n),
		"random letters": string(letters),
		"cjk":            strings.Repeat("漢字かな交じり文の例。", n/33),
	}
}

// Every chunker at its defaults finishes on each worst-case input (the
// deadline guards against a hang; nothing is timed) and keeps the
// contract. A megabyte of blank lines took sentence, adaptive and
// markdown over 300 s, and semantic, savgol, hierarchical and dp over 60.
func TestWorstCaseInputs(t *testing.T) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 16
	}
	reg := chunkers.New()
	for _, info := range reg.List() {
		if info.UsesLLM || info.Name == "late" {
			continue // need a model
		}
		for name, text := range worstInputs(n) {
			if name != "blank lines" && info.UsesEmbedder && n > 1<<18 {
				text = strings.ToValidUTF8(text[:1<<18], "") // one BPE pre-token of a megabyte: seconds each; the benchmark has the large ones
			}
			t.Run(info.Name+"/"+name, func(t *testing.T) {
				c, err := reg.New(info.Name, nil, chunkers.Env{})
				if err != nil {
					t.Fatal(err)
				}
				counter, _ := chunkers.DefaultCounter(mustSpec(t, reg, info.Name), nil)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard, not a timing
				defer cancel()
				chunks, err := c.Chunk(ctx, gochunk.Document{Text: text})
				if err != nil {
					t.Fatalf("%d bytes: %v", len(text), err)
				}
				opt := chunktest.Options{Counter: counter, Limit: defaultSize(t, info), RepeatedHeaders: info.Name == "markdown"}
				if msg := chunktest.Verify(text, chunks, opt); msg != "" {
					t.Fatalf("contract broken: %s", msg)
				}
			})
		}
	}
}

func mustSpec(t testing.TB, reg *chunkers.Registry, name string) chunkers.Spec {
	s, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("no chunker %s", name)
	}
	return s
}

// defaultSize is the chunker's default size parameter (size or
// max_tokens), for the contract's size check.
func defaultSize(t testing.TB, info chunkers.Info) int {
	for _, p := range info.Params {
		if p.Name == "size" || p.Name == "max_tokens" {
			if v, ok := p.Default.(int); ok && v > 0 {
				return v
			}
		}
	}
	return 0
}

// BenchmarkWorstCase runs every chunker at its defaults on the worst-case
// inputs at 4 and 16 MB (GOCHUNK_WORST_MB to choose), to show that time
// and memory grow linearly: go test ./chunkers -run '^$' -bench WorstCase
// -benchmem -benchtime 1x.
func BenchmarkWorstCase(b *testing.B) {
	sizes := []int{4, 16}
	if s := os.Getenv("GOCHUNK_WORST_MB"); s != "" {
		var mb int
		fmt.Sscan(s, &mb)
		sizes = []int{mb}
	}
	reg := chunkers.New()
	for _, mb := range sizes {
		for name, text := range worstInputs(mb << 20) {
			for _, info := range reg.List() {
				if info.UsesLLM || info.Name == "late" {
					continue
				}
				b.Run(fmt.Sprintf("%s/%dMB/%s", strings.ReplaceAll(name, " ", "-"), mb, info.Name), func(b *testing.B) {
					c, err := reg.New(info.Name, nil, chunkers.Env{})
					if err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(len(text)))
					for b.Loop() {
						if _, err := c.Chunk(context.Background(), gochunk.Document{Text: text}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// A megabyte of random letters on one line is one BPE pre-token of
// 380,000 cl100k tokens. The embedding-based chunkers turned all of them
// into token pieces at once, about 200 bytes allocated per input byte (1.3
// GB peak at 16 MB); the pieces are now made and merged 65,536 tokens at a
// time and Split's parts are not counted again: 77–80 bytes per byte (0.4
// GB peak at 16 MB; the README's worst-case table). Bytes allocated, the
// least of two runs, are what is checked: they do not depend on timing or
// on the collector (two different texts: no cache serves the second).
func TestWorstCaseAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: chunks a megabyte of random letters with cl100k_base")
	}
	// Two texts, so that no tokenizer cache serves the second run.
	rng := rand.New(rand.NewPCG(3, 4))
	var texts [2]string
	for i := range texts {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		texts[i] = string(b)
	}
	reg := chunkers.New()
	for _, name := range []string{"semantic", "cluster"} {
		c, err := reg.New(name, nil, chunkers.Env{})
		if err != nil {
			t.Fatal(err)
		}
		least := uint64(math.MaxUint64)
		for _, text := range texts {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			least = min(least, after.TotalAlloc-before.TotalAlloc)
			// The run is merged in parts of 65,536 tokens (more than one
			// part here): the contract holds all the same.
			counter, _ := chunkers.DefaultCounter(mustSpec(t, reg, name), nil)
			if msg := chunktest.Verify(text, chunks, chunktest.Options{Counter: counter, Limit: defaultSize(t, infoOf(t, reg, name))}); msg != "" {
				t.Fatalf("%s: contract broken: %s", name, msg)
			}
		}
		perByte := float64(least) / float64(len(texts[0]))
		t.Logf("%s: %.1f bytes allocated per input byte", name, perByte)
		if perByte > 160 {
			t.Errorf("%s: %.1f bytes allocated per byte of random letters, want at most 160", name, perByte)
		}
	}
}

func infoOf(t testing.TB, reg *chunkers.Registry, name string) chunkers.Info {
	for _, info := range reg.List() {
		if info.Name == name {
			return info
		}
	}
	t.Fatalf("no chunker %s", name)
	return chunkers.Info{}
}
