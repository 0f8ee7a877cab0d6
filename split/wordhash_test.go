package split

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refWord is what appendWords reads, a rune at a time: the word at or after
// s[i:] (a run of letters and digits), lowercased, and the offsets around
// it; ok false when no word is left.
func refWord(s string, i int) (word string, start, end int, ok bool) {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWord(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return "", i, i, false
	}
	var sb strings.Builder
	start = i
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWord(r) {
			break
		}
		sb.WriteRune(unicode.ToLower(r))
		i += size
	}
	return sb.String(), start, i, true
}

// appendWords reads the words a rune-at-a-time reader reads, and numbers
// two words alike exactly when they are the same lowercased, across
// non-ASCII letters and digits, marks and invalid bytes.
func TestAppendWordsMatchesRunes(t *testing.T) {
	parts := []string{"a", "i", "I", "B", "z", "Z", "0", "9", "word", "WORDS", "longerwordthaneight", "Mixed123Case", " ", "  ", "\n", ".", ",", "-", "_", "@", "[", "`", "{", "\x00", "\x10", "\x19", "\x7f",
		"é", "É", "ß", "İ", "Σ", "σ", "中文", "٣", "—", "“", "\u00a0", "\xff", "\xc3", "café", "CAFÉ", "naïve", "x\u0301", "1234567", "ABCDEFGH", "abcdefghi"}
	rng := rand.New(rand.NewPCG(3, 4))
	var table wordTable
	ids := map[string]int32{}
	for n := range 4000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		if n >= 3000 { // and any bytes
			for range rng.IntN(40) {
				sb.WriteByte(byte(rng.IntN(256)))
			}
		}
		s := sb.String()
		var want []int32
		for i := 0; ; {
			word, _, end, ok := refWord(s, i)
			if !ok {
				break
			}
			id, seen := ids[word]
			if !seen {
				id = int32(len(ids))
				ids[word] = id
			}
			want = append(want, id)
			i = end
		}
		if got := table.appendWords(nil, s); !slices.Equal(got, want) {
			t.Fatalf("%q: ids %v, want %v", s, got, want)
		}
	}
	if len(ids) < 1000 {
		t.Fatalf("only %d words seen", len(ids))
	}
}
