package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gochunk/gochunk/record"
)

// Postgres is a store in a PostgreSQL database: a vector(N) column with an
// HNSW index (cosine) when the pgvector extension is installed or can be
// created, real[] otherwise (searched by a scan); full-text search over a
// generated tsvector column with a GIN index.
type Postgres struct {
	pool *pgxpool.Pool
	// Vector tells whether the chunks' vectors are pgvector's type; Prepare
	// sets it.
	Vector bool
	where  string // the connection's host and database, for errors

	once          sync.Once // looks up iterativeScan
	iterativeScan bool      // pgvector has hnsw.iterative_scan
}

// OpenPostgres connects to the database at dsn (a URL or key=value
// pairs; PG* environment variables fill in what it leaves out).
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: PostgreSQL connection string: %w", err)
	}
	where := fmt.Sprintf("postgres %s/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
	}
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return nil, fmt.Errorf("store %s: %w", where, err)
	}
	if err := postgresSchemaKnown(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store %s: %w", where, err)
	}
	return &Postgres{pool: pool, where: where}, nil
}

// postgresSchemaKnown returns ErrSchema, with what to do, when the
// store's tables were written by a newer gochunk, so that search, serve
// and the MCP server do not read a layout they do not know (a store
// without gochunk's tables yet is fine: Prepare makes them).
func postgresSchemaKnown(ctx context.Context, pool *pgxpool.Pool) error {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('gochunk_meta') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return err
	}
	var version string
	err := pool.QueryRow(ctx, `SELECT value FROM gochunk_meta WHERE key = 'schema_version'`).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return postgresNewer(version)
}

// postgresNewer returns ErrSchema, with what to do, when version (the
// store's schema_version) is newer than SchemaVersion.
func postgresNewer(version string) error {
	if v, _ := strconv.Atoi(version); v > SchemaVersion {
		return fmt.Errorf("%w %s (this gochunk knows up to %d): use a newer gochunk", ErrSchema, version, SchemaVersion)
	}
	return nil
}

// Pool returns the connection pool (for the watch mode of package index).
func (p *Postgres) Pool() *pgxpool.Pool { return p.pool }

func (p *Postgres) errorf(err error) error { return fmt.Errorf("store %s: %w", p.where, err) }

// Prepare implements Store. It creates the pgvector extension when the
// server has it and the role may; otherwise vectors are real[].
func (p *Postgres) Prepare(ctx context.Context, dims int) error {
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		// One preparer at a time: several workers may start together.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('gochunk_prepare'))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS gochunk_meta (key text PRIMARY KEY, value text NOT NULL)`); err != nil {
			return err
		}
		var version string
		err := tx.QueryRow(ctx, `SELECT value FROM gochunk_meta WHERE key = 'schema_version'`).Scan(&version)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		v, _ := strconv.Atoi(version)
		if err := postgresNewer(version); err != nil {
			return err
		}
		if v == 1 {
			// 2: chunks keep their embedded text and provenance, and the
			// full-text index holds the embedded text.
			for _, stmt := range []string{
				`ALTER TABLE gochunk_chunks ADD COLUMN IF NOT EXISTS embed_text text, ADD COLUMN IF NOT EXISTS provenance jsonb`,
				`ALTER TABLE gochunk_documents ADD COLUMN IF NOT EXISTS text text`,
				`ALTER TABLE gochunk_chunks DROP COLUMN tsv`,
				`ALTER TABLE gochunk_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(embed_text, text))) STORED`,
			} {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("bring the store from schema 1 to %d: %w", SchemaVersion, err)
				}
			}
		}
		p.Vector = p.pgvector(ctx, tx)
		var old string
		if err := tx.QueryRow(ctx, `SELECT value FROM gochunk_meta WHERE key = 'dimensions'`).Scan(&old); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if old != "" && old != strconv.Itoa(dims) {
			// Vectors of another model: drop them (the column's type
			// changes with pgvector) and mark every document stale.
			for _, stmt := range []string{`DROP TABLE IF EXISTS gochunk_chunks`, `UPDATE gochunk_documents SET config_hash = ''`} {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return err
				}
			}
		}
		embedding := "real[]"
		if p.Vector && dims > 0 {
			embedding = fmt.Sprintf("vector(%d)", dims)
		}
		for _, stmt := range []string{
			`CREATE TABLE IF NOT EXISTS gochunk_documents (
				id text PRIMARY KEY, source text NOT NULL, content_hash text NOT NULL,
				config_hash text NOT NULL, metadata jsonb, updated_at timestamptz NOT NULL DEFAULT now(), text text)`,
			`CREATE INDEX IF NOT EXISTS gochunk_documents_source ON gochunk_documents (source)`,
			`CREATE TABLE IF NOT EXISTS gochunk_chunks (
				document_id text NOT NULL REFERENCES gochunk_documents (id) ON DELETE CASCADE,
				chunk_index integer NOT NULL, start_byte integer NOT NULL, end_byte integer NOT NULL,
				start_rune integer NOT NULL, end_rune integer NOT NULL, spans jsonb,
				token_count integer NOT NULL, text text NOT NULL, metadata jsonb, stats jsonb,
				embedding ` + embedding + `, embed_text text, provenance jsonb,
				tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(embed_text, text))) STORED,
				PRIMARY KEY (document_id, chunk_index))`,
			`CREATE INDEX IF NOT EXISTS gochunk_chunks_tsv ON gochunk_chunks USING gin (tsv)`,
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		if p.Vector && dims > 0 {
			if _, err := tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS gochunk_chunks_hnsw ON gochunk_chunks USING hnsw (embedding vector_cosine_ops)`); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO gochunk_meta VALUES ('schema_version', $1), ('dimensions', $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(SchemaVersion), strconv.Itoa(dims))
		return err
	})
	if err != nil {
		return p.errorf(err)
	}
	return nil
}

// pgvector tells whether the chunk table's vectors can be pgvector's:
// the extension is installed, or it is available and this role may
// create it (tried in a savepoint, so a refusal changes nothing).
func (p *Postgres) pgvector(ctx context.Context, tx pgx.Tx) bool {
	var typ string
	err := tx.QueryRow(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = to_regclass('gochunk_chunks') AND attname = 'embedding'`).Scan(&typ)
	if err == nil {
		return strings.HasPrefix(typ, "vector")
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false
	}
	if _, err := sp.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		sp.Rollback(ctx)
		return false
	}
	return sp.Commit(ctx) == nil
}

// Documents implements Store.
func (p *Postgres) Documents(ctx context.Context) (map[string]State, error) {
	out, err := DocumentsOf(ctx, p.pool, nil)
	if err != nil {
		return nil, p.errorf(err)
	}
	return out, nil
}

// DocumentsOf reads the stored documents' states through q (a pool or a
// transaction): those of ids, or all when ids is nil.
func DocumentsOf(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, ids []string) (map[string]State, error) {
	sql, args := `SELECT id, source, content_hash, config_hash FROM gochunk_documents`, []any{}
	if ids != nil {
		sql, args = sql+` WHERE id = ANY($1)`, []any{ids}
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out := map[string]State{}
	var id string
	var st State
	_, err = pgx.ForEachRow(rows, []any{&id, &st.Source, &st.ContentHash, &st.ConfigHash}, func() error {
		out[id] = st
		return nil
	})
	return out, err
}

// Replace implements Store.
func (p *Postgres) Replace(ctx context.Context, puts ...Put) error {
	if err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error { return p.ReplaceTx(ctx, tx, puts...) }); err != nil {
		return p.errorf(err)
	}
	return nil
}

// ReplaceTx is Replace inside the caller's transaction.
func (p *Postgres) ReplaceTx(ctx context.Context, tx pgx.Tx, puts ...Put) error {
	for _, put := range puts {
		if err := p.put(ctx, tx, put.Document, put.Chunks); err != nil {
			return err
		}
		for put.More != nil {
			chunks, err := put.More(ctx)
			if err != nil {
				return err
			}
			if len(chunks) == 0 {
				break
			}
			if err := p.insert(ctx, tx, put.Document, chunks); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Postgres) put(ctx context.Context, tx pgx.Tx, doc Document, chunks []record.Record) error {
	meta, err := metaJSON(doc.Metadata)
	if err != nil {
		return fmt.Errorf("metadata of %s: %w", doc.ID, err)
	}
	// The document's row first: it locks the document, so two writers of
	// one document take turns instead of mixing their chunks.
	if _, err := tx.Exec(ctx, `INSERT INTO gochunk_documents (id, source, content_hash, config_hash, metadata, updated_at, text)
		VALUES ($1, $2, $3, $4, $5, now(), $6) ON CONFLICT (id) DO UPDATE SET source = excluded.source,
		content_hash = excluded.content_hash, config_hash = excluded.config_hash, metadata = excluded.metadata,
		updated_at = excluded.updated_at, text = excluded.text`, doc.ID, doc.Source, doc.ContentHash, doc.ConfigHash, nullString(meta), nullText(doc.Text)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM gochunk_chunks WHERE document_id = $1`, doc.ID); err != nil {
		return err
	}
	return p.insert(ctx, tx, doc, chunks)
}

// insert adds chunks of doc.
func (p *Postgres) insert(ctx context.Context, tx pgx.Tx, doc Document, chunks []record.Record) error {
	vec := "$12::real[]"
	if p.Vector {
		vec = "$12::vector"
	}
	var batch pgx.Batch
	for _, c := range chunks {
		r, err := toRow(c)
		if err != nil {
			return err
		}
		var v any
		if c.Embedding != nil {
			v = c.Embedding
			if p.Vector {
				v = vectorText(c.Embedding)
			}
		}
		batch.Queue(`INSERT INTO gochunk_chunks (document_id, chunk_index, start_byte, end_byte, start_rune, end_rune,
			spans, token_count, text, metadata, stats, embedding, embed_text, provenance) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, `+vec+`, $13, $14)`,
			doc.ID, r.index, r.start, r.end, r.startRune, r.endRune, nullString(r.spans), r.tokens, r.text,
			nullString(r.metadata), nullString(r.stats), v, nullText(c.EmbedText), nullString(r.where))
	}
	if len(chunks) == 0 {
		return nil
	}
	return tx.SendBatch(ctx, &batch).Close()
}

// Delete implements Store.
func (p *Postgres) Delete(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := p.pool.Exec(ctx, `DELETE FROM gochunk_documents WHERE id = ANY($1)`, ids); err != nil {
		return p.errorf(err)
	}
	return nil
}

// Counts implements Store.
func (p *Postgres) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := p.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM gochunk_documents), (SELECT count(*) FROM gochunk_chunks)`).Scan(&c.Documents, &c.Chunks)
	if err != nil {
		return c, p.errorf(err)
	}
	return c, nil
}

// Meta implements Store.
func (p *Postgres) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := p.pool.QueryRow(ctx, `SELECT value FROM gochunk_meta WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", p.errorf(err)
	}
	return v, nil
}

// SetMeta implements Store.
func (p *Postgres) SetMeta(ctx context.Context, key, value string) error {
	if _, err := p.pool.Exec(ctx, `INSERT INTO gochunk_meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return p.errorf(err)
	}
	return nil
}

// Close implements Store.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}

// DocumentText implements Store.
func (p *Postgres) DocumentText(ctx context.Context, id string, start, end int) (string, bool, error) {
	var b []byte
	var kept bool
	start = max(start, 0)
	err := p.pool.QueryRow(ctx, `SELECT text IS NOT NULL, coalesce(substring(convert_to(text, 'UTF8') from $2 for $3), ''::bytea)
		FROM gochunk_documents WHERE id = $1`, id, start+1, max(end-start, 0)).Scan(&kept, &b)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, p.errorf(err)
	}
	return string(b), kept, nil
}

// Offsets implements Store.
func (p *Postgres) Offsets(ctx context.Context, id string, from, to int) ([]Span, error) {
	rows, err := p.pool.Query(ctx, `SELECT chunk_index, start_byte, end_byte, start_rune, end_rune FROM gochunk_chunks
		WHERE document_id = $1 AND chunk_index BETWEEN $2 AND $3 ORDER BY chunk_index`, id, from, to)
	if err != nil {
		return nil, p.errorf(err)
	}
	var out []Span
	var sp Span
	if _, err := pgx.ForEachRow(rows, []any{&sp.Index, &sp.Start, &sp.End, &sp.StartRune, &sp.EndRune}, func() error {
		out = append(out, sp)
		return nil
	}); err != nil {
		return nil, p.errorf(err)
	}
	return out, nil
}

// Vectors implements Store.
func (p *Postgres) Vectors(ctx context.Context, id string) (map[string][]float32, error) {
	rows, err := p.pool.Query(ctx, `SELECT coalesce(embed_text, text), embedding::real[] FROM gochunk_chunks WHERE document_id = $1 AND embedding IS NOT NULL`, id)
	if err != nil {
		return nil, p.errorf(err)
	}
	out := map[string][]float32{}
	var text string
	var v []float32
	if _, err := pgx.ForEachRow(rows, []any{&text, &v}, func() error {
		out[text] = slices.Clone(v)
		return nil
	}); err != nil {
		return nil, p.errorf(err)
	}
	return out, nil
}

const pgColumns = `c.document_id, c.chunk_index, c.start_byte, c.end_byte, c.start_rune, c.end_rune, c.spans, c.token_count, c.text, c.metadata, c.stats, c.embed_text, c.provenance`

// pgDefaultEF is pgvector's default hnsw.ef_search: the candidates an
// HNSW search keeps, and so the most hits it returns.
const pgDefaultEF = 40

// Search implements Store: with pgvector, the HNSW index's approximate
// nearest neighbours by cosine distance (q.Probes sets hnsw.ef_search,
// the candidates it keeps; at least K); without it, or with q.Exact, an
// exact scan. q's source prefix and metadata filters are conditions of
// the query itself; with the index, pgvector 0.8's iterative scan goes on
// until K chunks that pass them are found, and when the index still
// returns fewer than K, the exact scan answers, so a filtered search
// returns K hits when K chunks match, as the SQLite store does.
func (p *Postgres) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits, err := search(q, func(q Query) ([]Hit, error) { return p.vectorSearch(ctx, q) }, func(q Query) ([]Hit, error) { return p.keywordSearch(ctx, q) })
	if err != nil {
		return nil, p.errorf(err)
	}
	return hits, nil
}

// pgFilter returns the tables a search reads (the chunks c, joined with
// their documents d when metadata is filtered) and the condition that a
// chunk meets q's filters, whose parameters are numbered from $first.
// Metadata values compare as the SQLite store compares them: as text,
// booleans as 1 and 0, the chunk's own value first, else its document's.
func pgFilter(q Query, first int) (from, cond string, args []any) {
	from, cond = `gochunk_chunks c`, `TRUE`
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d::text", first+len(args)-1)
	}
	if q.SourcePrefix != "" {
		cond += ` AND starts_with(c.document_id, ` + arg(q.SourcePrefix) + `)`
	}
	if len(q.Metadata) == 0 {
		return from, cond, args
	}
	from += ` JOIN gochunk_documents d ON d.id = c.document_id`
	for _, k := range slices.Sorted(maps.Keys(q.Metadata)) {
		key := arg(k)
		cond += ` AND (SELECT CASE jsonb_typeof(m) WHEN 'boolean' THEN CASE WHEN m = 'true'::jsonb THEN '1' ELSE '0' END
			WHEN 'string' THEN m #>> '{}' ELSE m::text END
			FROM (SELECT coalesce(nullif(c.metadata -> ` + key + `, 'null'::jsonb), nullif(d.metadata -> ` + key + `, 'null'::jsonb)) AS m) AS meta) = ` + arg(q.Metadata[k])
	}
	return from, cond, args
}

func (p *Postgres) query(ctx context.Context, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, sql string, args ...any) ([]Hit, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(rows)
}

// iterative tells whether the pgvector extension has iterative index
// scans (0.8.0 and later), looked up once.
func (p *Postgres) iterative(ctx context.Context) bool {
	p.once.Do(func() {
		var v string
		if err := p.pool.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`).Scan(&v); err != nil {
			return
		}
		var major, minor int
		if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err == nil {
			p.iterativeScan = major > 0 || minor >= 8
		}
	})
	return p.iterativeScan
}

func (p *Postgres) vectorSearch(ctx context.Context, q Query) ([]Hit, error) {
	if !p.Vector {
		return p.scan(ctx, q)
	}
	from, cond, args := pgFilter(q, 3)
	args = append([]any{vectorText(q.Vector), q.K}, args...)
	sql := `SELECT ` + pgColumns + `, 1 - (c.embedding <=> $1::vector) FROM ` + from + ` WHERE c.embedding IS NOT NULL AND ` + cond
	// The exact scan: an order the HNSW index cannot give.
	exact := sql + ` ORDER BY (c.embedding <=> $1::vector) + 0, c.document_id, c.chunk_index LIMIT $2`
	if q.Exact {
		return p.query(ctx, p.pool, exact, args...)
	}
	// Looked up before the transaction: asked inside it, the lookup would
	// wait for a second connection while the transaction holds one (a
	// server that serves one connection at a time never gives it).
	iterative := q.filtered() && p.iterative(ctx)
	var hits []Hit
	err := pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		ef := min(1000, max(q.K, cmp.Or(q.Probes, pgDefaultEF)))
		if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(ef)); err != nil {
			return fmt.Errorf("set hnsw.ef_search: %w", err)
		}
		if iterative {
			if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`); err != nil {
				return fmt.Errorf("set hnsw.iterative_scan: %w", err)
			}
		}
		var err error
		hits, err = p.query(ctx, tx, sql+` ORDER BY c.embedding <=> $1::vector LIMIT $2`, args...)
		return err
	})
	if err != nil || len(hits) >= q.K {
		return hits, err
	}
	// Fewer than K: the index lost some to the filters (or its candidates
	// ran out); the scan returns K when K chunks match.
	return p.query(ctx, p.pool, exact, args...)
}

// scan is the exact search of a store without pgvector (vectors as
// real[]): every vector that passes the filters is scored here.
func (p *Postgres) scan(ctx context.Context, q Query) ([]Hit, error) {
	from, cond, args := pgFilter(q, 1)
	rows, err := p.pool.Query(ctx, `SELECT c.document_id, c.chunk_index, c.embedding FROM `+from+` WHERE c.embedding IS NOT NULL AND `+cond, args...)
	if err != nil {
		return nil, err
	}
	best := topK{k: q.K}
	var c candidate
	var v []float32
	_, err = pgx.ForEachRow(rows, []any{&c.doc, &c.index, &v}, func() error {
		if len(v) != len(q.Vector) {
			return fmt.Errorf("stored vectors have %d dimensions, the query's %d: search with the embedder that indexed the store", len(v), len(q.Vector))
		}
		c.score = cosine(q.Vector, v)
		best.offer(c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(best.best))
	for _, c := range best.best {
		h, err := p.query(ctx, p.pool, `SELECT `+pgColumns+`, $3::float8 FROM gochunk_chunks c WHERE c.document_id = $1 AND c.chunk_index = $2`, c.doc, c.index, c.score)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h...)
	}
	return hits, nil
}

func (p *Postgres) keywordSearch(ctx context.Context, q Query) ([]Hit, error) {
	w := words(q.Text)
	if len(w) == 0 {
		return nil, nil
	}
	// Any of the words (OR), ranked by ts_rank; the words hold only
	// letters and digits, so the tsquery syntax cannot be broken.
	from, cond, args := pgFilter(q, 3)
	return p.query(ctx, p.pool, `SELECT `+pgColumns+`, ts_rank(c.tsv, query)::float8 FROM `+from+`, to_tsquery('english', $1) query
		WHERE c.tsv @@ query AND `+cond+` ORDER BY 14 DESC, c.document_id, c.chunk_index LIMIT $2`, append([]any{strings.Join(w, " | "), q.K}, args...)...)
}
