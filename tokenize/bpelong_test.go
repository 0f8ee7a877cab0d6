package tokenize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// longTexts are long pieces of every shape: runs over small alphabets
// (repeated structure, where BPE depends on the phase from the start),
// one repeated byte, white space, punctuation, random bytes.
func longTexts(rng *rand.Rand, n int) map[string]string {
	pick := func(alphabet string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(rng.IntN(256))
	}
	return map[string]string{
		"ab":          pick("ab"),
		"abc":         pick("abc"),
		"letters":     pick("abcdefghijklmnopqrstuvwxyz"),
		"one letter":  strings.Repeat("a", n),
		"newlines":    strings.Repeat("\n", n),
		"spaces":      strings.Repeat(" ", n),
		"white space": pick(" \n\t"),
		"dashes":      pick("-=_*#"),
		"digits":      pick("0123456789"),
		"bytes":       string(raw),
		"period":      strings.Repeat("the cat sat on the mat ", n/23+1)[:n],
	}
}

// The table's valid agrees with merging two tokens' bytes: BPE of a+b
// ends with a and b exactly when the pair is valid.
func TestValidPair(t *testing.T) {
	tt, _ := NewTikToken("cl100k_base")
	b := tt.bpe
	tab := b.table()
	rev := make([]string, b.vocab.ranks())
	for id := range rev {
		rev[id] = b.vocab.token(uint32(id))
	}
	rng := rand.New(rand.NewPCG(3, 5))
	checked := 0
	for range 20000 {
		x, y := rng.IntN(len(rev)), rng.IntN(len(rev))
		if rev[x] == "" || rev[y] == "" {
			continue
		}
		var lens []int
		b.mergeHeap(rev[x]+rev[y], func(n int) { lens = append(lens, n) })
		want := len(lens) == 2 && lens[0] == len(rev[x])
		if selfMade(b, rev[x]) && selfMade(b, rev[y]) {
			checked++
			if got := tab.Valid(uint32(x), uint32(y)); got != want {
				t.Fatalf("tokens %q %q: valid %v, merging gives %v", rev[x], rev[y], got, lens)
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d pairs checked", checked)
	}
}

// selfMade reports whether a token is what BPE makes of its own bytes.
func selfMade(b *bpe, s string) bool {
	var lens []int
	b.mergeHeap(s, func(n int) { lens = append(lens, n) })
	return len(lens) == 1
}

func firstDiff(a, b []uint16) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Long pieces of every kind are encoded by backtracking (no fall back to
// merging), exactly.
func TestBacktrackLongPieces(t *testing.T) {
	for enc, b := range encodings(t) {
		for name, text := range longTexts(rand.New(rand.NewPCG(1, 1)), 200_000) {
			got, ok := b.backtrackLens(text)
			if !ok {
				t.Errorf("%s %s: backtracking failed", enc, name)
				continue
			}
			if want := wholeMerge(b, text); !slices.Equal(got, want) {
				t.Errorf("%s %s: %d tokens, want %d (first difference at %d)", enc, name, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// FuzzBacktrack compares the backtracking encoder with merging the whole
// piece on random pieces (any bytes: it works on bytes) in both encodings.
func FuzzBacktrack(f *testing.F) {
	f.Add(strings.Repeat("a", 81))
	f.Add(strings.Repeat("ab ba abba ", 20))
	f.Add(strings.Repeat("\n\n \t", 50))
	f.Add("!!!!!!!\"\"\"!!")
	bs := encodings(f)
	f.Fuzz(func(t *testing.T, piece string) {
		if piece == "" {
			return
		}
		for enc, b := range bs {
			got, ok := b.backtrackLens(piece)
			if want := wholeMerge(b, piece); !ok || !slices.Equal(got, want) {
				t.Fatalf("%s %q: backtracking (ok %v) %v, merging %v", enc, piece, ok, got, want)
			}
		}
	})
}

// encodings returns both tiktoken encodings' merges by name.
func encodings(t testing.TB) map[string]*bpe {
	out := map[string]*bpe{}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tt, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		out[enc] = tt.bpe
	}
	return out
}

// wholeMerge returns the token lengths of merging piece at once.
func wholeMerge(b *bpe, piece string) []uint16 {
	var lens []uint16
	b.mergeHeap(piece, func(n int) { lens = append(lens, uint16(n)) })
	return lens
}

// A run of tokens of a piece that InsidePiece accepts is that run's own
// encoding: its count is the number of tokens, for random letters in both
// encodings, at every pair of token ends in a sample.
func TestInsidePieceCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tk, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, letters := range []string{"abcdefghijklmnopqrstuvwxyz", "aeiou", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüßñ"} {
			b := make([]rune, 3000)
			for i := range b {
				b[i] = []rune(letters)[r.IntN(len([]rune(letters)))]
			}
			text := " " + string(b) + "."
			ends := tk.AppendTokenEnds(nil, text)
			checked := 0
			for range 400 {
				i, k := r.IntN(len(ends)), r.IntN(len(ends))
				if i > k {
					i, k = k, i
				}
				sub := text[ends[i]:ends[k]]
				if !tk.InsidePiece(sub) {
					continue
				}
				checked++
				if got := tk.Count(sub); got != k-i {
					t.Fatalf("%s: %q (%d bytes) has %d tokens, the text's tokens there are %d", enc, sub[:min(len(sub), 40)], len(sub), got, k-i)
				}
			}
			if checked == 0 && enc == "cl100k_base" {
				t.Errorf("%s %q: no run checked", enc, letters)
			}
		}
	}
	tk, _ := NewTikToken("o200k_base")
	for s, want := range map[string]bool{"abc": true, "abC": false, "": false, "ab c": false, "éa": true, "a1": false} {
		if got := tk.InsidePiece(s); got != want {
			t.Errorf("o200k_base InsidePiece(%q) = %v", s, got)
		}
	}
}
