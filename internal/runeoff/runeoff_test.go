package runeoff

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestConverter(t *testing.T) {
	for _, text := range []string{"plain ascii text", "héllo wörld 日本語 🎉 end", ""} {
		c := New(text)
		var offs []int
		for i := range len(text) + 1 {
			if i == len(text) || utf8.RuneStart(text[i]) {
				offs = append(offs, i)
			}
		}
		// Forward, backward and jumping queries.
		order := append(append([]int{}, offs...), offs...)
		for i := len(offs) - 1; i >= 0; i-- {
			order = append(order, offs[i])
		}
		for _, off := range order {
			if got, want := c.Rune(off), utf8.RuneCountInString(text[:off]); got != want {
				t.Fatalf("%q: Rune(%d) = %d, want %d", text, off, got, want)
			}
		}
	}
}

// Index counts code points of any range exactly, in ASCII blocks, mixed
// blocks and ranges across blocks.
func TestIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc ", "é", "日本", "🎉", "\n", strings.Repeat("x", 300)}
	var sb strings.Builder
	for sb.Len() < 5000 {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	text := sb.String()
	x := NewIndex(text)
	var offs []int
	for i := range len(text) + 1 {
		if i == len(text) || utf8.RuneStart(text[i]) {
			offs = append(offs, i)
		}
	}
	for range 20000 {
		a, b := offs[r.IntN(len(offs))], offs[r.IntN(len(offs))]
		if a > b {
			a, b = b, a
		}
		if got, want := x.Count(a, b), utf8.RuneCountInString(text[a:b]); got != want {
			t.Fatalf("Count(%d, %d) = %d, want %d", a, b, got, want)
		}
		if got, want := x.Rune(b), utf8.RuneCountInString(text[:b]); got != want {
			t.Fatalf("Rune(%d) = %d, want %d", b, got, want)
		}
	}
}
