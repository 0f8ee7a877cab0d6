package pack

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

// The size of a run of token pieces that mergeTokens computes from cut
// points equals counting its text, on text with spaces, tabs, line
// breaks, punctuation, digits and multi-byte characters.
func TestTokenCountMatchesCount(t *testing.T) {
	tok, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"token", "ization", " ", "  ", "\t", "\n", "\n\n", "unbelievable", "42", "3.14", "!", "?!", "é", "日本語", "🎉", "don't", "—", "(x)", "www.example.com", "  \n "}
	var sb strings.Builder
	for sb.Len() < 20000 {
		sb.WriteString(words[r.IntN(len(words))])
	}
	text := sb.String()
	e := &Engine{Text: text, Counter: tok, Limit: 1 << 20}
	e.Init()
	pieces, err := e.unitPieces(0, len(text))
	if err != nil {
		t.Fatal(err)
	}
	pieces = append([]Piece(nil), pieces...)
	e.cutter = tok.(tokenize.Cutter)
	e.tokens = []int{0}
	for _, p := range pieces {
		e.tokens = append(e.tokens, e.tokens[len(e.tokens)-1]+p.Size)
	}
	for range 3000 {
		i := r.IntN(len(pieces))
		k := min(len(pieces)-1, i+r.IntN(400))
		if got, want := e.tokenCount(pieces, i, k), e.Count(pieces[i].Start, pieces[k].End); got != want {
			t.Fatalf("pieces %d..%d (%q): %d tokens, counting says %d", i, k, text[pieces[i].Start:pieces[k].End], got, want)
		}
	}
}
