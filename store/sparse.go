package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// The sparse index (ivf_kind "sparse": the built-in lexical embedder's
// vectors, a median of 16 nonzero dimensions of 1,024) is inverted by
// dimension, in the store's own tables, written in the chunks'
// transactions:
//
//   - gochunk_sparse_blocks: a dimension's postings (chunk id, the unit
//     vector's component as float16 bits) in blocks of up to sparseBlock,
//     by ascending chunk id, one row per block: rowid = dimension <<
//     ivfShift | a chunk id no larger than the block's first (its key,
//     kept while the block lives, so a chunk's block is the one of the
//     largest key not above it), maxw = the largest |component| in it,
//     postings = count, the ids' deltas (uvarints) and the weights. A
//     search reads a dimension's postings as a few hundred rows rather
//     than a row per posting (≈ 3.3 bytes per posting instead of a row's
//     ≈ 20).
//   - gochunk_sparse_dims: per dimension, its number of postings and an
//     upper bound of its |components| (raised as postings are added, left
//     as it is when they are deleted: still a bound), read by each search
//     to order the query's dimensions and bound what the unread ones can
//     add.
//
// A search reads the query's dimensions rarest first and adds up each
// chunk's products (max-score pruning): once the dimensions left could
// add less to any chunk than the k-th best exact cosine found so far (a
// few of the best partial sums re-scored on their stored vectors), no
// chunk not seen yet can be among the k best, and the chunks seen whose
// partial sum plus that bound cannot reach it are dropped; when few are
// left they are re-scored on their stored vectors, without reading the
// longest lists. The query keeps its own weights (the exact scan's
// cosine is the reference, so weighting rare dimensions up would change
// the results; rarity only orders the reading).
//
// A writer keeps a transaction's added and deleted postings by dimension
// and writes them before it commits (flush): the block a posting falls
// in is read, changed and written back (a new chunk's postings are
// appended to each dimension's last block; full blocks are split).
// Stores whose sparse index is the earlier layout (a row per posting in
// gochunk_postings) are searched by the exact scan until their next
// write or Prepare rebuilds the index in the new layout, in the
// transaction that opens it (sparseMigrate).

// sparseLayout is the sparse index's layout (meta sparse_layout); any
// other value is the earlier one, migrated by the next write.
const sparseLayout = "blocks1"

const (
	// sparseBlock is the most postings a block holds.
	sparseBlock = 256
	// sparseFlushAt is the number of pending postings past which a
	// writer writes them before its transaction ends (bounds a
	// training's memory).
	sparseFlushAt = 1 << 20
	// sparseMargin is what a chunk's sum of float16 postings may differ
	// by from its stored vector's cosine with the query (≤ 2⁻¹¹·Σ|q·x| ≤
	// 4.9e-4), so that pruning on the sums never drops a chunk whose
	// exact cosine is among the k best.
	sparseMargin = 1e-3
	// sparseProbe is the number of best partial sums re-scored to learn
	// the k-th best exact cosine so far (at least k).
	sparseProbe = 16
	// sparseRescoreAll is the most chunks left after pruning that are
	// re-scored on their stored vectors instead of reading the
	// dimensions left.
	sparseRescoreAll = 256
)

// sparseSchema is the sparse index's tables, created by Prepare (on new
// stores and on stores of earlier versions) and by sparseReset.
var sparseSchema = []string{
	`CREATE TABLE IF NOT EXISTS gochunk_sparse_blocks (id INTEGER PRIMARY KEY, maxw INTEGER NOT NULL, postings BLOB NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS gochunk_sparse_dims (dim INTEGER PRIMARY KEY, postings INTEGER NOT NULL, maxw REAL NOT NULL)`,
}

// sparseCache keeps the searches' arrays between searches.
type sparseCache struct {
	scratch sync.Pool // *sparseScratch, its sums all zero
}

// sparseScratch is a search's arrays, kept for the next: the sums by chunk
// id (4 bytes a chunk id) and the lists of chunks seen, at the capacity
// they grew to.
type sparseScratch struct {
	acc              []float32
	touched, dropped []int64
	ids              []int64
	ws               []uint16
}

// postingList is postings of one dimension, in the order added.
type postingList struct {
	ids []int64
	ws  []uint16
}

// sparseWriter keeps the postings a transaction adds and deletes, by
// dimension, until flush writes them.
type sparseWriter struct {
	tx      *sql.Tx
	adds    map[int32]*postingList
	dels    map[int32][]int64
	pending int
	v       []float32
}

// newSparseWriter returns the sparse index's writer of tx, bringing an
// index of the earlier layout to the current one first.
func newSparseWriter(ctx context.Context, tx *sql.Tx) (*sparseWriter, error) {
	if err := sparseMigrate(ctx, tx); err != nil {
		return nil, err
	}
	return &sparseWriter{tx: tx, adds: map[int32]*postingList{}, dels: map[int32][]int64{}}, nil
}

func (w *sparseWriter) close() {}

// sparseReset empties the sparse index (in the current layout).
func sparseReset(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range slices.Concat(sparseSchema, []string{`DELETE FROM gochunk_sparse_blocks`, `DELETE FROM gochunk_sparse_dims`,
		`DROP TABLE IF EXISTS gochunk_postings`}) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return setMeta(ctx, tx, "sparse_layout", sparseLayout)
}

// sparseMigrate rebuilds a sparse index of the earlier layout (a row per
// posting) in the current one, from the stored vectors, in tx.
func sparseMigrate(ctx context.Context, tx *sql.Tx) error {
	kind, err := metaOf(ctx, tx, "ivf_kind")
	if err != nil || kind != kindSparse {
		return err
	}
	layout, err := metaOf(ctx, tx, "sparse_layout")
	if err != nil || layout == sparseLayout {
		return err
	}
	if err := sparseReset(ctx, tx); err != nil {
		return fmt.Errorf("rebuild the sparse vector index: %w", err)
	}
	w := &sparseWriter{tx: tx, adds: map[int32]*postingList{}, dels: map[int32][]int64{}}
	err = eachVector(ctx, tx, func(id int64, v []float32) error { return w.add(ctx, id, v) })
	if err == nil {
		err = w.flush(ctx)
	}
	if err != nil {
		return fmt.Errorf("rebuild the sparse vector index: %w", err)
	}
	return nil
}

// flush writes what the transaction's writes left pending, before it
// commits.
func (w *ivfWriter) flush(ctx context.Context) error {
	if w == nil || w.sp == nil {
		return nil
	}
	return w.sp.flush(ctx)
}

// sparseAdd indexes the chunk id's vector v in a sparse index.
func (w *ivfWriter) sparseAdd(ctx context.Context, id int64, v []float32) error {
	return w.sp.add(ctx, id, v)
}

// add keeps the postings of the chunk id's vector v: the nonzero
// dimensions of the stored (float16) vector, which unindex finds again.
func (w *sparseWriter) add(ctx context.Context, id int64, v []float32) error {
	u := sparseOf(unit(decodeVector(nil, encodeVector(v))))
	for j, d := range u.idx {
		l := w.adds[d]
		if l == nil {
			l = &postingList{}
			w.adds[d] = l
		}
		l.ids = append(l.ids, id)
		l.ws = append(l.ws, toHalf(u.val[j]))
	}
	w.pending += len(u.idx)
	if w.pending >= sparseFlushAt {
		return w.flush(ctx)
	}
	return nil
}

// remove keeps the deletion of the posting of chunk id in dimension d
// (a pending addition of it is dropped instead).
func (w *sparseWriter) remove(d int32, id int64) {
	if l := w.adds[d]; l != nil {
		if i := slices.Index(l.ids, id); i >= 0 {
			l.ids = slices.Delete(l.ids, i, i+1)
			l.ws = slices.Delete(l.ws, i, i+1)
			return
		}
	}
	w.dels[d] = append(w.dels[d], id)
}

// unindex deletes the postings of document doc's chunks, before the
// chunks are (a sparse index; the others' rows go by trigger).
func (w *ivfWriter) unindex(ctx context.Context, doc string) error {
	if w.x == nil || w.x.kind != kindSparse {
		return nil
	}
	rows, err := w.tx.QueryContext(ctx, `SELECT id, embedding FROM gochunk_chunks WHERE document_id = ? AND embedding IS NOT NULL`, doc)
	if err != nil {
		return err
	}
	defer rows.Close()
	sw := w.sp
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		sw.v = decodeVector(sw.v, b)
		for d, x := range sw.v {
			if x != 0 {
				sw.remove(int32(d), id)
			}
		}
	}
	return rows.Err()
}

// block is one row of gochunk_sparse_blocks, decoded.
type block struct {
	key     int64 // the rowid
	ids     []int64
	ws      []uint16
	stored  bool // a row exists under key
	changed bool // postings removed or inserted before the last stored one
	n0      int  // postings stored
}

// encodeBlock appends a block's postings to dst: their count, the ids'
// deltas from the key's chunk id and from each other, and the weights.
func encodeBlock(dst []byte, base int64, ids []int64, ws []uint16) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	prev := base
	for _, id := range ids {
		dst = binary.AppendUvarint(dst, uint64(id-prev))
		prev = id
	}
	for _, x := range ws {
		dst = binary.LittleEndian.AppendUint16(dst, x)
	}
	return dst
}

var errBlock = errors.New("a block of the sparse vector index is damaged: rebuild it with gochunk index --reindex")

// decodeBlock appends a block's postings to ids and ws.
func decodeBlock(b []byte, base int64, ids []int64, ws []uint16) ([]int64, []uint16, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return ids, ws, errBlock
	}
	prev := base
	for range n {
		d, m := binary.Uvarint(b[k:])
		if m <= 0 {
			return ids, ws, errBlock
		}
		k += m
		prev += int64(d)
		ids = append(ids, prev)
	}
	if len(b)-k != 2*int(n) {
		return ids, ws, errBlock
	}
	for i := range int(n) {
		ws = append(ws, binary.LittleEndian.Uint16(b[k+2*i:]))
	}
	return ids, ws, nil
}

// maxHalf returns the largest |x| of float16 weights, as float16 bits.
func maxHalf(ws []uint16) uint16 {
	var m uint16
	for _, x := range ws {
		m = max(m, x&0x7fff)
	}
	return m
}

// flush writes the pending postings: for each dimension, the blocks its
// deleted and added postings fall in are read, changed and written back.
func (w *sparseWriter) flush(ctx context.Context) error {
	if w == nil || (len(w.adds) == 0 && len(w.dels) == 0) {
		return nil
	}
	for _, d := range pendingKeys(w.adds, w.dels) {
		if err := w.flushDim(ctx, d, w.adds[d], w.dels[d]); err != nil {
			return fmt.Errorf("write the sparse vector index: %w", err)
		}
	}
	clear(w.adds)
	clear(w.dels)
	w.pending = 0
	return nil
}

// blockAt returns the block chunk id falls in in dimension d (the block
// of the largest key not above it; nil if none), read into blocks unless
// there already, and the key of the next stored block (or the
// dimension's end).
func (w *sparseWriter) blockAt(ctx context.Context, d int32, id int64, blocks map[int64]*block) (*block, int64, error) {
	lo, end := int64(d)<<ivfShift, int64(d+1)<<ivfShift
	target := lo | id
	var key int64
	var data []byte
	var b *block
	err := w.tx.QueryRowContext(ctx, `SELECT id, postings FROM gochunk_sparse_blocks WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 1`, lo, target).Scan(&key, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, 0, err
	default:
		if b = blocks[key]; b == nil {
			b = &block{key: key, stored: true}
			if b.ids, b.ws, err = decodeBlock(data, key&(1<<ivfShift-1), nil, nil); err != nil {
				return nil, 0, err
			}
			b.n0 = len(b.ids)
			blocks[key] = b
		}
	}
	// A block made in this flush (only for ids below every stored key)
	// with a larger key than the stored one.
	for k, mb := range blocks {
		if !mb.stored && k <= target && (b == nil || k > b.key) {
			b = mb
		}
	}
	next := end
	from := lo
	if b != nil {
		from = b.key + 1
	}
	err = w.tx.QueryRowContext(ctx, `SELECT coalesce(min(id), ?) FROM gochunk_sparse_blocks WHERE id BETWEEN ? AND ?`, end, from, end-1).Scan(&next)
	return b, next, err
}

// flushDim applies dimension d's deleted and added postings.
func (w *sparseWriter) flushDim(ctx context.Context, d int32, adds *postingList, dels []int64) error {
	lo := int64(d) << ivfShift
	blocks := map[int64]*block{}
	removed := 0
	slices.Sort(dels)
	for i := 0; i < len(dels); {
		b, next, err := w.blockAt(ctx, d, dels[i], blocks)
		if err != nil {
			return err
		}
		for ; i < len(dels) && lo|dels[i] < next; i++ {
			if b == nil {
				continue // not indexed: nothing to delete
			}
			if j, ok := slices.BinarySearch(b.ids, dels[i]); ok {
				b.ids = slices.Delete(b.ids, j, j+1)
				b.ws = slices.Delete(b.ws, j, j+1)
				b.changed = true
				removed++
			}
		}
	}
	var added int
	var addMax uint16
	if adds != nil && len(adds.ids) > 0 {
		order := idOrder(adds.ids)
		for i := 0; i < len(order); {
			id := adds.ids[order[i]]
			b, next, err := w.blockAt(ctx, d, id, blocks)
			if err != nil {
				return err
			}
			if b == nil {
				b = &block{key: lo | id}
				blocks[b.key] = b
			}
			for ; i < len(order) && lo|adds.ids[order[i]] < next; i++ {
				id, x := adds.ids[order[i]], adds.ws[order[i]]
				j, ok := slices.BinarySearch(b.ids, id)
				if ok { // already there (cannot be, but never twice)
					b.ws[j] = x
					b.changed = true
					continue
				}
				if j < len(b.ids) {
					b.changed = true
				}
				b.ids = slices.Insert(b.ids, j, id)
				b.ws = slices.Insert(b.ws, j, x)
				added++
				addMax = max(addMax, x&0x7fff)
			}
		}
	}
	var buf []byte
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
		if len(b.ids) == 0 {
			if b.stored {
				if _, err := w.tx.ExecContext(ctx, `DELETE FROM gochunk_sparse_blocks WHERE id = ?`, b.key); err != nil {
					return err
				}
			}
			continue
		}
		// The stored block is kept as it is when only postings after it
		// were added and it is full; the rest goes in blocks of up to
		// sparseBlock, the first under the block's key.
		start := 0
		if b.stored && !b.changed && b.n0 >= sparseBlock {
			start = b.n0
		}
		for start < len(b.ids) {
			end := min(len(b.ids), start+sparseBlock)
			key := lo | b.ids[start]
			if start == 0 {
				key = b.key
			}
			buf = encodeBlock(buf[:0], key&(1<<ivfShift-1), b.ids[start:end], b.ws[start:end])
			if _, err := w.tx.ExecContext(ctx, `INSERT OR REPLACE INTO gochunk_sparse_blocks (id, maxw, postings) VALUES (?, ?, ?)`,
				key, maxHalf(b.ws[start:end]), buf); err != nil {
				return err
			}
			start = end
		}
	}
	if added == 0 && removed == 0 {
		return nil
	}
	_, err := w.tx.ExecContext(ctx, `INSERT INTO gochunk_sparse_dims (dim, postings, maxw) VALUES (?, ?, ?)
		ON CONFLICT (dim) DO UPDATE SET postings = postings + excluded.postings, maxw = max(maxw, excluded.maxw)`,
		d, added-removed, float64(fromHalf(addMax)))
	return err
}

// qdim is a query's dimension, its weight, the bound of what it adds to
// a chunk's sum and its number of postings.
type qdim struct {
	d     int32
	w     float32
	bound float64
	n     int64
}

// sparseSearch adds up, for each chunk, the products of the query's
// nonzero dimensions (the Probes largest in magnitude, when set) with the
// chunk's postings, pruning as the package comment says, and re-scores
// the best on their stored vectors; ok is false (scan instead) when
// fewer than k chunks share a dimension with the query, so that a search
// still returns k hits when k exist, or when the index is of the earlier
// layout (until a write rebuilds it).
func (s *SQLite) sparseSearch(ctx context.Context, q Query, qv query, keep map[int64]bool) ([]candidate, bool, error) {
	var st sparseStats
	return s.sparseQuery(ctx, q, qv, keep, &st)
}

// sparseStats tells what a sparse search read.
type sparseStats struct {
	dims   int  // the query's dimensions with postings
	read   int  // the dimensions read
	pruned bool // whether it stopped taking new chunks
}

// sparseQuery is sparseSearch, telling in st what it read.
func (s *SQLite) sparseQuery(ctx context.Context, q Query, qv query, keep map[int64]bool, st *sparseStats) ([]candidate, bool, error) {
	layout, err := metaOf(ctx, s.rdb, "sparse_layout")
	if err != nil || layout != sparseLayout {
		return nil, false, err
	}
	dims := make([]qdim, len(qv.idx))
	for j, d := range qv.idx {
		dims[j] = qdim{d: d, w: qv.val[j]}
	}
	if q.Probes > 0 && q.Probes < len(dims) {
		slices.SortFunc(dims, func(a, b qdim) int { return cmp.Or(cmp.Compare(abs(b.w), abs(a.w)), cmp.Compare(a.d, b.d)) })
		dims = dims[:q.Probes]
	}
	if len(dims) == 0 {
		return nil, false, nil
	}
	if err := s.sparseBounds(ctx, dims); err != nil {
		return nil, true, err
	}
	// Rarest first; dimensions without postings add nothing.
	dims = slices.DeleteFunc(dims, func(x qdim) bool { return x.n <= 0 })
	slices.SortFunc(dims, func(a, b qdim) int { return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.d, b.d)) })
	st.dims = len(dims)
	left := make([]float64, len(dims)+1) // left[i]: the most dims[i:] add to a chunk
	for i := len(dims) - 1; i >= 0; i-- {
		left[i] = left[i+1] + dims[i].bound
	}

	var top int64
	if err := s.rdb.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM gochunk_chunks`).Scan(&top); err != nil {
		return nil, true, err
	}
	sc := newSparseScan(s, int(top)+1)
	defer sc.release()
	stmt, err := s.rdb.PrepareContext(ctx, `SELECT id, postings FROM gochunk_sparse_blocks WHERE id BETWEEN ? AND ?`)
	if err != nil {
		return nil, true, err
	}
	defer stmt.Close()
	pruned := false
	theta := math.Inf(-1)
	checks := 0
	for i, qd := range dims {
		if i > 0 && !pruned && checks < 3 && left[i] < sc.best {
			// The dimensions left might not lift a chunk not seen yet
			// into the k best: learn the k-th best exact cosine so far.
			checks++
			if theta, err = sc.kthExact(ctx, q, min(len(sc.touched), max(sparseProbe, q.K))); err != nil {
				return nil, true, err
			}
			pruned = left[i]+sparseMargin < theta
			st.pruned = pruned
		}
		if pruned {
			n := sc.prune(theta - sparseMargin - left[i])
			if n <= sparseRescoreAll {
				best, err := sc.rescoreLeft(ctx, q)
				return best, true, err
			}
		}
		if err := sc.read(ctx, stmt, qd, keep, pruned); err != nil {
			return nil, true, err
		}
		st.read++
	}
	if !pruned && len(sc.touched) < q.K {
		return nil, false, nil
	}
	coarse := topK{k: max(ivfRescore, 4*q.K)}
	for _, id := range sc.touched {
		if x := sc.acc[id]; !math.IsInf(float64(x), -1) {
			coarse.offer(candidate{rowid: id, score: float64(x)})
		}
	}
	best, err := sc.rescore(ctx, q, coarse.best)
	return best, true, err
}

// sparseBounds reads the dimensions' numbers of postings and bounds.
func (s *SQLite) sparseBounds(ctx context.Context, dims []qdim) error {
	args := make([]any, len(dims))
	at := map[int32]int{}
	for i, x := range dims {
		args[i] = x.d
		at[x.d] = i
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT dim, postings, maxw FROM gochunk_sparse_dims WHERE dim IN (?`+strings.Repeat(", ?", len(dims)-1)+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d int32
		var n int64
		var m float64
		if err := rows.Scan(&d, &n, &m); err != nil {
			return err
		}
		if i, ok := at[d]; ok {
			dims[i].n = n
			dims[i].bound = float64(abs(dims[i].w)) * m
		}
	}
	return rows.Err()
}

// sparseScan is one search's sums by chunk id.
type sparseScan struct {
	s       *SQLite
	scratch *sparseScratch
	acc     []float32 // sums by chunk id; 0: not seen; -Inf: pruned
	touched []int64   // the chunks seen (not pruned)
	dropped []int64   // the chunks pruned
	best    float64   // the largest sum
	exact   map[int64]float64
	get     *sql.Stmt
	ids     []int64
	ws      []uint16
	v       []float32
	// qnorm is the query's squared norm, once qnormSet.
	qnorm    float64
	qnormSet bool
}

func newSparseScan(s *SQLite, n int) *sparseScan {
	sp, ok := s.sparse.scratch.Get().(*sparseScratch)
	if !ok {
		sp = &sparseScratch{}
	}
	if len(sp.acc) < n {
		sp.acc = make([]float32, n)
	}
	return &sparseScan{s: s, scratch: sp, acc: sp.acc[:n], touched: sp.touched[:0], dropped: sp.dropped[:0],
		ids: sp.ids[:0], ws: sp.ws[:0], exact: map[int64]float64{}}
}

// release clears the sums and keeps the arrays for the next search.
func (sc *sparseScan) release() {
	for _, id := range sc.touched {
		sc.acc[id] = 0
	}
	for _, id := range sc.dropped {
		sc.acc[id] = 0
	}
	if sc.get != nil {
		sc.get.Close()
	}
	sp := sc.scratch
	sp.touched, sp.dropped, sp.ids, sp.ws = sc.touched[:0], sc.dropped[:0], sc.ids[:0], sc.ws[:0]
	sc.s.sparse.scratch.Put(sp)
}

// read adds dimension qd's postings to the sums: of every chunk, or only
// of those seen and not pruned.
func (sc *sparseScan) read(ctx context.Context, stmt *sql.Stmt, qd qdim, keep map[int64]bool, pruned bool) error {
	lo := int64(qd.d) << ivfShift
	rows, err := stmt.QueryContext(ctx, lo, lo|(1<<ivfShift-1))
	if err != nil {
		return err
	}
	defer rows.Close()
	var data sql.RawBytes
	var key int64
	best := float32(sc.best)
	for rows.Next() {
		if err := rows.Scan(&key, &data); err != nil {
			return err
		}
		sc.ids, sc.ws, err = decodeBlock(data, key&(1<<ivfShift-1), sc.ids[:0], sc.ws[:0])
		if err != nil {
			return err
		}
		for j, id := range sc.ids {
			if id >= int64(len(sc.acc)) || (keep != nil && !keep[id]) {
				continue
			}
			x := sc.acc[id]
			if x == 0 {
				if pruned {
					continue
				}
				sc.touched = append(sc.touched, id)
			} else if pruned && math.IsInf(float64(x), -1) {
				continue
			}
			x += qd.w * fromHalf(sc.ws[j])
			if x == 0 {
				x = math.SmallestNonzeroFloat32 // still seen
			}
			sc.acc[id] = x
			best = max(best, x)
		}
	}
	sc.best = float64(best)
	return rows.Err()
}

// exactScore returns the cosine of the query with chunk id's stored
// vector (ok false when the chunk is gone).
func (sc *sparseScan) exactScore(ctx context.Context, q Query, id int64) (float64, bool, error) {
	if x, ok := sc.exact[id]; ok {
		return x, !math.IsNaN(x), nil
	}
	if sc.get == nil {
		var err error
		if sc.get, err = sc.s.rdb.PrepareContext(ctx, `SELECT embedding FROM gochunk_chunks WHERE id = ?`); err != nil {
			return 0, false, err
		}
	}
	var b []byte
	err := sc.get.QueryRowContext(ctx, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && b == nil) {
		sc.exact[id] = math.NaN()
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	x, ok := sc.sparseCosine(q.Vector, b)
	if !ok {
		sc.v = decodeVector(sc.v, b)
		x = cosine(q.Vector, sc.v)
	}
	sc.exact[id] = x
	return x, true, nil
}

// sparseCosine returns cosine(q, the vector of blob b) for a blob in the
// sparse float16 form, from its nonzero components alone (the same sums
// as cosine's, which add only zeros besides); ok is false for another
// form or dimension.
func (sc *sparseScan) sparseCosine(q []float32, b []byte) (float64, bool) {
	if len(b) < 5 || len(b)%2 == 0 || b[0] != half16Sparse || int(binary.LittleEndian.Uint32(b[1:])) != len(q) || (len(b)-5)%4 != 0 {
		return 0, false
	}
	if !sc.qnormSet {
		for _, x := range q {
			sc.qnorm += float64(x) * float64(x)
		}
		sc.qnormSet = true
	}
	var dot, nb float64
	for k := 5; k+4 <= len(b); k += 4 {
		i := int(binary.LittleEndian.Uint16(b[k:]))
		if i >= len(q) {
			return 0, false
		}
		y := float64(fromHalf(binary.LittleEndian.Uint16(b[k+2:])))
		dot += float64(q[i]) * y
		nb += y * y
	}
	if sc.qnorm == 0 || nb == 0 {
		return 0, true
	}
	return dot / math.Sqrt(sc.qnorm*nb), true
}

// kthExact re-scores the n best sums and returns the k-th best exact
// cosine among them (-Inf when fewer than k).
func (sc *sparseScan) kthExact(ctx context.Context, q Query, n int) (float64, error) {
	coarse := topK{k: n}
	for _, id := range sc.touched {
		coarse.offer(candidate{rowid: id, score: float64(sc.acc[id])})
	}
	fine, err := sc.rescore(ctx, q, coarse.best)
	if err != nil || len(fine) < q.K {
		return math.Inf(-1), err
	}
	return fine[q.K-1].score, nil
}

// prune drops the chunks whose sum is below floor and returns how many
// are left.
func (sc *sparseScan) prune(floor float64) int {
	kept := sc.touched[:0]
	for _, id := range sc.touched {
		if float64(sc.acc[id]) >= floor {
			kept = append(kept, id)
		} else {
			sc.acc[id] = float32(math.Inf(-1))
			sc.dropped = append(sc.dropped, id)
		}
	}
	sc.touched = kept
	return len(kept)
}

// rescoreLeft returns the k best of the chunks left by their stored
// vectors.
func (sc *sparseScan) rescoreLeft(ctx context.Context, q Query) ([]candidate, error) {
	cands := make([]candidate, len(sc.touched))
	for i, id := range sc.touched {
		cands[i] = candidate{rowid: id}
	}
	return sc.rescore(ctx, q, cands)
}

// rescore returns the k best of cands by the cosine of their stored
// vectors, skipping chunks deleted since.
func (sc *sparseScan) rescore(ctx context.Context, q Query, cands []candidate) ([]candidate, error) {
	fine := topK{k: q.K}
	// In id order: the chunks' rows are read along the table.
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.rowid, b.rowid) })
	for _, c := range cands {
		x, ok, err := sc.exactScore(ctx, q, c.rowid)
		if err != nil {
			return nil, err
		}
		if ok {
			fine.offer(candidate{rowid: c.rowid, score: x})
		}
	}
	return fine.best, nil
}

func abs(f float32) float32 { return max(f, -f) }
