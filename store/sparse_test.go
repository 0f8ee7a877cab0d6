package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/gochunk/gochunk/record"
)

// checkBlocks fails unless the sparse index's blocks hold exactly the
// postings of want (dimension<<ivfShift | chunk id), each dimension's in
// ascending blocks of at most sparseBlock under keys no larger than
// their first id, with their true maxima, and the dimensions' table
// counts them and bounds their weights.
func checkBlocks(t testing.TB, s *SQLite, want map[int64]bool) {
	t.Helper()
	rows, err := s.db.Query(`SELECT id, maxw, postings FROM gochunk_sparse_blocks ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	count := map[int64]int64{}
	maxw := map[int64]float32{}
	prevDim, prevLast := int64(-1), int64(-1)
	for rows.Next() {
		var key int64
		var m uint16
		var data []byte
		if err := rows.Scan(&key, &m, &data); err != nil {
			t.Fatal(err)
		}
		d, base := key>>ivfShift, key&(1<<ivfShift-1)
		ids, ws, err := decodeBlock(data, base, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 0 || len(ids) > sparseBlock {
			t.Fatalf("a block of %d postings (dimension %d)", len(ids), d)
		}
		if ids[0] < base || (d == prevDim && base <= prevLast) {
			t.Fatalf("dimension %d: block key %d, first id %d, the block before ends at %d", d, base, ids[0], prevLast)
		}
		if !slices.IsSorted(ids) {
			t.Fatalf("dimension %d: a block's ids out of order: %v", d, ids)
		}
		if maxHalf(ws) != m {
			t.Fatalf("dimension %d: a block's maximum %#x, its postings' %#x", d, m, maxHalf(ws))
		}
		for _, id := range ids {
			if !want[d<<ivfShift|id] {
				t.Fatalf("a posting of chunk %d, dimension %d, that its stored vector has not", id, d)
			}
			n++
		}
		count[d] += int64(len(ids))
		maxw[d] = max(maxw[d], fromHalf(m))
		prevDim, prevLast = d, ids[len(ids)-1]
	}
	if n != len(want) {
		t.Fatalf("%d postings for %d nonzero dimensions", n, len(want))
	}
	drows, err := s.db.Query(`SELECT dim, postings, maxw FROM gochunk_sparse_dims`)
	if err != nil {
		t.Fatal(err)
	}
	defer drows.Close()
	for drows.Next() {
		var d, c int64
		var m float64
		if err := drows.Scan(&d, &c, &m); err != nil {
			t.Fatal(err)
		}
		if c != count[d] || float32(m) < maxw[d] {
			t.Fatalf("dimension %d: %d postings and bound %g in the table of dimensions, %d and %g in its blocks", d, c, m, count[d], maxw[d])
		}
		delete(count, d)
	}
	for d, c := range count {
		t.Fatalf("dimension %d: %d postings, not in the table of dimensions", d, c)
	}
}

// sparseStore returns a store whose vectors are indexed by a sparse
// index from the first (as a trained store's are, without writing
// ivfMinChunks of them first).
func sparseStore(t testing.TB, dims int) (*SQLite, string) {
	t.Helper()
	s, path := openTemp(t, dims)
	ctx := context.Background()
	for k, v := range map[string]string{"ivf_kind": kindSparse, "ivf_version": "1"} {
		if err := s.SetMeta(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.tx(ctx, func(tx *sql.Tx) error { return sparseReset(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// fewDims returns n unit-less vectors of dims dimensions with 1 to 4
// nonzero components of either sign, so that each dimension has many
// postings.
func fewDims(rng *rand.Rand, n, dims int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dims)
		for range 1 + rng.IntN(4) {
			v[rng.IntN(dims)] += float32(rng.NormFloat64())
		}
		out[i] = v
	}
	return out
}

// putDoc writes document id with the vectors vs as its chunks.
func putDoc(id string, vs [][]float32) Put {
	put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c"}}
	for i, v := range vs {
		put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: fmt.Sprintf("chunk %d of %s", i, id), End: 10, EndRune: 10, Embedding: v})
	}
	return put
}

// sameAsExact fails unless the index's search gives the exact scan's
// scores for each query (the same chunks, but for equal scores).
func sameAsExact(t testing.TB, s *SQLite, queries [][]float32, k int) {
	t.Helper()
	ctx := context.Background()
	for qi, q := range queries {
		exact, err := s.Search(ctx, Query{Vector: q, K: k, Mode: Vector, Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Search(ctx, Query{Vector: q, K: k, Mode: Vector})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(exact) {
			t.Fatalf("query %d: %d hits, the exact scan %d", qi, len(got), len(exact))
		}
		for i := range got {
			if math.Abs(got[i].Score-exact[i].Score) > 1e-9 {
				t.Fatalf("query %d: hit %d scores %.6f (%s #%d), the exact scan's %.6f (%s #%d)", qi, i,
					got[i].Score, got[i].Source, got[i].ChunkIndex, exact[i].Score, exact[i].Source, exact[i].ChunkIndex)
			}
		}
	}
}

// TestSparseWrites: blocks split, emptied, rewritten and extended through
// writes of every kind (a document replaced, deleted, the largest chunk
// ids deleted and used again, one document twice in a transaction) hold
// exactly the stored vectors' postings, and searches give the exact
// scan's results.
func TestSparseWrites(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 21))
	const dims = 8
	s, _ := sparseStore(t, dims)
	queries := fewDims(rng, 20, dims)
	var puts []Put
	for d := range 30 {
		puts = append(puts, putDoc(fmt.Sprintf("d%02d", d), fewDims(rng, 40, dims)))
	}
	if err := s.Replace(ctx, puts[:10]...); err != nil { // one transaction
		t.Fatal(err)
	}
	for _, p := range puts[10:] { // one each
		if err := s.Replace(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	checkIndex(t, s)
	var blocks int
	if err := s.db.QueryRow(`SELECT count(*) FROM gochunk_sparse_blocks`).Scan(&blocks); err != nil || blocks <= dims {
		t.Fatalf("%d blocks for %d dimensions of ~400 postings each (%v): none split", blocks, dims, err)
	}
	sameAsExact(t, s, queries, 10)
	steps := []struct {
		name string
		do   func() error
	}{
		{"a document in the middle replaced, longer", func() error { return s.Replace(ctx, putDoc("d05", fewDims(rng, 90, dims))) }},
		{"a document in the middle replaced, shorter", func() error { return s.Replace(ctx, putDoc("d12", fewDims(rng, 3, dims))) }},
		{"documents deleted", func() error { return s.Delete(ctx, "d07", "d08", "d20") }},
		{"the last document replaced (its ids used again)", func() error { return s.Replace(ctx, putDoc("d29", fewDims(rng, 60, dims))) }},
		{"the last document deleted, then one added", func() error {
			if err := s.Delete(ctx, "d29"); err != nil {
				return err
			}
			return s.Replace(ctx, putDoc("e00", fewDims(rng, 50, dims)))
		}},
		{"one document twice in a transaction", func() error {
			return s.Replace(ctx, putDoc("e01", fewDims(rng, 30, dims)), putDoc("e01", fewDims(rng, 20, dims)))
		}},
		{"most documents deleted", func() error {
			var ids []string
			for d := range 28 {
				ids = append(ids, fmt.Sprintf("d%02d", d))
			}
			return s.Delete(ctx, ids...)
		}},
		{"many added in one transaction", func() error {
			var ps []Put
			for d := range 12 {
				ps = append(ps, putDoc(fmt.Sprintf("f%02d", d), fewDims(rng, 70, dims)))
			}
			return s.Replace(ctx, ps...)
		}},
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		t.Run(step.name, func(t *testing.T) {
			checkIndex(t, s)
			sameAsExact(t, s, queries, 10)
		})
	}
}

// TestSparsePruned: searches that stop reading the longest lists once
// the rest cannot lift a chunk into the k best return the exact scan's
// results.
func TestSparsePruned(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(22, 22))
	const dims = 1024
	s, _ := sparseStore(t, dims)
	vs := sparseVectors(rng, 3000, dims, false)
	var puts []Put
	for d := 0; d*100 < len(vs); d++ {
		puts = append(puts, putDoc(fmt.Sprintf("d%d", d), vs[d*100:min(len(vs), d*100+100)]))
	}
	if err := s.Replace(ctx, puts...); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
	queries := sparseVectors(rng, 100, dims, true)
	sameAsExact(t, s, queries, 10)
	pruned, skipped := 0, 0
	for _, q := range queries {
		var st sparseStats
		if _, _, err := s.sparseQuery(ctx, Query{Vector: q, K: 10, Mode: Vector}, newQuery(q), nil, &st); err != nil {
			t.Fatal(err)
		}
		if st.pruned {
			pruned++
		}
		skipped += st.dims - st.read
	}
	if pruned == 0 || skipped == 0 {
		t.Errorf("no search of %d pruned (%d pruned, %d dimensions left unread)", len(queries), pruned, skipped)
	}
	t.Logf("%d of %d searches pruned, %d dimensions left unread", pruned, len(queries), skipped)
	// A smaller k prunes sooner.
	sameAsExact(t, s, queries[:10], 3)
}

// oldLayout rewrites s's sparse index as the earlier layout (a row per
// posting in gochunk_postings, no sparse_layout).
func oldLayout(t testing.TB, s *SQLite) {
	t.Helper()
	ctx := context.Background()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, stmt := range []string{`DROP TABLE gochunk_sparse_blocks`, `DROP TABLE gochunk_sparse_dims`, `DELETE FROM gochunk_meta WHERE key = 'sparse_layout'`,
			`CREATE TABLE gochunk_postings (id INTEGER PRIMARY KEY, weight INTEGER NOT NULL)`} {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return eachVector(ctx, tx, func(id int64, v []float32) error {
			u := sparseOf(unit(v))
			for j, d := range u.idx {
				if _, err := tx.ExecContext(ctx, `INSERT INTO gochunk_postings VALUES (?, ?)`, int64(d)<<ivfShift|id, toHalf(u.val[j])); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSparseMigration: a store whose sparse index is of the earlier
// layout is searched by the exact scan (never a wrong answer), and its
// index is rebuilt in the current layout by the next Prepare or write.
func TestSparseMigration(t *testing.T) {
	ctx := context.Background()
	for _, by := range []string{"prepare", "write"} {
		t.Run(by, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 23))
			const dims = 64
			s, path := sparseStore(t, dims)
			fill(t, s, "d", sparseVectors(rng, 1500, dims, false))
			oldLayout(t, s)
			s.Close()
			s, err := OpenSQLite(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			queries := sparseVectors(rng, 20, dims, true)
			if _, ok, err := s.sparseSearch(ctx, Query{Vector: queries[0], K: 10}, newQuery(queries[0]), nil); ok || err != nil {
				t.Fatalf("the earlier layout searched by the index (ok %v, %v)", ok, err)
			}
			sameAsExact(t, s, queries, 10)
			if by == "prepare" {
				err = s.Prepare(ctx, dims)
			} else {
				err = s.Replace(ctx, putDoc("d3", sparseVectors(rng, 40, dims, false)))
			}
			if err != nil {
				t.Fatal(err)
			}
			var old int
			if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'gochunk_postings'`).Scan(&old); err != nil || old != 0 {
				t.Fatalf("the earlier layout's table is still there (%v)", err)
			}
			checkIndex(t, s)
			if _, ok, err := s.sparseSearch(ctx, Query{Vector: queries[0], K: 10}, newQuery(queries[0]), nil); !ok || err != nil {
				t.Fatalf("the migrated index not used (ok %v, %v)", ok, err)
			}
			sameAsExact(t, s, queries, 10)
		})
	}
}

// TestSparseIncremental: a sparse index trained on ivfMinChunks vectors
// takes a change of 1 % of the documents, as many deleted and added,
// without being rebuilt, and answers as the exact scan does.
func TestSparseIncremental(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(24, 24))
	const dims = 256
	s, _ := openTemp(t, dims)
	fill(t, s, "d", sparseVectors(rng, ivfMinChunks+200, dims, false))
	if kind, _ := s.Meta(ctx, "ivf_kind"); kind != kindSparse {
		t.Fatalf("index kind %q, want %s", kind, kindSparse)
	}
	checkIndex(t, s)
	version, _ := s.Meta(ctx, "ivf_version")
	fill(t, s, "d", sparseVectors(rng, 100, dims, false))
	if err := s.Delete(ctx, "d1", "d2"); err != nil {
		t.Fatal(err)
	}
	fill(t, s, "new", sparseVectors(rng, 200, dims, false))
	checkIndex(t, s)
	if v, _ := s.Meta(ctx, "ivf_version"); v != version {
		t.Errorf("the index was rebuilt (%s → %s) for a 1%% update", version, v)
	}
	queries := sparseVectors(rng, 40, dims, true)
	sameAsExact(t, s, queries, 10)
	noneOf(t, s, queries, 50, "d1", "d2")
}

// TestSparseKilled kills a writer (SIGKILL where there is one) in the
// middle of a transaction that replaces a document and adds another: the
// store it leaves has its sparse index equal to its vectors, searches
// give the exact scan's results, and the next writes go on.
func TestSparseKilled(t *testing.T) {
	const dims = 32
	if path := os.Getenv("GOCHUNK_TEST_SPARSE_KILL"); path != "" {
		s, err := OpenSQLite(context.Background(), path)
		if err != nil {
			os.Exit(3)
		}
		rng := rand.New(rand.NewPCG(25, 25))
		batches := 0
		replaced := putDoc("d3", fewDims(rng, 50, dims))
		added := putDoc("k", fewDims(rng, 20, dims))
		added.More = func(ctx context.Context) ([]record.Record, error) {
			if batches++; batches == 3 {
				killSelf()
			}
			var rs []record.Record
			for i, v := range fewDims(rng, 50, dims) {
				rs = append(rs, record.Record{Source: "k", ChunkIndex: batches*100 + i, Text: "new", Embedding: v})
			}
			return rs, nil
		}
		_ = s.Replace(context.Background(), replaced, added)
		os.Exit(4) // not reached
	}
	rng := rand.New(rand.NewPCG(26, 26))
	s, path := sparseStore(t, dims)
	fill(t, s, "d", fewDims(rng, 2000, dims))
	checkIndex(t, s)
	s = killWriter(t, s, path, "TestSparseKilled", "GOCHUNK_TEST_SPARSE_KILL")
	defer s.Close()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM gochunk_chunks WHERE document_id = 'k'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d chunks of the killed write (%v)", n, err)
	}
	queries := fewDims(rng, 20, dims)
	sameAsExact(t, s, queries, 10)
	fill(t, s, "after", fewDims(rng, 300, dims))
	checkIndex(t, s)
	sameAsExact(t, s, queries, 10)
}

// TestSparseConcurrent: searches of every mode from several goroutines
// while documents are replaced and deleted return no error and hits of
// their mode's count, and the index ends equal to the vectors.
func TestSparseConcurrent(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(27, 27))
	const dims = 32
	s, _ := sparseStore(t, dims)
	fill(t, s, "d", fewDims(rng, 1500, dims))
	queries := fewDims(rng, 8, dims)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				mode := []Mode{Vector, Hybrid, Keyword}[(g+i)%3]
				hits, err := s.Search(ctx, Query{Vector: queries[(g+i)%len(queries)], Text: "chunk of d3", K: 5, Mode: mode})
				if err == nil && len(hits) != 5 {
					err = fmt.Errorf("%s search: %d hits, want 5", mode, len(hits))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		var err error
		if i%4 == 3 {
			err = s.Delete(ctx, fmt.Sprintf("d%d", i/4))
		} else {
			err = s.Replace(ctx, putDoc(fmt.Sprintf("d%d", i%15), fewDims(rng, 30+i, dims)))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	checkIndex(t, s)
	sameAsExact(t, s, queries, 10)
}
