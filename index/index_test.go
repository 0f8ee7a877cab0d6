package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
	"github.com/gochunk/gochunk/tokenize"
)

func newPipeline(t testing.TB, params string) *pipeline.Pipeline {
	t.Helper()
	p, err := pipeline.New(context.Background(), pipeline.Config{Chunker: "recursive", Params: json.RawMessage(params)}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func paragraph(topic string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "The %s sentence number %d says something about %s. ", topic, i, topic)
	}
	return b.String()
}

// incremental runs the scenario of the issue against a store: first run,
// unchanged rerun, a change, a deletion, a configuration change.
func incremental(t *testing.T, st store.Store) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.md", "# Cats\n\n"+paragraph("cat", 30))
	write(t, dir, "b.txt", paragraph("stock market", 20))
	write(t, dir, "sub/c.txt", paragraph("volcano", 10))
	write(t, dir, "sub/skip.log", "left out by --exclude")
	write(t, dir, ".hidden/x.txt", "hidden")
	write(t, dir, "blob.bin", "binary\x00file")
	src := []Source{Files{Root: dir, Exclude: []string{"*.log"}}}
	p := newPipeline(t, `{"size": 300}`)
	opt := Options{Embed: true, Context: true}

	sum, err := Run(ctx, st, p, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Documents != (Tally{Added: 3}) || sum.ChunksWritten == 0 || sum.Store.Documents != 3 || sum.Store.Chunks != sum.ChunksWritten {
		t.Fatalf("first run: %+v", sum)
	}
	first := sum

	sum, err = Run(ctx, st, p, src, opt)
	if err != nil || sum.Documents != (Tally{Unchanged: 3}) || sum.ChunksWritten != 0 || sum.Store != first.Store {
		t.Fatalf("rerun: %+v, %v", sum, err)
	}

	write(t, dir, "b.txt", paragraph("bond market", 25))
	if err := os.Remove(filepath.Join(dir, "sub/c.txt")); err != nil {
		t.Fatal(err)
	}
	sum, err = Run(ctx, st, p, src, opt)
	if err != nil || sum.Documents != (Tally{Updated: 1, Unchanged: 1, Deleted: 1}) || sum.Store.Documents != 2 {
		t.Fatalf("after a change and a deletion: %+v, %v", sum, err)
	}
	search, err := NewSearcher(ctx, st, pipeline.EmbedderConfig{}, false)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := search.Search(ctx, store.Query{Text: "volcano", Mode: store.Keyword})
	if err != nil || len(hits) != 0 {
		t.Errorf("a deleted document is still found: %+v, %v", hits, err)
	}
	hits, err = search.Search(ctx, store.Query{Text: "bond market sentence", K: 3})
	if err != nil || len(hits) == 0 || !strings.HasSuffix(hits[0].Source, "b.txt") {
		t.Fatalf("hybrid search: %+v, %v", hits, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "b.txt"))
	if h := hits[0]; string(b[h.Start:h.End]) != h.Text {
		t.Errorf("stored offsets [%d:%d] do not give the stored text", h.Start, h.End)
	}

	// Another configuration: every document is redone.
	sum, err = Run(ctx, st, newPipeline(t, `{"size": 500}`), src, opt)
	if err != nil || sum.Documents != (Tally{Updated: 2}) {
		t.Fatalf("after a configuration change: %+v, %v", sum, err)
	}
	// Another source name keeps the first one's documents (cleanup is per source).
	sum, err = Run(ctx, st, newPipeline(t, `{"size": 500}`), []Source{JSONLines{Label: "-", R: strings.NewReader(`{"id": 7, "text": "seven"}`)}}, opt)
	if err != nil || sum.Documents != (Tally{Added: 1}) || sum.Store.Documents != 3 {
		t.Fatalf("a second source: %+v, %v", sum, err)
	}
}

func TestIncrementalSQLite(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "gochunk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	incremental(t, st)
}

func TestIncrementalPostgres(t *testing.T) {
	st, err := store.Open(context.Background(), pgtest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	incremental(t, st)
}

// Bad documents are reported with their ids and skipped; the others are
// indexed.
func TestBadDocuments(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "gochunk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := t.TempDir()
	write(t, dir, "good.txt", "fine text")
	write(t, dir, "bad.txt", "bad \xff\xfe utf-8")
	lines := `{"id": "ok", "text": "hello", "metadata": {"lang": "en"}}
{"id": "null", "text": null}
{"text": "no id"}
not json
{"id": "ok", "text": "twice"}
`
	sum, err := Run(ctx, st, newPipeline(t, `{}`), []Source{Files{Root: dir}, JSONLines{Label: "-", R: strings.NewReader(lines)}}, Options{Embed: true})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("error %v, want ErrFailed", err)
	}
	if sum.Documents.Added != 2 || sum.Documents.Failed != 5 {
		t.Fatalf("tally %+v", sum.Documents)
	}
	var ids []string
	for _, f := range sum.Failures {
		ids = append(ids, f.ID)
		if f.Error == "" {
			t.Errorf("%s failed without a reason", f.ID)
		}
	}
	want := []string{filepath.Join(dir, "bad.txt"), "null", "- line 3", "- line 4", "ok"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("failed ids %q, want %q", ids, want)
	}
}

func TestContextPrefixes(t *testing.T) {
	text := "# Guide\n\nIntro.\n\n## Install\n\nSteps.\n\n```\n# not a heading\n```\n\n### Linux\n\nApt.\n\n## Use\n\nRun it."
	p := newPipeline(t, `{"size": 20}`)
	res, err := p.Run(context.Background(), docOf(text))
	if err != nil {
		t.Fatal(err)
	}
	got := prefixes(Doc{Path: "/x/guide.md"}, text, res.Chunks)
	want := map[string]string{"Apt.": "Guide > Install > Linux\n\n", "Run it.": "Guide > Use\n\n", "Intro.": "Guide\n\n"}
	for i, c := range res.Chunks {
		for k, w := range want {
			if strings.Contains(c.Text, k) && got[i] != w {
				t.Errorf("chunk %q: prefix %q, want %q", c.Text, got[i], w)
			}
		}
	}
	if got := prefixes(Doc{Path: "/x/notes.txt", Metadata: map[string]any{"title": "T"}}, "plain", res.Chunks[:1]); got[0] != "T\n\n" {
		t.Errorf("title prefix %q", got[0])
	}
}

// Watch keeps the store in step with a table: an INSERT, an UPDATE and a
// DELETE reach the chunk table within seconds, with two workers at once.
func TestWatchPostgres(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dsn := pgtest.Start(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE articles (id int PRIMARY KEY, title text, body text, author text);
		INSERT INTO articles VALUES (1, 'Cats', 'Cats purr when content.', 'ann'), (2, 'Dogs', 'Dogs bark at strangers.', 'bob'), (3, NULL, NULL, 'cy')`); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		table, err := OpenTable(ctx, dsn, Table{Table: "articles", ID: "id", Text: []string{"title", "body"}, Metadata: []string{"author"}})
		if err != nil {
			t.Fatal(err)
		}
		defer table.Close()
		go func() { errs <- Watch(ctx, st, newPipeline(t, `{}`), table, Options{Embed: true}, func(Summary) {}) }()
	}
	chunkText := func(id string) string {
		var s string
		pool.QueryRow(ctx, `SELECT string_agg(text, '|' ORDER BY chunk_index) FROM gochunk_chunks WHERE document_id = $1`, id).Scan(&s)
		return s
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not reach the chunk table within 15 s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("the first indexing", func() bool { return strings.Contains(chunkText("2"), "Dogs bark") })
	if _, err := pool.Exec(ctx, `UPDATE articles SET body = 'Cats sleep all day.' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	waitFor("an UPDATE", func() bool { return strings.Contains(chunkText("1"), "Cats sleep all day.") })
	if _, err := pool.Exec(ctx, `INSERT INTO articles VALUES (4, 'Owls', 'Owls hunt at night.', 'dee'); DELETE FROM articles WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	waitFor("an INSERT and a DELETE", func() bool { return chunkText("4") != "" && chunkText("2") == "" })
	var meta string
	pool.QueryRow(ctx, `SELECT metadata->>'author' FROM gochunk_documents WHERE id = '4'`).Scan(&meta)
	if meta != "dee" {
		t.Errorf("metadata column: %q", meta)
	}
	waitFor("an empty queue", func() bool {
		var n int
		pool.QueryRow(ctx, `SELECT count(*) FROM gochunk_queue_articles`).Scan(&n)
		return n == 0
	})
	var dup int
	pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT document_id, chunk_index FROM gochunk_chunks GROUP BY 1, 2 HAVING count(*) > 1) d`).Scan(&dup)
	if dup != 0 {
		t.Errorf("%d duplicated chunks", dup)
	}
	cancel()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("worker: %v", err)
		}
	}
}

func docOf(text string) gochunk.Document { return gochunk.Document{ID: "doc", Text: text} }

// A directory given through a symbolic link is walked; links inside it
// are not followed.
func TestFilesSymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "real/a.txt", "alpha")
	write(t, dir, "other/b.txt", "beta")
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	os.Symlink(filepath.Join(dir, "other"), filepath.Join(dir, "real", "inner"))
	var ids []string
	err := Files{Root: filepath.Join(dir, "link")}.Docs(context.Background(), func(d Doc) error {
		ids = append(ids, d.ID)
		return d.Err
	})
	if err != nil || len(ids) != 1 || ids[0] != filepath.Join(dir, "link", "a.txt") {
		t.Errorf("ids %q, %v", ids, err)
	}
}

// A document of more chunks than one embedding batch is embedded and
// written batch by batch, with the same vectors as embedding it whole; the
// tokens embedded are counted in the embedder's tokens (cl100k_base for
// the lexical embedder), not in the chunks' unit.
func TestLargeDocumentInBatches(t *testing.T) {
	ctx := context.Background()
	st := sqliteStore(t)
	var b strings.Builder
	for i := 0; i < 3*embedBatch+17; i++ {
		fmt.Fprintf(&b, "Paragraph %d is about topic %d, in a few words.\n\n", i, i%89)
	}
	dir := t.TempDir()
	write(t, dir, "big.md", b.String())
	p := newPipeline(t, `{"size": 60}`)
	sum, err := Run(ctx, st, p, []Source{Files{Root: dir}}, Options{Embed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Store.Chunks <= 3*embedBatch || sum.ChunksWritten != sum.Store.Chunks {
		t.Fatalf("summary %+v", sum)
	}
	res, err := p.Embedding().Run(ctx, gochunk.Document{ID: filepath.Join(dir, "big.md"), Text: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := tokenize.New("cl100k_base")
	want := 0
	for _, c := range res.Chunks {
		want += cl.Count(c.Text)
	}
	if sum.TokensEmbedded != want {
		t.Errorf("tokens embedded %d, want %d (cl100k_base); the chunks hold %d characters", sum.TokensEmbedded, want, len(b.String()))
	}
	// The vectors stored are those of embedding the chunks at once: the
	// last chunk's text finds itself first.
	last := res.Chunks[len(res.Chunks)-1]
	hits, err := st.Search(ctx, store.Query{Text: last.Text, K: 1, Mode: "vector", Vector: res.Embeddings[len(res.Embeddings)-1]})
	if err != nil || len(hits) != 1 || hits[0].Text != last.Text || hits[0].Score < 0.999 {
		t.Errorf("the last chunk's vector: %+v %v", hits, err)
	}
}

// A document that turns invalid keeps its previous chunks, and the
// summary says so.
func TestFailedDocumentKeepsPrevious(t *testing.T) {
	ctx := context.Background()
	st := sqliteStore(t)
	dir := t.TempDir()
	write(t, dir, "a.txt", paragraph("cat", 5))
	p := newPipeline(t, `{}`)
	if _, err := Run(ctx, st, p, []Source{Files{Root: dir}}, Options{Embed: true}); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "now \xff invalid")
	write(t, dir, "new.txt", "also \xff invalid")
	sum, err := Run(ctx, st, p, []Source{Files{Root: dir}}, Options{Embed: true})
	if !errors.Is(err, ErrFailed) || sum.Documents.Failed != 2 || sum.Documents.KeptPrevious != 1 || sum.Store.Documents != 1 {
		t.Fatalf("%v %+v", err, sum)
	}
	for _, f := range sum.Failures {
		if f.KeptPrevious != strings.HasSuffix(f.ID, "a.txt") {
			t.Errorf("%+v", f)
		}
	}
	if !strings.Contains(sum.String(), "2 failed (1 of them still stored as they were before)") {
		t.Errorf("summary line: %s", sum)
	}
}

// sqliteStore opens a SQLite store in a temporary directory, closed at the
// test's end.
func sqliteStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "gochunk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
