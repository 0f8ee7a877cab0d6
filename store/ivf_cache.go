package store

import (
	"context"
	"database/sql"
	"slices"
	"sync"
)

// ivfCacheBytes bounds the dense index's blocks a store keeps in memory
// between searches (about 400 bytes a vector at 384 dimensions: 1 GiB
// holds the lists of 2.7 million); lists read past it are read again by
// each search.
const ivfCacheBytes = 1 << 30

// codeCache keeps the blocks searches read, list by list, as of one
// generation of the index: meta ivf_generation, raised by every
// transaction that writes blocks (in that transaction), with the
// centroids' version. A search reads the generation before any block,
// so a block it keeps is never older than the generation it is kept
// under, and a search of a later generation drops them all.
type codeCache struct {
	mu    sync.Mutex
	gen   string
	lists map[int][]blockView
	bytes int
}

// get returns list's blocks if kept for generation gen.
func (c *codeCache) get(gen string, list int) ([]blockView, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	b, ok := c.lists[list]
	return b, ok
}

// put keeps list's blocks (whose bytes the cache now owns) for generation
// gen, dropping those of another generation, unless the budget is spent.
func (c *codeCache) put(gen string, list int, blocks []blockView, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.lists == nil {
		c.gen, c.lists, c.bytes = gen, map[int][]blockView{}, 0
	}
	if c.bytes+size > ivfCacheBytes {
		return
	}
	c.lists[list] = blocks
	c.bytes += size
}

// bumpGeneration raises the index's generation in tx (its blocks are
// being written).
func bumpGeneration(ctx context.Context, tx querier) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES ('ivf_generation', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`)
	return err
}

// generation returns the index's layout and its generation as the code
// cache keys it (with the centroids' version).
func generation(ctx context.Context, q querier, version string) (layout, gen string, err error) {
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM gochunk_meta WHERE key IN ('ivf_layout', 'ivf_generation')`)
	if err != nil {
		return "", "", err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return "", "", err
		}
		if k == "ivf_layout" {
			layout = v
		} else {
			gen = v
		}
	}
	return layout, version + "/" + gen, rows.Err()
}

// readList returns list's blocks, kept for generation gen or read from
// the store (and kept).
func (s *SQLite) readList(ctx context.Context, gen string, list, dims int) ([]blockView, error) {
	if b, ok := s.ivf.codes.get(gen, list); ok {
		return b, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, codes FROM gochunk_ivf_blocks WHERE id BETWEEN ? AND ?`, int64(list)<<ivfShift, int64(list+1)<<ivfShift-1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var blocks []blockView
	size := 0
	var blob sql.RawBytes // the driver's copy, valid until Next: copied once, into the cache's own
	for rows.Next() {
		var key int64
		if err := rows.Scan(&key, &blob); err != nil {
			return nil, err
		}
		b, err := viewCodeBlock(slices.Clone(blob), key&(1<<ivfShift-1), dims, nil)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
		size += len(blob) + 8*len(b.ids)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.ivf.codes.put(gen, list, blocks, size)
	return blocks, nil
}
