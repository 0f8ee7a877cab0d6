package embed

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// vectorsOf is an embedder that returns fixed vectors, by text.
type vectorsOf map[string][]float32

func (v vectorsOf) Dim() int        { return 6 }
func (v vectorsOf) MaxTokens() int  { return 0 }
func (v vectorsOf) ModelID() string { return "fixed" }
func (v vectorsOf) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = append([]float32(nil), v[t]...)
	}
	return out, nil
}

// The cache gives back what it was given bit for bit, sparse vectors
// (kept as their non-zero numbers) and dense ones alike, negative zero
// included, and every caller gets its own copy.
func TestCacheKeepsVectorsExactly(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	inner := vectorsOf{
		"sparse": {0, 0.5, 0, 0, -0.25, 0},
		"negz":   {negZero, 0, 0, 1, 0, 0},
		"dense":  {1, 2, 3, 4, 5, 6},
		"zero":   {0, 0, 0, 0, 0, 0},
	}
	c := NewCached(inner, CacheOptions{})
	texts := []string{"sparse", "negz", "dense", "zero", "sparse"}
	for round := range 2 { // misses, then hits
		got, err := c.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			want := inner[text]
			if len(got[i]) != len(want) {
				t.Fatalf("round %d, %s: %d numbers, want %d", round, text, len(got[i]), len(want))
			}
			for k := range want {
				if math.Float32bits(got[i][k]) != math.Float32bits(want[k]) {
					t.Errorf("round %d, %s[%d] = %v, want %v (bits)", round, text, k, got[i][k], want[k])
				}
			}
		}
		got[0][1] = 9 // the caller's own: neither the cache nor the other copy changes
		if got[4][1] != 0.5 {
			t.Fatalf("round %d: two results share memory", round)
		}
	}
	if hits, misses := c.Stats(); hits != 5 || misses != 4 {
		t.Errorf("hits %d, misses %d; want 5 and 4", hits, misses)
	}
}

// A lexical vector has a few dozen of its 1,024 numbers set: the cache
// keeps those, not the whole vector (65,536 dense vectors would take
// 268 MB).
func TestCacheKeepsSparseVectorsSmall(t *testing.T) {
	c := NewCached(NewLexical(LexicalConfig{}), CacheOptions{})
	var texts []string
	for i := range 1000 {
		texts = append(texts, fmt.Sprintf("sentence %d tells of rivers, valleys and the glaciers that carved them", i))
	}
	if _, err := c.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if per := c.Bytes() / int64(len(texts)); per > 400 {
		t.Errorf("%d bytes a cached vector of 1,024 dimensions with about a dozen set; want at most 400", per)
	}
}
