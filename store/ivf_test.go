package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/record"
)

func TestHalf(t *testing.T) {
	for _, f := range []float32{0, 1, -1, 0.5, 65504, 1e-5, -3.14159, 6e-8, 1e-9, 70000} {
		got := fromHalf(toHalf(f))
		want := f
		switch {
		case f == 70000:
			want = float32(math.Inf(1))
		case f == 1e-9:
			want = 0
		}
		if tol := max(math.Abs(float64(want))/1024, 6e-8); math.Abs(float64(got-want)) > tol && !(math.IsInf(float64(want), 1) && math.IsInf(float64(got), 1)) {
			if f != 6e-8 || math.Abs(float64(got-f)) > 3e-8 { // the smallest subnormal is 5.96e-8
				t.Errorf("%g → %g, want %g", f, got, want)
			}
		}
	}
	// Every float16 goes through float32 and back unchanged.
	for h := range 1 << 16 {
		if e := (h >> 10) & 0x1f; e == 0x1f && h&0x3ff != 0 {
			continue // NaNs
		}
		if back := toHalf(fromHalf(uint16(h))); back != uint16(h) {
			t.Fatalf("%#04x → %g → %#04x", h, fromHalf(uint16(h)), back)
		}
	}
	v := []float32{0.1, -0.2, 0.3}
	if got := decodeVector(nil, encodeVector(v)); len(got) != 3 || math.Abs(float64(got[1]+0.2)) > 1e-3 {
		t.Errorf("float16 round trip: %v", got)
	}
	sv := make([]float32, 100)
	sv[3], sv[97] = 0.5, -0.25
	if b := encodeVector(sv); len(b) != 5+4*2 || vectorDims(b) != 100 {
		t.Errorf("a sparse vector stored in %d bytes (%d dimensions)", len(b), vectorDims(b))
	} else if got := decodeVector([]float32{9, 9, 9, 9}, b); len(got) != 100 || got[3] != 0.5 || got[97] != -0.25 || got[0] != 0 {
		t.Errorf("sparse round trip: %v", got)
	}
	if got := decodeVector(nil, vectorBlob(v)); len(got) != 3 || got[2] != 0.3 {
		t.Errorf("float32 blob (schema 2): %v", got)
	}
}

// clustered returns n vectors of dims dimensions around 64 centres (the
// same for every call of a dimension), as text collections are: topics
// with their vocabularies.
func clustered(rng *rand.Rand, n, dims int) [][]float32 {
	crng := rand.New(rand.NewPCG(uint64(dims), 1))
	centres := make([][]float32, 64)
	for i := range centres {
		centres[i] = make([]float32, dims)
		for j := range centres[i] {
			centres[i][j] = float32(crng.NormFloat64())
		}
	}
	return generateVectors(rng, centres, n, dims)
}

// fill writes vectors as documents of 100 chunks each, named prefix0, …
func fill(t testing.TB, s *SQLite, prefix string, vs [][]float32) {
	t.Helper()
	ctx := context.Background()
	for d := 0; d*100 < len(vs); d++ {
		id := fmt.Sprintf("%s%d", prefix, d)
		put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c"}}
		for i, v := range vs[d*100 : min(len(vs), d*100+100)] {
			put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: fmt.Sprintf("chunk %d of %s", i, id), End: 10, EndRune: 10, Embedding: v})
		}
		if err := s.Replace(ctx, put); err != nil {
			t.Fatal(err)
		}
	}
}

func openTemp(t testing.TB, dims int) (*SQLite, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Prepare(context.Background(), dims); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// recall returns the share of the exact scan's k nearest chunks that the
// index search finds, over the queries.
func recall(t testing.TB, s *SQLite, queries [][]float32, k, probes int) float64 {
	t.Helper()
	ctx := context.Background()
	found, all := 0, 0
	for _, q := range queries {
		exact, err := s.Search(ctx, Query{Vector: q, K: k, Mode: Vector, Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		approx, err := s.Search(ctx, Query{Vector: q, K: k, Mode: Vector, Probes: probes})
		if err != nil {
			t.Fatal(err)
		}
		if len(approx) != len(exact) {
			t.Fatalf("the index returned %d hits, the scan %d", len(approx), len(exact))
		}
		in := map[string]bool{}
		for _, h := range approx {
			in[fmt.Sprint(h.Source, h.ChunkIndex)] = true
		}
		for _, h := range exact {
			all++
			if in[fmt.Sprint(h.Source, h.ChunkIndex)] {
				found++
			}
		}
	}
	return float64(found) / float64(all)
}

// checkIndex fails unless every stored vector has exactly one row in the
// index and every row a chunk.
func checkIndex(t testing.TB, s *SQLite) {
	t.Helper()
	if kind, _ := s.Meta(context.Background(), "ivf_kind"); kind == kindSparse {
		// The postings are exactly the stored vectors' nonzero dimensions.
		want := map[int64]bool{}
		err := eachVector(context.Background(), s.db, func(id int64, v []float32) error {
			for d, x := range v {
				if x != 0 {
					want[int64(d)<<ivfShift|id] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkBlocks(t, s, want)
		return
	}
	checkCodeBlocks(t, s)
}

// checkCodeBlocks fails unless the dense index's blocks hold every stored
// vector's code exactly once, in the list of the centroid nearest to it,
// by ascending chunk id, at most ivfBlock to a block, under a key no
// larger than the block's first chunk id, and nothing else.
func checkCodeBlocks(t testing.TB, s *SQLite) {
	t.Helper()
	ctx := context.Background()
	if kind, _ := s.Meta(ctx, "ivf_kind"); kind != kindIVF {
		t.Fatalf("no IVF index trained (kind %q)", kind)
	}
	if layout, _ := s.Meta(ctx, "ivf_layout"); layout != ivfLayout {
		t.Fatalf("the index's layout is %q, want %q", layout, ivfLayout)
	}
	var c ivfCache
	x, err := c.load(ctx, s.db)
	if err != nil || x == nil {
		t.Fatalf("load the index: %v", err)
	}
	type entry struct {
		list  int32
		scale float32
		code  []int8
	}
	got := map[int64]entry{}
	rows, err := s.db.Query(`SELECT id, codes FROM gochunk_ivf_blocks ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key int64
		var blob []byte
		if err := rows.Scan(&key, &blob); err != nil {
			t.Fatal(err)
		}
		b, err := decodeCodeBlock(blob, key, x.dims)
		if err != nil {
			t.Fatal(err)
		}
		list := int32(key >> ivfShift)
		if len(b.ids) == 0 || len(b.ids) > ivfBlock {
			t.Fatalf("block %d of list %d holds %d codes", key&(1<<ivfShift-1), list, len(b.ids))
		}
		if b.ids[0] < key&(1<<ivfShift-1) || !slices.IsSorted(b.ids) {
			t.Fatalf("block %d of list %d: ids %v not ascending from its key", key&(1<<ivfShift-1), list, b.ids)
		}
		for j, id := range b.ids {
			if _, dup := got[id]; dup {
				t.Fatalf("chunk %d's code is in the index twice", id)
			}
			got[id] = entry{list, b.scales[j], b.codes[j*x.dims : (j+1)*x.dims]}
		}
	}
	rows.Close()
	n := 0
	err = eachVector(ctx, s.db, func(id int64, v []float32) error {
		n++
		e, ok := got[id]
		if !ok {
			return fmt.Errorf("chunk %d's vector has no code in the index", id)
		}
		if want := int32(x.nearestDense(v)); e.list != want {
			return fmt.Errorf("chunk %d's code is in list %d, its nearest centroid is %d", id, e.list, want)
		}
		code, scale := quantise(nil, v)
		if scale != e.scale || !slices.Equal(code, e.code) {
			return fmt.Errorf("chunk %d's code is not its stored vector's", id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(got) {
		t.Fatalf("%d vectors, %d codes in the index", n, len(got))
	}
}

func TestIVFRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	vs := clustered(rng, ivfMinChunks+1000, 64)
	s, _ := openTemp(t, 64)
	fill(t, s, "d", vs[:ivfMinChunks-100])
	if kind, _ := s.Meta(context.Background(), "ivf_kind"); kind != "" {
		t.Fatalf("an index (%s) below %d vectors", kind, ivfMinChunks)
	}
	fill(t, s, "e", vs[ivfMinChunks-100:]) // crosses the threshold: trained
	checkIndex(t, s)
	queries := clustered(rng, 100, 64)
	if r := recall(t, s, queries, 10, 0); r < 0.95 {
		t.Errorf("recall@10 %.3f at the default probes, want ≥ 0.95", r)
	}
	lists, _ := s.Meta(context.Background(), "ivf_lists")
	var n int
	fmt.Sscan(lists, &n)
	if r := recall(t, s, queries[:20], 10, n); r < 0.99 {
		t.Errorf("recall@10 %.3f reading every list, want ≥ 0.99", r)
	}
	if r := recall(t, s, queries, 10, 1); r >= 0.999 {
		t.Logf("recall@10 %.3f reading one list", r) // the knob works either way; logged for the record
	}
}

func TestIVFIncremental(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 8))
	vs := clustered(rng, ivfMinChunks+200, 32)
	s, _ := openTemp(t, 32)
	fill(t, s, "d", vs)
	checkIndex(t, s)
	version, _ := s.Meta(ctx, "ivf_version")
	// Change 1 % of the documents, delete as many, add as many.
	fill(t, s, "d", clustered(rng, 100, 32))
	if err := s.Delete(ctx, "d1", "d2"); err != nil {
		t.Fatal(err)
	}
	fill(t, s, "new", clustered(rng, 200, 32))
	checkIndex(t, s)
	if v, _ := s.Meta(ctx, "ivf_version"); v != version {
		t.Errorf("the index was trained again (%s → %s) for a 1%% update", version, v)
	}
	noneOf(t, s, clustered(rng, 20, 32), 10, "d1", "d2")
	if r := recall(t, s, clustered(rng, 50, 32), 10, 0); r < 0.95 {
		t.Errorf("recall@10 %.3f after the updates", r)
	}
	// Growing past ivfGrowth times trains it again.
	fill(t, s, "more", clustered(rng, ivfGrowth*len(vs), 32))
	checkIndex(t, s)
	if v, _ := s.Meta(ctx, "ivf_version"); v == version {
		t.Errorf("not trained again after growing %d times", ivfGrowth)
	}
	if lists, _ := s.Meta(ctx, "ivf_lists"); lists == fmt.Sprint(IVFLists(len(vs))) {
		t.Errorf("still %s lists after growing", lists)
	}
}

// TestIVFKilled kills a process (SIGKILL where there is one) between two
// writes of a document's chunks, in the transaction that would add them
// and their index rows: the store it leaves has its index whole, and
// searches return what the scan does.
func TestIVFKilled(t *testing.T) {
	if path := os.Getenv("GOCHUNK_TEST_IVF_KILL"); path != "" {
		s, err := OpenSQLite(context.Background(), path)
		if err != nil {
			os.Exit(3)
		}
		rng := rand.New(rand.NewPCG(9, 9))
		batches := 0
		put := Put{Document: Document{ID: "d3", Source: "gen", ContentHash: "h2", ConfigHash: "c"},
			Chunks: []record.Record{{Source: "d3", Text: "new", Embedding: clustered(rng, 1, 16)[0]}},
			More: func(ctx context.Context) ([]record.Record, error) {
				if batches++; batches == 3 {
					killSelf()
				}
				var rs []record.Record
				for i, v := range clustered(rng, 50, 16) {
					rs = append(rs, record.Record{Source: "d3", ChunkIndex: batches*100 + i, Text: "new", Embedding: v})
				}
				return rs, nil
			}}
		_ = s.Replace(context.Background(), put)
		os.Exit(4) // not reached
	}
	rng := rand.New(rand.NewPCG(10, 10))
	s, path := openTemp(t, 16)
	fill(t, s, "d", clustered(rng, ivfMinChunks+100, 16))
	checkIndex(t, s)
	s = killWriter(t, s, path, "TestIVFKilled", "GOCHUNK_TEST_IVF_KILL")
	defer s.Close()
	hits, err := s.Search(context.Background(), Query{Vector: clustered(rng, 1, 16)[0], K: 200, Mode: Vector})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Source == "d3" && h.ChunkIndex >= 100 {
			t.Fatalf("a chunk of the killed write found: #%d", h.ChunkIndex)
		}
	}
	if r := recall(t, s, clustered(rng, 30, 16), 10, 0); r < 0.95 {
		t.Errorf("recall@10 %.3f after the kill", r)
	}
	// The next run writes on.
	fill(t, s, "after", clustered(rng, 300, 16))
	checkIndex(t, s)
}

// TestIVFMigratedStore: a store of schema 2 (float32 vectors, no index)
// searches as before, and is indexed once it is written to.
func TestIVFMigratedStore(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 11))
	s, path := openTemp(t, 8)
	fill(t, s, "d", clustered(rng, ivfMinChunks+50, 8))
	// Back to what schema 2 wrote: float32 blobs, no index.
	for _, stmt := range []string{`DELETE FROM gochunk_meta WHERE key LIKE 'ivf_%'`,
		`DROP TABLE gochunk_ivf_blocks`, `DROP TABLE gochunk_ivf_lists`,
		`UPDATE gochunk_meta SET value = '2' WHERE key = 'schema_version'`} {
		if _, err := s.db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.db.Query(`SELECT id, embedding FROM gochunk_chunks`)
	if err != nil {
		t.Fatal(err)
	}
	blobs := map[int64][]byte{}
	for rows.Next() {
		var id int64
		var b []byte
		rows.Scan(&id, &b)
		blobs[id] = vectorBlob(decodeVector(nil, b))
	}
	rows.Close()
	for id, b := range blobs {
		if _, err := s.db.Exec(`UPDATE gochunk_chunks SET embedding = ? WHERE id = ?`, b, id); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Prepare(ctx, 8); err != nil {
		t.Fatal(err)
	}
	q := clustered(rng, 1, 8)[0]
	hits, err := s.Search(ctx, Query{Vector: q, K: 5, Mode: Vector})
	if err != nil || len(hits) != 5 {
		t.Fatalf("search of the migrated store: %d hits, %v", len(hits), err)
	}
	if err := s.BuildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
	if r := recall(t, s, clustered(rng, 30, 8), 10, 0); r < 0.95 {
		t.Errorf("recall@10 %.3f over float32 vectors", r)
	}
}

// sparseVectors returns n vectors of dims dimensions with a few nonzero
// ones each (words), drawn with Zipf's law, as the lexical embedder's
// are; a few words each when short.
func sparseVectors(rng *rand.Rand, n, dims int, short bool) [][]float32 {
	z := rand.NewZipf(rng, 1.1, 2, uint64(dims-1))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dims)
		words := 8 + rng.IntN(20)
		if short {
			words = 3 + rng.IntN(5)
		}
		for range words {
			d := int(z.Uint64()+uint64(i%7)*31) % dims // topics shift the vocabulary
			sign := float32(1)
			if d%3 == 0 {
				sign = -1
			}
			v[d] += sign * float32(1+rng.IntN(3))
		}
		out[i] = v
	}
	return out
}

func TestSparseRecall(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(12, 12))
	s, _ := openTemp(t, 256)
	fill(t, s, "d", sparseVectors(rng, ivfMinChunks+300, 256, false))
	if kind, _ := s.Meta(ctx, "ivf_kind"); kind != kindSparse {
		t.Fatalf("index kind %q for sparse vectors, want %s", kind, kindSparse)
	}
	checkIndex(t, s)
	queries := sparseVectors(rng, 60, 256, true)
	if r := recall(t, s, queries, 10, 0); r < 0.99 {
		t.Errorf("recall@10 %.3f, want ≥ 0.99 (every dimension of the query read)", r)
	}
	// Updates and deletes keep it whole.
	fill(t, s, "d", sparseVectors(rng, 200, 256, false))
	if err := s.Delete(ctx, "d5"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
	// A query sharing no dimension with fewer than k chunks is scanned:
	// k hits still.
	q := make([]float32, 256)
	q[255] = 1
	hits, err := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector})
	if err != nil || len(hits) != 10 {
		t.Fatalf("a query of a rare dimension: %d hits, %v", len(hits), err)
	}
}

func TestSearchFilters(t *testing.T) {
	if raceEnabled {
		t.Skip("builds two stores of 8,592 chunks: minutes under the race detector; run without -race")
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 13))
	for _, sparseData := range []bool{true, false} {
		t.Run(fmt.Sprintf("sparse=%v", sparseData), func(t *testing.T) {
			s, _ := openTemp(t, 64)
			var vs [][]float32
			if sparseData {
				vs = sparseVectors(rng, ivfMinChunks+400, 64*8, false)
				s, _ = openTemp(t, 64*8)
			} else {
				vs = clustered(rng, ivfMinChunks+400, 64)
			}
			// 86 documents of 100 chunks: team x for one in three, and
			// one document of 5 chunks of team z.
			for d := 0; d*100 < len(vs); d++ {
				id := fmt.Sprintf("dir%d/doc%d", d%2, d)
				team := "y"
				if d%3 == 0 {
					team = "x"
				}
				n := 100
				if d == 7 {
					team, n = "z", 5
				}
				put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c", Metadata: map[string]any{"team": team}}}
				for i, v := range vs[d*100 : min(len(vs), d*100+n)] {
					put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: fmt.Sprintf("word%d shared", i%10), End: 10, EndRune: 10, Embedding: v})
				}
				if err := s.Replace(ctx, put); err != nil {
					t.Fatal(err)
				}
			}
			if kind, _ := s.Meta(ctx, "ivf_kind"); kind == "" {
				t.Fatal("no index")
			}
			queries := vs[:8]
			for _, f := range []struct {
				prefix string
				meta   map[string]string
				want   int
			}{{"dir1/", nil, 10}, {"", map[string]string{"team": "x"}, 10}, {"dir0/", map[string]string{"team": "x"}, 10},
				{"", map[string]string{"team": "z"}, 5}, {"dir0/doc84", nil, 10}, {"nowhere/", nil, 0}} {
				found, all := 0, 0
				for _, q := range queries {
					for _, mode := range []Mode{Vector, Keyword, Hybrid} {
						hits, err := s.Search(ctx, Query{Text: "word3", Vector: q, K: 10, Mode: mode, SourcePrefix: f.prefix, Metadata: f.meta})
						if err != nil {
							t.Fatal(err)
						}
						if mode != Keyword && len(hits) != f.want {
							t.Fatalf("%s search filtered by %q %v: %d hits, want %d", mode, f.prefix, f.meta, len(hits), f.want)
						}
						for _, h := range hits {
							if !strings.HasPrefix(h.Source, f.prefix) {
								t.Fatalf("%s search filtered by %q: a hit of %s", mode, f.prefix, h.Source)
							}
						}
					}
					exact, err := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector, Exact: true, SourcePrefix: f.prefix, Metadata: f.meta})
					if err != nil {
						t.Fatal(err)
					}
					approx, _ := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector, SourcePrefix: f.prefix, Metadata: f.meta})
					in := map[string]bool{}
					for _, h := range approx {
						in[fmt.Sprint(h.Source, h.ChunkIndex)] = true
					}
					for _, h := range exact {
						all++
						if in[fmt.Sprint(h.Source, h.ChunkIndex)] {
							found++
						}
					}
				}
				if all > 0 && float64(found)/float64(all) < 0.9 {
					t.Errorf("filtered by %q %v: recall@10 %.3f", f.prefix, f.meta, float64(found)/float64(all))
				}
			}
		})
	}
}

// TestSparseGrowth: a sparse index grown ivfGrowth times keeps its rows
// (nothing to train) and stays whole.
func TestSparseGrowth(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(14, 14))
	s, _ := openTemp(t, 128)
	fill(t, s, "d", sparseVectors(rng, ivfMinChunks, 128, false))
	version, _ := s.Meta(ctx, "ivf_version")
	trained, _ := s.Meta(ctx, "ivf_trained")
	fill(t, s, "e", sparseVectors(rng, ivfGrowth*ivfMinChunks, 128, false))
	checkIndex(t, s)
	if v, _ := s.Meta(ctx, "ivf_version"); v != version {
		t.Errorf("the sparse index was rewritten on growth (version %s → %s)", version, v)
	}
	if n, _ := s.Meta(ctx, "ivf_trained"); n == trained {
		t.Errorf("growth not noted (ivf_trained still %s)", n)
	}
}

// killSelf kills this process (SIGKILL where there is one) from the
// middle of a write, as a crash would end it.
func killSelf() {
	p, _ := os.FindProcess(os.Getpid())
	p.Kill()
	select {}
}

// killWriter runs test in a child process with env set to path (the child
// writes to the store there and kills itself with killSelf; exit codes 3
// and 4 say it could not open the store or was not killed), closes s, and
// returns the store at path opened again with its index checked.
func killWriter(t *testing.T, s *SQLite, path, test, env string) *SQLite {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$")
	cmd.Env = append(os.Environ(), env+"="+path)
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() == 3 || cmd.ProcessState.ExitCode() == 4 {
		t.Fatalf("the writer was not killed: %v", err)
	}
	s.Close()
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
	return s
}

// noneOf fails the test when a vector search of any of the queries for
// its k nearest finds a chunk of one of the (deleted) sources.
func noneOf(t *testing.T, s *SQLite, queries [][]float32, k int, sources ...string) {
	t.Helper()
	for _, q := range queries {
		hits, err := s.Search(context.Background(), Query{Vector: q, K: k, Mode: Vector})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if slices.Contains(sources, h.Source) {
				t.Fatalf("a deleted document's chunk found: %s #%d", h.Source, h.ChunkIndex)
			}
		}
	}
}
