package ocr

import (
	"strings"
	"testing"
)

func TestDigitLike(t *testing.T) {
	for w, want := range map[string]string{"2o12": "2012", "14,ooo.": "14,000.", "(o.91": "(0.91", "2oo1": "2001", "l0%": "10%",
		"lo": "lo", "Ill": "Ill", "2012": "2012", "room1": "room1", "A4": "A4"} {
		got := w
		if digitLike(w) {
			got = digitsFor.Replace(w)
		}
		if got != want {
			t.Errorf("%q -> %q, want %q", w, got, want)
		}
	}
}

func TestRomanNumerals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Valkyria Chronicles lll is", "Valkyria Chronicles III is"},
		{"World War ll, then", "World War II, then"},
		{"Chronicles Ill .", "Chronicles III ."},
		{"Henry lI", "Henry II"},
		// Left as read: no capitalised word before, a sentence ends, too
		// long, other letters, already I's.
		{"the ill man", "the ill man"},
		{"Ill health", "Ill health"},
		{"Smith. Ill health", "Smith. Ill health"},
		{"Part lllll", "Part lllll"},
		{"Part llo", "Part llo"},
		{"Part III", "Part III"},
		{"iPhone ll", "iPhone ll"},
	} {
		var words []Word
		for _, f := range strings.Fields(c.in) {
			words = append(words, Word{Text: f})
		}
		changed := romanNumerals(words)
		var got []string
		for _, w := range words {
			got = append(got, w.Text)
		}
		if g := strings.Join(got, " "); g != c.want || changed != (c.in != c.want) {
			t.Errorf("%q: %q (changed %v), want %q", c.in, g, changed, c.want)
		}
	}
}
