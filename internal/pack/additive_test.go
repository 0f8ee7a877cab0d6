package pack

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/gochunk/gochunk/tokenize"
)

// TestRunWindowsFollowClusters checks the windows of an additive counter
// (runes, bytes), where runs of ASCII are taken whole,
// against greedy windows of whole grapheme clusters found by uniseg: a
// carriage return stays with its line feed, a letter with the combining
// mark after it.
func TestRunWindowsFollowClusters(t *testing.T) {
	parts := []string{"a", "b", " ", "\n", "\r\n", "\r", "e\u0301", "é", "👍🏽", "🇫🇷", "x\u0308\u0301", "日本"}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 400 {
		var sb strings.Builder
		for range rng.IntN(60) + 1 {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		text := sb.String()
		for _, c := range []tokenize.Counter{tokenize.Runes{}, tokenize.Bytes{}} {
			limit := rng.IntN(9) + 3 // every cluster above fits alone: 3 runes, 8 bytes
			if _, ok := c.(tokenize.Bytes); ok {
				limit += 5
			}
			overlap := rng.IntN(limit)
			e := &Engine{Text: text, Counter: c, Limit: limit, Overlap: overlap, SkipWords: true}
			e.Init()
			got, err := e.Split(context.Background(), 0, len(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			// The clusters, then greedy windows of them with the overlap
			// rule of Merge: the longest run of the window's trailing
			// clusters (never its first) of at most overlap tokens that
			// leaves room for the next cluster.
			var starts, sizes []int
			g := uniseg.NewGraphemes(text)
			for g.Next() {
				from, to := g.Positions()
				starts, sizes = append(starts, from), append(sizes, c.Count(text[from:to]))
			}
			starts = append(starts, len(text))
			var want []Range
			for i := 0; i < len(sizes); {
				j, total := i, 0
				for j < len(sizes) && total+sizes[j] <= limit {
					total += sizes[j]
					j++
				}
				want = append(want, Range{starts[i], starts[j]})
				if j == len(sizes) {
					break
				}
				next, kept := j, 0
				for u := j - 1; u > i && kept+sizes[u] <= overlap && kept+sizes[u] <= limit-sizes[j]; u-- {
					kept += sizes[u]
					next = u
				}
				i = next
			}
			if len(got) != len(want) {
				t.Fatalf("trial %d, %s, limit %d, overlap %d, %q: windows %v, want %v", trial, c.Name(), limit, overlap, text, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("trial %d, %s, limit %d, overlap %d, %q: windows %v, want %v", trial, c.Name(), limit, overlap, text, got, want)
				}
			}
		}
	}
}
