package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/store"
)

func indexCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	topics := []string{"volcanoes erupt lava", "markets trade stocks", "cats chase mice", "rivers carve valleys"}
	for i := range n {
		var b strings.Builder
		for k := range 6 {
			fmt.Fprintf(&b, "Document %d, paragraph %d: %s near place %d.\n\n", i, k, topics[(i+k)%len(topics)], i*7+k)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%03d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestIndexAndSearchCommands(t *testing.T) {
	dir := indexCorpus(t, 8)
	db := filepath.Join(t.TempDir(), "s.db")
	out, errOut, code := runCmd(t, "", "index", "--store", db, "--json", "--size", "120", dir)
	if code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	var sum struct {
		Documents map[string]int `json:"documents"`
		Chunks    *int           `json:"chunks_written"`
		Store     struct {
			Documents, Chunks int
			BytesPerChunk     float64 `json:"bytes_per_chunk"`
			VectorIndex       string  `json:"vector_index"`
		} `json:"store"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Chunks == nil || *sum.Chunks == 0 {
		t.Fatalf("summary %q: %v", out, err)
	}
	for _, k := range []string{"added", "updated", "unchanged", "deleted", "failed"} {
		if _, ok := sum.Documents[k]; !ok {
			t.Errorf("summary has no documents.%s: %s", k, out)
		}
	}
	if sum.Documents["added"] != 8 || sum.Store.Documents != 8 || sum.Store.Chunks != *sum.Chunks || sum.Store.BytesPerChunk <= 0 || sum.Store.VectorIndex != "exact" {
		t.Errorf("summary %s", out)
	}
	out, errOut, code = runCmd(t, "", "search", "--store", db, "--json", "--k", "3", "cats chase mice")
	if code != 0 {
		t.Fatalf("search: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d hits: %s", len(lines), out)
	}
	for _, l := range lines {
		var h map[string]any
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"source", "chunk_index", "text", "start", "end", "score"} {
			if _, ok := h[k]; !ok {
				t.Errorf("hit without %s: %s", k, l)
			}
		}
		src, _ := os.ReadFile(h["source"].(string))
		if s, e := int(h["start"].(float64)), int(h["end"].(float64)); string(src[s:e]) != h["text"] {
			t.Errorf("hit offsets do not give its text: %s", l)
		}
		if !strings.Contains(h["text"].(string), "cats chase mice") {
			t.Errorf("hit without the query's words: %s", l)
		}
	}
	if _, errOut, code = runCmd(t, "", "search", "--store", filepath.Join(t.TempDir(), "none.db"), "x"); code != 1 || !strings.Contains(errOut, "gochunk index") {
		t.Errorf("search of a missing store: %d %s", code, errOut)
	}
	if _, errOut, code = runCmd(t, "", "search", "--store", db, "--embedder", "static:none", "x"); code == 0 {
		t.Errorf("search with another embedder: %d %s", code, errOut)
	}
	if _, errOut, code = runCmd(t, "", "index", "--store", db); code != 2 {
		t.Errorf("index without a source: %d %s", code, errOut)
	}
	// Bad documents: reported, skipped, exit status 1 at the end.
	_, errOut, code = runCmd(t, `{"id": "a", "text": "fine"}`+"\n"+`{"id": "b", "text": null}`+"\n", "index", "--store", db, "-")
	if code != 1 || !strings.Contains(errOut, "b: ") || !strings.Contains(errOut, "1 documents failed") {
		t.Errorf("a bad document: %d %s", code, errOut)
	}
}

// slowEmbeddings serves an OpenAI-compatible /embeddings on loopback,
// slowly, with vectors that depend only on each text.
func slowEmbeddings(t *testing.T, delay time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		time.Sleep(delay)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, s := range req.Input {
			h := fnv.New64a()
			h.Write([]byte(s))
			x := h.Sum64()
			data = append(data, item{i, []float32{float32(x & 0xff), float32(x >> 8 & 0xff), float32(x >> 16 & 0xff), 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "model": "stub", "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// dump returns a store's documents and chunks, vectors included, as
// sorted lines.
func dump(t *testing.T, db string) []string {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	docs, err := st.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for id, s := range docs {
		out = append(out, fmt.Sprintf("doc %s %+v", filepath.Base(id), store.State{ContentHash: s.ContentHash, ConfigHash: s.ConfigHash}))
	}
	hits, err := st.Search(context.Background(), store.Query{Vector: []float32{1, 1, 1, 1}, K: 1 << 20, Mode: store.Vector})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		out = append(out, fmt.Sprintf("chunk %s %d %d %d %.6f %q", filepath.Base(h.Source), h.ChunkIndex, h.Start, h.End, h.Score, h.Text))
	}
	slices.Sort(out)
	return out
}

// A run killed with SIGKILL in the middle and started again ends in
// exactly the state of an uninterrupted run: nothing lost, nothing
// duplicated; on SQLite and on a real PostgreSQL.
func TestIndexKilledAndRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := indexCorpus(t, 120)
	url := slowEmbeddings(t, 15*time.Millisecond)
	t.Run("sqlite", func(t *testing.T) {
		killAndRerun(t, bin, dir, url, filepath.Join(t.TempDir(), "clean.db"), filepath.Join(t.TempDir(), "killed.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.Start(t)
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		for _, db := range []string{"clean", "killed"} {
			if _, err := pool.Exec(context.Background(), "CREATE DATABASE "+db); err != nil {
				t.Fatal(err)
			}
		}
		killAndRerun(t, bin, dir, url, strings.Replace(dsn, "dbname=postgres", "dbname=clean", 1), strings.Replace(dsn, "dbname=postgres", "dbname=killed", 1))
	})
}

func killAndRerun(t *testing.T, bin, dir, url, clean, killed string) {
	args := func(db string) []string {
		return []string{"index", "--store", db, "--embedder", "openai:stub", "--embed-url", url, "--size", "100", "--jobs", "2", dir}
	}
	if out, err := exec.Command(bin, args(clean)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	for attempt, wait := range []time.Duration{300 * time.Millisecond, 700 * time.Millisecond} {
		cmd := exec.Command(bin, args(killed)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(wait)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		t.Logf("killed run %d after %v", attempt+1, wait)
	}
	partial := 0
	for _, l := range dump(t, killed) {
		if strings.HasPrefix(l, "doc ") {
			partial++
		}
	}
	out, err := exec.Command(bin, append(args(killed), "--json")...).Output()
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	var sum struct {
		Documents struct{ Added, Unchanged int }
	}
	json.Unmarshal(out, &sum)
	t.Logf("%d documents stored before the rerun; the rerun added %d and left %d", partial, sum.Documents.Added, sum.Documents.Unchanged)
	if got, want := dump(t, killed), dump(t, clean); !slices.Equal(got, want) {
		t.Fatalf("killed and rerun: %d lines, uninterrupted: %d lines; first difference at %v", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%q vs %q", a[i], b[i])
		}
	}
	return "the end of the shorter"
}
