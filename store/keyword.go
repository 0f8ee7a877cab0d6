package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// Keyword search in a SQLite store is FTS5's BM25 over the chunks' words
// (the query's words OR-ed). FTS5 scores every row that holds any of the
// words, reading each one's length: a query with a word most chunks hold
// ("the", "return", "err") scores hundreds of thousands of rows in a
// store of a million chunks (seconds). keywordWords bounds that: it
// counts, for each of the query's words, the rows that hold it (up to
// keywordProbe), and keeps the rarest words while the rows they match add
// up to at most keywordBudget (the rarest always). The words left out
// are the commonest, whose BM25 weight (their IDF) is the smallest;
// BenchmarkANN measures the recall@10 of the bounded search against the
// unbounded one (Query.Exact), which stays available.

const (
	// keywordProbe is the most rows counted for a word: a word in more
	// is common.
	keywordProbe = 4096
	// keywordBudget is the most rows (by the words' counts) the ranked
	// query may match, unless its rarest word alone matches more.
	keywordBudget = 16384
)

// keywordWords returns the words of w to rank by (all when the rows
// they match are within keywordBudget).
func (s *SQLite) keywordWords(ctx context.Context, w []string) ([]string, error) {
	if len(w) <= 1 {
		return w, nil
	}
	stmt, err := s.db.PrepareContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM gochunk_chunks_fts WHERE gochunk_chunks_fts MATCH ? LIMIT ?)`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	type counted struct {
		word string
		rows int
	}
	cs := make([]counted, len(w))
	total, common := 0, false
	for i, x := range w {
		cs[i].word = x
		if err := stmt.QueryRowContext(ctx, phrase(x), keywordProbe).Scan(&cs[i].rows); err != nil {
			return nil, err
		}
		total += cs[i].rows
		common = common || cs[i].rows >= keywordProbe
	}
	if total <= keywordBudget && !common {
		return w, nil
	}
	// Rarest first (words no row holds left out); among common words
	// (counted up to the probe), the longest first.
	cs = slices.DeleteFunc(cs, func(c counted) bool { return c.rows == 0 })
	slices.SortStableFunc(cs, func(a, b counted) int {
		return cmp.Or(cmp.Compare(a.rows, b.rows), cmp.Compare(len(b.word), len(a.word)))
	})
	// A word counted up to the probe may match any number of rows: it
	// is kept only as the rarest.
	kept := []string{cs[0].word}
	for sum, i := cs[0].rows, 1; i < len(cs) && cs[i].rows < keywordProbe && sum+cs[i].rows <= keywordBudget; i++ {
		sum += cs[i].rows
		kept = append(kept, cs[i].word)
	}
	return kept, nil
}

// phrase quotes a word as an FTS5 phrase.
func phrase(w string) string {
	return `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
}
