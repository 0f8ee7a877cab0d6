package store

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/record"
)

// TestIVFBlocks takes a trained dense index through changes, deletes and
// additions (in separate transactions and in one, with chunk ids reused)
// and checks its blocks after each: every stored vector's code exactly
// once, in its list, by ascending chunk id, no block over ivfBlock; the
// index search still finds what the exact scan does.
func TestIVFBlocks(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 21))
	s, _ := openTemp(t, 16)
	fill(t, s, "d", clustered(rng, ivfMinChunks+100, 16))
	checkIndex(t, s)
	var split int
	if err := s.db.QueryRow(`SELECT count(*) FROM (SELECT id >> ? FROM gochunk_ivf_blocks GROUP BY 1 HAVING count(*) > 1)`, ivfShift).Scan(&split); err != nil {
		t.Fatal(err)
	}
	if split == 0 {
		t.Fatalf("no list of more than one block: the test does not reach splits")
	}
	queries := clustered(rng, 40, 16)
	step := func(what string, fn func() error) {
		t.Helper()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkIndex(t, s)
		if r := recall(t, s, queries, 10, 0); r < 0.95 {
			t.Fatalf("%s: recall@10 %.3f", what, r)
		}
	}
	step("change a document", func() error { fill(t, s, "d", clustered(rng, 100, 16)); return nil })
	step("delete documents", func() error { return s.Delete(ctx, "d3", "d40", "d81") })
	noneOf(t, s, queries, 10, "d3", "d40", "d81")
	// The last document deleted, then one written: SQLite gives its
	// chunks the ids the deleted ones had.
	last := fmt.Sprint("d", (ivfMinChunks+100)/100)
	step("delete the last document", func() error { return s.Delete(ctx, last) })
	step("reuse its ids", func() error { fill(t, s, "reused", clustered(rng, 100, 16)); return nil })
	// One transaction that writes a document, writes it again (its codes
	// pending in the writer are dropped) and deletes another.
	doc := func(id string, n int) Put {
		put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c"}}
		for i, v := range clustered(rng, n, 16) {
			put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: "x", End: 1, EndRune: 1, Embedding: v})
		}
		return put
	}
	step("write twice in one transaction", func() error { return s.Replace(ctx, doc("twice", 300), doc("twice", 250), doc("d10", 0)) })
	step("a vectorless document", func() error {
		return s.Replace(ctx, Put{Document: Document{ID: "plain", Source: "gen", ContentHash: "h", ConfigHash: "c"},
			Chunks: []record.Record{{Source: "plain", Text: "no vector", End: 9, EndRune: 9}}})
	})
	// A zero vector is indexed (scale 0) and deleted like any other.
	step("a zero vector", func() error {
		return s.Replace(ctx, Put{Document: Document{ID: "zero", Source: "gen", ContentHash: "h", ConfigHash: "c"},
			Chunks: []record.Record{{Source: "zero", Text: "zero", End: 4, EndRune: 4, Embedding: make([]float32, 16)}}})
	})
	step("delete it", func() error { return s.Delete(ctx, "zero", "twice") })
	if v, _ := s.Meta(ctx, "ivf_version"); v != "1" {
		t.Errorf("trained again (version %s): the updates should not have", v)
	}
}

// TestIVFLayoutMigrated: a store whose dense index is the earlier layout
// (a row per code in gochunk_ivf, deleted by a trigger) is searched by
// the exact scan as it is, and Prepare moves its codes into blocks with
// the same centroids.
func TestIVFLayoutMigrated(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(22, 22))
	s, path := openTemp(t, 16)
	fill(t, s, "d", clustered(rng, ivfMinChunks+100, 16))
	checkIndex(t, s)
	version, _ := s.Meta(ctx, "ivf_version")
	// Back to the earlier layout, as the last version wrote it.
	var c ivfCache
	x, err := c.load(ctx, s.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{`DROP TABLE gochunk_ivf_blocks`, `DELETE FROM gochunk_meta WHERE key = 'ivf_layout'`,
		`UPDATE gochunk_meta SET value = '3' WHERE key = 'schema_version'`,
		`CREATE TABLE gochunk_ivf (id INTEGER PRIMARY KEY, chunk_id INTEGER NOT NULL, code BLOB NOT NULL)`,
		`CREATE INDEX gochunk_ivf_chunk ON gochunk_ivf (chunk_id)`,
		`CREATE TRIGGER gochunk_chunks_ivf_delete AFTER DELETE ON gochunk_chunks BEGIN DELETE FROM gochunk_ivf WHERE chunk_id = old.id; END`} {
		if _, err := s.db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	err = eachVector(ctx, s.db, func(id int64, v []float32) error {
		code, scale := quantise(nil, v)
		b := binary.LittleEndian.AppendUint32([]byte{0x01}, math.Float32bits(scale))
		for _, c := range code {
			b = append(b, byte(c))
		}
		_, err := s.db.Exec(`INSERT INTO gochunk_ivf VALUES (?, ?, ?)`, int64(x.nearestDense(v))<<ivfShift|id, id, b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := clustered(rng, 1, 16)[0]
	if _, ok, err := s.ivfSearch(ctx, Query{Vector: q, K: 10, Mode: Vector}); err != nil || ok {
		t.Fatalf("the earlier layout was searched by the index (%v, %v), want the exact scan", ok, err)
	}
	exact, err := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(exact) {
		t.Fatalf("the earlier layout's search differs from the scan (%v)", err)
	}
	if err := s.Prepare(ctx, 16); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
	var old int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN ('gochunk_ivf', 'gochunk_chunks_ivf_delete', 'gochunk_ivf_chunk')`).Scan(&old); err != nil || old != 0 {
		t.Fatalf("%d of the earlier layout's table, index and trigger left (%v)", old, err)
	}
	if v, _ := s.Meta(ctx, "ivf_version"); v != version {
		t.Errorf("trained again (%s → %s): the migration keeps the centroids", version, v)
	}
	if v, _ := s.Meta(ctx, "schema_version"); v != fmt.Sprint(sqliteSchemaVersion) {
		t.Errorf("schema version %s after the blocks migration, want %d (a gochunk knowing 3 must refuse the store)", v, sqliteSchemaVersion)
	}
	if r := recall(t, s, clustered(rng, 30, 16), 10, 0); r < 0.95 {
		t.Errorf("recall@10 %.3f after the migration", r)
	}
	if err := s.Delete(ctx, "d1"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
}

// TestIVFBlocksKilled kills a writer (SIGKILL) at a random moment while it
// changes, deletes and adds documents in a trained dense index, three
// times: each store it leaves has its blocks whole (checkIndex), its
// searches find what the scan does, and the next writer writes on.
func TestIVFBlocksKilled(t *testing.T) {
	if path := os.Getenv("GOCHUNK_TEST_IVF_BLOCKS_KILL"); path != "" {
		s, err := OpenSQLite(context.Background(), path)
		if err != nil {
			os.Exit(3)
		}
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 23))
		for i := 0; ; i++ {
			put := Put{Document: Document{ID: fmt.Sprint("d", rng.IntN(80)), Source: "gen", ContentHash: "h", ConfigHash: "c"}}
			for j, v := range clustered(rng, 50+rng.IntN(200), 16) {
				put.Chunks = append(put.Chunks, record.Record{Source: put.Document.ID, ChunkIndex: j, Text: "x", End: 1, EndRune: 1, Embedding: v})
			}
			added := Put{Document: Document{ID: fmt.Sprintf("k%d-%d", os.Getpid(), i), Source: "gen", ContentHash: "h", ConfigHash: "c"}}
			for j, v := range clustered(rng, 100, 16) {
				added.Chunks = append(added.Chunks, record.Record{Source: added.Document.ID, ChunkIndex: j, Text: "x", End: 1, EndRune: 1, Embedding: v})
			}
			if err := s.Replace(ctx, put, added); err != nil {
				os.Exit(5)
			}
			if err := s.Delete(ctx, fmt.Sprint("d", rng.IntN(80))); err != nil {
				os.Exit(5)
			}
			if i == 0 {
				fmt.Println("writing")
			}
		}
	}
	rng := rand.New(rand.NewPCG(24, 24))
	s, path := openTemp(t, 16)
	fill(t, s, "d", clustered(rng, ivfMinChunks+100, 16))
	checkIndex(t, s)
	s.Close()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestIVFBlocksKilled$")
		cmd.Env = append(os.Environ(), "GOCHUNK_TEST_IVF_BLOCKS_KILL="+path)
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
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		cmd.Process.Kill()
		if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() == 3 || cmd.ProcessState.ExitCode() == 5 {
			t.Fatalf("round %d: the writer was not killed while writing: %v", round, err)
		}
		s, err := OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		checkIndex(t, s)
		if r := recall(t, s, clustered(rng, 20, 16), 10, 0); r < 0.95 {
			t.Errorf("round %d: recall@10 %.3f after the kill", round, r)
		}
		s.Close()
	}
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fill(t, s, "after", clustered(rng, 300, 16))
	checkIndex(t, s)
}

// TestIVFCacheSeesWrites: a store's searches keep the blocks they read,
// and another handle's writes (another process's, as far as the cache
// knows) are seen by the next search: a new chunk, a deleted one, and an
// index trained again.
func TestIVFCacheSeesWrites(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(25, 25))
	a, path := openTemp(t, 16)
	fill(t, a, "d", clustered(rng, ivfMinChunks+100, 16))
	b, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	q := clustered(rng, 1, 16)[0]
	top := func() string {
		t.Helper()
		hits, err := a.Search(ctx, Query{Vector: q, K: 1, Mode: Vector})
		if err != nil || len(hits) != 1 {
			t.Fatalf("search: %d hits, %v", len(hits), err)
		}
		return hits[0].Source
	}
	before := top() // the probed lists are kept now
	if err := b.Replace(ctx, Put{Document: Document{ID: "new", Source: "new", ContentHash: "h", ConfigHash: "c"},
		Chunks: []record.Record{{Source: "new", Text: "q", End: 1, EndRune: 1, Embedding: q}}}); err != nil {
		t.Fatal(err)
	}
	if got := top(); got != "new" {
		t.Fatalf("the other handle's chunk (the query itself) not found first: %s", got)
	}
	if err := b.Delete(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if got := top(); got != before {
		t.Fatalf("after the delete the top hit is %s, was %s", got, before)
	}
	if err := b.BuildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if r := recall(t, a, clustered(rng, 20, 16), 10, 0); r < 0.95 {
		t.Errorf("recall@10 %.3f after another handle trained the index again", r)
	}
}

// A vector as near one centroid as another is removed from both lists
// (the machine that added it may have rounded the other way: fused
// multiply-adds or not); one clearly nearer one list is removed from it
// alone.
func TestNearestTwoDenseTies(t *testing.T) {
	x := &ivfIndex{dims: 4, centroids: [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}}
	best, second, tie := x.nearestTwoDense([]float32{0.6, 0.6, 0.1, 0})
	if !tie || best == second || best > 1 || second > 1 {
		t.Errorf("midway between lists 0 and 1: %d, %d, tie %v", best, second, tie)
	}
	if best, second, tie := x.nearestTwoDense([]float32{0.1, 0.9, 0.3, 0}); tie || best != 1 || second != 2 {
		t.Errorf("nearer list 1, then 2: %d, %d, tie %v", best, second, tie)
	}
	one := &ivfIndex{dims: 4, centroids: [][]float32{{1, 0, 0, 0}}}
	if best, _, tie := one.nearestTwoDense([]float32{0, 1, 0, 0}); tie || best != 0 {
		t.Errorf("one list: %d, tie %v", best, tie)
	}
}
