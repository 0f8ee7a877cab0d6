package pack

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// boundariesFromStart are the grapheme cluster boundaries of text, found
// from its start: the definition clusterBoundary answers locally.
func boundariesFromStart(text string) map[int]bool {
	out := map[int]bool{0: true, len(text): true}
	state, at := -1, 0
	for at < len(text) {
		var g string
		g, _, _, state = uniseg.FirstGraphemeClusterInString(text[at:], state)
		at += len(g)
		out[at] = true
	}
	return out
}

// clusterBoundary agrees with a scan from the text's start at every byte
// of texts mixing scripts, combining marks, emoji sequences, flags,
// Hangul jamo, Indic conjuncts and CR LF.
func TestClusterBoundaryMatchesScan(t *testing.T) {
	pieces := []string{"a", "b", " ", "\r", "\n", "é", "e\u0301", "\u0301", "\u200d", "👩", "👩\u200d💻", "\U0001F1EB", "\U0001F1F7",
		"\u1100", "\u1161", "\u11a8", "한", "क", "\u094d", "ष", "\u093f", "日本", "語", "\ufe0f", "❤", "0", ".", "\u0e33", "\u0600",
		"ÿ", "\u02ff", "\u00ad", "\u0085", "’", "“", "—", "…", "\u2027", "\u2028", "\u2030", "\u205e", "\u205f", "\u2060", "\u200b", "\u200c", "\u034f", "\u0300"}
	r := rand.New(rand.NewPCG(3, 7))
	for range 3000 {
		var sb strings.Builder
		for range 1 + r.IntN(24) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := sb.String()
		want := boundariesFromStart(text)
		for p := 0; p <= len(text); p++ {
			if got := clusterBoundary(text, p); got != want[p] {
				t.Fatalf("clusterBoundary(%q, %d) = %v, a scan from the start says %v", text, p, got, want[p])
			}
		}
	}
}
