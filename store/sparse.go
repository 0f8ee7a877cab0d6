package store

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
	"strings"
)

// sparseSchema is the sparse index's table (see ivf.go's comment),
// created by Prepare on new stores and on stores of earlier versions.
var sparseSchema = []string{
	`CREATE TABLE IF NOT EXISTS gochunk_postings (id INTEGER PRIMARY KEY, weight INTEGER NOT NULL)`,
}

const (
	postingInsert = `INSERT INTO gochunk_postings (id, weight) VALUES `
	// postingRows is the most rows one statement inserts.
	postingRows = 64
)

// sparseWriter writes the postings of the chunks a transaction inserts.
type sparseWriter struct {
	tx    *sql.Tx
	multi map[int]*sql.Stmt // into gochunk_postings, by number of rows
	args  []any
}

func newSparseWriter(tx *sql.Tx, _ *ivfIndex) *sparseWriter {
	return &sparseWriter{tx: tx, multi: map[int]*sql.Stmt{}}
}

func (w *sparseWriter) close() {
	if w == nil {
		return
	}
	for _, s := range w.multi {
		s.Close()
	}
}

// sparseReset drops the sparse index's rows.
func sparseReset(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM gochunk_postings`)
	return err
}

// flush writes what the transaction's writes left pending, before it
// commits.
func (w *ivfWriter) flush(ctx context.Context) error {
	return nil
}

// sparseAdd indexes the chunk id's vector v in a sparse index.
func (w *ivfWriter) sparseAdd(ctx context.Context, id int64, v []float32) error {
	// The dimensions of the stored (float16) vector, which unindex
	// finds again.
	sw := w.sp
	u := sparseOf(unit(decodeVector(nil, encodeVector(v))))
	for len(u.idx) > 0 {
		n := min(len(u.idx), postingRows)
		sw.args = sw.args[:0]
		for j, d := range u.idx[:n] {
			sw.args = append(sw.args, int64(d)<<ivfShift|id, toHalf(u.val[j]))
		}
		stmt := sw.multi[n]
		if stmt == nil {
			var err error
			q := postingInsert + strings.Repeat("(?, ?), ", n-1) + "(?, ?)"
			if stmt, err = w.tx.PrepareContext(ctx, q); err != nil {
				return err
			}
			sw.multi[n] = stmt
		}
		if _, err := stmt.ExecContext(ctx, sw.args...); err != nil {
			return err
		}
		u.idx, u.val = u.idx[n:], u.val[n:]
	}
	return nil
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
	var keys []any
	var v []float32
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return err
		}
		v = decodeVector(v, b)
		for d, x := range v {
			if x != 0 {
				keys = append(keys, int64(d)<<ivfShift|id)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), 256)
		if _, err := w.tx.ExecContext(ctx, `DELETE FROM gochunk_postings WHERE id IN (?`+strings.Repeat(", ?", n-1)+`)`, keys[:n]...); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// sparseSearch adds up, for each chunk, the products of the query's
// nonzero dimensions (the Probes largest in magnitude, when set) with the
// chunk's rows of gochunk_postings, and re-scores the best; ok is false
// (scan instead) when fewer than k chunks share a dimension with the
// query, so that a search still returns k hits when k exist.
func (s *SQLite) sparseSearch(ctx context.Context, q Query, qv query, keep map[int64]bool) ([]candidate, bool, error) {
	dims := slices.Clone(qv.idx)
	weight := map[int32]float32{}
	for j, d := range qv.idx {
		weight[d] = qv.val[j]
	}
	slices.SortFunc(dims, func(a, b int32) int { return cmp.Compare(abs(weight[b]), abs(weight[a])) })
	if q.Probes > 0 {
		dims = dims[:min(q.Probes, len(dims))]
	}
	stmt, err := s.db.PrepareContext(ctx, `SELECT id, weight FROM gochunk_postings WHERE id BETWEEN ? AND ?`)
	if err != nil {
		return nil, true, err
	}
	defer stmt.Close()
	// The sums, by chunk id: in an array while the ids are few enough
	// (4 MB for a million), else a map.
	var top int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM gochunk_chunks`).Scan(&top); err != nil {
		return nil, true, err
	}
	var dense []float32
	var touched []int64
	var acc map[int64]float32
	if top < 1<<23 {
		dense = make([]float32, top+1)
	} else {
		acc = map[int64]float32{}
	}
	for _, d := range dims {
		rows, err := stmt.QueryContext(ctx, int64(d)<<ivfShift, int64(d+1)<<ivfShift-1)
		if err != nil {
			return nil, true, err
		}
		w := weight[d]
		for rows.Next() {
			var id int64
			var h uint16
			if err := rows.Scan(&id, &h); err != nil {
				rows.Close()
				return nil, true, err
			}
			id &= 1<<ivfShift - 1
			switch {
			case keep != nil && !keep[id]:
			case acc != nil:
				acc[id] += w * fromHalf(h)
			case id < int64(len(dense)):
				if dense[id] == 0 {
					touched = append(touched, id)
				}
				dense[id] += w * fromHalf(h)
				if dense[id] == 0 {
					dense[id] = math.SmallestNonzeroFloat32 // still touched
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, true, err
		}
	}
	if len(acc)+len(touched) < q.K {
		return nil, false, nil
	}
	coarse := topK{k: max(ivfRescore, 4*q.K)}
	for id, score := range acc {
		coarse.offer(candidate{rowid: id, score: float64(score)})
	}
	for _, id := range touched {
		coarse.offer(candidate{rowid: id, score: float64(dense[id])})
	}
	best, err := s.rescore(ctx, q, coarse.best)
	return best, true, err
}

func abs(f float32) float32 { return max(f, -f) }
