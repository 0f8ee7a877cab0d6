package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// bm25Term is one of a query's terms during a search: its weight, its
// blocks' headers, and a cursor over its postings.
type bm25Term struct {
	term   string
	idf    float64
	weight float64 // idf × the phrases that are this term
	ub     float64 // weight × the best BM25 term of any block
	blocks []kwBlock
	bub    []float64 // each block's bound (weight × its best BM25 term)
	bi     int       // the current block
	pi     int       // the current posting in it
	read   int       // blocks[:read] have their postings' data
	buf    []kwPosting
	dec    int // the block decoded into buf, or -1
}

// bm25Norm is FTS5's BM25 term of a chunk holding a term tf times, of
// length n tokens: tf·(k1+1) / (tf + k1·(1 − b + b·n/avgdl)).
func bm25Norm(tf, n int32, avgdl float64) float64 {
	return bm25Term1(1, tf, n, avgdl)
}

// bm25Term1 is a phrase's addend in FTS5's bm25() sum, computed as FTS5
// does (the same operations in the same order, in float64), so that the
// scores are FTS5's to the bit: idf·(tf·(k1+1)) / (tf + k1·(1 − b +
// b·n/avgdl)). k1 and b are variables: k1+1 is rounded as C rounds it.
func bm25Term1(idf float64, tf, n int32, avgdl float64) float64 {
	var k1, b float64 = bm25K1, bm25B
	f, d := float64(tf), float64(n)
	return idf * (f * (k1 + 1)) / (f + k1*(1-b+b*d/avgdl))
}

// bm25IDF is FTS5's weight of a term held by hits of rows chunks.
func bm25IDF(rows, hits int64) float64 {
	idf := math.Log((float64(rows-hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// bm25Search ranks the chunks by FTS5's BM25 of the query words w (FTS5's
// query "w1" OR "w2" …) with the keyword index: the q.K best (ties by
// chunk id) among those q's filters keep, read as hits. The filter, the
// index and the chunks are read in one read transaction: one state of the
// store. ok is false when the index cannot answer (not built, or a word
// FTS5's phrases of several terms, and q.Exact, are ranked by scoring
// every chunk that holds a query term (bm25All). ok is false when the
// index is not built (a store of schema 5 or earlier before Prepare):
// the caller asks the store's FTS5 index.
func (s *SQLite) bm25Search(ctx context.Context, w []string, q Query) ([]Hit, bool, error) {
	tok, err := s.kw.tokenizer(ctx, false)
	if err != nil {
		return nil, false, err
	}
	phrases, err := tok.phrases(ctx, w)
	if err != nil {
		return nil, false, fmt.Errorf("tokenise the query: %w", err)
	}
	order := make([]string, 0, len(phrases)) // the phrases' terms in FTS5's order
	all := q.Exact
	for _, p := range phrases {
		switch len(p) {
		case 0: // matches nothing, adds nothing
		case 1:
			order = append(order, p[0])
		default:
			all = true
		}
	}
	// One read transaction: the filter, the counts, the blocks and the
	// chunks of one state.
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback()
	meta := map[string]string{}
	rows, err := tx.QueryContext(ctx, `SELECT key, value FROM gochunk_meta WHERE key IN (?, ?, ?)`, bm25Built, bm25Rows, bm25Tokens)
	if err != nil {
		return nil, false, err
	}
	for rows.Next() {
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			rows.Close()
			return nil, false, err
		}
		meta[key] = value
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if meta[bm25Built] != "1" {
		return nil, false, nil
	}
	nRows, err1 := strconv.ParseInt(meta[bm25Rows], 10, 64)
	nTokens, err2 := strconv.ParseInt(meta[bm25Tokens], 10, 64)
	if err := errors.Join(err1, err2); err != nil || nRows < 0 || nTokens < 0 {
		return nil, false, fmt.Errorf("the keyword index's counts (%q, %q): %w", meta[bm25Rows], meta[bm25Tokens], errKWBlock)
	}
	if nRows == 0 || (len(order) == 0 && !all) {
		return nil, true, nil
	}
	var keep map[int64]bool
	if q.filtered() {
		if keep, err = keptChunks(ctx, tx, q); err != nil {
			return nil, false, err
		}
		if len(keep) == 0 {
			return nil, true, nil
		}
	}
	avgdl := float64(nTokens) / float64(nRows)
	var best []candidate
	if all {
		best, err = s.bm25All(ctx, tx, tok, phrases, nRows, avgdl, q.K, keep)
	} else {
		sc := bm25Scan{avgdl: avgdl, order: order}
		if err := sc.load(ctx, tx, nRows); err != nil {
			return nil, false, err
		}
		best, err = sc.run(ctx, tx, q.K, keep)
	}
	if err != nil {
		return nil, false, err
	}
	hits := make([]Hit, 0, len(best))
	for _, c := range best {
		h, err := readHit(ctx, tx, `SELECT `+sqliteColumns+` FROM gochunk_chunks c WHERE c.id = ?`, c.rowid)
		if err != nil {
			return nil, false, err
		}
		h.Score = c.score
		hits = append(hits, h)
	}
	return hits, true, nil
}

// bm25Scan is one search's terms and state.
type bm25Scan struct {
	avgdl float64
	order []string    // the phrases' terms, in the query's order
	terms []*bm25Term // distinct, by bound ascending
	at    []int       // order[i]'s index in terms
	fetch *sql.Stmt
}

// load reads the terms' counts and block headers.
func (sc *bm25Scan) load(ctx context.Context, tx *sql.Tx, nRows int64) error {
	byTerm := map[string]*bm25Term{}
	for _, t := range sc.order {
		if x, ok := byTerm[t]; ok {
			if x != nil { // nil: no chunk holds it
				x.weight += x.idf
			}
			continue
		}
		var df int64
		err := tx.QueryRowContext(ctx, `SELECT df FROM gochunk_kw_terms WHERE term = ?`, t).Scan(&df)
		if errors.Is(err, sql.ErrNoRows) {
			byTerm[t] = nil
			continue
		}
		if err != nil {
			return err
		}
		idf := bm25IDF(nRows, df)
		x := &bm25Term{term: t, idf: idf, weight: idf, dec: -1}
		byTerm[t] = x
		sc.terms = append(sc.terms, x)
	}
	for _, x := range sc.terms {
		rows, err := tx.QueryContext(ctx, `SELECT last, bound FROM gochunk_kw_blocks WHERE term = ? ORDER BY last`, x.term)
		if err != nil {
			return err
		}
		for rows.Next() {
			var b kwBlock
			var bound sql.RawBytes
			if err := rows.Scan(&b.last, &bound); err != nil {
				rows.Close()
				return err
			}
			best, err := boundScore(bound, sc.avgdl)
			if err != nil {
				rows.Close()
				return err
			}
			x.blocks = append(x.blocks, b)
			x.bub = append(x.bub, x.weight*best)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, u := range x.bub {
			x.ub = max(x.ub, u)
		}
	}
	sc.terms = slices.DeleteFunc(sc.terms, func(x *bm25Term) bool { return len(x.blocks) == 0 })
	slices.SortStableFunc(sc.terms, func(a, b *bm25Term) int { return cmp.Compare(a.ub, b.ub) })
	sc.at = make([]int, len(sc.order))
	for i, t := range sc.order {
		sc.at[i] = slices.IndexFunc(sc.terms, func(x *bm25Term) bool { return x.term == t })
	}
	var err error
	sc.fetch, err = tx.PrepareContext(ctx, `SELECT last, postings FROM gochunk_kw_blocks WHERE term = ? AND last >= ? ORDER BY last LIMIT ?`)
	return err
}

// bm25Fetch is the number of blocks' data read at once.
const bm25Fetch = 16

// posting returns the term's current posting, reading and decoding its
// block when needed; ok is false past the last.
func (sc *bm25Scan) posting(ctx context.Context, x *bm25Term) (kwPosting, bool, error) {
	for x.bi < len(x.blocks) {
		if x.dec != x.bi {
			if err := sc.decode(ctx, x); err != nil {
				return kwPosting{}, false, err
			}
		}
		if x.pi < len(x.buf) {
			return x.buf[x.pi], true, nil
		}
		x.bi, x.pi = x.bi+1, 0
	}
	return kwPosting{}, false, nil
}

// decode makes x.buf the postings of block x.bi.
func (sc *bm25Scan) decode(ctx context.Context, x *bm25Term) error {
	if x.bi >= x.read || x.blocks[x.bi].data == nil {
		rows, err := sc.fetch.QueryContext(ctx, x.term, x.blocks[x.bi].last, bm25Fetch)
		if err != nil {
			return err
		}
		i := x.bi
		for rows.Next() {
			var last int64
			var data []byte
			if err := rows.Scan(&last, &data); err != nil {
				rows.Close()
				return err
			}
			if i >= len(x.blocks) || x.blocks[i].last != last {
				rows.Close()
				return fmt.Errorf("the keyword index's blocks of %q changed during a search: %w", x.term, errKWBlock)
			}
			x.blocks[i].data = data
			i++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		x.read = max(x.read, i)
	}
	var err error
	x.buf, err = decodeKWBlock(x.blocks[x.bi].data, x.buf[:0])
	if err != nil {
		return err
	}
	x.blocks[x.bi].data = nil // decoded: its memory goes
	x.dec = x.bi
	return nil
}

// settle moves x past a decoded block it has read to its end, so that
// x.bi is the block of its next posting.
func (x *bm25Term) settle() {
	if x.dec == x.bi && x.pi >= len(x.buf) {
		x.bi, x.pi = x.bi+1, 0
	}
}

// skipTo moves x to its first posting with an id ≥ id, decoding a block
// only when it may hold smaller ids (not when the blocks passed end at
// id−1).
func (sc *bm25Scan) skipTo(ctx context.Context, x *bm25Term, id int64) error {
	moved := false
	for x.bi < len(x.blocks) && x.blocks[x.bi].last < id {
		x.bi, x.pi, moved = x.bi+1, 0, true
	}
	if x.bi >= len(x.blocks) || (moved && x.blocks[x.bi-1].last >= id-1) {
		return nil
	}
	_, _, err := sc.seek(ctx, x, id)
	return err
}

// seek moves x to its first posting with an id ≥ id, reading no block
// that ends before id; it returns that posting (ok false when none).
func (sc *bm25Scan) seek(ctx context.Context, x *bm25Term, id int64) (kwPosting, bool, error) {
	for x.bi < len(x.blocks) && x.blocks[x.bi].last < id {
		x.bi, x.pi = x.bi+1, 0
	}
	if x.bi >= len(x.blocks) {
		return kwPosting{}, false, nil
	}
	if x.dec != x.bi {
		if err := sc.decode(ctx, x); err != nil {
			return kwPosting{}, false, err
		}
	}
	for x.pi < len(x.buf) && x.buf[x.pi].id < id {
		x.pi++
	}
	return sc.posting(ctx, x)
}

// bm25Slack is the relative margin by which a bound (a sum in another
// order than the score's) may be taken as below the k-th best score: a
// chunk is dropped only when its bound is below by more.
const bm25Slack = 1e-9

// run is max-score over the terms (ascending by bound): the chunks in
// the lists of the terms whose bounds with those below them reach the
// k-th best score so far are candidates; each is scored on the other
// terms while its bound still reaches it, and exactly (FTS5's sum, in
// the query's order) when kept.
func (sc *bm25Scan) run(ctx context.Context, tx *sql.Tx, k int, keep map[int64]bool) ([]candidate, error) {
	m := len(sc.terms)
	if m == 0 {
		return nil, nil
	}
	defer sc.fetch.Close()
	cum := make([]float64, m) // cum[i] = Σ ub of terms[:i+1]
	for i, x := range sc.terms {
		cum[i] = x.ub
		if i > 0 {
			cum[i] += cum[i-1]
		}
	}
	best := topK{k: k}
	theta := math.Inf(-1)
	first := 0 // terms[first:] are essential
	tf := make([]int32, m)
	for {
		if len(best.best) == k {
			theta = best.best[len(best.best)-1].score
			for first < m && cum[first]*(1+bm25Slack) < theta {
				first++
			}
			if first == m {
				break
			}
			// Block-max: while the essential terms' current blocks
			// with the others' bounds cannot reach θ, none of the
			// chunks up to the first of them to end can: they are
			// passed, undecoded where a block ends there.
			for {
				bound, upTo := 0.0, int64(math.MaxInt64)
				if first > 0 {
					bound = cum[first-1]
				}
				for _, x := range sc.terms[first:] {
					x.settle()
					if x.bi < len(x.blocks) {
						bound += x.bub[x.bi]
						upTo = min(upTo, x.blocks[x.bi].last)
					}
				}
				if upTo == math.MaxInt64 || bound*(1+bm25Slack) >= theta {
					break
				}
				for _, x := range sc.terms[first:] {
					if err := sc.skipTo(ctx, x, upTo+1); err != nil {
						return nil, err
					}
				}
			}
		}
		// The next candidate: the smallest id among the essential terms.
		d, any := int64(math.MaxInt64), false
		for _, x := range sc.terms[first:] {
			p, ok, err := sc.posting(ctx, x)
			if err != nil {
				return nil, err
			}
			if ok && p.id < d {
				d, any = p.id, true
			}
		}
		if !any {
			break
		}
		var length int32
		score := 0.0
		for i := first; i < m; i++ {
			x := sc.terms[i]
			tf[i] = 0
			p, ok, err := sc.posting(ctx, x)
			if err != nil {
				return nil, err
			}
			if ok && p.id == d {
				tf[i], length = p.tf, p.len
				score += x.weight * bm25Norm(p.tf, p.len, sc.avgdl)
				x.pi++
			}
		}
		if keep != nil && !keep[d] {
			continue
		}
		// The rest, largest bound first, while the bound reaches θ.
		bound := score
		if first > 0 {
			bound += cum[first-1]
		}
		dropped := false
		for i := first - 1; i >= 0; i-- {
			x := sc.terms[i]
			tf[i] = 0
			if bound*(1+bm25Slack) < theta {
				dropped = true
				break
			}
			// The block bound first: no block read when it cannot reach.
			for x.bi < len(x.blocks) && x.blocks[x.bi].last < d {
				x.bi, x.pi = x.bi+1, 0
			}
			if x.bi >= len(x.blocks) {
				bound -= x.ub
				continue
			}
			if b := bound - x.ub + x.bub[x.bi]; b*(1+bm25Slack) < theta {
				dropped = true
				break
			}
			p, ok, err := sc.seek(ctx, x, d)
			if err != nil {
				return nil, err
			}
			bound -= x.ub
			if ok && p.id == d {
				tf[i], length = p.tf, p.len
				c := x.weight * bm25Norm(p.tf, p.len, sc.avgdl)
				bound += c
			}
		}
		if dropped {
			continue
		}
		// FTS5's sum: each phrase's term in the query's order.
		exact := 0.0
		for _, i := range sc.at {
			if i >= 0 && tf[i] > 0 {
				exact += bm25Term1(sc.terms[i].idf, tf[i], length, sc.avgdl)
			}
		}
		best.offer(candidate{rowid: d, score: exact})
	}
	out := best.best
	slices.SortFunc(out, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.rowid, b.rowid))
	})
	return out, nil
}

// bm25All ranks by scoring every chunk that holds a term of the query's
// phrases (each word's terms, as FTS5 makes them), FTS5's way: a phrase
// of several terms counts where its terms stand one after the other in
// the chunk's text (tokenised again, with tok), and its weight is of the
// chunks holding it. It is the reference ranking (Query.Exact) and the
// one for phrases, which the index's postings (terms without positions)
// cannot bound.
func (s *SQLite) bm25All(ctx context.Context, tx *sql.Tx, tok *ftsTokenizer, phrases [][]string, nRows int64, avgdl float64,
	k int, keep map[int64]bool) ([]candidate, error) {
	postings := map[string][]kwPosting{}
	termPostings := func(term string) ([]kwPosting, error) {
		if ps, ok := postings[term]; ok {
			return ps, nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT postings FROM gochunk_kw_blocks WHERE term = ? ORDER BY last`, term)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ps []kwPosting
		var b sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&b); err != nil {
				return nil, err
			}
			if ps, err = decodeKWBlock(b, ps); err != nil {
				return nil, err
			}
		}
		postings[term] = ps
		return ps, rows.Err()
	}
	type row struct {
		len int32
		tf  []int32 // by phrase
	}
	chunks := map[int64]*row{}
	at := func(id int64, n int32) *row {
		r := chunks[id]
		if r == nil {
			r = &row{len: n, tf: make([]int32, len(phrases))}
			chunks[id] = r
		}
		return r
	}
	idf := make([]float64, len(phrases))
	for i, p := range phrases {
		switch len(p) {
		case 0:
			continue
		case 1:
			ps, err := termPostings(p[0])
			if err != nil {
				return nil, err
			}
			for _, x := range ps {
				if keep == nil || keep[x.id] {
					at(x.id, x.len).tf[i] = x.tf
				}
			}
			idf[i] = bm25IDF(nRows, int64(len(ps)))
			continue
		}
		// The chunks holding every term of the phrase, then its count in
		// each by their tokens in order.
		var holding []kwPosting
		for j, term := range p {
			ps, err := termPostings(term)
			if err != nil {
				return nil, err
			}
			if j == 0 {
				holding = slices.Clone(ps)
				continue
			}
			holding = slices.DeleteFunc(holding, func(x kwPosting) bool {
				_, found := slices.BinarySearchFunc(ps, x.id, func(y kwPosting, id int64) int { return cmp.Compare(y.id, id) })
				return !found
			})
		}
		counts, err := phraseCounts(ctx, tx, tok, p, holding)
		if err != nil {
			return nil, err
		}
		hits := int64(0)
		for _, x := range holding {
			if n := counts[x.id]; n > 0 {
				hits++
				if keep == nil || keep[x.id] {
					at(x.id, x.len).tf[i] = n
				}
			}
		}
		idf[i] = bm25IDF(nRows, hits)
	}
	ids := make([]int64, 0, len(chunks))
	for id := range chunks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	best := topK{k: k}
	for _, id := range ids {
		r := chunks[id]
		score, any := 0.0, false
		for i, tf := range r.tf {
			if tf > 0 {
				score += bm25Term1(idf[i], tf, r.len, avgdl)
				any = true
			}
		}
		if any {
			best.offer(candidate{rowid: id, score: score})
		}
	}
	return best.best, nil
}

// phraseCounts returns how many times the terms of phrase stand one after
// the other in each of the chunks (read in tx and tokenised with tok).
func phraseCounts(ctx context.Context, tx *sql.Tx, tok *ftsTokenizer, phrase []string, chunks []kwPosting) (map[int64]int32, error) {
	counts := map[int64]int32{}
	for len(chunks) > 0 {
		n := min(len(chunks), rescoreBatch)
		args := make([]any, n)
		for i, c := range chunks[:n] {
			args[i] = c.id
		}
		chunks = chunks[n:]
		rows, err := tx.QueryContext(ctx, `SELECT id, coalesce(embed_text, text) FROM gochunk_chunks WHERE id IN (?`+strings.Repeat(", ?", n-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		var ids []int64
		var texts []string
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return nil, err
			}
			ids, texts = append(ids, id), append(texts, text)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		seqs, err := tok.sequences(ctx, ids, texts)
		if err != nil {
			return nil, fmt.Errorf("tokenise chunks for a phrase: %w", err)
		}
		for id, seq := range seqs {
			for i := 0; i+len(phrase) <= len(seq); i++ {
				if slices.Equal(seq[i:i+len(phrase)], phrase) {
					counts[id]++
				}
			}
		}
	}
	return counts, nil
}
