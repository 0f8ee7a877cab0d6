package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/record"
)

// bm25Vocab is generated words: stems with endings porter folds
// ("connect", "connected", "connecting"), digits, accented letters, and
// a Zipf-like frequency by rank.
func bm25Vocab(rng *rand.Rand, n int) []string {
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "ve", "zo", "bri", "str", "qu", "é", "ün", "x9", "7"}
	ends := []string{"", "", "", "s", "ed", "ing", "ion", "ly", "ness", "er"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		w := b.String()
		for _, e := range ends[:1+rng.IntN(len(ends))] {
			if !seen[w+e] {
				seen[w+e] = true
				out = append(out, w+e)
			}
		}
	}
	return out[:n]
}

// zipfWord draws a word, the first ones far more often.
func zipfWord(rng *rand.Rand, vocab []string) string {
	i := int(float64(len(vocab)) * rng.Float64() * rng.Float64() * rng.Float64())
	return vocab[min(i, len(vocab)-1)]
}

// bm25Text is a generated chunk text of n words with punctuation.
func bm25Text(rng *rand.Rand, vocab []string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", ", ", ". ", " - ", "\n"}[rng.IntN(7)])
		}
		w := zipfWord(rng, vocab)
		if rng.IntN(10) == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// bm25Put is a document of generated chunks.
func bm25Put(rng *rand.Rand, vocab []string, id string, chunks int) Put {
	put := Put{Document: Document{ID: id, Source: id, ContentHash: "h", ConfigHash: "c", Metadata: map[string]any{"lang": []string{"en", "fr"}[rng.IntN(2)]}}}
	for j := range chunks {
		text := bm25Text(rng, vocab, 1+rng.IntN(60))
		put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: j, Text: text, End: len(text), EndRune: len([]rune(text))})
	}
	return put
}

func openBM25(t testing.TB) (*SQLite, string) {
	t.Helper()
	return openTemp(t, 4)
}

// sameRanking fails the test unless hits and want (FTS5's) rank alike:
// the same scores in order (to float rounding), and the same chunks above
// the last score (chunks tied at it may differ: FTS5 keeps any of them).
func sameRanking(t testing.TB, what string, hits, want []Hit) {
	t.Helper()
	if len(hits) != len(want) {
		t.Fatalf("%s: %d hits, FTS5 %d", what, len(hits), len(want))
	}
	if len(want) == 0 {
		return
	}
	key := func(h Hit) string { return h.Source + "#" + strconv.Itoa(h.ChunkIndex) }
	for i := range want {
		if d := hits[i].Score - want[i].Score; d > 1e-9*max(1, want[i].Score) || -d > 1e-9*max(1, want[i].Score) {
			t.Fatalf("%s: hit %d scores %.17g, FTS5 %.17g (%s vs %s)", what, i, hits[i].Score, want[i].Score, key(hits[i]), key(want[i]))
		}
	}
	floor := want[len(want)-1].Score * (1 + 1e-12)
	above := func(hs []Hit) []string {
		var out []string
		for _, h := range hs {
			if h.Score > floor {
				out = append(out, key(h))
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := above(hits), above(want); !slices.Equal(a, b) {
		t.Fatalf("%s: chunks %v, FTS5 %v", what, a, b)
	}
}

// compareFTS5 checks the store's keyword ranking, with the index and with
// Query.Exact (every matching chunk scored), against FTS5's own bm25()
// ranking of its chunks (fts5Reference) for each query at k 1, 10 and 40.
func compareFTS5(t testing.TB, s *SQLite, queries []string, filter func(*Query)) {
	t.Helper()
	ctx := context.Background()
	ref := newFTS5Reference(t, s)
	defer ref.close()
	for _, text := range queries {
		// FTS5's ranking once at the largest k: its first k hits are
		// FTS5's k best (sameRanking lets chunks tied at the last score
		// differ).
		q := Query{Text: text, K: 40, Mode: Keyword}
		if filter != nil {
			filter(&q)
		}
		want := ref.search(t, q)
		for _, k := range []int{1, 10, 40} {
			for _, exact := range []bool{false, true} {
				q.K, q.Exact = k, exact
				got, err := s.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				sameRanking(t, fmt.Sprintf("%q k=%d exact=%v", text, k, exact), got, want[:min(k, len(want))])
			}
		}
	}
}

// fts5Reference is an FTS5 index (porter unicode61, as the store's was
// before schema 6) of a store's chunks as they are when it is made, in
// a scratch in-memory database: the ranking the keyword index is held to.
type fts5Reference struct {
	s  *SQLite
	db *sql.DB
}

func newFTS5Reference(t testing.TB, s *SQLite) *fts5Reference {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one in-memory database
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE ref USING fts5 (text, tokenize = 'porter unicode61')`); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, coalesce(embed_text, text) FROM gochunk_chunks`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id   int64
		text string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.text); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	rows.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if _, err := tx.ExecContext(ctx, `INSERT INTO ref (rowid, text) VALUES (?, ?)`, r.id, r.text); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return &fts5Reference{s: s, db: db}
}

func (r *fts5Reference) close() { r.db.Close() }

// search is FTS5's ranking of q's words (the query "w1" OR "w2" …, every
// match scored), among the chunks q's filters keep, as hits.
func (r *fts5Reference) search(t testing.TB, q Query) []Hit {
	t.Helper()
	ctx := context.Background()
	w := words(q.Text)
	if len(w) == 0 {
		return nil
	}
	var keep map[int64]bool
	if q.filtered() {
		var err error
		if keep, err = keptChunks(ctx, r.s.db, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := r.db.QueryContext(ctx, `SELECT rowid, -bm25(ref) FROM ref WHERE ref MATCH ? ORDER BY bm25(ref), rowid`, orPhrases(w))
	if err != nil {
		t.Fatal(err)
	}
	var best []candidate
	for rows.Next() && len(best) < q.K {
		var c candidate
		if err := rows.Scan(&c.rowid, &c.score); err != nil {
			t.Fatal(err)
		}
		if keep == nil || keep[c.rowid] {
			best = append(best, c)
		}
	}
	rows.Close()
	var hits []Hit
	for _, c := range best {
		h, err := readHit(ctx, r.s.db, `SELECT `+sqliteColumns+` FROM gochunk_chunks c WHERE c.id = ?`, c.rowid)
		if err != nil {
			t.Fatal(err)
		}
		h.Score = c.score
		hits = append(hits, h)
	}
	return hits
}

func bm25Queries(rng *rand.Rand, vocab []string, n int) []string {
	var out []string
	for range n {
		var w []string
		for range 1 + rng.IntN(8) {
			w = append(w, zipfWord(rng, vocab))
		}
		if rng.IntN(5) == 0 {
			w = append(w, "neverindexedword")
		}
		out = append(out, strings.Join(w, " "))
	}
	return out
}

// checkBM25 checks the keyword index against the chunks, tokenised
// again: every term's postings (ids ascending, each once, its tf and
// the chunk's length) in blocks of at most bm25Block keyed by their last
// id with their bounds, the terms' counts, and the totals.
func checkBM25(t testing.TB, s *SQLite) {
	t.Helper()
	ctx := context.Background()
	if v, _ := s.Meta(ctx, bm25Built); v != "1" {
		t.Fatalf("the keyword index is not built (%q)", v)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, coalesce(embed_text, text) FROM gochunk_chunks ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	rows.Close()
	tok, err := newFTSTokenizer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tok.close()
	tk, err := tok.tokens(ctx, ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]kwPosting{}
	for i, term := range tk.terms {
		want[term] = append(want[term], kwPosting{id: tk.rows[i], tf: tk.tfs[i], len: tk.lens[tk.rows[i]]})
	}
	var tokens int64
	for _, n := range tk.lens {
		tokens += int64(n)
	}
	got := map[string][]kwPosting{}
	rows, err = s.db.QueryContext(ctx, `SELECT term, last, bound, postings FROM gochunk_kw_blocks ORDER BY term, last`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var b kwBlock
		if err := rows.Scan(&term, &b.last, &b.bound, &b.data); err != nil {
			t.Fatal(err)
		}
		ps, err := decodeKWBlock(b.data, nil)
		if err != nil || len(ps) == 0 || len(ps) > bm25Block {
			t.Fatalf("term %q block %d: %d postings, %v", term, b.last, len(ps), err)
		}
		if bound := blockBound(nil, ps); ps[len(ps)-1].id != b.last || !slices.Equal(bound, b.bound) {
			t.Fatalf("term %q block %d: last %d, bound %v stored %v", term, b.last, ps[len(ps)-1].id, bound, b.bound)
		}
		if prev := got[term]; len(prev) > 0 && prev[len(prev)-1].id >= ps[0].id {
			t.Fatalf("term %q: block %d overlaps the one before", term, b.last)
		}
		got[term] = append(got[term], ps...)
	}
	rows.Close()
	if len(got) != len(want) {
		t.Fatalf("%d terms in the index, %d in the chunks", len(got), len(want))
	}
	for term, ps := range want {
		if !slices.Equal(got[term], ps) {
			t.Fatalf("term %q: postings %v, the chunks' %v", term, got[term], ps)
		}
	}
	dfs := map[string]int{}
	rows, err = s.db.QueryContext(ctx, `SELECT term, df FROM gochunk_kw_terms`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var df int
		if err := rows.Scan(&term, &df); err != nil {
			t.Fatal(err)
		}
		dfs[term] = df
	}
	rows.Close()
	if len(dfs) != len(want) {
		t.Fatalf("%d terms counted, %d in the chunks", len(dfs), len(want))
	}
	for term, ps := range want {
		if dfs[term] != len(ps) {
			t.Fatalf("term %q: counted in %d chunks, in %d", term, dfs[term], len(ps))
		}
	}
	nRows, _ := s.Meta(ctx, bm25Rows)
	nTokens, _ := s.Meta(ctx, bm25Tokens)
	if nRows != strconv.Itoa(len(ids)) || nTokens != strconv.FormatInt(tokens, 10) {
		t.Fatalf("totals %s chunks, %s tokens; the chunks: %d, %d", nRows, nTokens, len(ids), tokens)
	}
}

// TestBM25MatchesFTS5: on generated text, the keyword index's hits and
// scores are FTS5's bm25() ranking (k 1, 10, 40), before and after
// documents are changed, deleted and added, one written twice in one
// transaction, the last one deleted (its ids used again), and with the
// filters.
func TestBM25MatchesFTS5(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 1))
	vocab := bm25Vocab(rng, 3000)
	s, _ := openBM25(t)
	// Single-goroutine: under the race detector (SQLite ~10x slower) a
	// smaller corpus and fewer queries keep it to seconds.
	docs, nq := 40, 20
	if raceEnabled {
		docs, nq = 5, 3
	}
	for d := range docs {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprintf("doc/%02d", d), 20+rng.IntN(150))); err != nil {
			t.Fatal(err)
		}
	}
	checkBM25(t, s)
	queries := bm25Queries(rng, vocab, nq)
	compareFTS5(t, s, queries, nil)

	// Changed, deleted, added; one document twice in a transaction.
	twice := bm25Put(rng, vocab, "doc/03", 30)
	if err := s.Replace(ctx, bm25Put(rng, vocab, "doc/01", 200), bm25Put(rng, vocab, "doc/03", 10), twice, bm25Put(rng, vocab, "doc/new", 50)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "doc/05", "doc/07"); err != nil {
		t.Fatal(err)
	}
	checkBM25(t, s)
	compareFTS5(t, s, queries, nil)
	// The last document deleted and another written: its ids again.
	if err := s.Delete(ctx, "doc/new"); err != nil {
		t.Fatal(err)
	}
	if err := s.Replace(ctx, bm25Put(rng, vocab, "doc/newer", 70)); err != nil {
		t.Fatal(err)
	}
	// A document emptied, and one of empty texts.
	if err := s.Replace(ctx, Put{Document: Document{ID: "doc/02", Source: "doc/02", ContentHash: "h2", ConfigHash: "c"}}); err != nil {
		t.Fatal(err)
	}
	empty := Put{Document: Document{ID: "doc/empty", Source: "doc/empty", ContentHash: "h", ConfigHash: "c"}}
	empty.Chunks = []record.Record{{Source: "doc/empty", Text: "", End: 0}, {Source: "doc/empty", ChunkIndex: 1, Text: "... !!", End: 6, EndRune: 6}}
	if err := s.Replace(ctx, empty); err != nil {
		t.Fatal(err)
	}
	checkBM25(t, s)
	compareFTS5(t, s, queries, nil)

	// Filters apply inside the search: k hits when k are kept.
	few := queries[:min(10, len(queries))]
	compareFTS5(t, s, few, func(q *Query) { q.SourcePrefix = "doc/1" })
	compareFTS5(t, s, few, func(q *Query) { q.Metadata = map[string]string{"lang": "fr"} })
	for _, q := range few {
		hits, err := s.Search(ctx, Query{Text: q, K: 10, Mode: Keyword, SourcePrefix: "doc/1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if !strings.HasPrefix(h.Source, "doc/1") {
				t.Fatalf("%q: a hit from %s outside the filter", q, h.Source)
			}
		}
	}
}

// TestBM25RealText: on real text (the evaluation corpora, in chunks of
// about 300 runes on line ends), the index's ranking of held-out-style
// queries (lines of the text, the evaluation questions) is FTS5's.
func TestBM25RealText(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "eval", "chroma")
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(files) == 0 {
		t.Skipf("no evaluation corpora in %s", dir)
	}
	ctx := context.Background()
	s, _ := openBM25(t)
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		put := Put{Document: Document{ID: filepath.Base(f), Source: f, ContentHash: "h", ConfigHash: "c"}}
		var cur strings.Builder
		for line := range strings.Lines(string(b)) {
			cur.WriteString(line)
			if l := strings.TrimSpace(line); len(l) > 40 {
				lines = append(lines, l)
			}
			if cur.Len() >= 300 {
				text := cur.String()
				put.Chunks = append(put.Chunks, record.Record{Source: f, ChunkIndex: len(put.Chunks), Text: text, End: len(text), EndRune: len([]rune(text))})
				cur.Reset()
			}
		}
		if err := s.Replace(ctx, put); err != nil {
			t.Fatal(err)
		}
	}
	checkBM25(t, s)
	// Single-goroutine: fewer queries under the race detector.
	nl, every := 60, 10
	if raceEnabled {
		nl, every = 10, 50
	}
	var queries []string
	for i := 0; i < len(lines) && len(queries) < nl; i += max(1, len(lines)/nl) {
		queries = append(queries, lines[i])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "questions.csv")); err == nil {
		for i, line := range strings.Split(string(b), "\n") {
			if i > 0 && i%every == 0 {
				queries = append(queries, line)
			}
		}
	}
	compareFTS5(t, s, queries, nil)
}

// TestBM25Migrated: a store written before the keyword index (version 4,
// no index tables) is searched by FTS5 until Prepare builds the index
// from its chunks; the index is then whole and ranks as FTS5 does.
func TestBM25Migrated(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 2))
	vocab := bm25Vocab(rng, 1500)
	s, path := openBM25(t)
	docs, nq := 12, 20
	if raceEnabled { // single-goroutine: smaller under the race detector
		docs, nq = 4, 5
	}
	for d := range docs {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprintf("m%d", d), 50+rng.IntN(300))); err != nil {
			t.Fatal(err)
		}
	}
	asEarlierSchema(t, s, 4)
	s.Close()
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	queries := bm25Queries(rng, vocab, nq)
	compareFTS5(t, s, queries, nil) // FTS5 both ways: no index yet
	if _, ok, err := s.bm25Search(ctx, words(queries[0]), Query{Text: queries[0], K: 10, Mode: Keyword}); ok || err != nil {
		t.Fatalf("an unbuilt index answered (ok %v, %v)", ok, err)
	}
	if err := s.Prepare(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Meta(ctx, "schema_version"); v != strconv.Itoa(sqliteSchemaVersion) {
		t.Fatalf("schema version %s after Prepare", v)
	}
	checkBM25(t, s)
	if _, ok, err := s.bm25Search(ctx, words(queries[0]), Query{Text: queries[0], K: 10, Mode: Keyword}); !ok || err != nil {
		t.Fatalf("the built index did not answer (ok %v, %v)", ok, err)
	}
	compareFTS5(t, s, queries, nil)
	if err := s.Replace(ctx, bm25Put(rng, vocab, "m3", 40)); err != nil {
		t.Fatal(err)
	}
	checkBM25(t, s)
}

// TestBM25Killed kills a writer (SIGKILL) at a random moment while it
// changes, deletes and adds documents, three times: each store it leaves
// has its keyword index equal to its chunks (checkBM25) and ranking as
// FTS5 does, and the next writer writes on.
func TestBM25Killed(t *testing.T) {
	if path := os.Getenv("GOCHUNK_TEST_BM25_KILL"); path != "" {
		ctx := context.Background()
		s, err := OpenSQLite(ctx, path)
		if err != nil {
			os.Exit(3)
		}
		rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 53))
		vocab := bm25Vocab(rand.New(rand.NewPCG(53, 3)), 2000)
		for i := 0; ; i++ {
			if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("d", rng.IntN(60)), 20+rng.IntN(100)),
				bm25Put(rng, vocab, fmt.Sprintf("k%d-%d", os.Getpid(), i), 30)); err != nil {
				os.Exit(5)
			}
			if err := s.Delete(ctx, fmt.Sprint("d", rng.IntN(60))); err != nil {
				os.Exit(5)
			}
			if i == 0 {
				fmt.Println("writing")
			}
		}
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 4))
	vocab := bm25Vocab(rand.New(rand.NewPCG(53, 3)), 2000)
	s, path := openBM25(t)
	for d := range 30 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("d", d), 50)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	queries := bm25Queries(rng, vocab, 10)
	if raceEnabled { // the race run is for the writers, not the ranking
		queries = queries[:3]
	}
	for round := range 3 {
		// The child's own timeout: a writer that hangs fails (exits),
		// it does not outlive the test.
		cmd := exec.Command(os.Args[0], "-test.run", "^TestBM25Killed$", "-test.timeout", "2m")
		cmd.Env = append(os.Environ(), "GOCHUNK_TEST_BM25_KILL="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if !strings.HasPrefix(line, "writing") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the writer did not write (%q)", round, line)
		}
		time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
		cmd.Process.Kill()
		if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() == 3 || cmd.ProcessState.ExitCode() == 5 {
			t.Fatalf("round %d: the writer was not killed while writing: %v", round, err)
		}
		s, err := OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		checkBM25(t, s)
		compareFTS5(t, s, queries, nil)
		s.Close()
	}
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Replace(ctx, bm25Put(rng, vocab, "after", 80)); err != nil {
		t.Fatal(err)
	}
	checkBM25(t, s)
}

// TestBM25Phrases: the query's words are the terms FTS5 makes of them
// (porter folds "connected" and "connecting" to one), and a store without
// the words returns nothing.
func TestBM25Phrases(t *testing.T) {
	ctx := context.Background()
	tok, err := newFTSTokenizer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tok.close()
	got, err := tok.phrases(ctx, []string{"connected", "connecting", "café", "running", "x"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"connect"}, {"connect"}, {"cafe"}, {"run"}, {"x"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("phrases %v, want %v", got, want)
	}
}

// BenchmarkBM25 compares the keyword index's search with FTS5's bm25()
// ranking (Query.Exact) on 20,000 generated chunks.
func BenchmarkBM25(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 5))
	vocab := bm25Vocab(rng, 20000)
	s, _ := openBM25(b)
	for d := range 100 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("b", d), 200)); err != nil {
			b.Fatal(err)
		}
	}
	queries := bm25Queries(rng, vocab, 100)
	for _, exact := range []bool{false, true} {
		b.Run(map[bool]string{false: "index", true: "fts5"}[exact], func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := s.Search(ctx, Query{Text: queries[i%len(queries)], K: 10, Mode: Keyword, Exact: exact}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestBM25BlockBound: a block's bound is its best posting's BM25 term,
// whatever the average length.
func TestBM25BlockBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 6))
	for range 200 {
		ps := make([]kwPosting, 1+rng.IntN(bm25Block))
		for i := range ps {
			ps[i] = kwPosting{id: int64(i + 1), tf: int32(1 + rng.IntN(1+rng.IntN(20))), len: int32(1 + rng.IntN(400))}
		}
		bound := blockBound(nil, ps)
		for _, avgdl := range []float64{1, 7.5, 60, 333.3} {
			got, err := boundScore(bound, avgdl)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.0
			for _, p := range ps {
				want = max(want, bm25Norm(p.tf, p.len, avgdl))
			}
			if got != want {
				t.Fatalf("avgdl %g: bound %g, best posting %g (%v)", avgdl, got, want, ps)
			}
		}
	}
}

// TestBM25SearchBesideWriter: keyword searches run beside a writer that
// changes and deletes documents (each search reads one state of the
// index, in one read transaction), and when the writer stops the index
// ranks as FTS5 does.
func TestBM25SearchBesideWriter(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 7))
	vocab := bm25Vocab(rng, 800)
	s, _ := openBM25(t)
	for d := range 10 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("w", d), 40)); err != nil {
			t.Fatal(err)
		}
	}
	queries := bm25Queries(rng, vocab, 20)
	done := make(chan error, 1)
	go func() {
		wrng := rand.New(rand.NewPCG(53, 8))
		for i := range 30 {
			if err := s.Replace(ctx, bm25Put(wrng, vocab, fmt.Sprint("w", wrng.IntN(12)), 10+wrng.IntN(60))); err != nil {
				done <- err
				return
			}
			if i%5 == 4 {
				if err := s.Delete(ctx, fmt.Sprint("w", wrng.IntN(12))); err != nil {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := range 25 {
				if _, err := s.Search(ctx, Query{Text: queries[(g*7+i)%len(queries)], K: 10, Mode: Keyword}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkBM25(t, s)
	compareFTS5(t, s, queries[:5], nil)
}

// TestBM25FilterBesideWriter runs filtered keyword searches while a
// writer replaces the only document the filter keeps (new chunk ids each
// time): every search sees one state of the store, so it returns the
// document's three chunks (it once read the filter's ids, the ranking and
// the hits apart, and a replacement between them made it return nothing).
func TestBM25FilterBesideWriter(t *testing.T) {
	ctx := context.Background()
	s, _ := openBM25(t)
	put := func(id, text string, n int) Put {
		p := Put{Document: Document{ID: id, Source: id, ContentHash: "h", ConfigHash: "c"}}
		for j := range n {
			p.Chunks = append(p.Chunks, record.Record{Source: id, ChunkIndex: j, Text: text, End: len(text), EndRune: len(text)})
		}
		return p
	}
	for d := range 20 {
		if err := s.Replace(ctx, put(fmt.Sprint("other/", d), "zebra apple pear plum", 30)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Replace(ctx, put("f/1", "zebra lonely words", 3)); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			// f/1's chunks get new ids; z/2 moves the ids on between.
			for _, p := range []Put{put("f/1", "zebra lonely words", 3), put("z/2", "apple only", 3)} {
				if err := s.Replace(ctx, p); err != nil {
					done <- err
					return
				}
			}
		}
	}()
	n := 2000
	if raceEnabled {
		n = 300
	}
	bad := 0
	var first string
	for i := range n {
		hits, err := s.Search(ctx, Query{Text: "zebra", K: 5, Mode: Keyword, SourcePrefix: "f/"})
		ok := err == nil && len(hits) == 3
		for _, h := range hits {
			ok = ok && h.Source == "f/1" && h.Text == "zebra lonely words"
		}
		if !ok {
			if bad == 0 {
				first = fmt.Sprintf("search %d: %d hits, %v", i, len(hits), err)
			}
			bad++
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Fatalf("%d of %d filtered searches did not return f/1's 3 chunks (first: %s)", bad, n, first)
	}
}

// TestBM25SmallColumnMigrated: a store whose keyword index was built
// before the terms' small-block count (gochunk_kw_terms without the
// column, at the same schema version) is written again after Prepare, and
// its index stays whole and ranks as FTS5 does.
func TestBM25SmallColumnMigrated(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 9))
	vocab := bm25Vocab(rng, 500)
	s, path := openBM25(t)
	for d := range 6 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("s", d), 40)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, `ALTER TABLE gochunk_kw_terms DROP COLUMN small`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Prepare(ctx, 4); err != nil {
		t.Fatal(err)
	}
	for d := range 8 {
		if err := s.Replace(ctx, bm25Put(rng, vocab, fmt.Sprint("s", d), 30+d)); err != nil {
			t.Fatalf("write after Prepare: %v", err)
		}
	}
	if err := s.Delete(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	checkBM25(t, s)
	compareFTS5(t, s, bm25Queries(rng, vocab, 5), nil)
}
