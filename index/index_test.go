package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
	"github.com/gochunk/gochunk/tokenize"
)

func newPipeline(t testing.TB, params string) *pipeline.Pipeline {
	t.Helper()
	return newPipelineContext(t, params, pipeline.ContextConfig{})
}

func newPipelineContext(t testing.TB, params string, c pipeline.ContextConfig) *pipeline.Pipeline {
	t.Helper()
	p, err := pipeline.New(context.Background(), pipeline.Config{Chunker: "recursive", Params: json.RawMessage(params), Context: c}, pipeline.Options{})
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
	p := newPipelineContext(t, `{"size": 300}`, pipeline.ContextConfig{Mode: "headings"})
	opt := Options{Embed: true}

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
	sum, err = Run(ctx, st, newPipelineContext(t, `{"size": 500}`, pipeline.ContextConfig{Mode: "headings"}), src, opt)
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

// counting wraps an embedder and keeps the texts it is asked to embed.
type counting struct {
	gochunk.Embedder
	mu    sync.Mutex
	texts []string
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// An edited document re-embeds only the chunks whose embedded text
// changed; the others keep the vectors the store holds, which are those
// the embedder gives for their text. On SQLite and a real PostgreSQL.
func TestReuseVectors(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { reuseVectors(t, sqliteStore(t)) })
	t.Run("postgres", func(t *testing.T) {
		st, err := store.OpenPostgres(context.Background(), pgtest.Start(t))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		reuseVectors(t, st)
	})
}

func reuseVectors(t *testing.T, st store.Store) {
	ctx := context.Background()
	em := &counting{Embedder: embed.NewLexical(embed.LexicalConfig{})}
	p, err := pipeline.New(ctx, pipeline.Config{Chunker: "recursive", Params: json.RawMessage(`{"size": 200}`), Context: pipeline.ContextConfig{Mode: "headings"}}, pipeline.Options{Embedder: em})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	topics := []string{"cat", "dog", "bird", "fish", "horse", "cow", "goat", "sheep", "mouse", "frog"}
	var parts []string
	for _, tp := range topics {
		parts = append(parts, "## "+tp+"\n\n"+paragraph(tp, 4))
	}
	write(t, dir, "animals.md", "# Animals\n\n"+strings.Join(parts, "\n\n"))
	src := []Source{Files{Root: dir}}
	sum, err := Run(ctx, st, p, src, Options{Embed: true})
	if err != nil {
		t.Fatal(err)
	}
	first := len(em.texts)
	if sum.ChunksEmbedded != first || sum.ChunksReused != 0 || first < 20 {
		t.Fatalf("first run: %d embedded, %d reused, embedder saw %d", sum.ChunksEmbedded, sum.ChunksReused, first)
	}
	// One new section in the middle.
	parts = slices.Insert(parts, 5, "## whale\n\n"+paragraph("whale", 4))
	write(t, dir, "animals.md", "# Animals\n\n"+strings.Join(parts, "\n\n"))
	em.texts = nil
	sum, err = Run(ctx, st, p, src, Options{Embed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Documents.Updated != 1 || sum.ChunksEmbedded != len(em.texts) || sum.ChunksReused+sum.ChunksEmbedded != sum.ChunksWritten {
		t.Fatalf("after an edit: %+v; the embedder saw %d texts", sum, len(em.texts))
	}
	if sum.ChunksEmbedded > 4 || sum.ChunksReused < first-4 {
		t.Errorf("after inserting one section, %d chunks embedded and %d reused (of %d)", sum.ChunksEmbedded, sum.ChunksReused, sum.ChunksWritten)
	}
	for _, s := range em.texts {
		if !strings.Contains(s, "whale") {
			t.Errorf("re-embedded a chunk that did not change: %.60q", s)
		}
	}
	// Every stored vector is the embedder's for its embedded text.
	stored, err := st.Vectors(ctx, filepath.Join(dir, "animals.md"))
	if err != nil || len(stored) != sum.ChunksWritten {
		t.Fatalf("%d stored vectors, %v", len(stored), err)
	}
	for text, v := range stored {
		want, err := em.Embedder.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		// The SQLite store keeps vectors as float16: within its rounding.
		if !slices.EqualFunc(v, want[0], func(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-3*math.Abs(float64(b))+1e-7 }) {
			t.Fatalf("stored vector of %.40q is not the embedder's", text)
		}
		if !strings.HasPrefix(text, "Animals > ") && !strings.HasPrefix(text, "Animals\n\n") {
			t.Errorf("stored under %.40q, not its embedded text", text)
		}
	}
}

// A store indexed with parents answers searches with parents, sections
// and windows as exact spans of the documents, and merges children of one
// parent; one indexed without says what to do. SQLite and PostgreSQL.
func TestExpand(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { expandSearch(t, sqliteStore(t), sqliteStore(t)) })
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.Start(t)
		st, err := store.OpenPostgres(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		expandSearch(t, st, sqliteStore(t))
	})
}

func expandSearch(t *testing.T, st, plain store.Store) {
	ctx := context.Background()
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("# Zoo\n\n")
	for _, tp := range []string{"lion", "zebra", "otter"} {
		fmt.Fprintf(&sb, "## %s\n\n%s\n\n%s\n\n", tp, paragraph(tp, 6), paragraph("keeper feeds the "+tp, 3))
	}
	text := sb.String()
	write(t, dir, "zoo.md", text)
	search := indexParents(t, st, dir, 120, 700)
	q := store.Query{Text: "zebra", K: 6, Mode: store.Keyword}
	hits, err := search.Search(ctx, q)
	if err != nil || len(hits) < 3 {
		t.Fatalf("plain search: %d hits, %v", len(hits), err)
	}
	exact := func(what string, x *store.Expansion, h store.Hit) {
		t.Helper()
		if x == nil || x.Text != text[x.Start:x.End] || x.Start > h.Start || x.End < h.End ||
			x.StartRune != len([]rune(text[:x.Start])) || x.EndRune != len([]rune(text[:x.End])) {
			t.Fatalf("%s of chunk %d [%d:%d]: %+v", what, h.ChunkIndex, h.Start, h.End, x)
		}
	}
	for _, mode := range []string{"parent", "section", "window:1"} {
		x, err := ParseExpand(mode)
		if err != nil {
			t.Fatal(err)
		}
		got, err := search.SearchExpand(ctx, q, x)
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %d hits, %v", mode, len(got), err)
		}
		spans := map[[2]int]bool{}
		for _, h := range got {
			exact(mode, h.Expanded, h)
			key := [2]int{h.Expanded.Start, h.Expanded.End}
			if spans[key] {
				t.Errorf("%s: the span %v is returned twice", mode, key)
			}
			spans[key] = true
			switch mode {
			case "parent":
				if h.Expanded.Start != h.Parent.Start || h.Expanded.End != h.Parent.End {
					t.Errorf("parent span %+v, record's parent %+v", h.Expanded, h.Parent)
				}
			case "section":
				if !strings.HasPrefix(h.Expanded.Text, "## ") && !strings.HasPrefix(h.Expanded.Text, "# ") {
					t.Errorf("section %.30q does not start at its heading", h.Expanded.Text)
				}
			}
		}
	}
	// Auto-merging: the zebra section's chunks share a parent.
	merged, err := search.SearchExpand(ctx, q, Expand{Merge: 2})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range merged {
		if h.Expanded != nil {
			found = true
			exact("merged", h.Expanded, h)
			if h.Expanded.Kind != "merged" || len(h.Expanded.Chunks) < 2 || !strings.Contains(h.Expanded.Text, "zebra") {
				t.Errorf("merged %+v", h.Expanded)
			}
		}
	}
	if !found || len(merged) >= len(hits) {
		t.Errorf("merge 2: %d hits (from %d), none merged", len(merged), len(hits))
	}
	// A store indexed without parents keeps no texts.
	if _, err := Run(ctx, plain, newPipeline(t, `{"size": 120}`), []Source{Files{Root: dir}}, Options{}); err != nil {
		t.Fatal(err)
	}
	ps, err := NewSearcher(ctx, plain, pipeline.EmbedderConfig{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ps.SearchExpand(ctx, q, Expand{Mode: "section"}); !errors.Is(err, ErrNoText) {
		t.Errorf("section on a store without texts: %v", err)
	}
	for _, bad := range []string{"parents", "window:0", "window:x"} {
		if _, err := ParseExpand(bad); err == nil {
			t.Errorf("expand %q parsed", bad)
		}
	}
}

// Expansion reads only the spans it returns from the store: deep in a
// long document of multi-byte text, a section (looked for within its
// reach of the hit) and a parent still have exact offsets.
func TestExpandLongDocument(t *testing.T) {
	ctx := context.Background()
	st := sqliteStore(t)
	dir := t.TempDir()
	var sb strings.Builder
	for i := range 3000 {
		if i%50 == 0 {
			fmt.Fprintf(&sb, "## Partie %d\n\n", i/50)
		}
		word := "café"
		if i == 2990 {
			word = "zèbre"
		}
		fmt.Fprintf(&sb, "Le paragraphe %d parle du %s, une fois de plus, sans fin.\n\n", i, word)
	}
	text := sb.String()
	write(t, dir, "long.md", text)
	search := indexParents(t, st, dir, 200, 800)
	for _, mode := range []string{"section", "parent", "window:2"} {
		x, _ := ParseExpand(mode)
		hits, err := search.SearchExpand(ctx, store.Query{Text: "zèbre", K: 1, Mode: store.Keyword}, x)
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: %v, %d hits", mode, err, len(hits))
		}
		e := hits[0].Expanded
		if e.Text != text[e.Start:e.End] || e.StartRune != len([]rune(text[:e.Start])) || e.EndRune != len([]rune(text[:e.End])) || !strings.Contains(e.Text, "zèbre") {
			t.Errorf("%s: [%d:%d] runes [%d:%d] %.40q", mode, e.Start, e.End, e.StartRune, e.EndRune, e.Text)
		}
		if mode == "section" && !strings.HasPrefix(e.Text, "## Partie 59") {
			t.Errorf("section starts %.30q", e.Text)
		}
	}
}

// indexParents indexes dir into st with the recursive chunker at size and
// parents of parents tokens, and returns a searcher of st.
func indexParents(t *testing.T, st store.Store, dir string, size, parents int) *Searcher {
	t.Helper()
	ctx := context.Background()
	p, err := pipeline.New(ctx, pipeline.Config{Chunker: "recursive", Params: json.RawMessage(fmt.Sprintf(`{"size": %d}`, size)), Parents: parents}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, st, p, []Source{Files{Root: dir}}, Options{}); err != nil {
		t.Fatal(err)
	}
	search, err := NewSearcher(ctx, st, pipeline.EmbedderConfig{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return search
}
