package tokenize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// heapLens is the reference: the piece merged pair by pair, lowest rank
// first.
func heapLens(b *bpe, piece string) []uint16 {
	var out []uint16
	b.mergeHeap(piece, func(n int) { out = append(out, uint16(n)) })
	return out
}

// TestBacktrackMatchesMerge compares the backtracking encoder with the
// rank-ordered merge on random pieces of the shapes that become long
// pre-tokens (runs of letters of one or both cases, of one letter, of
// accented and non-Latin letters, of white space, of punctuation), in
// both encodings.
func TestBacktrackMatchesMerge(t *testing.T) {
	alphabets := []string{"abcdefghijklmnopqrstuvwxyz", "aAbBeEsStT", "a", "ab", "etaoinshrdlu",
		"éèàçœßøå", "абвгдеж", "日本語中文字", " \t", "\n\n \n", "-=_*#", ".,;:!?", "!", "!\"", "aa!", "0123456789"}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		b, err := loadBPE(enc)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 400 {
			alpha := []rune(alphabets[trial%len(alphabets)])
			var sb strings.Builder
			for range rng.IntN(3000) + 1 {
				sb.WriteRune(alpha[rng.IntN(len(alpha))])
			}
			piece := sb.String()
			got, ok := b.backtrackLens(piece)
			if want := heapLens(b, piece); !ok || !slices.Equal(got, want) {
				t.Fatalf("%s, trial %d, %.60q…: backtracking (ok %v) gives %d tokens %v…, merging %d %v…",
					enc, trial, piece, ok, len(got), got[:min(len(got), 12)], len(want), want[:min(len(want), 12)])
			}
		}
	}
}

// TestMergeTableMatchesMerging checks the merge table, built from valid
// pairs in rank order, against merging each token's bytes with the merges
// below it, for every token of both encodings.
func TestMergeTableMatchesMerging(t *testing.T) {
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		b, err := loadBPE(enc)
		if err != nil {
			t.Fatal(err)
		}
		tab := b.table()
		var parts []int
		for id := range uint32(b.vocab.ranks()) {
			s := b.vocab.token(id)
			want := [2]uint32{id, id}
			if len(s) >= 2 {
				parts = parts[:0]
				b.mergeBelow(s, uint64(id), func(n int) { parts = append(parts, n) })
				if len(parts) == 2 {
					l, _ := b.vocab.rank(s[:parts[0]])
					r, _ := b.vocab.rank(s[parts[0]:])
					want = [2]uint32{l, r}
				}
			}
			if got := tab.Split[id]; got != want {
				t.Fatalf("%s: token %d (%q) splits into %v, merging its bytes gives %v", enc, id, s, got, want)
			}
		}
	}
}

// TestBacktrackParallel checks the encoding of a long piece in parts,
// joined, against encoding it whole, with parts small enough that the
// joints fall everywhere, on the long texts of every shape; and the
// parallel path itself on one piece of its real part size.
func TestBacktrackParallel(t *testing.T) {
	for enc, b := range encodings(t) {
		rng := rand.New(rand.NewPCG(13, 14))
		for round := range 4 {
			for name, text := range longTexts(rng, 20000+round*7777) {
				want, ok := b.backtrackLens(text)
				if !ok {
					t.Fatalf("%s %s: backtracking failed", enc, name)
				}
				for _, cores := range []int{2, 3, 7} {
					got, joined, ok := b.encodeParts(text, cores, 2000)
					if ok && !joined {
						got, ok = b.backtrackLens(text) // what backtrackParallel does
					}
					if !ok || !slices.Equal(got, want) {
						t.Fatalf("%s %s, %d parts: ok %v, %d tokens, want %d (first difference at %d)", enc, name, cores, ok, len(got), len(want), firstDiff(got, want))
					}
					// Text without a period joins in parts: the parallel
					// encoding is not a fall back to the whole piece there.
					if !joined && (name == "letters" || name == "bytes" || name == "abc" || name == "dashes") {
						t.Errorf("%s %s, %d parts: the parts were not joined", enc, name, cores)
					}
				}
			}
		}
		text := longTexts(rng, 2*minPart+999)["letters"]
		want, _ := b.backtrackLens(text)
		if got, ok := b.backtrackParallel(text, 2); !ok || !slices.Equal(got, want) {
			t.Fatalf("%s: backtrackParallel of %d letters: ok %v, %d tokens, want %d", enc, len(text), ok, len(got), len(want))
		}
	}
}

// BenchmarkBacktrack encodes a megabyte of random lower-case letters, one
// pre-token, on one core with the tables built: the worst case's inner
// loop (go test ./tokenize -run '^$' -bench Backtrack -cpu 1).
func BenchmarkBacktrack(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	letters := make([]byte, 1<<20)
	for i := range letters {
		letters[i] = byte('a' + rng.IntN(26))
	}
	piece := string(letters)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		b.Run(enc, func(b *testing.B) {
			bp, err := loadBPE(enc)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := bp.backtrackLens(piece); !ok {
				b.Fatal("backtracking failed")
			}
			b.SetBytes(int64(len(piece)))
			for b.Loop() {
				bp.backtrackLens(piece)
			}
		})
	}
}

// BenchmarkBacktrackTables reads the merge table and builds the trie, as
// the first long piece of a process does.
func BenchmarkBacktrackTables(b *testing.B) {
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		b.Run(enc, func(b *testing.B) {
			v, err := loadVocab(enc)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, ok := (&bpe{vocab: v}).prefixes(); !ok {
					b.Fatal("no prefix table")
				}
			}
		})
	}
}
