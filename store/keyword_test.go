package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gochunk/gochunk/record"
)

// textDoc is a document whose chunks are texts, without vectors.
func textDoc(id string, texts []string) Put {
	put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c"}}
	for i, x := range texts {
		put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: x, End: len(x), EndRune: len(x)})
	}
	return put
}

// TestKeywordBounded: in a store of schema 4 (FTS5's index, no keyword
// index), not yet prepared, keyword search splits the query's words into
// rare and common when they match more rows than keywordBudget, and ranks
// the rows holding a rare word with every word's weight: the unbounded
// search's hits and scores when its k best hold a rare word.
func TestKeywordBounded(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, 4)
	var puts []Put
	for d := range 60 {
		var texts []string
		for i := range 300 {
			x := fmt.Sprintf("the common filler words of chunk %d of document %d", i, d)
			switch {
			case d%6 == 0 && i%10 == 0:
				x += " with a rare zebra"
			case d%5 == 0 && i%20 == 0:
				x += " with an unusual okapi"
			}
			if i%7 == 0 {
				x += " and the filler again"
			}
			if i%3 == 0 {
				x += " thirdly" // 6,000 rows: between the probe's old value (4,096) and its own
			}
			texts = append(texts, x)
		}
		puts = append(puts, textDoc(fmt.Sprintf("d%02d", d), texts))
	}
	puts = append(puts, textDoc("z", []string{"zebra", "only a zebra here"}))
	if err := s.Replace(ctx, puts...); err != nil {
		t.Fatal(err)
	}
	asEarlierSchema(t, s, 4)
	for _, c := range []struct {
		query string
		rare  []string // nil: all the words, no common ones
	}{
		{"zebra okapi", nil},      // 302 + 180 rows
		{"rare zebra okapi", nil}, // within the budget
		{"the zebra filler", []string{"zebra"}},
		{"okapi zebra of the again", []string{"okapi", "zebra", "again"}},
		{"words common chunk", []string{"common"}}, // every word common: the first, longest first
		{"zebra thirdly filler", []string{"zebra", "thirdly"}},
		{"giraffe", nil},
	} {
		w := words(c.query)
		rare, common, err := s.keywordWords(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		want := c.rare
		if want == nil {
			want = w
		}
		if !slices.Equal(rare, want) || len(rare)+len(common) != len(w) {
			t.Errorf("%q: rare %q, common %q, want rare %q", c.query, rare, common, want)
		}
		ks := []int{1, 10, 40}
		if raceEnabled {
			ks = ks[1:2] // the unbounded ranking of 18,000 rows is slow under the race detector
		}
		for _, k := range ks {
			bounded, err := s.Search(ctx, Query{Text: c.query, K: k, Mode: Keyword})
			if err != nil {
				t.Fatal(err)
			}
			exact, err := s.Search(ctx, Query{Text: c.query, K: k, Mode: Keyword, Exact: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(bounded) != len(exact) {
				t.Fatalf("%q, k=%d: %d hits, unbounded %d", c.query, k, len(bounded), len(exact))
			}
			for i := range exact {
				if bounded[i].Source != exact[i].Source || bounded[i].ChunkIndex != exact[i].ChunkIndex || math.Abs(bounded[i].Score-exact[i].Score) > 1e-9 {
					t.Fatalf("%q, k=%d: hit %d is %s #%d (%.4f), unbounded %s #%d (%.4f)", c.query, k, i, bounded[i].Source, bounded[i].ChunkIndex, bounded[i].Score,
						exact[i].Source, exact[i].ChunkIndex, exact[i].Score)
				}
			}
		}
	}
	// The rare words decide: the bounded search's hits hold them.
	hits, err := s.Search(ctx, Query{Text: "the zebra filler", K: 10, Mode: Keyword})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if !slices.Contains(words(h.Text), "zebra") {
			t.Errorf("a hit without the rare word: %q", h.Text)
		}
	}
}
