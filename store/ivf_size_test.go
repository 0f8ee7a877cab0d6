package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/record"
)

// fillText writes n chunks of 384-dimension vectors with 100 to 400 bytes
// of text each (real chunks' sizes at 300 runes), 100 to a document.
func fillText(t testing.TB, s *SQLite, rng *rand.Rand, n int) {
	t.Helper()
	vs := clustered(rng, n, 384)
	words := strings.Fields("the store keeps each chunk's text and its vector in one row of the chunks table beside the index")
	for d := 0; d*100 < n; d++ {
		id := fmt.Sprint("doc", d)
		put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c"}}
		for i, v := range vs[d*100 : min(n, d*100+100)] {
			var b strings.Builder
			for size := 100 + rng.IntN(300); b.Len() < size; {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			text := b.String()
			put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: text, End: len(text), EndRune: len(text), Embedding: v})
		}
		if err := s.Replace(context.Background(), put); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSQLitePageSize checks that a new store's pages hold its chunk rows
// without leaving a fifth of each page empty (4 kB pages hold three or
// four rows of a 384-d float16 vector and 100–400 bytes of text, leaving
// the rest), and that a store made with another page size keeps it and
// works.
func TestSQLitePageSize(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(53, 1))
	s, _ := openTemp(t, 384)
	fillText(t, s, rng, 3000)
	var size int
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size != sqlitePageSize {
		t.Errorf("a new store's page size is %d, want %d", size, sqlitePageSize)
	}
	var payload, bytes float64
	if err := s.db.QueryRowContext(ctx, `SELECT sum(payload), sum(pgsize) FROM dbstat WHERE name = 'gochunk_chunks'`).Scan(&payload, &bytes); err != nil {
		t.Fatal(err)
	}
	if fill := payload / bytes; fill < 0.9 {
		t.Errorf("the chunks table's pages are %.1f %% full (%.0f bytes of rows in %.0f), want at least 90 %%", 100*fill, payload, bytes)
	}

	// A store created with 4 kB pages (every store before this change).
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=page_size(4096)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE x (y)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	old, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := old.Prepare(ctx, 384); err != nil {
		t.Fatal(err)
	}
	fillText(t, old, rng, 200)
	if err := old.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size != 4096 {
		t.Errorf("an existing store's page size became %d, want its own 4096", size)
	}
	hits, err := old.Search(ctx, Query{Vector: clustered(rng, 1, 384)[0], K: 5, Mode: Vector})
	if err != nil || len(hits) != 5 {
		t.Fatalf("search of the 4 kB store: %d hits, %v", len(hits), err)
	}
}
