package store

import (
	"context"
	"fmt"
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

// TestKeywordBounded: keyword search ranks by the query's rarest words
// when its words match more rows than keywordBudget, and by all of them
// otherwise (the unbounded search's results); Exact ranks by all.
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
			texts = append(texts, x)
		}
		puts = append(puts, textDoc(fmt.Sprintf("d%02d", d), texts))
	}
	if err := s.Replace(ctx, puts...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  []string // the words ranked by; nil: all
	}{
		{"zebra okapi", nil},      // 300 + 180 rows
		{"rare zebra okapi", nil}, // within the budget
		{"the zebra filler", []string{"zebra"}},
		{"okapi zebra of the", []string{"okapi", "zebra"}},
		{"words common chunk", []string{"common"}}, // every word common: the first, longest first
		{"giraffe", nil},
	} {
		w := words(c.query)
		got, err := s.keywordWords(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		want := c.want
		if want == nil {
			want = w
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: ranked by %q, want %q", c.query, got, want)
		}
		bounded, err := s.Search(ctx, Query{Text: c.query, K: 10, Mode: Keyword})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := s.Search(ctx, Query{Text: c.query, K: 10, Mode: Keyword, Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(bounded) != len(exact) {
			t.Fatalf("%q: %d hits, unbounded %d", c.query, len(bounded), len(exact))
		}
		if c.want == nil {
			for i := range exact {
				if bounded[i].Source != exact[i].Source || bounded[i].ChunkIndex != exact[i].ChunkIndex || bounded[i].Score != exact[i].Score {
					t.Fatalf("%q: hit %d is %s #%d (%.4f), unbounded %s #%d (%.4f)", c.query, i, bounded[i].Source, bounded[i].ChunkIndex, bounded[i].Score,
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
