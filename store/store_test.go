package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/record"
)

func chunk(doc string, i int, text string, v ...float32) record.Record {
	return record.Record{Source: doc, ChunkIndex: i, Text: text, Start: 10 * i, End: 10*i + len(text),
		StartRune: 10 * i, EndRune: 10*i + len(text), TokenCount: len(text), Embedding: v}
}

// exercise runs the same checks on every kind of store.
func exercise(t *testing.T, s Store) {
	exerciseChecks(t, s)
	exerciseMore(t, s)
}

// exerciseMore writes a document in batches (Put.More), then fails a
// rewrite half-way: the store keeps the whole first version.
func exerciseMore(t *testing.T, s Store) {
	ctx := context.Background()
	doc := Document{ID: "big", Source: "dir", ContentHash: "b1", ConfigHash: "c1"}
	next := 0
	more := func(ctx context.Context) ([]record.Record, error) {
		if next > 3 {
			return nil, nil
		}
		next++
		return []record.Record{chunk("big", next-1, fmt.Sprintf("batch %d zebra", next-1))}, nil
	}
	if err := s.Replace(ctx, Put{Document: doc, More: more}); err != nil { // every chunk from More
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, Query{Text: "zebra", K: 10, Mode: "keyword"})
	if err != nil || len(hits) != 4 {
		t.Fatalf("a document written in 4 batches: %d hits, %v", len(hits), err)
	}
	boom := errors.New("embedder down")
	doc.ContentHash = "b2"
	err = s.Replace(ctx, Put{Document: doc, Chunks: []record.Record{chunk("big", 0, "half written")},
		More: func(context.Context) ([]record.Record, error) { return nil, boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing batch: %v", err)
	}
	states, _ := s.Documents(ctx)
	hits, _ = s.Search(ctx, Query{Text: "zebra", K: 10, Mode: "keyword"})
	if states["big"].ContentHash != "b1" || len(hits) != 4 {
		t.Errorf("after a failed rewrite: hash %q, %d hits; want the first version whole", states["big"].ContentHash, len(hits))
	}
	if err := s.Delete(ctx, "big"); err != nil {
		t.Fatal(err)
	}
}

// exerciseChecks runs the checks of one document at a time.
func exerciseChecks(t *testing.T, s Store) {
	ctx := context.Background()
	if err := s.Prepare(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Prepare(ctx, 3); err != nil { // again: nothing changes
		t.Fatal(err)
	}
	multi := chunk("a", 1, "kittens purr softly\nnear the fire", 0.9, 0.1, 0)
	multi.Spans = []gochunk.Span{{Start: 10, End: 29, StartRune: 10, EndRune: 29}, {Start: 40, End: 53, StartRune: 40, EndRune: 53}}
	multi.Metadata = map[string]any{"heading": "Cats"}
	multi.Stats = gochunk.Stats{Sentences: 2}
	docA := Document{ID: "a", Source: "dir", ContentHash: "h1", ConfigHash: "c1", Metadata: map[string]any{"lang": "en"}}
	if err := s.Replace(ctx, Put{Document: docA, Chunks: []record.Record{chunk("a", 0, "cats and dogs", 1, 0, 0), multi, chunk("a", 2, "old text", 0, 0, 1)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Replace(ctx, Put{Document: Document{ID: "b", Source: "dir", ContentHash: "h2", ConfigHash: "c1"},
		Chunks: []record.Record{chunk("b", 0, "stock markets fell sharply", 0, 1, 0)}}); err != nil {
		t.Fatal(err)
	}
	// Replacing a document leaves none of its old chunks.
	if err := s.Replace(ctx, Put{Document: docA, Chunks: []record.Record{chunk("a", 0, "cats and dogs", 1, 0, 0), multi}}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Counts(ctx); err != nil || c.Documents != 2 || c.Chunks != 3 {
		t.Fatalf("counts %+v, %v", c, err)
	}
	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != 2 || docs["a"] != (State{Source: "dir", ContentHash: "h1", ConfigHash: "c1"}) {
		t.Fatalf("documents %+v, %v", docs, err)
	}

	hits, err := s.Search(ctx, Query{Vector: []float32{1, 0.05, 0}, K: 2, Mode: Vector})
	if err != nil || len(hits) != 2 || hits[0].Source != "a" || hits[0].ChunkIndex != 0 || hits[1].ChunkIndex != 1 {
		t.Fatalf("vector hits %+v, %v", hits, err)
	}
	if hits[0].Score < 0.99 || hits[0].Score > 1.0001 {
		t.Errorf("cosine %v, want about 0.9988", hits[0].Score)
	}
	got := hits[1]
	if got.Text != multi.Text || len(got.Spans) != 2 || got.Spans[1] != multi.Spans[1] || got.Metadata["heading"] != "Cats" ||
		got.Stats.Sentences != 2 || got.Start != multi.Start || got.EndRune != multi.EndRune || got.TokenCount != multi.TokenCount {
		t.Errorf("stored chunk came back as %+v, want %+v", got.Record, multi)
	}
	hits, err = s.Search(ctx, Query{Text: "Markets? falling!", K: 5, Mode: Keyword})
	if err != nil || len(hits) != 1 || hits[0].Source != "b" || hits[0].Score <= 0 {
		t.Fatalf("keyword hits %+v, %v", hits, err)
	}
	hits, err = s.Search(ctx, Query{Text: "purring kittens", Vector: []float32{0, 1, 0}, K: 3, Mode: Hybrid})
	if err != nil || len(hits) != 3 {
		t.Fatalf("hybrid hits %+v, %v", hits, err)
	}
	// b is first by vector, a/1 first by keyword: both lead the fusion.
	if top := map[string]bool{hits[0].Source: true, hits[1].Source: true}; !top["a"] || !top["b"] {
		t.Errorf("hybrid order %v %v %v", hits[0].Source, hits[1].Source, hits[2].Source)
	}
	if _, err := s.Search(ctx, Query{Text: "x", Mode: Vector}); err == nil {
		t.Error("a vector search without a vector worked")
	}
	if _, err := s.Search(ctx, Query{Vector: []float32{1, 0}, Mode: Vector}); err == nil {
		t.Error("a query of the wrong dimension worked")
	}

	if err := s.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Counts(ctx); c.Documents != 1 || c.Chunks != 2 {
		t.Fatalf("after delete: %+v", c)
	}
	if hits, _ := s.Search(ctx, Query{Text: "markets", Mode: Keyword}); len(hits) != 0 {
		t.Errorf("a deleted chunk is still found: %+v", hits)
	}
	if err := s.SetMeta(ctx, "embedder", "lexical"); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Meta(ctx, "embedder"); v != "lexical" || err != nil {
		t.Errorf("meta %q, %v", v, err)
	}
	// Another dimension: the vectors go, every document is stale.
	if err := s.Prepare(ctx, 4); err != nil {
		t.Fatal(err)
	}
	docs, _ = s.Documents(ctx)
	if c, _ := s.Counts(ctx); c.Chunks != 0 || docs["a"].ConfigHash != "" {
		t.Errorf("after a change of dimension: %+v, %+v", c, docs)
	}
	if err := s.Replace(ctx, Put{Document: docA, Chunks: []record.Record{chunk("a", 0, "cats", 1, 0, 0, 0)}}); err != nil {
		t.Fatal(err)
	}
	version, err := s.Meta(ctx, "schema_version")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "schema_version", "99"); err != nil {
		t.Fatal(err)
	}
	if err := s.Prepare(ctx, 4); !errors.Is(err, ErrSchema) {
		t.Errorf("a newer schema: %v", err)
	}
	// Back to this gochunk's schema: the SQLite store refuses writes to a
	// newer one too (schema_version_test.go).
	if err := s.SetMeta(ctx, "schema_version", version); err != nil {
		t.Fatal(err)
	}
}

func TestSQLite(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "gochunk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exercise(t, s)
}

func TestPostgres(t *testing.T) {
	dsn := pgtest.Start(t)
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.(*Postgres).Vector {
		t.Log("pgvector is installed")
	}
	exercise(t, s)
	// A store a newer gochunk wrote is refused when it is opened, not
	// only by Prepare: search, serve and the MCP server open it so.
	ctx := context.Background()
	if err := s.SetMeta(ctx, "schema_version", strconv.Itoa(SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	if p, err := OpenPostgres(ctx, dsn); !errors.Is(err, ErrSchema) || !strings.Contains(fmt.Sprint(err), "use a newer gochunk") {
		if p != nil {
			p.Close()
		}
		t.Errorf("a store of a newer schema opened: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(context.Background(), ""); err == nil {
		t.Error("an empty location opened")
	}
	if _, err := Open(context.Background(), "postgres://127.0.0.1:1/none?connect_timeout=2"); err == nil {
		t.Error("a closed port opened")
	}
	if _, err := ParseMode("semantic"); err == nil {
		t.Error("an unknown mode parsed")
	}
}

// Chunks keep their embedded text and provenance; keyword search finds
// a chunk by the words of its context; a store of schema 1 is brought to
// 2 in place and keeps what it held.
func TestEmbedTextAndProvenance(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s Store) {
		if err := s.Prepare(ctx, 2); err != nil {
			t.Fatal(err)
		}
		c := chunk("guide", 0, "install it with apt", 1, 0)
		c.EmbedText = "Guide > Linux\n\ninstall it with apt"
		c.Lines = [2]int{3, 7}
		c.Boxes = []record.Box{{Page: 2, BBox: [4]float64{1, 2, 3, 4}}}
		c.Pages = [2]int{2, 2}
		if err := s.Replace(ctx, Put{Document: Document{ID: "guide", Source: "x", ContentHash: "h", ConfigHash: "c"}, Chunks: []record.Record{c}}); err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(ctx, Query{Text: "linux", K: 3, Mode: Keyword})
		if err != nil || len(hits) != 1 {
			t.Fatalf("search by a word of the context: %+v, %v", hits, err)
		}
		h := hits[0]
		if h.Text != c.Text || h.EmbedText != c.EmbedText || h.Lines != c.Lines || h.Pages != c.Pages || len(h.Boxes) != 1 || h.Boxes[0] != c.Boxes[0] {
			t.Errorf("stored %+v, wrote %+v", h.Record, c)
		}
		vs, err := s.Vectors(ctx, "guide")
		if err != nil || len(vs) != 1 || vs[c.EmbedText] == nil {
			t.Errorf("vectors by embedded text: %v, %v", vs, err)
		}
		// The full-text index forgets a replaced chunk's context.
		if err := s.Replace(ctx, Put{Document: Document{ID: "guide", Source: "x", ContentHash: "h2", ConfigHash: "c"}, Chunks: []record.Record{chunk("guide", 0, "install it with apt", 1, 0)}}); err != nil {
			t.Fatal(err)
		}
		if hits, err := s.Search(ctx, Query{Text: "linux", K: 3, Mode: Keyword}); err != nil || len(hits) != 0 {
			t.Errorf("a replaced chunk's context is still found: %+v, %v", hits, err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "gochunk.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		check(t, s)
	})
	t.Run("sqlite schema 1", func(t *testing.T) {
		s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "gochunk.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The tables as schema 1 made them, with one chunk.
		for _, stmt := range []string{
			`CREATE TABLE gochunk_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
			`CREATE TABLE gochunk_documents (id TEXT PRIMARY KEY, source TEXT NOT NULL, content_hash TEXT NOT NULL,
				config_hash TEXT NOT NULL, metadata TEXT, updated_at TEXT NOT NULL)`,
			`CREATE TABLE gochunk_chunks (id INTEGER PRIMARY KEY, document_id TEXT NOT NULL REFERENCES gochunk_documents (id),
				chunk_index INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
				start_rune INTEGER NOT NULL, end_rune INTEGER NOT NULL, spans TEXT,
				token_count INTEGER NOT NULL, text TEXT NOT NULL, metadata TEXT, stats TEXT, embedding BLOB,
				UNIQUE (document_id, chunk_index))`,
			`CREATE VIRTUAL TABLE gochunk_chunks_fts USING fts5 (text, content = 'gochunk_chunks', content_rowid = 'id', tokenize = 'porter unicode61')`,
			`CREATE TRIGGER gochunk_chunks_delete AFTER DELETE ON gochunk_chunks BEGIN
				INSERT INTO gochunk_chunks_fts (gochunk_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END`,
			`INSERT INTO gochunk_meta VALUES ('schema_version', '1'), ('dimensions', '2')`,
			`INSERT INTO gochunk_documents VALUES ('old', 'x', 'h', 'c', NULL, '2026-01-01')`,
			`INSERT INTO gochunk_chunks (document_id, chunk_index, start_byte, end_byte, start_rune, end_rune, token_count, text) VALUES ('old', 0, 0, 12, 0, 12, 12, 'zebra crossing')`,
			`INSERT INTO gochunk_chunks_fts (rowid, text) SELECT id, text FROM gochunk_chunks`,
		} {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		check(t, s)
		if v, _ := s.Meta(ctx, "schema_version"); v != fmt.Sprint(sqliteSchemaVersion) {
			t.Errorf("schema version %q after the migration", v)
		}
		if hits, err := s.Search(ctx, Query{Text: "zebra", K: 3, Mode: Keyword}); err != nil || len(hits) != 1 {
			t.Fatalf("the chunk of schema 1: %+v, %v", hits, err)
		}
		if err := s.Delete(ctx, "old"); err != nil {
			t.Fatal(err)
		}
		if hits, err := s.Search(ctx, Query{Text: "zebra", K: 3, Mode: Keyword}); err != nil || len(hits) != 0 {
			t.Errorf("a deleted chunk of schema 1 is still found: %+v, %v", hits, err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		s, err := OpenPostgres(ctx, pgtest.Start(t))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		check(t, s)
	})
}
