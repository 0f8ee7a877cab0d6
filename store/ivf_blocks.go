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
)

// A dense IVF index keeps each list's codes in blocks (ivf_layout
// "blocks1"), one row of gochunk_ivf_blocks per block of up to ivfBlock
// codes, so that a search reads a list as a few rows and scores the codes
// at the speed of the dot product (a row per code cost about 1.2 µs of
// SQLite's and database/sql's time per code, several times the product):
//
//   - the rowid is the list's number shifted left by ivfShift bits plus a
//     chunk id no larger than the block's first (its key, kept while the
//     block lives), so a chunk's block in a list is the one of the largest
//     key not above it, and a list's blocks are a run of rowids;
//   - the blob is the number of codes n (uvarint), the chunk ids by
//     ascending value as deltas from the key's id and from each other
//     (uvarints), n scales (float32, little-endian) and n codes of one int8
//     per dimension: x ≈ scale·c[i] for the unit vector x (quant.go).
//
// A chunk's list is the centroid nearest to its stored (float16) vector,
// so a delete finds the chunk's block again from the vector alone, in the
// deleting transaction, before the chunk's row goes. A writer keeps a
// transaction's added and deleted codes by list and writes them before it
// commits (finish): the blocks they fall in are read, changed and written
// back (new chunks, whose ids are the largest, go to the list's last
// block; full blocks are split), so a run killed at any moment leaves the
// index as consistent as the chunks.
//
// Stores whose dense index is the earlier layout (a row per code in
// gochunk_ivf) are searched by the exact scan until Prepare or a write
// moves their codes into blocks, with the same centroids, in one
// transaction (ivfMigrate).

// ivfLayout is the dense index's layout (meta ivf_layout); any other value
// is the earlier one, migrated by ivfMigrate.
const ivfLayout = "blocks1"

const (
	// ivfBlock is the most codes a block holds.
	ivfBlock = 128
	// ivfFlushAt is the number of pending codes past which a writer
	// writes them before its transaction ends (bounds a training's
	// memory: about 400 bytes a code at 384 dimensions).
	ivfFlushAt = 1 << 16
)

// codeList is codes of one list, in the order added or, in a block, by
// ascending chunk id.
type codeList struct {
	ids    []int64
	scales []float32
	codes  []int8 // dims per code
}

// denseWriter keeps the codes a transaction adds and deletes, by list,
// until flush writes them.
type denseWriter struct {
	tx      *sql.Tx
	dims    int
	adds    map[int32]*codeList
	dels    map[int32][]int64
	pending int
	v       []float32
}

func newDenseWriter(tx *sql.Tx, dims int) *denseWriter {
	return &denseWriter{tx: tx, dims: dims, adds: map[int32]*codeList{}, dels: map[int32][]int64{}}
}

// stored returns v as the store keeps it (float16), so that the list
// and code of a chunk are computed from what its row holds.
func stored(v []float32) []float32 {
	return decodeVector(nil, encodeVector(v))
}

// quantise appends v's code (v normalised to unit length, one int8 per
// dimension) to dst and returns it with its scale (0 for a zero vector,
// whose code is all zeros).
func quantise(dst []int8, v []float32) ([]int8, float32) {
	var norm, top float64
	for _, x := range v {
		norm += float64(x) * float64(x)
		top = max(top, math.Abs(float64(x)))
	}
	if norm == 0 || top == 0 {
		return append(dst, make([]int8, len(v))...), 0
	}
	norm = math.Sqrt(norm)
	scale := top / norm / 127
	for _, x := range v {
		dst = append(dst, int8(max(-127, min(127, math.Round(float64(x)/norm/scale)))))
	}
	return dst, float32(scale)
}

// add keeps chunk id's code in list (v: its stored vector).
func (w *denseWriter) add(ctx context.Context, list int32, id int64, v []float32) error {
	l := w.adds[list]
	if l == nil {
		l = &codeList{}
		w.adds[list] = l
	}
	var scale float32
	l.codes, scale = quantise(l.codes, v)
	l.ids = append(l.ids, id)
	l.scales = append(l.scales, scale)
	if w.pending++; w.pending >= ivfFlushAt {
		return w.flush(ctx)
	}
	return nil
}

// remove keeps the deletion of chunk id's code from list (a pending
// addition of it is dropped instead).
func (w *denseWriter) remove(list int32, id int64) {
	if l := w.adds[list]; l != nil {
		if i := slices.Index(l.ids, id); i >= 0 {
			l.ids = slices.Delete(l.ids, i, i+1)
			l.scales = slices.Delete(l.scales, i, i+1)
			l.codes = slices.Delete(l.codes, i*w.dims, (i+1)*w.dims)
			return
		}
	}
	w.dels[list] = append(w.dels[list], id)
}

// flush writes the pending codes, list by list.
func (w *denseWriter) flush(ctx context.Context) error {
	if w == nil || (len(w.adds) == 0 && len(w.dels) == 0) {
		return nil
	}
	for _, l := range pendingKeys(w.adds, w.dels) {
		if err := w.flushList(ctx, l, w.adds[l], w.dels[l]); err != nil {
			return fmt.Errorf("write the vector index: %w", err)
		}
	}
	clear(w.adds)
	clear(w.dels)
	w.pending = 0
	return bumpGeneration(ctx, w.tx)
}

// pendingKeys returns the lists (or dimensions) with additions or
// deletions pending, in increasing order, each once.
func pendingKeys[A, D any](adds map[int32]A, dels map[int32]D) []int32 {
	keys := make([]int32, 0, len(adds)+len(dels))
	for k := range adds {
		keys = append(keys, k)
	}
	for k := range dels {
		if _, ok := adds[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// idOrder returns the indices of ids in increasing order of id.
func idOrder(ids []int64) []int {
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
	return order
}

// codeBlock is one row of gochunk_ivf_blocks, decoded.
type codeBlock struct {
	key int64 // the rowid
	codeList
	stored  bool // a row exists under key
	changed bool // codes removed or inserted before the last stored one
	n0      int  // codes stored
}

// encodeCodeBlock appends the block of the codes l[from:to] under the
// key whose chunk id is base to dst.
func encodeCodeBlock(dst []byte, base int64, l *codeList, from, to, dims int) []byte {
	dst = binary.AppendUvarint(dst, uint64(to-from))
	prev := base
	for _, id := range l.ids[from:to] {
		dst = binary.AppendUvarint(dst, uint64(id-prev))
		prev = id
	}
	for _, s := range l.scales[from:to] {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(s))
	}
	for _, c := range l.codes[from*dims : to*dims] {
		dst = append(dst, byte(c))
	}
	return dst
}

// blockView is a block's blob as a search reads it, without copying the
// codes: ids decoded into the caller's slice, scales and codes in place.
type blockView struct {
	ids    []int64
	scales []byte // float32 × n
	codes  []byte // int8 × dims × n
}

// viewCodeBlock reads the blob b of a block whose key's chunk id is base.
func viewCodeBlock(b []byte, base int64, dims int, ids []int64) (blockView, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return blockView{}, errors.New("a vector index block is damaged: re-index the store")
	}
	ids = ids[:0]
	prev := base
	for range n {
		d, m := binary.Uvarint(b[k:])
		if m <= 0 {
			return blockView{}, errors.New("a vector index block is damaged: re-index the store")
		}
		k += m
		prev += int64(d)
		ids = append(ids, prev)
	}
	if len(b)-k != int(n)*(4+dims) {
		return blockView{}, fmt.Errorf("a vector index block is not of %d dimensions: re-index the store", dims)
	}
	return blockView{ids: ids, scales: b[k : k+4*int(n)], codes: b[k+4*int(n):]}, nil
}

// decodeCodeBlock reads a stored block into a codeBlock.
func decodeCodeBlock(b []byte, key int64, dims int) (*codeBlock, error) {
	v, err := viewCodeBlock(b, key&(1<<ivfShift-1), dims, nil)
	if err != nil {
		return nil, err
	}
	cb := &codeBlock{key: key, stored: true, n0: len(v.ids)}
	cb.ids = v.ids
	cb.scales = make([]float32, len(v.ids))
	for i := range cb.scales {
		cb.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(v.scales[4*i:]))
	}
	cb.codes = make([]int8, len(v.codes))
	for i, c := range v.codes {
		cb.codes[i] = int8(c)
	}
	return cb, nil
}

// blockAt returns the block chunk id falls in in list (the block of the
// largest key not above it; nil if none), read into blocks unless there
// already, and the key of the next stored block (or the list's end).
func (w *denseWriter) blockAt(ctx context.Context, list int32, id int64, blocks map[int64]*codeBlock) (*codeBlock, int64, error) {
	lo, end := int64(list)<<ivfShift, int64(list+1)<<ivfShift
	target := lo | id
	var key int64
	var data []byte
	var b *codeBlock
	err := w.tx.QueryRowContext(ctx, `SELECT id, codes FROM gochunk_ivf_blocks WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 1`, lo, target).Scan(&key, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, 0, err
	default:
		if b = blocks[key]; b == nil {
			if b, err = decodeCodeBlock(data, key, w.dims); err != nil {
				return nil, 0, err
			}
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
	from := lo
	if b != nil {
		from = b.key + 1
	}
	next := end
	err = w.tx.QueryRowContext(ctx, `SELECT coalesce(min(id), ?) FROM gochunk_ivf_blocks WHERE id BETWEEN ? AND ?`, end, from, end-1).Scan(&next)
	return b, next, err
}

// flushList applies list's deleted and added codes to its blocks.
func (w *denseWriter) flushList(ctx context.Context, list int32, adds *codeList, dels []int64) error {
	lo := int64(list) << ivfShift
	dims := w.dims
	blocks := map[int64]*codeBlock{}
	slices.Sort(dels)
	for i := 0; i < len(dels); {
		b, next, err := w.blockAt(ctx, list, dels[i], blocks)
		if err != nil {
			return err
		}
		for ; i < len(dels) && lo|dels[i] < next; i++ {
			if b == nil {
				continue // not indexed: nothing to delete
			}
			if j, ok := slices.BinarySearch(b.ids, dels[i]); ok {
				b.ids = slices.Delete(b.ids, j, j+1)
				b.scales = slices.Delete(b.scales, j, j+1)
				b.codes = slices.Delete(b.codes, j*dims, (j+1)*dims)
				b.changed = true
			}
		}
	}
	if adds != nil && len(adds.ids) > 0 {
		order := idOrder(adds.ids)
		for i := 0; i < len(order); {
			id := adds.ids[order[i]]
			b, next, err := w.blockAt(ctx, list, id, blocks)
			if err != nil {
				return err
			}
			if b == nil {
				b = &codeBlock{key: lo | id}
				blocks[b.key] = b
			}
			for ; i < len(order) && lo|adds.ids[order[i]] < next; i++ {
				o := order[i]
				id, scale, code := adds.ids[o], adds.scales[o], adds.codes[o*dims:(o+1)*dims]
				j, ok := slices.BinarySearch(b.ids, id)
				if ok { // already there (cannot be, but never twice)
					b.scales[j] = scale
					copy(b.codes[j*dims:], code)
					b.changed = true
					continue
				}
				if j < len(b.ids) {
					b.changed = true
				}
				b.ids = slices.Insert(b.ids, j, id)
				b.scales = slices.Insert(b.scales, j, scale)
				b.codes = slices.Insert(b.codes, j*dims, code...)
			}
		}
	}
	var buf []byte
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
		if len(b.ids) == 0 {
			if b.stored {
				if _, err := w.tx.ExecContext(ctx, `DELETE FROM gochunk_ivf_blocks WHERE id = ?`, b.key); err != nil {
					return err
				}
			}
			continue
		}
		// The stored block is kept as it is when only codes after it were
		// added and it is full; the rest goes in blocks of up to
		// ivfBlock, the first under the block's key.
		start := 0
		if b.stored && !b.changed && b.n0 >= ivfBlock {
			start = b.n0
		}
		if b.stored && !b.changed && b.n0 == len(b.ids) {
			continue // nothing changed
		}
		for start < len(b.ids) {
			end := min(len(b.ids), start+ivfBlock)
			key := lo | b.ids[start]
			if start == 0 {
				key = b.key
			}
			buf = encodeCodeBlock(buf[:0], key&(1<<ivfShift-1), &b.codeList, start, end, dims)
			if _, err := w.tx.ExecContext(ctx, `INSERT OR REPLACE INTO gochunk_ivf_blocks (id, codes) VALUES (?, ?)`, key, buf); err != nil {
				return err
			}
			start = end
		}
	}
	return nil
}

// denseUnindex deletes the codes of document doc's chunks, before the
// chunks are: each chunk's list is the centroid nearest its stored vector.
func (w *ivfWriter) denseUnindex(ctx context.Context, doc string) error {
	rows, err := w.tx.QueryContext(ctx, `SELECT id, embedding FROM gochunk_chunks WHERE document_id = ? AND embedding IS NOT NULL`, doc)
	if err != nil {
		return err
	}
	defer rows.Close()
	dw := w.dn
	var b sql.RawBytes
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		dw.v = decodeVector(dw.v, b)
		if len(dw.v) != w.x.dims {
			continue // not indexed
		}
		best, second, tie := w.x.nearestTwoDense(dw.v)
		dw.remove(int32(best), id)
		if tie {
			// Which of two nearly equal centroids is nearer depends on
			// the float rounding of the machine that added the code
			// (fused multiply-adds or not): remove it from both.
			dw.remove(int32(second), id)
		}
	}
	return rows.Err()
}

// remove deletes the index entries of document doc's chunks, before the
// chunks are.
func (w *ivfWriter) remove(ctx context.Context, doc string) error {
	if w.x == nil {
		return nil
	}
	if w.x.kind == kindSparse {
		return w.unindex(ctx, doc)
	}
	return w.denseUnindex(ctx, doc)
}

// finish writes what the transaction's writes left pending, before it
// commits.
func (w *ivfWriter) finish(ctx context.Context) error {
	if w == nil {
		return nil
	}
	if w.dn != nil {
		return w.dn.flush(ctx)
	}
	return w.flush(ctx)
}

// nearestDense returns the list whose centroid is nearest to v (of any
// length: the nearest by direction).
func (x *ivfIndex) nearestDense(v []float32) int {
	best, bestScore := 0, float32(math.Inf(-1))
	for i, c := range x.centroids {
		if s := dotFloat(v, c); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// nearestTwoDense returns the two lists whose centroids are nearest to v
// and whether their scores are so close that another machine's rounding
// may order them the other way (within 1e-4 of the best's magnitude).
func (x *ivfIndex) nearestTwoDense(v []float32) (best, second int, tie bool) {
	inf := float32(math.Inf(-1))
	bestScore, secondScore := inf, inf
	second = -1
	for i, c := range x.centroids {
		switch s := dotFloat(v, c); {
		case s > bestScore:
			second, secondScore = best, bestScore
			best, bestScore = i, s
		case s > secondScore:
			second, secondScore = i, s
		}
	}
	if second < 0 || second == best {
		return best, best, false
	}
	eps := max(1e-4*float32(math.Abs(float64(bestScore))), 1e-6)
	return best, second, bestScore-secondScore <= eps
}

// dotFloatGo is a·b over a's length (b at least as long), in four
// running sums.
func dotFloatGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// ivfMigrate moves a dense index of the earlier layout (a row per code in
// gochunk_ivf, deleted by a trigger) into blocks, with the same
// centroids, from the stored vectors, in tx; a store without one only
// has its layout noted.
func ivfMigrate(ctx context.Context, tx *sql.Tx) error {
	layout, err := metaOf(ctx, tx, "ivf_layout")
	if err != nil || layout == ivfLayout {
		return err
	}
	for _, stmt := range slices.Concat(ivfSchema, []string{`DROP TRIGGER IF EXISTS gochunk_chunks_ivf_delete`,
		`DROP TABLE IF EXISTS gochunk_ivf`, `DELETE FROM gochunk_ivf_blocks`,
		// Schema 4 is this layout (sqliteMigrations).
		`UPDATE gochunk_meta SET value = '4' WHERE key = 'schema_version' AND CAST(value AS INTEGER) < 4`}) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("move the vector index into blocks: %w", err)
		}
	}
	kind, err := metaOf(ctx, tx, "ivf_kind")
	if err != nil {
		return err
	}
	if kind == kindIVF {
		var c ivfCache
		x, err := c.load(ctx, tx)
		if err != nil {
			return fmt.Errorf("move the vector index into blocks: %w", err)
		}
		if x != nil {
			w := &ivfWriter{x: x, tx: tx, dn: newDenseWriter(tx, x.dims)}
			err = eachVector(ctx, tx, func(id int64, v []float32) error { return w.add(ctx, id, v) })
			if err == nil {
				err = w.finish(ctx)
			}
			if err != nil {
				return fmt.Errorf("move the vector index into blocks: %w", err)
			}
		}
	}
	return setMeta(ctx, tx, "ivf_layout", ivfLayout)
}
