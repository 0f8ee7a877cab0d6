package pack

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk/tokenize"
)

// indexText is text with every kind of character the pre-tokenizers treat
// apart: spaces, tabs, line breaks, punctuation, digits next to letters,
// contractions, multi-byte letters, emoji.
func indexText(r *rand.Rand, n int) string {
	words := []string{"token", "ization", " ", "  ", "\t", "\n", "\n\n", "unbelievable", "42", "3.14", "a1b2", "!", "?!", "é", "日本語", "🎉", "don't", "—", "(x)", "www.example.com", "  \n ", "\r\n", "ABC", "x"}
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(words[r.IntN(len(words))])
	}
	return sb.String()
}

// Counts read from the token index equal counting the text, for ranges
// starting and ending anywhere (inside words, characters' boundaries
// only; at and across the edges of the index's blocks), in both tiktoken
// encodings.
func TestIndexedCountMatchesCount(t *testing.T) {
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		tok, err := tokenize.New(name)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 6))
		text := indexText(r, 3*indexBlock) // several blocks
		e := &Engine{Text: text, Counter: tok, Limit: 1 << 20}
		e.Init()
		e.counted = indexAfter * len(text)
		if !e.useIndex(0, 1) {
			t.Fatalf("%s: no index", name)
		}
		if len(e.index.starts) < 3 {
			t.Fatalf("%s: %d blocks, want several", name, len(e.index.starts))
		}
		indexed := 0
		for k := range 5000 {
			a := r.IntN(len(text))
			if k%10 == 0 {
				// a range starting or ending at a block's edge
				s := e.index.starts[r.IntN(len(e.index.starts))]
				a = max(0, s-r.IntN(3000)*(k%20/10))
			}
			b := min(len(text), a+r.IntN(5000))
			if k%10 == 5 {
				// a range ending at, or just before, a block's edge
				b = max(0, e.index.starts[r.IntN(len(e.index.starts))]-k%20/10)
				a = max(0, b-r.IntN(5000))
			}
			for a > 0 && !utf8.RuneStart(text[a]) {
				a--
			}
			for b < len(text) && !utf8.RuneStart(text[b]) {
				b++
			}
			want := tok.Count(text[a:b])
			if got, ok := e.indexedCount(a, b); ok {
				indexed++
				if got != want {
					t.Fatalf("%s: [%d,%d) %q: %d from the index, counting says %d", name, a, b, text[a:b], got, want)
				}
			}
			if got := e.Count(a, b); got != want {
				t.Fatalf("%s: Count [%d,%d): %d, counting says %d", name, a, b, got, want)
			}
		}
		if indexed < 4000 {
			t.Errorf("%s: only %d of 5000 ranges counted from the index", name, indexed)
		}
	}
}

// FuzzIndexedCount checks the index on any text and range.
func FuzzIndexedCount(f *testing.F) {
	f.Add("Hello world, 42 times: don't stop\n\n  the 日本語 text.", 3, 40)
	f.Add(strings.Repeat("ab1 ", 100), 5, 300)
	tok, err := tokenize.New("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, a, b int) {
		if !utf8.ValidString(text) || len(text) == 0 {
			return
		}
		a, b = min(max(a, 0), len(text)), min(max(b, 0), len(text))
		if a > b {
			a, b = b, a
		}
		for a > 0 && a < len(text) && !utf8.RuneStart(text[a]) {
			a--
		}
		for b < len(text) && !utf8.RuneStart(text[b]) {
			b++
		}
		e := &Engine{Text: text, Counter: tok, Limit: 1 << 20}
		e.Init()
		e.cutter = tok.(tokenize.Cutter)
		e.index = newTokenIndex(text, e.cutter, tok.(tokenize.Encoder))
		if got, ok := e.indexedCount(a, b); ok {
			if want := tok.Count(text[a:b]); got != want {
				t.Fatalf("[%d,%d) %q: %d from the index, counting says %d", a, b, text[a:b], got, want)
			}
		}
	})
}

// A text with a run the tokenizer cannot cut, longer than maxUncut, gets
// no index (no range inside the run could use it), and counts stay exact.
func TestNoIndexForUncutRuns(t *testing.T) {
	tok, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	run := make([]byte, maxUncut+1000)
	for i := range run {
		run[i] = byte('a' + r.IntN(26))
	}
	text := "Some words first. " + string(run) + " and after."
	e := &Engine{Text: text, Counter: tok, Limit: 1 << 20}
	e.Init()
	e.counted = indexAfter * len(text)
	if e.useIndex(0, 1) || e.index != nil || !e.noIndex {
		t.Fatal("indexed a text with an uncut run over maxUncut")
	}
	if got, want := e.Count(5, 5000), tok.Count(text[5:5000]); got != want {
		t.Errorf("count %d, want %d", got, want)
	}
}

// TestSeekMatchesAt compares lookups in a token index from a cursor
// (forward, backward, across blocks) with the search from scratch.
func TestSeekMatchesAt(t *testing.T) {
	tok, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	rng := rand.New(rand.NewPCG(17, 18))
	words := []string{" the", " chunk", "ing", ",", "\n", "  ", " 日本語", "42"}
	for sb.Len() < 3*indexBlock {
		sb.WriteString(words[rng.IntN(len(words))])
	}
	text := sb.String()
	idx := newTokenIndex(text, tok, tok)
	var c indexCursor
	for trial := range 200000 {
		x := rng.IntN(len(text) + 2)
		if trial%4 != 0 { // mostly near the last lookup
			if c.k < len(idx.starts) && c.i < len(idx.blocks[c.k].lo) {
				x = max(0, int(idx.starts[c.k]+idx.blocks[c.k].end(c.i))+rng.IntN(400)-100)
			}
		}
		wantN, wantAt := idx.at(x)
		if n, at := idx.seek(&c, x); n != wantN || at != wantAt {
			t.Fatalf("trial %d: seek(%d) = %d, %v, at says %d, %v", trial, x, n, at, wantN, wantAt)
		}
		if j := rng.IntN(wantN + 1); j < wantN {
			if got, want := idx.endNear(&c, j), idx.end(j); got != want {
				t.Fatalf("endNear(%d) = %d, end says %d", j, got, want)
			}
		}
	}
}

// TestIndexedBlockMatchesEnds packs random increasing ends, with gaps of
// over 64 KiB (a token longer than that leaves some high parts without a
// token), and checks end and search, from every kind of hint, against the
// plain offsets.
func TestIndexedBlockMatchesEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 300 {
		var ends []int
		for e := 0; len(ends) < rng.IntN(400); {
			switch rng.IntN(20) {
			case 0:
				e += 1 + rng.IntN(3<<16)
			case 1:
				e = (e>>16+1)<<16 - rng.IntN(2) // at or just before a multiple of 64 KiB
			default:
				e += 1 + rng.IntN(12)
			}
			if len(ends) == 0 || e > ends[len(ends)-1] {
				ends = append(ends, e)
			}
		}
		b := newIndexedBlock(ends)
		for i, e := range ends {
			if got := b.end(i); got != e {
				t.Fatalf("trial %d: end(%d) = %d, want %d", trial, i, got, e)
			}
		}
		last := 0
		if len(ends) > 0 {
			last = ends[len(ends)-1]
		}
		for range 200 {
			x := 1 + rng.IntN(last+3<<16)
			want := sort.SearchInts(ends, x)
			wantAt := want < len(ends) && ends[want] == x
			for _, hint := range []int{-1, 0, want, want - 1, want + 1, rng.IntN(len(ends) + 1), len(ends)} {
				if got, at := b.search(x, hint); got != want || at != wantAt {
					t.Fatalf("trial %d: search(%d, hint %d) = %d, %v, want %d, %v (ends %v)", trial, x, hint, got, at, want, wantAt, ends)
				}
			}
		}
	}
}

// TestIndexTwoBytesAToken bounds the token index's memory: two bytes a
// token and a little per block (it was four bytes a token, as uint32
// offsets).
func TestIndexTwoBytesAToken(t *testing.T) {
	tok, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	text := indexText(rand.New(rand.NewPCG(3, 4)), 4*indexBlock)
	idx := newTokenIndex(text, tok, tok)
	tokens, bytes := 0, 0
	for _, b := range idx.blocks {
		tokens += len(b.lo)
		bytes += 2*cap(b.lo) + 4*cap(b.seg)
	}
	if per := float64(bytes) / float64(tokens); per > 2.01 {
		t.Errorf("%d bytes for %d tokens: %.2f a token, want at most 2.01", bytes, tokens, per)
	}
}

// TestNoIndexForTokenRuns: an engine without levels (the token chunker)
// splits the text by token runs, which read its tokens themselves; the few
// counts they make (runs of letters over a piece's edge) must not build an
// index of the whole text.
func TestNoIndexForTokenRuns(t *testing.T) {
	tok, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	var sb strings.Builder
	for sb.Len() < 4*indexedTokens {
		sb.WriteString(indexText(r, 2000))
		for range 150 + r.IntN(300) { // a run of letters longer than minIndexedRange
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	text := sb.String()
	e := &Engine{Text: text, Counter: tok, Limit: 50, SkipWords: true}
	ranges, err := e.Split(context.Background(), 0, len(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.index != nil {
		t.Errorf("token runs built an index of the whole text (%d blocks)", len(e.index.starts))
	}
	// The ranges are exact: each fits, and they tile the text.
	pos := 0
	for _, rg := range ranges {
		if rg.Start != pos || tok.Count(text[rg.Start:rg.End]) > 50 {
			t.Fatalf("range %v: after %d, %d tokens", rg, pos, tok.Count(text[rg.Start:rg.End]))
		}
		pos = rg.End
	}
}
