package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The keyword index (bm25*.go) is an inverted index of the chunks' words
// kept beside FTS5's, so that a keyword search ranks by BM25 without
// FTS5's bm25(), which reads every ranked row's length through a
// statement of its own and counts every word's rows for its weight on
// every query. Each word (term: FTS5's token, from FTS5's own tokenizer,
// porter unicode61, run on a scratch in-memory database) has its
// postings — chunk id, the term's count in the chunk (tf) and the chunk's
// length in tokens — in blocks of at most bm25Block, each with the
// (tf, length) pairs no other of its postings beats in both (blockBound:
// its best BM25 term for any average length); the number of chunks
// holding each term, and the number of chunks and of tokens in all, are
// updated in the chunks' transaction. A search scores FTS5's BM25
// formula (bm25Term1) by max-score with block bounds over the query's
// terms (bm25_search.go): the result is FTS5's ranking, at the cost of
// the postings that can still matter.

const (
	// bm25Block is the most postings a block holds.
	bm25Block = 128
	// bm25K1 and bm25B are FTS5's bm25() parameters.
	bm25K1 = 1.2
	bm25B  = 0.75
	// bm25BuildBatch is the number of chunks tokenised at once when the
	// index is built from a store's chunks.
	bm25BuildBatch = 2048
)

// bm25Schema is the keyword index's tables, created by Prepare.
var bm25Schema = []string{
	`CREATE TABLE IF NOT EXISTS gochunk_kw_terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL, small INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS gochunk_kw_blocks (term TEXT NOT NULL, last INTEGER NOT NULL, bound BLOB NOT NULL,
		postings BLOB NOT NULL, PRIMARY KEY (term, last)) WITHOUT ROWID`,
}

// The keyword index's meta keys: bm25Built is "1" once every chunk is
// in the index (searches use FTS5 before), bm25Rows and bm25Tokens the
// chunks and their tokens in all.
const (
	bm25Built  = "kw_index"
	bm25Rows   = "kw_rows"
	bm25Tokens = "kw_tokens"
)

// errKWBlock is a block that does not decode.
var errKWBlock = errors.New("the keyword index is damaged: index the documents into a new store")

// bm25Index is a store's tokenisers: one for writes and one for searches,
// each on a scratch in-memory database of its own, opened when first used.
type bm25Index struct {
	mu            sync.Mutex
	write, search *ftsTokenizer
}

func (x *bm25Index) tokenizer(ctx context.Context, forWrite bool) (*ftsTokenizer, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := &x.search
	if forWrite {
		p = &x.write
	}
	if *p == nil {
		t, err := newFTSTokenizer(ctx)
		if err != nil {
			return nil, fmt.Errorf("open the keyword tokeniser: %w", err)
		}
		*p = t
	}
	return *p, nil
}

func (x *bm25Index) close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	var errs []error
	for _, t := range []*ftsTokenizer{x.write, x.search} {
		if t != nil {
			errs = append(errs, t.close())
		}
	}
	x.write, x.search = nil, nil
	return errors.Join(errs...)
}

// ftsTokenizer runs FTS5's tokenizer (the store's: porter unicode61) on
// texts: they are put in a contentless FTS5 table of an in-memory
// database and read back through fts5vocab's instances.
type ftsTokenizer struct {
	mu   sync.Mutex
	db   *sql.DB
	conn *sql.Conn // the in-memory database lives as long as its connection
}

func newFTSTokenizer(ctx context.Context) (*ftsTokenizer, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE tok USING fts5 (text, content = '', tokenize = 'porter unicode61')`,
		`CREATE VIRTUAL TABLE tok_instance USING fts5vocab (tok, 'instance')`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			conn.Close()
			db.Close()
			return nil, err
		}
	}
	return &ftsTokenizer{db: db, conn: conn}, nil
}

func (t *ftsTokenizer) close() error { return errors.Join(t.conn.Close(), t.db.Close()) }

// tokenized is texts' tokens: each (term, row) pair with the term's count
// in the row, terms in order and rows in order within a term, and each
// row's length in tokens.
type tokenized struct {
	terms []string
	rows  []int64
	tfs   []int32
	lens  map[int64]int32
}

// tokens tokenises texts[i] as row ids[i] (ids distinct and positive).
func (t *ftsTokenizer) tokens(ctx context.Context, ids []int64, texts []string) (tokenized, error) {
	out := tokenized{lens: make(map[int64]int32, len(ids))}
	for _, id := range ids {
		out.lens[id] = 0
	}
	if len(ids) == 0 {
		return out, nil
	}
	interned := map[string]string{}
	var term sql.RawBytes
	var doc int64
	err := t.run(ctx, ids, texts, `SELECT term, doc FROM tok_instance`, func(rows *sql.Rows) error {
		if err := rows.Scan(&term, &doc); err != nil {
			return err
		}
		out.lens[doc]++
		n := len(out.terms)
		if n > 0 && out.rows[n-1] == doc && out.terms[n-1] == string(term) {
			out.tfs[n-1]++
			return nil
		}
		s, ok := interned[string(term)]
		if !ok {
			s = string(term)
			interned[s] = s
		}
		out.terms = append(out.terms, s)
		out.rows = append(out.rows, doc)
		out.tfs = append(out.tfs, 1)
		return nil
	})
	return out, err
}

// sequences returns the tokens of texts[i] (row ids[i]) in their order.
func (t *ftsTokenizer) sequences(ctx context.Context, ids []int64, texts []string) (map[int64][]string, error) {
	out := make(map[int64][]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	type at struct {
		term   string
		offset int
	}
	found := map[int64][]at{}
	err := t.run(ctx, ids, texts, `SELECT term, doc, "offset" FROM tok_instance`, func(rows *sql.Rows) error {
		var a at
		var doc int64
		if err := rows.Scan(&a.term, &doc, &a.offset); err != nil {
			return err
		}
		found[doc] = append(found[doc], a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for doc, f := range found {
		slices.SortFunc(f, func(a, b at) int { return a.offset - b.offset })
		seq := make([]string, len(f))
		for i, a := range f {
			seq[i] = a.term
		}
		out[doc] = seq
	}
	return out, nil
}

// phrases returns the terms FTS5 makes of each word, in the word's order.
func (t *ftsTokenizer) phrases(ctx context.Context, words []string) ([][]string, error) {
	ids := make([]int64, len(words))
	for i := range words {
		ids[i] = int64(i + 1)
	}
	seqs, err := t.sequences(ctx, ids, words)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(words))
	for i := range words {
		out[i] = seqs[ids[i]]
	}
	return out, nil
}

// run writes texts[i] into the scratch table as row ids[i], calls scan
// on each row query returns (of its tok_instance table), and empties the
// table again, in one transaction.
func (t *ftsTokenizer) run(ctx context.Context, ids []int64, texts []string, query string, scan func(*sql.Rows) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	tx, err := t.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO tok (rowid, text) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for i, id := range ids {
		if _, err := ins.ExecContext(ctx, id, texts[i]); err != nil {
			return err
		}
	}
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := scan(rows); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tok (tok) VALUES ('delete-all')`); err != nil {
		return err
	}
	return tx.Commit()
}

// kwPosting is one chunk's entry in a term's postings.
type kwPosting struct {
	id  int64
	tf  int32
	len int32
}

// kwBlock is one row of gochunk_kw_blocks.
type kwBlock struct {
	last     int64  // the last chunk id
	lo       int64  // the first, as stored
	bound    []byte // blockBound's
	data     []byte
	postings []kwPosting
}

// encodeKWBlock appends postings (ids ascending) to dst: their count, then
// each one's id (as the difference from the one before), tf and length.
func encodeKWBlock(dst []byte, ps []kwPosting) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	var prev int64
	for _, p := range ps {
		dst = binary.AppendUvarint(dst, uint64(p.id-prev))
		dst = binary.AppendUvarint(dst, uint64(p.tf))
		dst = binary.AppendUvarint(dst, uint64(p.len))
		prev = p.id
	}
	return dst
}

// decodeKWBlock appends a block's postings to ps.
func decodeKWBlock(b []byte, ps []kwPosting) ([]kwPosting, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return ps, errKWBlock
	}
	var prev int64
	for range n {
		var v [3]uint64
		for j := range v {
			x, m := binary.Uvarint(b[k:])
			if m <= 0 {
				return ps, errKWBlock
			}
			v[j], k = x, k+m
		}
		prev += int64(v[0])
		ps = append(ps, kwPosting{id: prev, tf: int32(v[1]), len: int32(v[2])})
	}
	if k != len(b) {
		return ps, errKWBlock
	}
	return ps, nil
}

// blockBound appends to dst the (tf, length) pairs of ps that no other
// posting beats in both (a larger tf at no greater length): BM25's term
// grows with tf and falls with length, so the block's best term, for
// any average length, is one of theirs (boundScore). Shortest first,
// each pair as two varints after their count.
func blockBound(dst []byte, ps []kwPosting) []byte {
	var front [8]kwPosting // grows past 8 only for unusual blocks
	f := front[:0]
	for _, p := range ps {
		beaten := false
		for _, q := range f {
			if q.len <= p.len && q.tf >= p.tf {
				beaten = true
				break
			}
		}
		if beaten {
			continue
		}
		f = slices.DeleteFunc(f, func(q kwPosting) bool { return p.len <= q.len && p.tf >= q.tf })
		f = append(f, p)
	}
	slices.SortFunc(f, func(a, b kwPosting) int { return cmp.Compare(a.len, b.len) })
	dst = binary.AppendUvarint(dst, uint64(len(f)))
	for _, p := range f {
		dst = binary.AppendUvarint(dst, uint64(p.tf))
		dst = binary.AppendUvarint(dst, uint64(p.len))
	}
	return dst
}

// boundScore is the best BM25 term (bm25Norm) of a block, from its
// blockBound.
func boundScore(b []byte, avgdl float64) (float64, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > uint64(len(b)) {
		return 0, errKWBlock
	}
	best := 0.0
	for range n {
		tf, m := binary.Uvarint(b[k:])
		if m <= 0 {
			return 0, errKWBlock
		}
		k += m
		l, m := binary.Uvarint(b[k:])
		if m <= 0 {
			return 0, errKWBlock
		}
		k += m
		best = max(best, bm25Norm(int32(tf), int32(l), avgdl))
	}
	return best, nil
}

// kwWriter keeps the postings a transaction adds and removes, by term,
// until finish writes them.
type kwWriter struct {
	tx      *sql.Tx
	tok     *ftsTokenizer
	off     bool // the store's index is not built: nothing to keep
	adds    map[string][]kwPosting
	dels    map[string][]int64
	pending map[int64]bool // ids added by this transaction
	rows    int64          // chunks added less removed
	tokens  int64          // their tokens
	high    int64          // the largest chunk id when the transaction began
}

// bm25WriterFor returns the keyword index's writer of tx.
func (s *SQLite) bm25WriterFor(ctx context.Context, tx *sql.Tx) (*kwWriter, error) {
	w := &kwWriter{tx: tx, adds: map[string][]kwPosting{}, dels: map[string][]int64{}, pending: map[int64]bool{}}
	var built string
	err := tx.QueryRowContext(ctx, `SELECT value FROM gochunk_meta WHERE key = ?`, bm25Built).Scan(&built)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read the keyword index's state: %w", err)
	}
	if built != "1" {
		// Not built (a store of an earlier version before Prepare):
		// bm25Migrate builds it from the chunks then.
		w.off = true
		return w, nil
	}
	// Chunks added later have larger ids than any the index holds now.
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM gochunk_chunks`).Scan(&w.high); err != nil {
		return nil, fmt.Errorf("read the store's chunk ids: %w", err)
	}
	if w.tok, err = s.kw.tokenizer(ctx, true); err != nil {
		return nil, err
	}
	return w, nil
}

// docChunks reads a document's chunk ids and indexed texts.
func docChunks(ctx context.Context, tx *sql.Tx, doc string) ([]int64, []string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, coalesce(embed_text, text) FROM gochunk_chunks WHERE document_id = ? ORDER BY id`, doc)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, nil, err
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	return ids, texts, rows.Err()
}

// removeDoc queues the removal of a document's chunks (before they are
// deleted).
func (w *kwWriter) removeDoc(ctx context.Context, doc string) error {
	if w.off {
		return nil
	}
	ids, tk, err := w.docTokens(ctx, doc)
	if err != nil {
		return err
	}
	for i, term := range tk.terms {
		id := tk.rows[i]
		if w.pending[id] {
			// Added by this transaction: dropped from the additions.
			if j := slices.IndexFunc(w.adds[term], func(p kwPosting) bool { return p.id == id }); j >= 0 {
				w.adds[term] = slices.Delete(w.adds[term], j, j+1)
				continue
			}
		}
		w.dels[term] = append(w.dels[term], id)
	}
	for _, id := range ids {
		delete(w.pending, id)
		w.rows--
		w.tokens -= int64(tk.lens[id])
	}
	return nil
}

// docTokens reads a document's chunks in the writer's transaction and
// tokenises them as FTS5 does.
func (w *kwWriter) docTokens(ctx context.Context, doc string) ([]int64, tokenized, error) {
	ids, texts, err := docChunks(ctx, w.tx, doc)
	if err != nil {
		return nil, tokenized{}, fmt.Errorf("read %s's chunks for the keyword index: %w", doc, err)
	}
	tk, err := w.tok.tokens(ctx, ids, texts)
	if err != nil {
		return nil, tokenized{}, fmt.Errorf("tokenise %s's chunks for the keyword index: %w", doc, err)
	}
	return ids, tk, nil
}

// addDoc queues the addition of a document's chunks (once written).
func (w *kwWriter) addDoc(ctx context.Context, doc string) error {
	if w.off {
		return nil
	}
	_, tk, err := w.docTokens(ctx, doc)
	if err != nil {
		return err
	}
	w.addTokens(tk)
	return nil
}

func (w *kwWriter) addTokens(tk tokenized) {
	for i, term := range tk.terms {
		id := tk.rows[i]
		w.adds[term] = append(w.adds[term], kwPosting{id: id, tf: tk.tfs[i], len: tk.lens[id]})
	}
	for id, n := range tk.lens {
		w.pending[id] = true
		w.rows++
		w.tokens += int64(n)
	}
}

// finish writes the queued changes: each touched term's blocks and count,
// and the totals.
func (w *kwWriter) finish(ctx context.Context) error {
	if w.off {
		return nil
	}
	terms := slices.Sorted(maps.Keys(w.adds))
	for t := range w.dels {
		if _, ok := w.adds[t]; !ok {
			terms = append(terms, t)
		}
	}
	slices.Sort(terms)
	st, err := newKWStatements(ctx, w.tx)
	if err != nil {
		return err
	}
	defer st.close()
	for _, term := range terms {
		adds := w.adds[term]
		slices.SortFunc(adds, func(a, b kwPosting) int { return cmpInt64(a.id, b.id) })
		if len(w.dels[term]) == 0 && len(adds) > 0 && adds[0].id > w.high {
			// Only chunks after every one the index holds: new blocks
			// after the term's last, without reading it; merged with
			// it once bm25Merge such blocks have gathered (flush).
			n, err := st.insert(ctx, term, adds)
			if err != nil {
				return fmt.Errorf("write the keyword index's term %q: %w", term, err)
			}
			st.dfs = append(st.dfs, term, int64(len(adds)), n)
			continue
		}
		if err := st.writeTerm(ctx, term, adds, w.dels[term]); err != nil {
			return fmt.Errorf("write the keyword index's term %q: %w", term, err)
		}
	}
	if err := st.flush(ctx); err != nil {
		return fmt.Errorf("write the keyword index: %w", err)
	}
	if err := st.merge(ctx); err != nil {
		return fmt.Errorf("write the keyword index: %w", err)
	}
	if err := bm25AddTotals(ctx, w.tx, w.rows, w.tokens); err != nil {
		return err
	}
	w.adds, w.dels, w.pending, w.rows, w.tokens = map[string][]kwPosting{}, map[string][]int64{}, map[int64]bool{}, 0, 0
	return nil
}

// bm25AddTotals adds to the index's chunk and token counts.
func bm25AddTotals(ctx context.Context, tx *sql.Tx, rows, tokens int64) error {
	for _, kv := range []struct {
		key string
		n   int64
	}{{bm25Rows, rows}, {bm25Tokens, tokens}} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + ?`,
			kv.key, strconv.FormatInt(kv.n, 10), kv.n); err != nil {
			return fmt.Errorf("count the keyword index's chunks: %w", err)
		}
	}
	return nil
}

// kwStatements is a writer's prepared statements, and its writes not yet
// made: blocks deleted and inserted and terms' count changes are made
// many rows to a statement (flush).
type kwStatements struct {
	tx              *sql.Tx
	at, last, setDF *sql.Stmt
	dels, inss, dfs []any            // (term, last), (term, last, bound, postings), (term, change, small blocks added)
	merges          map[string]int64 // terms with bm25Merge small blocks or more at their end
}

// bm25Merge is the number of blocks added after a term's last without
// reading it (kwWriter.finish) from which they are merged with it.
const bm25Merge = 8

// merge rewrites the last blocks of the terms in st.merges (the small
// ones added and the one before them) as full blocks, after flush.
func (st *kwStatements) merge(ctx context.Context) error {
	for _, term := range slices.Sorted(maps.Keys(st.merges)) {
		rows, err := st.tx.QueryContext(ctx, `SELECT last, postings FROM gochunk_kw_blocks WHERE term = ? ORDER BY last DESC LIMIT ?`, term, st.merges[term]+1)
		if err != nil {
			return err
		}
		var blocks [][]byte
		for rows.Next() {
			var last int64
			var data []byte
			if err := rows.Scan(&last, &data); err != nil {
				rows.Close()
				return err
			}
			st.dels = append(st.dels, term, last)
			blocks = append(blocks, data)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var ps []kwPosting
		for i := len(blocks) - 1; i >= 0; i-- {
			if ps, err = decodeKWBlock(blocks[i], ps); err != nil {
				return err
			}
		}
		if _, err := st.insert(ctx, term, ps); err != nil {
			return err
		}
		if _, err := st.tx.ExecContext(ctx, `UPDATE gochunk_kw_terms SET small = 0 WHERE term = ?`, term); err != nil {
			return err
		}
	}
	st.merges = nil
	return st.flush(ctx)
}

// bm25Batch is the most rows a statement of flush writes.
const bm25Batch = 256

func newKWStatements(ctx context.Context, tx *sql.Tx) (*kwStatements, error) {
	st := &kwStatements{tx: tx}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&st.at, `SELECT last, bound, postings FROM gochunk_kw_blocks WHERE term = ? AND last >= ? ORDER BY last LIMIT 1`},
		{&st.last, `SELECT last, bound, postings FROM gochunk_kw_blocks WHERE term = ? ORDER BY last DESC LIMIT 1`},
		{&st.setDF, `INSERT INTO gochunk_kw_terms (term, df) VALUES (?, ?) ON CONFLICT (term) DO UPDATE SET df = excluded.df`},
	} {
		s, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			st.close()
			return nil, err
		}
		*p.stmt = s
	}
	return st, nil
}

func (st *kwStatements) close() {
	for _, s := range []*sql.Stmt{st.at, st.last, st.setDF} {
		if s != nil {
			s.Close()
		}
	}
}

// flush makes the writes queued: the blocks' deletions before their
// insertions (a block may be written again under its key), then the
// terms' counts, deleting those that reach 0.
func (st *kwStatements) flush(ctx context.Context) error {
	rows := func(n, width int) string {
		one := "(" + strings.TrimSuffix(strings.Repeat("?, ", width), ", ") + ")"
		return strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
	}
	for len(st.dels) > 0 {
		n := min(len(st.dels)/2, bm25Batch)
		if _, err := st.tx.ExecContext(ctx, `DELETE FROM gochunk_kw_blocks WHERE (term, last) IN (VALUES `+rows(n, 2)+`)`, st.dels[:2*n]...); err != nil {
			return err
		}
		st.dels = st.dels[2*n:]
	}
	for len(st.inss) > 0 {
		n := min(len(st.inss)/4, bm25Batch)
		if _, err := st.tx.ExecContext(ctx, `INSERT INTO gochunk_kw_blocks (term, last, bound, postings) VALUES `+rows(n, 4), st.inss[:4*n]...); err != nil {
			return err
		}
		st.inss = st.inss[4*n:]
	}
	var zero []any
	for len(st.dfs) > 0 {
		n := min(len(st.dfs)/3, bm25Batch)
		r, err := st.tx.QueryContext(ctx, `INSERT INTO gochunk_kw_terms (term, df, small) VALUES `+rows(n, 3)+`
			ON CONFLICT (term) DO UPDATE SET df = df + excluded.df, small = small + excluded.small RETURNING term, df, small`, st.dfs[:3*n]...)
		if err != nil {
			return err
		}
		for r.Next() {
			var term string
			var df, small int64
			if err := r.Scan(&term, &df, &small); err != nil {
				r.Close()
				return err
			}
			if small >= bm25Merge && df > 0 {
				if st.merges == nil {
					st.merges = map[string]int64{}
				}
				st.merges[term] = small
			}
			if df < 0 {
				r.Close()
				return fmt.Errorf("term %q: %d chunks hold it: %w", term, df, errKWBlock)
			}
			if df == 0 {
				zero = append(zero, term)
			}
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
		st.dfs = st.dfs[3*n:]
	}
	for len(zero) > 0 {
		n := min(len(zero), bm25Batch)
		if _, err := st.tx.ExecContext(ctx, `DELETE FROM gochunk_kw_terms WHERE term IN (`+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+`)`, zero[:n]...); err != nil {
			return err
		}
		zero = zero[n:]
	}
	return nil
}

// readBlock reads one row of the term's blocks (the first ending at or
// after id, or with last, the last one) into blocks, decoded; nil when
// there is none.
func (st *kwStatements) readBlock(ctx context.Context, term string, id int64, last bool, blocks map[int64]*kwBlock) (*kwBlock, error) {
	b := &kwBlock{}
	var err error
	if last {
		err = st.last.QueryRowContext(ctx, term).Scan(&b.last, &b.bound, &b.data)
	} else {
		err = st.at.QueryRowContext(ctx, term, id).Scan(&b.last, &b.bound, &b.data)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if old, ok := blocks[b.last]; ok {
		return old, nil
	}
	if b.postings, err = decodeKWBlock(b.data, nil); err != nil {
		return nil, err
	}
	if len(b.postings) == 0 || b.postings[len(b.postings)-1].id != b.last {
		return nil, errKWBlock
	}
	b.lo = b.postings[0].id
	blocks[b.last] = b
	return b, nil
}

// writeTerm applies a term's additions and removals to its blocks and
// count. Every block is read before any is written.
func (st *kwStatements) writeTerm(ctx context.Context, term string, adds []kwPosting, dels []int64) error {
	var df int64 // the change in the chunks holding the term
	blocks := map[int64]*kwBlock{}
	// The last block, where additions go (removals alone need not
	// read it).
	var lastB *kwBlock
	var err error
	if len(adds) > 0 {
		if lastB, err = st.readBlock(ctx, term, 0, true, blocks); err != nil {
			return err
		}
	}
	// blockOf is the stored block an id is in, or goes into: the last
	// one from its first id on (and after it), else the first ending at
	// or after it (nil when there is none).
	blockOf := func(id int64) (*kwBlock, error) {
		if lastB != nil && id >= lastB.lo {
			return lastB, nil
		}
		return st.readBlock(ctx, term, id, false, blocks)
	}
	gone := map[*kwBlock]map[int64]bool{}
	for _, id := range dels {
		b, err := blockOf(id)
		if err != nil {
			return err
		}
		if b == nil || id > b.last {
			return fmt.Errorf("chunk %d is not in the keyword index: %w", id, errKWBlock)
		}
		if gone[b] == nil {
			gone[b] = map[int64]bool{}
		}
		gone[b][id] = true
	}
	for b, ids := range gone {
		n := len(b.postings)
		b.postings = slices.DeleteFunc(b.postings, func(p kwPosting) bool { return ids[p.id] })
		if n-len(b.postings) != len(ids) {
			return fmt.Errorf("a removed chunk is not in its block: %w", errKWBlock)
		}
		df -= int64(len(ids))
	}
	var fresh []kwPosting // additions when the term has no block
	slices.SortFunc(adds, func(a, b kwPosting) int { return cmpInt64(a.id, b.id) })
	for _, p := range adds {
		b, err := blockOf(p.id)
		if err != nil {
			return err
		}
		if b == nil {
			fresh = append(fresh, p)
		} else {
			i, found := slices.BinarySearchFunc(b.postings, p.id, func(q kwPosting, id int64) int { return cmpInt64(q.id, id) })
			if found {
				return fmt.Errorf("chunk %d added twice: %w", p.id, errKWBlock)
			}
			b.postings = slices.Insert(b.postings, i, p)
		}
		df++
	}
	for _, key := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[key]
		st.dels = append(st.dels, term, b.last)
		if _, err := st.insert(ctx, term, b.postings); err != nil {
			return err
		}
	}
	if _, err := st.insert(ctx, term, fresh); err != nil {
		return err
	}
	if df != 0 {
		st.dfs = append(st.dfs, term, df, 0)
	}
	if len(st.inss) >= 4*bm25Batch || len(st.dels) >= 2*bm25Batch || len(st.dfs) >= 3*bm25Batch {
		return st.flush(ctx)
	}
	return nil
}

// insert writes postings (ids ascending) as blocks of at most bm25Block.
func (st *kwStatements) insert(ctx context.Context, term string, ps []kwPosting) (int, error) {
	var buf, bound []byte
	blocks := 0
	for len(ps) > 0 {
		n := min(len(ps), bm25Block)
		if len(ps) > bm25Block && len(ps) < 2*bm25Block {
			n = (len(ps) + 1) / 2 // two halves rather than a full block and a small one
		}
		part := ps[:n]
		bound = blockBound(bound[:0], part)
		buf = encodeKWBlock(buf[:0], part)
		st.inss = append(st.inss, term, part[n-1].id, slices.Clone(bound), slices.Clone(buf))
		blocks++
		if len(st.inss) >= 4*bm25Batch {
			if err := st.flush(ctx); err != nil {
				return blocks, err
			}
		}
		ps = ps[n:]
	}
	return blocks, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bm25Reset empties the keyword index and marks it built (of no chunks).
func bm25Reset(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range slices.Concat(bm25Schema, []string{`DELETE FROM gochunk_kw_terms`, `DELETE FROM gochunk_kw_blocks`}) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	for _, key := range []string{bm25Rows, bm25Tokens} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES (?, '0') ON CONFLICT (key) DO UPDATE SET value = '0'`, key); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET value = '1'`, bm25Built)
	return err
}

// bm25Migrate builds the keyword index of a store that has none (one
// written before it existed), from its chunks, in tx: every chunk's text
// tokenised, bm25BuildBatch at a time in id order, each term's postings
// written as their blocks fill.
func (s *SQLite) bm25Migrate(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range bm25Schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	// A store written between the index's first version and the terms'
	// small-block count has the table without the column (same schema
	// version): add it. 0 is a valid count (its merges come later).
	var hasSmall int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('gochunk_kw_terms') WHERE name = 'small'`).Scan(&hasSmall); err != nil {
		return err
	}
	if hasSmall == 0 {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE gochunk_kw_terms ADD COLUMN small INTEGER NOT NULL DEFAULT 0`); err != nil {
			return fmt.Errorf("add the keyword index's small-block count: %w", err)
		}
	}
	var built string
	err := tx.QueryRowContext(ctx, `SELECT value FROM gochunk_meta WHERE key = ?`, bm25Built).Scan(&built)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if built == "1" {
		return nil
	}
	if err := bm25Reset(ctx, tx); err != nil {
		return err
	}
	tok, err := s.kw.tokenizer(ctx, true)
	if err != nil {
		return err
	}
	st, err := newKWStatements(ctx, tx)
	if err != nil {
		return err
	}
	defer st.close()
	tails := map[string][]kwPosting{} // each term's postings not yet in a full block
	df := map[string]int64{}
	var rows, tokens int64
	flush := func(term string, all bool) error {
		ps := tails[term]
		n := len(ps) / bm25Block * bm25Block
		if all {
			n = len(ps)
		}
		if n == 0 {
			return nil
		}
		// Full blocks only (insert would halve a block and a half).
		for i := 0; i < n; i += bm25Block {
			if _, err := st.insert(ctx, term, ps[i:min(n, i+bm25Block)]); err != nil {
				return err
			}
		}
		tails[term] = append(ps[:0], ps[n:]...)
		return nil
	}
	for after := int64(-1 << 62); ; {
		r, err := tx.QueryContext(ctx, `SELECT id, coalesce(embed_text, text) FROM gochunk_chunks WHERE id > ? ORDER BY id LIMIT ?`, after, bm25BuildBatch)
		if err != nil {
			return err
		}
		var ids []int64
		var texts []string
		for r.Next() {
			var id int64
			var text string
			if err := r.Scan(&id, &text); err != nil {
				r.Close()
				return err
			}
			ids, texts = append(ids, id), append(texts, text)
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
		if len(ids) == 0 {
			break
		}
		after = ids[len(ids)-1]
		tk, err := tok.tokens(ctx, ids, texts)
		if err != nil {
			return err
		}
		for i, term := range tk.terms {
			id := tk.rows[i]
			tails[term] = append(tails[term], kwPosting{id: id, tf: tk.tfs[i], len: tk.lens[id]})
			df[term]++
			if len(tails[term]) >= bm25Block {
				if err := flush(term, false); err != nil {
					return err
				}
			}
		}
		for _, n := range tk.lens {
			rows++
			tokens += int64(n)
		}
	}
	for _, term := range slices.Sorted(maps.Keys(tails)) {
		if err := flush(term, true); err != nil {
			return err
		}
		if _, err := st.setDF.ExecContext(ctx, term, df[term]); err != nil {
			return err
		}
	}
	if err := st.flush(ctx); err != nil {
		return err
	}
	return bm25AddTotals(ctx, tx, rows, tokens)
}
