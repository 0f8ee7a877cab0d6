package store

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Keyword search in a SQLite store of schema 5 or earlier, not yet
// prepared (so without the keyword index of bm25.go, which ranks as FTS5
// does), is FTS5's BM25 over the chunks' words (the query's words OR-ed),
// with the store's FTS5 index, which schema 6 drops. FTS5 scores every row that holds any of the
// words, reading each one's length: a query with a word most chunks hold
// ("the", "return", "err") scores hundreds of thousands of rows in a
// store of a million chunks (seconds). keywordWords bounds that: it
// counts, for each of the query's words, the rows that hold it (up to
// keywordProbe), and splits them into the rarest, while the rows they
// match add up to at most keywordBudget (the rarest always), and the
// common rest. keywordSearch then ranks, with every word's BM25 weight,
// only the rows that hold a rare word: those that also hold a common
// word by the query (rare OR-ed) AND (common OR-ed), whose BM25 is the
// unbounded query's, and the others by the rare words alone (the same
// score, as they hold no common word); each side's k best, merged, are
// the unbounded search's k best among the rows holding a rare word. What
// it misses is a row that holds only common words and outranks them.
// BenchmarkANN measures the recall@10 against the unbounded search
// (Query.Exact), which stays available.

const (
	// keywordProbe is the most rows counted for a word: a word in more
	// is common. At 1.22M chunks (Go source and the module cache, 100
	// held-out sentences), recall@10 against the unbounded ranking and
	// CPU per query: 4,096 0.815 at 55.7 ms; 8,192 0.943 at 65.3 ms;
	// 8,192 with a budget of 32,768 0.950 at 72.6 ms; 16,384 with
	// 65,536 0.990 at 103 ms (FTS5 reads every ranked row's length and
	// counts every word's rows for its weight: the CPU follows the rows).
	keywordProbe = 8192
	// keywordBudget is the most rows (by the words' counts) the ranked
	// query may match, unless its rarest word alone matches more.
	keywordBudget = 16384
)

// keywordWords splits the words w into the rare and the common (none
// when the rows they match are within keywordBudget).
func (s *SQLite) keywordWords(ctx context.Context, w []string) (rare, common []string, err error) {
	if len(w) <= 1 {
		return w, nil, nil
	}
	// A store of no more rows than the budget needs no counting.
	var top int64
	if err := s.rdb.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM gochunk_chunks`).Scan(&top); err != nil || top <= keywordBudget {
		return w, nil, err
	}
	stmt, err := s.rdb.PrepareContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM gochunk_chunks_fts WHERE gochunk_chunks_fts MATCH ? LIMIT ?)`)
	if err != nil {
		return nil, nil, err
	}
	defer stmt.Close()
	type counted struct {
		word string
		rows int
	}
	// The words are counted at once, as many as there are reader
	// connections.
	cs := make([]counted, len(w))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, runtime.GOMAXPROCS(0)))
	for i, x := range w {
		cs[i].word = x
		g.Go(func() error { return stmt.QueryRowContext(gctx, phrase(x), keywordProbe).Scan(&cs[i].rows) })
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	total, anyCommon := 0, false
	for _, c := range cs {
		total += c.rows
		anyCommon = anyCommon || c.rows >= keywordProbe
	}
	if total <= keywordBudget && !anyCommon {
		return w, nil, nil
	}
	// Rarest first (words no row holds left out: they add nothing);
	// among common words (counted up to the probe), the longest first.
	cs = slices.DeleteFunc(cs, func(c counted) bool { return c.rows == 0 })
	slices.SortStableFunc(cs, func(a, b counted) int {
		return cmp.Or(cmp.Compare(a.rows, b.rows), cmp.Compare(len(b.word), len(a.word)))
	})
	// A word counted up to the probe may match any number of rows: it
	// is rare only as the rarest.
	rare = []string{cs[0].word}
	i := 1
	for sum := cs[0].rows; i < len(cs) && cs[i].rows < keywordProbe && sum+cs[i].rows <= keywordBudget; i++ {
		sum += cs[i].rows
		rare = append(rare, cs[i].word)
	}
	for _, c := range cs[i:] {
		common = append(common, c.word)
	}
	return rare, common, nil
}

// orPhrases is the FTS5 query of any of the words.
func orPhrases(w []string) string {
	quoted := make([]string, len(w))
	for i, x := range w {
		quoted[i] = phrase(x)
	}
	return strings.Join(quoted, " OR ")
}

// phrase quotes a word as an FTS5 phrase.
func phrase(w string) string {
	return `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
}

// keywordBounded ranks the rows that hold a rare word (keyword.go): the
// k best of those that also hold a common word, by the query of all the
// words, and of the rest, by the rare words, merged (the best score of a
// row both rank: its unbounded one). The two rankings run at once, each
// on a reader connection of its own: most of a query's time is FTS5's,
// counting each word's rows for its weight and reading each ranked row's
// length, in one statement that cannot be split further.
func (s *SQLite) keywordBounded(ctx context.Context, q Query, rare, common []string) ([]Hit, error) {
	r := "(" + orPhrases(rare) + ")"
	matches := [2]string{r + " AND (" + orPhrases(common) + ")", r}
	var ranked [2][]candidate
	g, gctx := errgroup.WithContext(ctx)
	for i, m := range matches {
		g.Go(func() error {
			var err error
			ranked[i], err = s.keywordRanked(gctx, m, q.K)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	best := map[int64]float64{}
	for _, c := range slices.Concat(ranked[0], ranked[1]) {
		if old, ok := best[c.rowid]; !ok || c.score > old {
			best[c.rowid] = c.score
		}
	}
	merged := make([]candidate, 0, len(best))
	for id, score := range best {
		merged = append(merged, candidate{rowid: id, score: score})
	}
	// Best first, ties by row as the unbounded ranking orders them.
	slices.SortFunc(merged, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.rowid, b.rowid))
	})
	merged = merged[:min(q.K, len(merged))]
	hits := make([]Hit, 0, len(merged))
	for _, c := range merged {
		h, err := s.hit(ctx, `SELECT `+sqliteColumns+` FROM gochunk_chunks c WHERE c.id = ?`, c.rowid)
		if err != nil {
			return nil, err
		}
		h.Score = c.score
		hits = append(hits, h)
	}
	return hits, nil
}

// keywordRanked is the k best rows of an FTS5 query by BM25.
func (s *SQLite) keywordRanked(ctx context.Context, match string, k int) ([]candidate, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT rowid, -bm25(gochunk_chunks_fts) FROM gochunk_chunks_fts
		WHERE gochunk_chunks_fts MATCH ? ORDER BY bm25(gochunk_chunks_fts) LIMIT ?`, match, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.rowid, &c.score); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// keywordIndexed ranks by the keyword index (bm25.go) when the store has
// one: FTS5's BM25 ranking of the words w, among the chunks q's filters
// keep. ok is false when the index cannot answer (the caller asks FTS5).
// The filter, the ranking and the hits are read in one read transaction,
// so a writer replacing a document meanwhile cannot make the search miss
// it (or name a chunk it has deleted).
func (s *SQLite) keywordIndexed(ctx context.Context, q Query, w []string) ([]Hit, bool, error) {
	return s.bm25Search(ctx, w, q)
}

// keptChunks returns the ids of the chunks q's filters keep (with a
// vector or not), read through db (the search's transaction).
func keptChunks(ctx context.Context, db querier, q Query) (map[int64]bool, error) {
	return filteredChunks(ctx, db, q, "")
}
