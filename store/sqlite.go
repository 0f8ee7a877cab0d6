package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, so the binary stays static
)

// SQLite is a store in one SQLite file: chunks with their vectors (as
// float16 blobs; quant.go), an inverted-file index of the vectors once
// there are enough of them (ivf.go), and a keyword index of their words
// (bm25.go; stores before schema 6 had SQLite's FTS5 index too).
type SQLite struct {
	db *sql.DB
	// rdb is the searches' connections: readers, which WAL runs beside
	// the writer and beside each other.
	rdb  *sql.DB
	path string
	ivf  ivfCache // the vector index's centroids (ivf.go)
	// sparse keeps the sparse index's search arrays (sparse.go).
	sparse sparseCache
	kw     bm25Index // the keyword index's tokenisers (bm25.go)
	// report, when set (ReportMigration), hears of a migration that
	// reads every chunk of a store of reportFrom chunks or more.
	report     func(msg string)
	reportFrom int64
}

var sqliteSchema = []string{
	`CREATE TABLE IF NOT EXISTS gochunk_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS gochunk_documents (
		id TEXT PRIMARY KEY, source TEXT NOT NULL, content_hash TEXT NOT NULL,
		config_hash TEXT NOT NULL, metadata TEXT, updated_at TEXT NOT NULL, text TEXT)`,
	`CREATE INDEX IF NOT EXISTS gochunk_documents_source ON gochunk_documents (source)`,
	`CREATE TABLE IF NOT EXISTS gochunk_chunks (
		id INTEGER PRIMARY KEY,
		document_id TEXT NOT NULL REFERENCES gochunk_documents (id),
		chunk_index INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
		start_rune INTEGER NOT NULL, end_rune INTEGER NOT NULL, spans TEXT,
		token_count INTEGER NOT NULL, text TEXT NOT NULL, metadata TEXT, stats TEXT, embedding BLOB,
		embed_text TEXT, provenance TEXT,
		UNIQUE (document_id, chunk_index))`,
}

// sqliteDeleteTrigger took a chunk's words out of the FTS5 index of
// stores before schema 6 (which holds its embedded text, with its
// context, when it has one); migration 2 still creates it, and 6 drops
// it with the index.
const sqliteDeleteTrigger = `CREATE TRIGGER IF NOT EXISTS gochunk_chunks_delete AFTER DELETE ON gochunk_chunks BEGIN
		INSERT INTO gochunk_chunks_fts (gochunk_chunks_fts, rowid, text) VALUES ('delete', old.id, coalesce(old.embed_text, old.text)); END`

// sqliteMigrations bring a store of schema version i+1 to version i+2.
var sqliteMigrations = [][]string{
	// 2: chunks keep their embedded text and provenance, and the
	// full-text index holds the embedded text.
	{`ALTER TABLE gochunk_chunks ADD COLUMN embed_text TEXT`, `ALTER TABLE gochunk_chunks ADD COLUMN provenance TEXT`,
		`ALTER TABLE gochunk_documents ADD COLUMN text TEXT`,
		`DROP TRIGGER gochunk_chunks_delete`, sqliteDeleteTrigger},
	// 3: the vector index (ivf.go); vectors are written as float16 and
	// the float32 ones already there still read.
	ivfSchema,
	// 4: the dense index's codes in blocks (ivf_blocks.go), moved there
	// by ivfMigrate, which Prepare runs next (and every write, which
	// raises the version too): a gochunk that knows only 3 refuses the
	// store by its version instead of failing on the table it dropped.
	{},
	// 5: the keyword index (bm25.go), built from the chunks by
	// bm25Migrate, which Prepare runs next: a gochunk that knows only 4
	// refuses the store rather than write chunks the index would miss.
	{},
	// 6: FTS5's index goes: the keyword index (bm25.go), which Prepare
	// builds from the chunks next when the store has none, ranks as
	// FTS5's bm25() did, also for --exact and for words FTS5 makes
	// phrases of, and a store kept both (100 bytes a chunk, and every
	// text tokenised twice as it was written). Searches of a store of
	// schema 5 or earlier not yet prepared use its FTS5 index as before.
	{`DROP TRIGGER IF EXISTS gochunk_chunks_delete`, `DROP TABLE IF EXISTS gochunk_chunks_fts`},
}

// sqlitePageSize is a new store's page size. A chunk row with a 384-d
// float16 vector is about 1.1 kB: SQLite's default 4 kB pages hold three
// and leave a fifth empty, 16 kB pages hold fifteen (measured on 11k real
// chunks: the chunks table 14.8 → 12.2 MB, the file 10.5 % smaller; see
// TestSQLitePageSize).
const sqlitePageSize = 16384

// OpenSQLite opens (creating it if needed) the SQLite store at path.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	q := url.Values{}
	// A new file gets pages of sqlitePageSize; an existing one keeps its
	// own. The size must be set before WAL, which fixes it: the driver runs
	// the _pragma list sorted by name, and _journal_mode after it.
	for _, p := range []string{"page_size(" + strconv.Itoa(sqlitePageSize) + ")", "busy_timeout(10000)", "synchronous(NORMAL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_journal_mode", "WAL")
	// A transaction takes the write lock when it begins (waiting up to
	// the busy timeout), not when it first writes: a deferred one that
	// read first cannot take it while another connection writes, and
	// fails at once with SQLITE_BUSY whatever the timeout.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serialises writes anyway
	if err := pingBusy(ctx, db, 10*time.Second); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	r := url.Values{}
	// Searches read the file mapped (up to SQLite's limit, 2 GB): a page
	// costs no read call, and the mapping is the operating system's page
	// cache, shared by the readers.
	for _, p := range []string{"busy_timeout(10000)", "query_only(1)", "mmap_size(2147418112)"} {
		r.Add("_pragma", p)
	}
	rdb, err := sql.Open("sqlite", "file:"+path+"?"+r.Encode())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	rdb.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	// A store a newer gochunk wrote is refused here, where every search,
	// serve, MCP server and index run opens it, rather than searched with
	// this gochunk's idea of its tables (one meta row, read once). An
	// older one is searched as it is, and brought up to date by the next
	// write or Prepare.
	v, err := metaOf(ctx, db, "schema_version")
	if err == nil {
		err = newerSchema(v)
	} else if strings.Contains(err.Error(), "no such table") {
		err = nil // a new store: Prepare creates its tables
	}
	if err != nil {
		rdb.Close()
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &SQLite{db: db, rdb: rdb, path: path, reportFrom: sqliteReportFrom}, nil
}

// newerSchema returns ErrSchema, with what to do, when version (a store's
// schema_version) is newer than this gochunk's schema, and nil otherwise.
func newerSchema(version string) error {
	if n, _ := strconv.Atoi(version); n > sqliteSchemaVersion {
		return fmt.Errorf("%w %s, written by a newer gochunk (this one knows schemas up to %d): use that gochunk or a newer one",
			ErrSchema, version, sqliteSchemaVersion)
	}
	return nil
}

// pingBusy opens the first connection, trying again while SQLite answers
// that the file is locked, for at most wait. Switching a new file to WAL
// takes an exclusive lock for which SQLite does not call its busy handler,
// so two processes opening one new store at once could get SQLITE_BUSY at
// once, whatever the busy timeout.
func pingBusy(ctx context.Context, db *sql.DB, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 200*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY).
func isBusy(err error) bool {
	return strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked")
}

// LockRun implements RunLocker with a lock file beside the store
// (PATH.lock), which the operating system releases when the process ends,
// however it ends; the file holds the holder's process id and start time
// while it is held.
func (s *SQLite) LockRun(ctx context.Context, waiting func(holder string)) (func() error, error) {
	path := s.path + ".lock"
	lock := flock.New(path)
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock store %s: %w", s.path, err)
	}
	if !ok {
		if waiting != nil {
			holder := "another gochunk index run"
			if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
				holder += " (" + string(bytes.TrimSpace(b)) + ")"
			}
			waiting(holder)
		}
		if ok, err = lock.TryLockContext(ctx, 200*time.Millisecond); !ok || err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("lock store %s: %w", s.path, err)
		}
	}
	// Who holds it, for the runs that wait (written through another
	// descriptor: the lock stays with the first).
	host, _ := os.Hostname()
	_ = os.WriteFile(path, fmt.Appendf(nil, "process %d on %s since %s\n", os.Getpid(), host, time.Now().Format(time.DateTime)), 0o644)
	return func() error {
		_ = os.Truncate(path, 0)
		return lock.Unlock()
	}, nil
}

// ReportMigration implements MigrationReporter.
func (s *SQLite) ReportMigration(report func(msg string)) { s.report = report }

// sqliteReportFrom is the number of chunks from which a migration that
// reads every chunk (the keyword index's build: about 50 s of CPU a
// million chunks) is reported.
const sqliteReportFrom = 50000

// Prepare implements Store.
func (s *SQLite) Prepare(ctx context.Context, dims int) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.upgrade(ctx, tx); err != nil {
			return err
		}
		return sqliteDims(ctx, tx, dims)
	})
}

// upgradeOld runs upgrade when the store's schema is older than this
// gochunk's (a write to a store no Prepare brought up to date: the chunks it
// writes must reach the keyword index, the only one from schema 6), and
// refuses a newer one (which a newer gochunk may have migrated the store to
// since it was opened).
func (s *SQLite) upgradeOld(ctx context.Context, tx *sql.Tx) error {
	v, err := metaOf(ctx, tx, "schema_version")
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return err
	}
	if err := newerSchema(v); err != nil {
		return err
	}
	if n, _ := strconv.Atoi(v); n == sqliteSchemaVersion {
		return nil
	}
	return s.upgrade(ctx, tx)
}

// upgrade creates the store's tables, or brings those of an earlier
// schema to sqliteSchemaVersion and builds what the migrations leave to
// build (the keyword index, the dense index's blocks), in tx.
func (s *SQLite) upgrade(ctx context.Context, tx *sql.Tx) error {
	var version string
	err := tx.QueryRowContext(ctx, `SELECT value FROM gochunk_meta WHERE key = 'schema_version'`).Scan(&version)
	began := time.Now()
	reported, hadFTS5 := false, false
	switch {
	case err == nil:
		if err := newerSchema(version); err != nil {
			return err
		}
		v, _ := strconv.Atoi(version)
		if v < sqliteSchemaVersion {
			if s.report != nil {
				built, err := metaOf(ctx, tx, bm25Built)
				if err != nil {
					return err
				}
				var chunks int64
				err = tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), (SELECT count(*) FROM sqlite_master WHERE name = 'gochunk_chunks_fts') FROM gochunk_chunks`).Scan(&chunks, &hadFTS5)
				if err != nil {
					return err
				}
				if built != "1" && chunks >= s.reportFrom {
					reported = true
					s.report(fmt.Sprintf("bringing the store %s (about %d chunks, schema %d) up to schema %d: building its keyword index from every chunk's text (about 50 s of CPU a million chunks)…",
						s.path, chunks, v, sqliteSchemaVersion))
				}
			}
			for _, m := range sqliteMigrations[max(v-1, 0) : sqliteSchemaVersion-1] {
				for _, stmt := range m {
					if _, err := tx.ExecContext(ctx, stmt); err != nil {
						return fmt.Errorf("bring the store %s from schema %d to %d: %w", s.path, v, sqliteSchemaVersion, err)
					}
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE gochunk_meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(sqliteSchemaVersion)); err != nil {
				return err
			}
		}
	case errors.Is(err, sql.ErrNoRows) || strings.Contains(err.Error(), "no such table"):
		for _, stmt := range slices.Concat(sqliteSchema, ivfSchema) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create the store's tables: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES ('schema_version', ?)`, strconv.Itoa(sqliteSchemaVersion)); err != nil {
			return err
		}
	default:
		return err
	}
	for _, stmt := range sparseSchema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create the store's sparse index: %w", err)
		}
	}
	if err := sparseMigrate(ctx, tx); err != nil {
		return fmt.Errorf("bring the store %s's vector index up to date: %w", s.path, err)
	}
	if err := s.bm25Migrate(ctx, tx); err != nil {
		return fmt.Errorf("build the store %s's keyword index: %w", s.path, err)
	}
	if err := ivfMigrate(ctx, tx); err != nil {
		return fmt.Errorf("bring the store %s's vector index up to date: %w", s.path, err)
	}
	if reported || hadFTS5 {
		msg := fmt.Sprintf("the store %s is at schema %d (%s)", s.path, sqliteSchemaVersion, time.Since(began).Round(time.Second))
		if hadFTS5 {
			var free int64
			if err := tx.QueryRowContext(ctx, `SELECT freelist_count * page_size FROM pragma_freelist_count(), pragma_page_size()`).Scan(&free); err != nil {
				return err
			}
			msg += fmt.Sprintf(": FTS5's index, which the keyword index replaces, left %.1f MB free in the file, reused as the store grows (sqlite3 %s VACUUM gives it back)",
				float64(free)/1e6, s.path)
		}
		s.report(msg)
	}
	return nil
}

// sqliteDims records the vectors' dimension; vectors of another one are
// dropped and their documents marked stale.
func sqliteDims(ctx context.Context, tx *sql.Tx, dims int) error {
	var old string
	err := tx.QueryRowContext(ctx, `SELECT value FROM gochunk_meta WHERE key = 'dimensions'`).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if old == strconv.Itoa(dims) {
		return nil
	}
	if old != "" {
		for _, stmt := range []string{`DELETE FROM gochunk_chunks`, `UPDATE gochunk_documents SET config_hash = ''`} {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		if err := ivfReset(ctx, tx); err != nil {
			return err
		}
		if err := bm25Reset(ctx, tx); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES ('dimensions', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(dims))
	return err
}

func (s *SQLite) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	return nil
}

// Documents implements Store.
func (s *SQLite) Documents(ctx context.Context) (map[string]State, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, source, content_hash, config_hash FROM gochunk_documents`)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	defer rows.Close()
	out := map[string]State{}
	for rows.Next() {
		var id string
		var st State
		if err := rows.Scan(&id, &st.Source, &st.ContentHash, &st.ConfigHash); err != nil {
			return nil, err
		}
		out[id] = st
	}
	return out, rows.Err()
}

// Replace implements Store.
func (s *SQLite) Replace(ctx context.Context, puts ...Put) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.upgradeOld(ctx, tx); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO gochunk_chunks (document_id, chunk_index, start_byte, end_byte,
			start_rune, end_rune, spans, token_count, text, metadata, stats, embedding, embed_text, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		ivf, err := s.ivfWriterFor(ctx, tx)
		if err != nil {
			return err
		}
		defer ivf.close()
		kw, err := s.bm25WriterFor(ctx, tx)
		if err != nil {
			return err
		}
		for _, put := range puts {
			if err := sqlitePut(ctx, tx, ins, ivf, kw, put); err != nil {
				return err
			}
		}
		if err := kw.finish(ctx); err != nil {
			return err
		}
		return ivf.finish(ctx)
	})
	if err != nil {
		return err
	}
	if err := s.ivfAfterWrite(ctx); err != nil {
		return fmt.Errorf("store %s: build the vector index: %w", s.path, err)
	}
	return nil
}

func sqlitePut(ctx context.Context, tx *sql.Tx, ins *sql.Stmt, ivf *ivfWriter, kw *kwWriter, put Put) error {
	doc := put.Document
	meta, err := metaJSON(doc.Metadata)
	if err != nil {
		return fmt.Errorf("metadata of %s: %w", doc.ID, err)
	}
	if err := ivf.remove(ctx, doc.ID); err != nil {
		return err
	}
	if err := kw.removeDoc(ctx, doc.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gochunk_chunks WHERE document_id = ?`, doc.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO gochunk_documents (id, source, content_hash, config_hash, metadata, updated_at, text) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET source = excluded.source, content_hash = excluded.content_hash,
		config_hash = excluded.config_hash, metadata = excluded.metadata, updated_at = excluded.updated_at, text = excluded.text`,
		doc.ID, doc.Source, doc.ContentHash, doc.ConfigHash, nullString(meta), time.Now().UTC().Format(time.RFC3339Nano), nullText(doc.Text)); err != nil {
		return err
	}
	for chunks := put.Chunks; ; {
		for _, c := range chunks {
			r, err := toRow(c)
			if err != nil {
				return err
			}
			res, err := ins.ExecContext(ctx, doc.ID, r.index, r.start, r.end, r.startRune, r.endRune, nullString(r.spans),
				r.tokens, r.text, nullString(r.metadata), nullString(r.stats), encodeVector(c.Embedding), nullText(c.EmbedText), nullString(r.where))
			if err != nil {
				return fmt.Errorf("chunk %d of %s: %w", r.index, doc.ID, err)
			}
			if c.Embedding != nil {
				id, err := res.LastInsertId()
				if err == nil {
					err = ivf.add(ctx, id, c.Embedding)
				}
				if err != nil {
					return fmt.Errorf("index chunk %d of %s's vector: %w", r.index, doc.ID, err)
				}
			}
		}
		if put.More == nil {
			break
		}
		if chunks, err = put.More(ctx); err != nil {
			return err
		}
		if len(chunks) == 0 {
			break
		}
	}
	// The chunks' words go into the keyword index, the store's only
	// one (bm25.go): each text is tokenised once.
	return kw.addDoc(ctx, doc.ID)
}

// nullText stores an empty text as NULL.
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullString stores empty JSON as NULL.
func nullString(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// Delete implements Store.
func (s *SQLite) Delete(ctx context.Context, ids ...string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.upgradeOld(ctx, tx); err != nil {
			return err
		}
		ivf, err := s.ivfWriterFor(ctx, tx)
		if err != nil {
			return err
		}
		defer ivf.close()
		kw, err := s.bm25WriterFor(ctx, tx)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := ivf.remove(ctx, id); err != nil {
				return err
			}
			if err := kw.removeDoc(ctx, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM gochunk_chunks WHERE document_id = ?`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM gochunk_documents WHERE id = ?`, id); err != nil {
				return err
			}
		}
		if err := kw.finish(ctx); err != nil {
			return err
		}
		return ivf.finish(ctx)
	})
}

// Counts implements Store.
func (s *SQLite) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM gochunk_documents), (SELECT count(*) FROM gochunk_chunks),
		(SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size())`).Scan(&c.Documents, &c.Chunks, &c.Bytes)
	if err != nil {
		return c, fmt.Errorf("store %s: %w", s.path, err)
	}
	if c.Chunks > 0 {
		c.BytesPerChunk = math.Round(float64(c.Bytes)/float64(c.Chunks)*10) / 10
	}
	if c.VectorIndex, err = s.indexName(ctx); err != nil {
		return c, fmt.Errorf("store %s: %w", s.path, err)
	}
	return c, nil
}

// Meta implements Store.
func (s *SQLite) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM gochunk_meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store %s: %w", s.path, err)
	}
	return v, nil
}

// SetMeta implements Store.
func (s *SQLite) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO gochunk_meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	return nil
}

// Close implements Store.
func (s *SQLite) Close() error { return errors.Join(s.rdb.Close(), s.db.Close(), s.kw.close()) }

// DocumentText implements Store.
func (s *SQLite) DocumentText(ctx context.Context, id string, start, end int) (string, bool, error) {
	var b []byte
	var kept bool
	start = max(start, 0)
	err := s.db.QueryRowContext(ctx, `SELECT text IS NOT NULL, substr(CAST(text AS BLOB), ?, ?) FROM gochunk_documents WHERE id = ?`,
		start+1, max(end-start, 0), id).Scan(&kept, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store %s: %w", s.path, err)
	}
	return string(b), kept, nil
}

// Offsets implements Store.
func (s *SQLite) Offsets(ctx context.Context, id string, from, to int) ([]Span, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT chunk_index, start_byte, end_byte, start_rune, end_rune FROM gochunk_chunks
		WHERE document_id = ? AND chunk_index BETWEEN ? AND ? ORDER BY chunk_index`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Span
	for rows.Next() {
		var sp Span
		if err := rows.Scan(&sp.Index, &sp.Start, &sp.End, &sp.StartRune, &sp.EndRune); err != nil {
			return nil, fmt.Errorf("store %s: %w", s.path, err)
		}
		out = append(out, sp)
	}
	return out, rows.Err()
}

// Vectors implements Store.
func (s *SQLite) Vectors(ctx context.Context, id string) (map[string][]float32, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT coalesce(embed_text, text), embedding FROM gochunk_chunks WHERE document_id = ? AND embedding IS NOT NULL`, id)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var text string
		var blob []byte
		if err := rows.Scan(&text, &blob); err != nil {
			return nil, fmt.Errorf("store %s: %w", s.path, err)
		}
		out[text] = decodeVector(nil, blob)
	}
	return out, rows.Err()
}

const sqliteColumns = `c.document_id, c.chunk_index, c.start_byte, c.end_byte, c.start_rune, c.end_rune, c.spans, c.token_count, c.text, c.metadata, c.stats, c.embed_text, c.provenance`

// Search implements Store. Vector search uses the store's vector index
// once it is trained (ivf.go, sparse.go) and scans every stored vector
// before that or with Query.Exact; keyword search ranks by FTS5's BM25
// over the chunks' words with the keyword index (bm25*.go; in a store of
// schema 5 or earlier not yet prepared, with its FTS5 index, bounded by
// the query's rarest words in a large store: keyword.go); a hybrid search
// runs both at once and fuses them.
func (s *SQLite) Search(ctx context.Context, q Query) ([]Hit, error) {
	// A search reads in several statements, between which a writer may
	// delete a chunk it ranked (or migrate the store off FTS5): it is
	// run again, after a pause that grows (a run of writes each deleting
	// a ranked chunk in turn is unlikely to last).
	for try := 1; ; try++ {
		hits, err := s.search(ctx, q)
		if err != nil && ctx.Err() == nil {
			// OpenSQLite refused a newer store; one a newer gochunk
			// migrated since (under a long-running serve) is named as
			// such where its tables no longer read as this one's.
			if v, verr := metaOf(ctx, s.rdb, "schema_version"); verr == nil {
				if newer := newerSchema(v); newer != nil {
					return nil, fmt.Errorf("store %s: %w", s.path, newer)
				}
			}
		}
		if !(errors.Is(err, errChunkGone) || errors.Is(err, errFTS5Gone)) || try == 8 {
			return hits, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(1<<try) * time.Millisecond):
		}
	}
}

// errChunkGone is a chunk a search ranked, deleted before it was read.
var errChunkGone = errors.New("a chunk disappeared during the search: search again")

func (s *SQLite) search(ctx context.Context, q Query) ([]Hit, error) {
	keyword := func(q Query) ([]Hit, error) { return s.keywordSearch(ctx, q) }
	if err := q.check(); err == nil && q.Mode == Hybrid {
		// The keyword half runs beside the vector half, on its own
		// connection.
		type result struct {
			hits []Hit
			err  error
		}
		done := make(chan result, 1)
		go func() {
			hits, err := s.keywordSearch(ctx, q)
			done <- result{hits, err}
		}()
		keyword = func(Query) ([]Hit, error) {
			r := <-done
			return r.hits, r.err
		}
	}
	hits, err := search(q, func(q Query) ([]Hit, error) { return s.vectorSearch(ctx, q) }, keyword)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	return hits, nil
}

func (s *SQLite) vectorSearch(ctx context.Context, q Query) ([]Hit, error) {
	if q.filtered() {
		best, err := s.filteredVectorSearch(ctx, q)
		if err != nil {
			return nil, err
		}
		return s.hits(ctx, best)
	}
	if !q.Exact {
		best, ok, err := s.ivfSearch(ctx, q)
		if err != nil {
			return nil, err
		}
		if ok {
			return s.hits(ctx, best)
		}
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding FROM gochunk_chunks WHERE embedding IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	best := topK{k: q.K}
	var v []float32
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			rows.Close()
			return nil, err
		}
		if d := vectorDims(blob); d != len(q.Vector) {
			rows.Close()
			return nil, fmt.Errorf("stored vectors have %d dimensions, the query's %d: search with the embedder that indexed the store", d, len(q.Vector))
		}
		v = decodeVector(v, blob)
		best.offer(candidate{rowid: id, score: cosine(q.Vector, v)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return s.hits(ctx, best.best)
}

// hits reads the records of scored chunks, best first.
func (s *SQLite) hits(ctx context.Context, best []candidate) ([]Hit, error) {
	hits := make([]Hit, 0, len(best))
	for _, c := range best {
		h, err := s.hit(ctx, `SELECT `+sqliteColumns+` FROM gochunk_chunks c WHERE c.id = ?`, c.rowid)
		if err != nil {
			return nil, err
		}
		h.Score = c.score
		hits = append(hits, h)
	}
	sortHits(hits)
	return hits, nil
}

func (s *SQLite) keywordSearch(ctx context.Context, q Query) ([]Hit, error) {
	w := words(q.Text)
	if len(w) == 0 {
		return nil, nil
	}
	// The keyword index (bm25.go), once built: FTS5's ranking (every
	// matching chunk scored with q.Exact).
	hits, ok, err := s.keywordIndexed(ctx, q, w)
	if err != nil || ok {
		return hits, err
	}
	// A store of schema 5 or earlier not yet prepared: its FTS5 index.
	return s.keywordFTS5(ctx, q, w)
}

// errFTS5Gone is the FTS5 index of a store of schema 5 or earlier, dropped
// by its migration while a search was about to use it.
var errFTS5Gone = errors.New("the store was migrated during the search: search again")

// keywordFTS5 ranks by the FTS5 index of a store of schema 5 or earlier
// (errFTS5Gone when another process has just migrated it: the keyword
// index answers the search run again).
func (s *SQLite) keywordFTS5(ctx context.Context, q Query, w []string) ([]Hit, error) {
	hits, err := s.ftsRank(ctx, q, w)
	if err != nil && strings.Contains(err.Error(), "no such table: gochunk_chunks_fts") {
		return nil, fmt.Errorf("%w (%v)", errFTS5Gone, err)
	}
	return hits, err
}

func (s *SQLite) ftsRank(ctx context.Context, q Query, w []string) ([]Hit, error) {
	if !q.Exact && !q.filtered() {
		// Bounded by the rarest words (keyword.go); a filtered search
		// scores only the kept chunks' rows already.
		rare, common, err := s.keywordWords(ctx, w)
		if err != nil {
			return nil, err
		}
		if len(common) > 0 {
			return s.keywordBounded(ctx, q, rare, common)
		}
	}
	where, args := `gochunk_chunks_fts MATCH ?`, []any{orPhrases(w)}
	if q.filtered() { // the filters' hook (filter.go)
		cond, fargs := sqliteFilter(q)
		where += ` AND rowid IN (SELECT c.id FROM gochunk_chunks c JOIN gochunk_documents d ON d.id = c.document_id WHERE ` + cond + `)`
		args = append(args, fargs...)
	}
	// The k best rows are ranked first, then only they are read (joined
	// before the ranking, every match's row was read: half the time of a
	// query of common words).
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+sqliteColumns+`, r.score FROM (SELECT rowid AS id, -bm25(gochunk_chunks_fts) AS score
		FROM gochunk_chunks_fts WHERE `+where+` ORDER BY bm25(gochunk_chunks_fts) LIMIT ?) r
		JOIN gochunk_chunks c ON c.id = r.id ORDER BY r.score DESC, c.id`, append(args, q.K)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(rows)
}

func (s *SQLite) hit(ctx context.Context, query string, args ...any) (Hit, error) {
	return readHit(ctx, s.rdb, query, args...)
}

// readHit reads one chunk's row through db (errChunkGone when it is gone).
func readHit(ctx context.Context, db querier, query string, args ...any) (Hit, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return Hit{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Hit{}, err
		}
		return Hit{}, errChunkGone
	}
	return scanHit(rows, false)
}

// scanner is what sql.Rows and pgx.Rows share.
type scanner interface{ Scan(dest ...any) error }

// scanHit reads the columns of sqliteColumns (and a score when scored).
func scanHit(rows scanner, scored bool) (Hit, error) {
	var h Hit
	var spans, meta, stats, where []byte
	var embedText *string
	dest := []any{&h.Source, &h.ChunkIndex, &h.Start, &h.End, &h.StartRune, &h.EndRune, &spans, &h.TokenCount, &h.Text, &meta, &stats, &embedText, &where}
	if scored {
		dest = append(dest, &h.Score)
	}
	if err := rows.Scan(dest...); err != nil {
		return h, err
	}
	if embedText != nil {
		h.EmbedText = *embedText
	}
	return h, h.fromColumns(spans, meta, stats, where)
}
