package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/internal/npmtest"
)

// startPGlite starts PGlite (PostgreSQL compiled to WebAssembly, with
// pgvector) behind its PostgreSQL wire-protocol server, from npm packages
// installed outside the repository, and returns a connection string.
// Debian has no pgvector package, so this is how the pgvector path is
// tested. It skips where node and npm are missing.
func startPGlite(t *testing.T) string {
	t.Helper()
	node, dir := npmtest.Install(t, "npm-pglite", "@electric-sql/pglite@0.5.14", "@electric-sql/pglite-socket@0.2", "@electric-sql/pglite-pgvector@0.0.15")
	server := filepath.Join(dir, "node_modules", "@electric-sql", "pglite-socket", "dist", "scripts", "server.js")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log strings.Builder
	cmd := exec.Command(node, server, fmt.Sprintf("--port=%d", port), "--max-connections=8", "--extensions=@electric-sql/pglite-pgvector:vector")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PGlite did not start:\n%s", log.String())
		}
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// The pgvector path: a vector(N) column with an HNSW index, searched by
// cosine distance.
func TestPostgresPGvector(t *testing.T) {
	ctx := context.Background()
	s, err := OpenPostgres(ctx, startPGlite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exercise(t, s)
	if !s.Vector {
		t.Fatal("pgvector was not used")
	}
	var typ, index string
	if err := s.pool.QueryRow(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'gochunk_chunks'::regclass AND attname = 'embedding'`).Scan(&typ); err != nil || typ != "vector(4)" {
		t.Errorf("embedding column %q, %v", typ, err)
	}
	if err := s.pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = 'gochunk_chunks_hnsw'`).Scan(&index); err != nil || !strings.Contains(index, "hnsw") || !strings.Contains(index, "vector_cosine_ops") {
		t.Errorf("index %q, %v", index, err)
	}
}

// TestPGvectorFilteredSearchOneConnection: a filtered search through the
// HNSW index asks nothing of the pool while its transaction holds the
// connection, so a pool of one connection answers (it waited forever for
// a second connection, and PGlite's for two minutes).
func TestPGvectorFilteredSearchOneConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := OpenPostgres(ctx, startPGlite(t)+"&pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	filterDocs(t, s)
	if !s.Vector {
		t.Fatal("pgvector was not used")
	}
	q := clustered(rand.New(rand.NewPCG(7, 7)), 1, 16)[0]
	hits, err := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector, SourcePrefix: "dir1/"})
	if err != nil {
		t.Fatalf("filtered search on one connection: %v", err)
	}
	if len(hits) != 10 {
		t.Fatalf("%d hits, want 10", len(hits))
	}
}
