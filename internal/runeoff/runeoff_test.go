package runeoff

import (
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
