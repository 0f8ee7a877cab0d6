package split

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/tokenize"
)

// sentencesAtOnce is the sentence chunker packing every sentence of the
// text at once, as it did before it packed a window at a time: the
// reference the windowed chunker must match.
func sentencesAtOnce(t *testing.T, cfg SentenceConfig, counter tokenize.Counter, text string) []gochunk.Chunk {
	t.Helper()
	s, err := NewSentence(cfg, counter)
	if err != nil {
		t.Fatal(err)
	}
	e, err := start(gochunk.Document{Text: text}, s.counter, cfg.Size, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pieces []pack.Piece
	pending := -1
	for _, r := range s.splitter.Split(text) {
		st := r.Start
		if pending >= 0 {
			st = pending
		}
		tr := pack.Trim(text, pack.Range{Start: st, End: r.End})
		if utf8.RuneCountInString(text[tr.Start:tr.End]) < cfg.MinCharacters {
			pending = st
			continue
		}
		pending = -1
		pieces = append(pieces, pack.Piece{Start: st, End: r.End})
	}
	if pending >= 0 {
		if len(pieces) > 0 {
			pieces[len(pieces)-1].End = len(text)
		} else {
			pieces = append(pieces, pack.Piece{Start: pending, End: len(text)})
		}
	}
	parts := *e
	parts.Overlap = 0
	var fitted []pack.Piece
	for _, p := range pieces {
		if n := e.Count(p.Start, p.End); n <= cfg.Size.Size {
			fitted = append(fitted, pack.Piece{Start: p.Start, End: p.End, Size: n})
			continue
		}
		cut, err := parts.Split(context.Background(), p.Start, p.End, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cut {
			fitted = append(fitted, pack.Piece{Start: c.Start, End: c.End, Size: e.Count(c.Start, c.End)})
		}
	}
	ranges := e.Merge(fitted, nil)
	if cfg.MinSentences > 1 && cfg.Overlap == 0 {
		ranges = s.rebalance(e, fitted, ranges)
	}
	chunks, err := e.Build(context.Background(), ranges, cfg.StripWhitespace)
	if err != nil {
		t.Fatal(err)
	}
	return chunks
}

// The sentence chunker packs a window of sentences at a time (memory
// stays flat in the text's length); its chunks are those of packing every
// sentence at once, over many windows, with overlap, a size larger than a
// window's sentences, sentences over the size, short ones joined, a short
// one at the end, and a counter that is not additive.
func TestSentenceWindowsPackAsAWhole(t *testing.T) {
	text := textgen.Prose(1_500_000, 3) + strings.Repeat("word ", 3000) + "\n\nEnd. Ok."
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		counter tokenize.Counter
		size    int
		overlap int
		minSent int
		minChar int
	}{
		{"defaults", nil, 512, 0, 1, 12},
		{"overlap", nil, 300, 120, 1, 12},
		{"size over a window", nil, 400_000, 0, 1, 12},
		{"min sentences", nil, 512, 0, 3, 12},
		{"cl100k_base", cl100k, 128, 32, 1, 0},
	} {
		cfg := DefaultSentenceConfig()
		cfg.Size = Size{Size: tc.size, Overlap: tc.overlap}
		cfg.MinSentences, cfg.MinCharacters = tc.minSent, tc.minChar
		want := sentencesAtOnce(t, cfg, tc.counter, text)
		c, err := NewSentence(cfg, tc.counter)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 2 && tc.size < 1000 {
			t.Fatalf("%s: %d chunks: the text spans no windows", tc.name, len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d chunks, want %d", tc.name, len(got), len(want))
		}
		for i := range want {
			if got[i].Start() != want[i].Start() || got[i].End() != want[i].End() || got[i].TokenCount != want[i].TokenCount {
				t.Fatalf("%s: chunk %d is [%d, %d) of %d tokens, want [%d, %d) of %d", tc.name, i,
					got[i].Start(), got[i].End(), got[i].TokenCount, want[i].Start(), want[i].End(), want[i].TokenCount)
			}
		}
	}
}
