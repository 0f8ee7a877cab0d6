package split

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/rivo/uniseg"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
)

// clusterBounds returns the grapheme cluster boundaries of text, and the
// longest cluster's length in runes.
func clusterBounds(text string) (map[int]bool, int) {
	bounds := map[int]bool{0: true}
	longest, at := 0, 0
	g := uniseg.NewGraphemes(text)
	for g.Next() {
		at += len(g.Str())
		bounds[at] = true
		longest = max(longest, len(g.Runes()))
	}
	return bounds, longest
}

// checkClusters fails when a chunk of c starts or ends inside a grapheme
// cluster of text while every cluster fits the size.
func checkClusters(t *testing.T, c gochunk.Chunker, text string, size int) {
	t.Helper()
	bounds, longest := clusterBounds(text)
	if longest > size {
		return // a cluster over the limit must be cut
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		for _, s := range ch.Spans {
			if !bounds[s.Start] || !bounds[s.End] {
				t.Fatalf("chunk %q [%d:%d] cuts a grapheme cluster of %q", ch.Text, s.Start, s.End, text)
			}
		}
	}
}

// Below words, text is cut between grapheme clusters (a letter with its
// combining marks, emoji ZWJ sequences, flags, Hangul syllables), not
// between code points, with sizes in runes and in tiktoken tokens.
func TestGraphemeFallback(t *testing.T) {
	texts := []string{
		strings.Repeat("e\u0301a\u0308o\u0302", 20),
		strings.Repeat("👩‍👩‍👧‍👦👍🏽🇫🇷🇩🇪", 10),
		strings.Repeat("각각한국어", 12),
		strings.Repeat("ab\r\ncd", 15),
		strings.Repeat("नमस्ते", 15),
	}
	for _, text := range texts {
		for _, size := range []int{7, 8, 11, 13} {
			r, _ := NewRecursive(RecursiveConfig{Size: Size{Size: size, Overlap: 2}, Separators: []string{"\n\n", " ", ""}}, tokenize.Runes{})
			checkClusters(t, r, text, size)
		}
	}
	// Token windows never cut a cluster that fits: a family emoji is 7
	// code points and several tokens.
	cl, _ := tokenize.New("cl100k_base")
	tk, _ := NewToken(TokenConfig{Size{Size: 30}}, cl)
	fam := strings.Repeat("👩‍👩‍👧‍👦", 40)
	bounds, _ := clusterBounds(fam)
	chunks, _ := tk.Chunk(context.Background(), gochunk.Document{Text: fam})
	for _, ch := range chunks {
		if !bounds[ch.Start()] || !bounds[ch.End()] {
			t.Fatalf("token chunk [%d:%d] cuts a family emoji", ch.Start(), ch.End())
		}
	}
}

// FuzzGraphemes checks that no grapheme cluster is ever split when it
// fits, on text without white space (where the fallback levels cut).
func FuzzGraphemes(f *testing.F) {
	for _, s := range []string{"e\u0301e\u0301e\u0301", "👨‍👩‍👧x👍🏻y", "🇯🇵🇰🇷🇺🇸", "한국어abc", "a\r\nb"} {
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, s string, size int) {
		s = strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) && r != '\r' && r != '\n' {
				return -1
			}
			return r
		}, strings.ToValidUTF8(s, ""))
		size = 4 + abs(size)%20
		r, err := NewRecursive(RecursiveConfig{Size: Size{Size: size}, Separators: []string{""}}, tokenize.Runes{})
		if err != nil {
			t.Fatal(err)
		}
		checkClusters(t, r, s, size)
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
