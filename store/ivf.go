package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The SQLite store's approximate nearest-neighbour index is an inverted
// file (IVF) kept in the store's own tables: k-means centroids in
// gochunk_ivf_lists, and each list's int8 codes (quant.go) in blocks of
// gochunk_ivf_blocks, whose rowids are the list's number shifted left by
// ivfShift bits plus a chunk id (ivf_blocks.go), so a search reads the
// few lists nearest to the query as a few rows each, ranks their codes
// (ivf_dot.go; the blocks read are kept in memory, ivf_cache.go), and
// re-scores the best on the stored float16 vectors. Because the index is
// tables, it is written in the same transactions as the chunks: a
// chunk's code is added and deleted with it, so a run killed at any
// moment leaves the index exactly as consistent as the chunks are.
// Centroids are trained once the store holds ivfMinChunks vectors (below
// that the exact scan is as fast) and retrained, in one transaction, when
// it has grown ivfGrowth times since; between trainings new vectors go to
// their nearest list.
//
// Sparse vectors (the built-in lexical embedder's: a median of 16 nonzero
// dimensions of 1,024 on source code) defeat partitioning: a short
// query's nearest chunks are those sharing one of its few words, in any
// list (recall@10 was 0.61 reading one list in eight, 0.84 half of them).
// For them the index is inverted by dimension instead ("sparse";
// sparse.go): each dimension's postings, in blocks, and a search adds up
// the products of the query's dimensions' postings, the exact cosine of
// every chunk that shares a dimension with the query.
// Which kind a store gets is decided when it is trained, by the median
// number of nonzero dimensions in the sample (at most one in eight:
// sparse).

// sqliteSchemaVersion is the version of the tables a SQLite store
// creates (3: the IVF index and float16 vectors; 5: the keyword index;
// 6: FTS5's index dropped).
const sqliteSchemaVersion = 6

const (
	// ivfMinChunks is the number of vectors from which the index is
	// trained and used; smaller stores are scanned whole.
	ivfMinChunks = 8192
	// ivfGrowth is how many times the store grows before the centroids
	// are trained again.
	ivfGrowth = 4
	// ivfIterations is the number of k-means rounds.
	ivfIterations = 10
	// ivfSamplePerList bounds the training sample: this many vectors per
	// list, and ivfMaxSample in all.
	ivfSamplePerList = 48
	ivfMaxSample     = 65536
	// ivfRescore is the least number of candidates re-scored on their
	// stored vectors (4·k when more).
	ivfRescore = 64
)

// ivfSchema is the index's tables: the centroids, and the dense index's
// blocks of codes (ivf_blocks.go).
var ivfSchema = []string{
	`CREATE TABLE IF NOT EXISTS gochunk_ivf_lists (list INTEGER PRIMARY KEY, centroid BLOB NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS gochunk_ivf_blocks (id INTEGER PRIMARY KEY, codes BLOB NOT NULL)`,
}

// ivfShift places a row's list above its chunk id in its rowid (chunk
// ids below 2⁴⁰, lists below 2²²).
const ivfShift = 40

// IVFLists returns the number of lists a store of n vectors is trained
// with: about √n, at least 16 and at most 4096.
func IVFLists(n int) int {
	return max(16, min(4096, int(math.Round(math.Sqrt(float64(n))))))
}

// IVFProbes returns the fewest and the most lists a search reads by
// default among lists: at least 8 (or all, when there are fewer), at most
// a third of them. Between the two, the search reads the lists whose
// centroids are within 1+IVFProbeSlack times the nearest centroid's
// distance to the query (for unit vectors √(2−2·cos)), as SPANN's dynamic
// pruning does: a query near one tight cluster reads the floor, a query
// among many lists about as near as each other (vectors without cluster
// structure) reads more of them, which its recall needs. Query.Probes
// reads a fixed number instead.
//
// Why not a fixed share: on 384-d vectors (recall@10 against the exact
// scan) generated clustered vectors reach 1.000 at the floor (100k
// vectors, 200 lists; a million, 1,000 lists), while a static model with
// a random table, of real text (Go's sources and docs), gave only 0.89
// and 0.92 reading one list in eight (10k and 111k chunks); this rule
// reads a fifth to a quarter of their lists and finds 0.97 there, and 8
// lists on the clustered ones.
func IVFProbes(lists int) (least, most int) {
	least = min(lists, 8)
	return least, max(least, lists/3)
}

// IVFProbeSlack is how much farther than the nearest centroid another
// list's centroid may be for a default search to read it (IVFProbes).
const IVFProbeSlack = 0.15

// listScore is a list and its centroid's cosine with the query.
type listScore struct {
	list  int
	score float32
}

// nearestLists returns the lists by their centroids' cosines with the
// unit vector q, highest first.
func (x *ivfIndex) nearestLists(q []float32) []listScore {
	order := make([]listScore, len(x.centroids))
	for i, c := range x.centroids {
		order[i] = listScore{i, dotFloat(q, c)}
	}
	slices.SortFunc(order, func(a, b listScore) int { return cmp.Compare(b.score, a.score) })
	return order
}

// defaultProbes returns how many of the lists of order (nearestLists) a
// search reads by default: those within 1+IVFProbeSlack of the nearest
// centroid's distance, bounded by IVFProbes.
func defaultProbes(order []listScore) int {
	least, most := IVFProbes(len(order))
	if len(order) == 0 {
		return 0
	}
	// Distance d = √(2−2·cos), so d ≤ (1+ε)·d₀ is cos ≥ 1 − ((1+ε)·d₀)²/2.
	d0 := math.Sqrt(max(0, 2-2*float64(order[0].score)))
	limit := (1 + IVFProbeSlack) * d0
	floor := float32(1 - limit*limit/2)
	n := least
	for n < most && order[n].score >= floor {
		n++
	}
	return n
}

// The kinds of index (meta ivf_kind; "" while there is none).
const (
	kindIVF    = "ivf"
	kindSparse = "sparse"
)

// ivfIndex is the trained index: its kind, and the centroids of an IVF
// one, as the store's version of them.
type ivfIndex struct {
	kind      string
	version   string
	dims      int
	centroids [][]float32 // unit length
}

// ivfCache keeps a store's centroids, and the dense index's blocks
// (ivf_cache.go), between searches.
type ivfCache struct {
	mu    sync.Mutex
	cur   *ivfIndex
	codes codeCache
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func metaOf(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM gochunk_meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

func setMeta(ctx context.Context, q querier, key, value string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// load returns the trained index (nil when there is none), reading the
// centroids again when another writer trained them since.
func (c *ivfCache) load(ctx context.Context, q querier) (*ivfIndex, error) {
	kind, err := metaOf(ctx, q, "ivf_kind")
	if err != nil || kind == "" {
		return nil, err
	}
	version, err := metaOf(ctx, q, "ivf_version")
	if err != nil {
		return nil, err
	}
	if kind == kindSparse {
		dims, err := metaOf(ctx, q, "dimensions")
		if err != nil {
			return nil, err
		}
		x := &ivfIndex{kind: kind, version: version}
		x.dims, _ = strconv.Atoi(dims)
		return x, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && c.cur.version == version {
		return c.cur, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT centroid FROM gochunk_ivf_lists ORDER BY list`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	x := &ivfIndex{kind: kind, version: version}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		x.centroids = append(x.centroids, decodeVector(nil, b))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(x.centroids) == 0 {
		return nil, nil
	}
	x.dims = len(x.centroids[0])
	c.cur = x
	return x, nil
}

// nearest returns the list whose centroid is nearest to the unit vector v.
func (x *ivfIndex) nearest(v sparse) int {
	if len(x.centroids) > 0 && len(v.idx) == len(x.centroids[0]) {
		return x.nearestDense(v.val) // no zero component: v.val is v
	}
	best, bestScore := 0, float32(math.Inf(-1))
	for i, c := range x.centroids {
		if s := v.dot(c); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// ivfWriter adds the index entries of the chunks a transaction inserts
// and deletes those of the chunks it deletes.
type ivfWriter struct {
	x  *ivfIndex
	tx *sql.Tx
	dn *denseWriter  // a dense index's (ivf_blocks.go)
	sp *sparseWriter // a sparse index's (sparse.go)
}

// ivfWriterFor returns the writer of tx (one that writes nothing when the
// index is not trained).
func (s *SQLite) ivfWriterFor(ctx context.Context, tx *sql.Tx) (*ivfWriter, error) {
	if err := ivfMigrate(ctx, tx); err != nil {
		return nil, err
	}
	x, err := s.ivf.load(ctx, tx)
	if err != nil || x == nil {
		return &ivfWriter{}, err
	}
	return newIVFWriter(ctx, tx, x)
}

func newIVFWriter(ctx context.Context, tx *sql.Tx, x *ivfIndex) (*ivfWriter, error) {
	if x.kind == kindSparse {
		sp, err := newSparseWriter(ctx, tx)
		if err != nil {
			return nil, err
		}
		return &ivfWriter{x: x, tx: tx, sp: sp}, nil
	}
	return &ivfWriter{x: x, tx: tx, dn: newDenseWriter(tx, x.dims)}, nil
}

// add indexes the chunk id's vector v.
func (w *ivfWriter) add(ctx context.Context, id int64, v []float32) error {
	if w.x == nil || v == nil {
		return nil
	}
	if len(v) != w.x.dims {
		return fmt.Errorf("a vector of %d dimensions in a store of %d", len(v), w.x.dims)
	}
	if id <= 0 || id >= 1<<ivfShift {
		return fmt.Errorf("chunk id %d out of the vector index's range", id)
	}
	if w.x.kind == kindSparse {
		return w.sparseAdd(ctx, id, v)
	}
	// The list and code are of the stored vector, which a delete reads.
	sv := stored(v)
	return w.dn.add(ctx, int32(w.x.nearestDense(sv)), id, sv)
}

func (w *ivfWriter) close() {
	if w == nil {
		return
	}
	w.sp.close()
}

// ivfReset drops the index (when the vectors' dimension changes), leaving
// its tables in the current layout.
func ivfReset(ctx context.Context, tx *sql.Tx) error {
	if err := sparseReset(ctx, tx); err != nil {
		return err
	}
	for _, stmt := range slices.Concat(ivfSchema, []string{`DROP TRIGGER IF EXISTS gochunk_chunks_ivf_delete`, `DROP TABLE IF EXISTS gochunk_ivf`,
		`DELETE FROM gochunk_ivf_blocks`, `DELETE FROM gochunk_ivf_lists`,
		`INSERT INTO gochunk_meta VALUES ('ivf_layout', '` + ivfLayout + `') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		`INSERT INTO gochunk_meta VALUES ('ivf_lists', '0') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		`INSERT INTO gochunk_meta VALUES ('ivf_kind', '') ON CONFLICT (key) DO UPDATE SET value = excluded.value`}) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return bumpGeneration(ctx, tx)
}

// ivfAfterWrite trains the index when the store has reached ivfMinChunks
// vectors or grown ivfGrowth times since it was trained. It counts the
// vectors only when the chunks' ids have grown by as much, so most writes
// cost one look-up.
func (s *SQLite) ivfAfterWrite(ctx context.Context) error {
	var top int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM gochunk_chunks`).Scan(&top); err != nil {
		return err
	}
	trained, checked, err := s.ivfMarks(ctx)
	if err != nil {
		return err
	}
	// The ids are at least the count: the count is read only once they
	// reach the threshold, and then again each time they grow a quarter.
	threshold := int64(ivfMinChunks)
	if trained > 0 {
		threshold = ivfGrowth * trained
	}
	if top < threshold || top-checked < max(ivfMinChunks/4, trained/4) {
		return nil
	}
	n, err := s.vectorCount(ctx, s.db)
	if err != nil {
		return err
	}
	if n < ivfMinChunks || (trained > 0 && n < ivfGrowth*trained) {
		return setMeta(ctx, s.db, "ivf_checked", strconv.FormatInt(top, 10))
	}
	return s.tx(ctx, func(tx *sql.Tx) error { return s.ivfTrain(ctx, tx) })
}

func (s *SQLite) ivfMarks(ctx context.Context) (trained, checked int64, err error) {
	for _, m := range []struct {
		key string
		v   *int64
	}{{"ivf_trained", &trained}, {"ivf_checked", &checked}} {
		v, err := metaOf(ctx, s.db, m.key)
		if err != nil {
			return 0, 0, err
		}
		*m.v, _ = strconv.ParseInt(v, 10, 64)
	}
	return trained, checked, nil
}

func (s *SQLite) vectorCount(ctx context.Context, q querier) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM gochunk_chunks WHERE embedding IS NOT NULL`).Scan(&n)
	return n, err
}

// BuildIndex trains the vector index's centroids again on every stored
// vector and assigns each vector its list, in one transaction (gochunk
// does it by itself as the store grows; this is for benchmarks and for a
// store whose vectors changed wholesale). A store of fewer than
// ivfMinChunks vectors is left to the exact scan.
func (s *SQLite) BuildIndex(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return s.ivfTrain(ctx, tx) })
}

// ivfTrain trains the centroids by spherical k-means on a sample of the
// vectors (drawn by a seeded generator, so the same store gives the same
// index) and rewrites every vector's row.
func (s *SQLite) ivfTrain(ctx context.Context, tx *sql.Tx) error {
	n, err := s.vectorCount(ctx, tx)
	if err != nil {
		return err
	}
	var top int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM gochunk_chunks`).Scan(&top); err != nil {
		return err
	}
	if n < ivfMinChunks {
		return nil
	}
	lists := IVFLists(int(n))
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	sample, dims, err := ivfSample(ctx, tx, min(ivfMaxSample, ivfSamplePerList*lists), rng)
	if err != nil {
		return err
	}
	kind := kindIVF
	nonzero := make([]int, len(sample))
	for i, v := range sample {
		nonzero[i] = len(v.idx)
	}
	slices.Sort(nonzero)
	if len(nonzero) > 0 && 8*nonzero[len(nonzero)/2] <= dims {
		kind, lists = kindSparse, 0
	}
	old, err := metaOf(ctx, tx, "ivf_kind")
	if err != nil {
		return err
	}
	if old == kindSparse && kind == kindSparse {
		// Postings have nothing to train: they stay as they are.
		for k, v := range map[string]string{"ivf_trained": strconv.FormatInt(n, 10), "ivf_checked": strconv.FormatInt(top, 10)} {
			if err := setMeta(ctx, tx, k, v); err != nil {
				return err
			}
		}
		return nil
	}
	var centroids [][]float32
	if kind == kindIVF {
		centroids = kmeans(ctx, sample, dims, lists, rng)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	version, err := metaOf(ctx, tx, "ivf_version")
	if err != nil {
		return err
	}
	v, _ := strconv.Atoi(version)
	if err := ivfReset(ctx, tx); err != nil {
		return err
	}
	for i, c := range centroids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO gochunk_ivf_lists (list, centroid) VALUES (?, ?)`, i, vectorBlob(c)); err != nil {
			return err
		}
	}
	x := &ivfIndex{kind: kind, version: strconv.Itoa(v + 1), dims: dims, centroids: centroids}
	w, err := newIVFWriter(ctx, tx, x)
	if err != nil {
		return err
	}
	defer w.close()
	if err := eachVector(ctx, tx, func(id int64, v []float32) error { return w.add(ctx, id, v) }); err != nil {
		return err
	}
	if err := w.finish(ctx); err != nil {
		return err
	}
	for k, v := range map[string]string{"ivf_kind": kind, "ivf_lists": strconv.Itoa(lists), "ivf_version": x.version,
		"ivf_trained": strconv.FormatInt(n, 10), "ivf_checked": strconv.FormatInt(top, 10)} {
		if err := setMeta(ctx, tx, k, v); err != nil {
			return err
		}
	}
	return nil
}

// eachVector calls fn with every stored vector, read in pages of rows.
func eachVector(ctx context.Context, q querier, fn func(id int64, v []float32) error) error {
	type item struct {
		id int64
		v  []float32
	}
	var after int64 = -1 << 62
	for {
		rows, err := q.QueryContext(ctx, `SELECT id, embedding FROM gochunk_chunks WHERE id > ? AND embedding IS NOT NULL ORDER BY id LIMIT 2048`, after)
		if err != nil {
			return err
		}
		var page []item
		for rows.Next() {
			var it item
			var b []byte
			if err := rows.Scan(&it.id, &b); err != nil {
				rows.Close()
				return err
			}
			it.v = decodeVector(nil, b)
			page = append(page, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, it := range page {
			if err := fn(it.id, it.v); err != nil {
				return err
			}
		}
		after = page[len(page)-1].id
	}
}

// ivfSample draws up to size of the stored vectors (reservoir sampling),
// as unit vectors.
func ivfSample(ctx context.Context, q querier, size int, rng *rand.Rand) ([]sparse, int, error) {
	var sample []sparse
	dims, seen := 0, 0
	err := eachVector(ctx, q, func(_ int64, v []float32) error {
		if dims == 0 {
			dims = len(v)
		} else if len(v) != dims {
			return fmt.Errorf("stored vectors of %d and %d dimensions", dims, len(v))
		}
		seen++
		if len(sample) < size {
			sample = append(sample, sparseOf(unit(v)))
		} else if j := rng.IntN(seen); j < size {
			sample[j] = sparseOf(unit(v))
		}
		return nil
	})
	return sample, dims, err
}

// kmeans returns k unit centroids of the sample by spherical k-means,
// started from k distinct sample points; a list left empty takes a
// random sample point.
func kmeans(ctx context.Context, sample []sparse, dims, k int, rng *rand.Rand) [][]float32 {
	k = min(k, len(sample))
	centroids := make([][]float32, k)
	for i, j := range rng.Perm(len(sample))[:k] {
		centroids[i] = densify(sample[j], dims)
	}
	x := &ivfIndex{centroids: centroids}
	assign := make([]int, len(sample))
	for range ivfIterations {
		if ctx.Err() != nil {
			return centroids
		}
		for i, v := range sample {
			assign[i] = x.nearest(v)
		}
		sums := make([][]float32, k)
		for i := range sums {
			sums[i] = make([]float32, dims)
		}
		counts := make([]int, k)
		for i, v := range sample {
			c := assign[i]
			counts[c]++
			for j, d := range v.idx {
				sums[c][d] += v.val[j]
			}
		}
		for c := range centroids {
			if counts[c] == 0 {
				centroids[c] = densify(sample[rng.IntN(len(sample))], dims)
				continue
			}
			centroids[c] = unit(sums[c])
		}
	}
	return centroids
}

func densify(v sparse, dims int) []float32 {
	out := make([]float32, dims)
	for j, d := range v.idx {
		out[d] = v.val[j]
	}
	return out
}

// ivfSearch returns the k nearest chunks of the lists nearest to the
// query (q.Probes of them; 0: defaultProbes), ranked by their codes and
// re-scored on their stored vectors; ok is false when the store is to be
// scanned instead (no trained index).
func (s *SQLite) ivfSearch(ctx context.Context, q Query) (best []candidate, ok bool, err error) {
	return s.ivfSearchKeep(ctx, q, nil)
}

// ivfSearchKeep is ivfSearch over the chunks of keep (all when nil).
func (s *SQLite) ivfSearchKeep(ctx context.Context, q Query, keep map[int64]bool) (best []candidate, ok bool, err error) {
	x, err := s.ivf.load(ctx, s.rdb)
	if err != nil || x == nil {
		return nil, false, err
	}
	if len(q.Vector) != x.dims {
		return nil, true, fmt.Errorf("stored vectors have %d dimensions, the query's %d: search with the embedder that indexed the store", x.dims, len(q.Vector))
	}
	qv := newQuery(q.Vector)
	if x.kind == kindSparse {
		return s.sparseSearch(ctx, q, qv, keep)
	}
	layout, gen, err := generation(ctx, s.rdb, x.version)
	if err != nil || layout != ivfLayout {
		return nil, false, err // the earlier layout: scanned until a write moves it into blocks
	}
	order := x.nearestLists(qv.dense)
	probes := q.Probes
	if probes <= 0 {
		probes = defaultProbes(order)
	}
	probes = min(probes, len(order))
	// The coarse score is an integer dot product (ivf_dot.go), scaled.
	qcode, qscale := quantiseQuery(qv.dense)
	coarse := topK{k: max(ivfRescore, 4*q.K)}
	dims := x.dims
	seen := 0
	for i, l := range order {
		// The lists nearest the query, and more while they hold fewer
		// than k vectors (so a search returns k hits when k exist).
		if i >= probes && seen >= q.K {
			break
		}
		blocks, err := s.readList(ctx, gen, l.list, dims)
		if err != nil {
			return nil, true, err
		}
		for _, b := range blocks {
			for j, id := range b.ids {
				if keep != nil && !keep[id] {
					continue
				}
				seen++
				scale := math.Float32frombits(binary.LittleEndian.Uint32(b.scales[4*j:]))
				score := float32(dotCode(qcode, b.codes[j*dims:])) * scale * qscale
				coarse.offer(candidate{rowid: id, score: float64(score)})
			}
		}
	}
	best, err = s.rescore(ctx, q, coarse.best)
	return best, true, err
}

// rescoreBatch is the most candidates one statement of rescore reads.
const rescoreBatch = 128

// rescore returns the k best of the candidates by the cosine of their
// stored vectors, read rescoreBatch at a time; a chunk deleted since is
// skipped.
func (s *SQLite) rescore(ctx context.Context, q Query, cands []candidate) ([]candidate, error) {
	fine := topK{k: q.K}
	var v []float32
	var stmt *sql.Stmt
	args := make([]any, 0, rescoreBatch)
	for len(cands) > 0 {
		n := min(len(cands), rescoreBatch)
		args = args[:0]
		for _, c := range cands[:n] {
			args = append(args, c.rowid)
		}
		cands = cands[n:]
		var rows *sql.Rows
		var err error
		if n == rescoreBatch && stmt == nil {
			// The full batch's statement serves every batch but the last.
			if stmt, err = s.rdb.PrepareContext(ctx, rescoreSQL(rescoreBatch)); err != nil {
				return nil, err
			}
			defer stmt.Close()
		}
		if n == rescoreBatch {
			rows, err = stmt.QueryContext(ctx, args...)
		} else {
			rows, err = s.rdb.QueryContext(ctx, rescoreSQL(n), args...)
		}
		if err != nil {
			return nil, err
		}
		var b sql.RawBytes
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &b); err != nil {
				rows.Close()
				return nil, err
			}
			if b == nil {
				continue
			}
			v = decodeVector(v, b)
			fine.offer(candidate{rowid: id, score: cosine(q.Vector, v)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return fine.best, nil
}

func rescoreSQL(n int) string {
	return `SELECT id, embedding FROM gochunk_chunks WHERE id IN (?` + strings.Repeat(", ?", n-1) + `)`
}

// indexName describes the vector index for Counts.
func (s *SQLite) indexName(ctx context.Context) (string, error) {
	kind, err := metaOf(ctx, s.db, "ivf_kind")
	if err != nil {
		return "", err
	}
	switch kind {
	case kindSparse:
		return "sparse: inverted by dimension", nil
	case kindIVF:
		lists, err := metaOf(ctx, s.db, "ivf_lists")
		return "ivf: " + lists + " lists", err
	}
	return "exact", nil
}
