package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// asEarlierSchema makes s's tables those a gochunk of schema version
// (at most 5) wrote: the FTS5 index of the chunks' text with its delete
// trigger, and below 5 no keyword index.
func asEarlierSchema(t testing.TB, s *SQLite, version int) {
	t.Helper()
	ctx := context.Background()
	stmts := []string{
		`CREATE VIRTUAL TABLE gochunk_chunks_fts USING fts5 (
			text, content = 'gochunk_chunks', content_rowid = 'id', tokenize = 'porter unicode61')`,
		sqliteDeleteTrigger,
		`INSERT INTO gochunk_chunks_fts (rowid, text) SELECT id, coalesce(embed_text, text) FROM gochunk_chunks`,
	}
	if version < 5 {
		stmts = append(stmts, `DROP TABLE gochunk_kw_terms`, `DROP TABLE gochunk_kw_blocks`,
			`DELETE FROM gochunk_meta WHERE key IN ('kw_index', 'kw_rows', 'kw_tokens')`)
	}
	stmts = append(stmts, fmt.Sprintf(`UPDATE gochunk_meta SET value = '%d' WHERE key = 'schema_version'`, version))
	for _, stmt := range stmts {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
}

// hasFTS5 reports whether the store has FTS5's index or its trigger.
func hasFTS5(t testing.TB, s *SQLite) bool {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'gochunk_chunks_fts%' OR name = 'gochunk_chunks_delete'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// TestSQLiteNoFTS5: a new store keeps no FTS5 index (the keyword index
// ranks as it did), and its writes and keyword searches work without it.
func TestSQLiteNoFTS5(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(6, 1))
	vocab := bm25Vocab(rng, 400)
	s, _ := openBM25(t)
	for d := range 5 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("n", d), 40)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Replace(ctx, bm25Put(rng, vocab, "n2", 25)); err != nil {
		t.Fatal(err)
	}
	if hasFTS5(t, s) {
		t.Fatal("a new store has an FTS5 index")
	}
	checkBM25(t, s)
	compareFTS5(t, s, bm25Queries(rng, vocab, 5), nil)
}

// TestFTS5Dropped: a store of schema 5 (FTS5's index and the keyword
// index) searches as FTS5 ranks before Prepare, and after it has no FTS5
// index, the same rankings, and takes writes; one of schema 4 (FTS5's
// only) has its keyword index built, with a report of the migration.
func TestFTS5Dropped(t *testing.T) {
	ctx := context.Background()
	for _, version := range []int{5, 4} {
		t.Run(fmt.Sprint("schema ", version), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(6, uint64(version)))
			vocab := bm25Vocab(rng, 600)
			s, path := openBM25(t)
			for d := range 6 {
				if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("f", d), 60)); err != nil {
					t.Fatal(err)
				}
			}
			asEarlierSchema(t, s, version)
			s.Close()
			s, err := OpenSQLite(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			queries := bm25Queries(rng, vocab, 6)
			compareFTS5(t, s, queries, nil)
			var reports []string
			s.ReportMigration(func(msg string) { reports = append(reports, msg) })
			s.reportFrom = 1
			if err := s.Prepare(ctx, 4); err != nil {
				t.Fatal(err)
			}
			if hasFTS5(t, s) {
				t.Fatal("FTS5's index is still there after Prepare")
			}
			if v, _ := s.Meta(ctx, "schema_version"); v != fmt.Sprint(sqliteSchemaVersion) {
				t.Fatalf("schema version %s after Prepare", v)
			}
			// The keyword index's build is announced; the end tells of
			// the space FTS5's index left.
			want := 2
			if version == 5 {
				want = 1
			}
			if len(reports) != want || (want == 2 && !strings.Contains(reports[0], "keyword index")) ||
				!strings.Contains(reports[want-1], "schema 6") || !strings.Contains(reports[want-1], "MB free") {
				t.Errorf("the migration reported %q", reports)
			}
			checkBM25(t, s)
			compareFTS5(t, s, queries, nil)
			if err := s.Delete(ctx, "f2"); err != nil {
				t.Fatal(err)
			}
			if err := s.Replace(ctx, bm25Put(rng, vocab, "f3", 30)); err != nil {
				t.Fatal(err)
			}
			checkBM25(t, s)
			compareFTS5(t, s, queries, nil)
		})
	}
}

// TestFTS5DroppedOnWrite: a write to a store of schema 5 that no Prepare
// brought up to date migrates it first, so no chunk it writes is missed
// by the keyword index.
func TestFTS5DroppedOnWrite(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(6, 7))
	vocab := bm25Vocab(rng, 300)
	s, _ := openBM25(t)
	if err := s.Replace(ctx, bm25Put(rng, vocab, "w0", 30)); err != nil {
		t.Fatal(err)
	}
	asEarlierSchema(t, s, 4)
	if err := s.Replace(ctx, bm25Put(rng, vocab, "w1", 30)); err != nil {
		t.Fatal(err)
	}
	if hasFTS5(t, s) {
		t.Fatal("a write left the store's FTS5 index")
	}
	checkBM25(t, s)
	compareFTS5(t, s, bm25Queries(rng, vocab, 4), nil)
}

// TestBM25PhraseWord: a query word FTS5 makes a phrase of two terms (a
// letter of a later Unicode than SQLite's tables: New Tai Lue's U+19B0
// parts "alpha\u19b0beta" into "alpha" "beta") is ranked as FTS5 ranks
// the phrase, by its count in each chunk, with and without Exact and
// with a filter.
func TestBM25PhraseWord(t *testing.T) {
	ctx := context.Background()
	s, _ := openBM25(t)
	tok, err := s.kw.tokenizer(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tok.phrases(ctx, []string{"alpha\u19b0beta"}); err != nil || len(p) != 1 || len(p[0]) != 2 {
		t.Fatalf("the word's terms: %q, %v (want a phrase of two)", p, err)
	}
	texts := []string{
		"alpha beta gamma", "beta alpha gamma", "alpha beta alpha beta", "alpha gamma beta",
		"gamma alpha", "alpha\u19b0beta here", "nothing of it", "beta beta alpha alpha beta delta",
		"gamma gamma gamma alpha beta", "delta",
	}
	var puts []Put
	for d := range 4 {
		var doc []string
		for i, x := range texts {
			doc = append(doc, strings.Repeat(x+" ", 1+(i+d)%3))
		}
		puts = append(puts, textDoc(fmt.Sprintf("p%d", d), doc))
	}
	if err := s.Replace(ctx, puts...); err != nil {
		t.Fatal(err)
	}
	queries := []string{"alpha\u19b0beta", "alpha\u19b0beta gamma", "beta\u19b0alpha delta", "gamma\u19b0gamma", "alpha\u19b0zeta"}
	compareFTS5(t, s, queries, nil)
	compareFTS5(t, s, queries, func(q *Query) { q.SourcePrefix = "p1" })
	hits, err := s.Search(ctx, Query{Text: "alpha\u19b0beta", K: 100, Mode: Keyword})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if !strings.Contains(h.Text, "alpha beta") && !strings.Contains(h.Text, "alpha\u19b0beta") {
			t.Errorf("a hit without the phrase: %q", h.Text)
		}
	}
	if len(hits) == 0 {
		t.Error("no hit for the phrase")
	}
}

// TestBM25TwoWordsOneAbsentTerm: two query words of one term (porter
// folds "connected" and "connecting") that no chunk holds rank as FTS5
// does (the index's search dereferenced the term's missing entry: a
// panic on real queries).
func TestBM25TwoWordsOneAbsentTerm(t *testing.T) {
	ctx := context.Background()
	s, _ := openBM25(t)
	if err := s.Replace(ctx, textDoc("c", []string{"a zebra crossing", "the zebra and the okapi", "an okapi"})); err != nil {
		t.Fatal(err)
	}
	compareFTS5(t, s, []string{"connected connecting", "connected zebra connecting", "okapis okapi connected connecting"}, nil)
	hits, err := s.Search(ctx, Query{Text: "connected zebra connecting", K: 10, Mode: Keyword})
	if err != nil || len(hits) != 2 {
		t.Fatalf("%d hits, %v; want the 2 with zebra", len(hits), err)
	}
}

// TestFTS5GoneDuringSearch: a searcher of a store of schema 4 (FTS5's
// index only) that another process migrates meanwhile: its search, had it
// decided on FTS5 before the migration, meets the dropped table as
// errFTS5Gone (Search then runs again), and its searches after rank with
// the keyword index as FTS5 did.
func TestFTS5GoneDuringSearch(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(6, 9))
	vocab := bm25Vocab(rng, 300)
	s, path := openBM25(t)
	for d := range 4 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("g", d), 40)); err != nil {
			t.Fatal(err)
		}
	}
	asEarlierSchema(t, s, 4)
	queries := bm25Queries(rng, vocab, 4)
	if _, err := s.Search(ctx, Query{Text: queries[0], K: 10, Mode: Keyword}); err != nil {
		t.Fatal(err)
	}
	other, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Prepare(ctx, 4); err != nil {
		t.Fatal(err)
	}
	q := Query{Text: queries[0], K: 10, Mode: Keyword}
	if _, err := s.keywordFTS5(ctx, q, words(q.Text)); !errors.Is(err, errFTS5Gone) {
		t.Fatalf("FTS5's search of the migrated store: %v, want errFTS5Gone", err)
	}
	compareFTS5(t, s, queries, nil)
}
