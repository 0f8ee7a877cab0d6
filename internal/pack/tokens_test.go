package pack

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

// The size of a run of token pieces that mergeRun computes from cut
// points equals counting its text, on text with spaces, tabs, line
// breaks, punctuation, digits and multi-byte characters.
func TestTokenCountMatchesCount(t *testing.T) {
	tok, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"token", "ization", " ", "  ", "\t", "\n", "\n\n", "unbelievable", "42", "3.14", "!", "?!", "é", "日本語", "🎉", "don't", "—", "(x)", "www.example.com", "  \n "}
	var sb strings.Builder
	for sb.Len() < 20000 {
		sb.WriteString(words[rng.IntN(len(words))])
	}
	text := sb.String()
	e := &Engine{Text: text, Counter: tok, Limit: 1 << 20}
	e.Init()
	e.cutter = tok.(tokenize.Cutter)
	r, err := e.unitRun(tok.(tokenize.Encoder), 0, len(text))
	if err != nil {
		t.Fatal(err)
	}
	for range 3000 {
		i := rng.IntN(r.len())
		k := min(r.len()-1, i+rng.IntN(400))
		if got, want := e.runCount(r, i, k), e.Count(r.start(i), r.ends[k]); got != want {
			t.Fatalf("pieces %d..%d (%q): %d tokens, counting says %d", i, k, text[r.start(i):r.ends[k]], got, want)
		}
	}
}
