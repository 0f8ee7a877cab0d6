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
// (runes, bytes) without overlap, where runs of ASCII are taken whole,
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
			e := &Engine{Text: text, Counter: c, Limit: limit, SkipWords: true}
			e.Init()
			got, err := e.Split(context.Background(), 0, len(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []Range
			start, total := 0, 0
			g := uniseg.NewGraphemes(text)
			for g.Next() {
				from, to := g.Positions()
				n := c.Count(text[from:to])
				if total+n > limit {
					want = append(want, Range{start, from})
					start, total = from, 0
				}
				total += n
			}
			want = append(want, Range{start, len(text)})
			if len(got) != len(want) {
				t.Fatalf("trial %d, %s, limit %d, %q: windows %v, want %v", trial, c.Name(), limit, text, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("trial %d, %s, limit %d, %q: windows %v, want %v", trial, c.Name(), limit, text, got, want)
				}
			}
		}
	}
}
