package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/record"
)

// schemaStore returns a prepared store at a new path with two documents
// (vectors of 4 dimensions), and the path.
func schemaStore(t *testing.T) (*SQLite, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gochunk.db")
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Prepare(ctx, 4); err != nil {
		s.Close()
		t.Fatal(err)
	}
	for _, put := range []Put{
		{Document: Document{ID: "a", Source: "a", ContentHash: "h", ConfigHash: "c"},
			Chunks: []record.Record{chunk("a", 0, "cats chase mice", 1, 0, 0, 0), chunk("a", 1, "dogs chase cats", 0, 1, 0, 0)}},
		{Document: Document{ID: "b", Source: "b", ContentHash: "h", ConfigHash: "c"},
			Chunks: []record.Record{chunk("b", 0, "birds sing", 0, 0, 1, 0)}},
	} {
		if err := s.Replace(ctx, put); err != nil {
			s.Close()
			t.Fatal(err)
		}
	}
	return s, path
}

// wantNewerSchema fails the test unless err refuses a store of schema 7
// at path as written by a newer gochunk, naming the store, its schema,
// this gochunk's and what to do.
func wantNewerSchema(t *testing.T, what string, err error, path string) {
	t.Helper()
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("%s: %v, want ErrSchema", what, err)
	}
	msg := err.Error()
	for _, want := range []string{path, "schema version 7", fmt.Sprintf("up to %d", sqliteSchemaVersion), "newer gochunk", "use that gochunk or a newer one"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %q does not say %q", what, msg, want)
		}
	}
}

// TestSchemaNewerRefusedOnOpen: a store whose schema is newer than this
// gochunk's is refused when it is opened (by search, serve, the MCP server
// and index alike), not searched with this gochunk's idea of its tables.
func TestSchemaNewerRefusedOnOpen(t *testing.T) {
	ctx := context.Background()
	s, path := schemaStore(t)
	if err := s.SetMeta(ctx, "schema_version", fmt.Sprint(sqliteSchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenSQLite(ctx, path)
	if err == nil {
		s2.Close()
	}
	wantNewerSchema(t, "OpenSQLite", err, path)
	st, err := Open(ctx, path)
	if err == nil {
		st.Close()
	}
	wantNewerSchema(t, "Open", err, path)
}

// TestSchemaNewerRefusedOnWrite: a store a newer gochunk migrated after
// this one opened it takes no write (the version is read in the write's
// transaction), and a search that no longer reads its tables says why.
func TestSchemaNewerRefusedOnWrite(t *testing.T) {
	ctx := context.Background()
	s, path := schemaStore(t)
	defer s.Close()
	if err := s.SetMeta(ctx, "schema_version", fmt.Sprint(sqliteSchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	err := s.Replace(ctx, Put{Document: Document{ID: "c", Source: "c", ContentHash: "h", ConfigHash: "c"},
		Chunks: []record.Record{chunk("c", 0, "fish swim", 0, 0, 0, 1)}})
	wantNewerSchema(t, "Replace", err, path)
	wantNewerSchema(t, "Delete", s.Delete(ctx, "a"), path)
	if c, err := s.Counts(ctx); err != nil || c.Documents != 2 || c.Chunks != 3 {
		t.Errorf("after the refused writes: %+v, %v", c, err)
	}
	// The newer schema renamed a table this gochunk reads.
	if _, err := s.db.ExecContext(ctx, `ALTER TABLE gochunk_chunks RENAME TO gochunk_chunks_v7`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{Text: "cats", K: 3, Mode: Keyword}, {Vector: []float32{1, 0, 0, 0}, K: 3, Mode: Vector}} {
		_, err := s.Search(ctx, q)
		wantNewerSchema(t, fmt.Sprint("search ", q.Mode), err, path)
	}
}

// TestSchemaOlderStillSearches: a store of schema 5 or 4 (FTS5's index,
// and at 4 no keyword index) opens and searches as before, without a
// migration, which the next write brings.
func TestSchemaOlderStillSearches(t *testing.T) {
	ctx := context.Background()
	for _, version := range []int{5, 4} {
		t.Run(fmt.Sprint("schema ", version), func(t *testing.T) {
			s, path := schemaStore(t)
			asEarlierSchema(t, s, version)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			st, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			hits, err := st.Search(ctx, Query{Text: "cats", K: 3, Mode: Keyword})
			if err != nil || len(hits) != 2 {
				t.Fatalf("keyword search: %d hits, %v", len(hits), err)
			}
			hits, err = st.Search(ctx, Query{Vector: []float32{0, 0, 1, 0}, K: 1, Mode: Vector})
			if err != nil || len(hits) != 1 || hits[0].Source != "b" {
				t.Fatalf("vector search: %+v, %v", hits, err)
			}
			if v, _ := st.Meta(ctx, "schema_version"); v != fmt.Sprint(version) {
				t.Errorf("a search migrated the store: schema %s", v)
			}
			if err := st.Delete(ctx, "b"); err != nil {
				t.Fatal(err)
			}
			if v, _ := st.Meta(ctx, "schema_version"); v != fmt.Sprint(sqliteSchemaVersion) {
				t.Errorf("a write left the store at schema %s", v)
			}
		})
	}
}
