package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// Table is a PostgreSQL table as a source: each row is a document whose id
// is its ID column (as text), whose text is its Text columns joined by a
// blank line (NULL columns left out; a row whose text columns are all NULL
// fails), and whose metadata holds its Metadata columns.
type Table struct {
	Pool *pgxpool.Pool
	// Table is the table's name, optionally schema-qualified
	// (public.articles).
	Table    string
	ID       string
	Text     []string
	Metadata []string
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)

// OpenTable connects to the database at dsn ($DATABASE_URL when empty)
// and checks the table's names (letters, digits and underscores: they are
// quoted into SQL).
func OpenTable(ctx context.Context, dsn string, t Table) (*Table, error) {
	if dsn = cmp.Or(dsn, os.Getenv("DATABASE_URL")); dsn == "" {
		return nil, fmt.Errorf("%w: table source %s: no database: give its connection string (DATABASE_URL)", gochunk.ErrConfig, t.Table)
	}
	for _, n := range append(append(append(strings.Split(t.Table, "."), t.ID), t.Text...), t.Metadata...) {
		if !identRE.MatchString(n) {
			return nil, fmt.Errorf("table source: %q is not a plain identifier (letters, digits and _)", n)
		}
	}
	if len(t.Text) == 0 {
		return nil, errors.New("table source: give at least one text column")
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err == nil {
		err = pool.Ping(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("table source %s: %w", t.Table, err)
	}
	t.Pool = pool
	return &t, nil
}

// Close closes the connections.
func (t *Table) Close() { t.Pool.Close() }

// Name implements Source.
func (t *Table) Name() string { return "table:" + t.Table }

func quote(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	return strings.Join(parts, ".")
}

// selectRows is the query of the table's documents.
func (t *Table) selectRows(where string) string {
	cols := []string{quote(t.ID) + "::text"}
	for _, c := range t.Text {
		cols = append(cols, quote(c)+"::text")
	}
	meta := "NULL::jsonb"
	if len(t.Metadata) > 0 {
		var pairs []string
		for _, c := range t.Metadata {
			pairs = append(pairs, "'"+c+"', "+quote(c))
		}
		meta = "jsonb_build_object(" + strings.Join(pairs, ", ") + ")"
	}
	return "SELECT " + strings.Join(cols, ", ") + ", " + meta + " FROM " + quote(t.Table) + where
}

// scan reads a row of selectRows as a document.
func (t *Table) scan(rows pgx.Rows) (Doc, error) {
	var id *string
	texts := make([]*string, len(t.Text))
	var meta map[string]any
	dest := []any{&id}
	for i := range texts {
		dest = append(dest, &texts[i])
	}
	if err := rows.Scan(append(dest, &meta)...); err != nil {
		return Doc{}, fmt.Errorf("table %s: %w", t.Table, err)
	}
	if id == nil {
		return Doc{ID: "(NULL id)", Err: fmt.Errorf("a row of %s has a NULL %s", t.Table, t.ID)}, nil
	}
	var parts []string
	for _, s := range texts {
		if s != nil {
			parts = append(parts, *s)
		}
	}
	if len(parts) == 0 {
		return Doc{ID: *id, Err: fmt.Errorf("its text (%s) is NULL", strings.Join(t.Text, ", "))}, nil
	}
	return Doc{ID: *id, Text: strings.Join(parts, "\n\n"), Metadata: meta}, nil
}

// Docs implements Source, ordered by id.
func (t *Table) Docs(ctx context.Context, yield func(Doc) error) error {
	rows, err := t.Pool.Query(ctx, t.selectRows(" ORDER BY 1"))
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Table, err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := t.scan(rows)
		if err != nil {
			return err
		}
		if err := yield(d); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("table %s: %w", t.Table, err)
	}
	return nil
}

// queue is the name of the table's queue of changed ids.
func (t *Table) queue() string {
	return "gochunk_queue_" + strings.NewReplacer(".", "_").Replace(t.Table)
}

// installQueue creates the queue table and the trigger that fills it
// with the id of every row inserted, updated or deleted.
func (t *Table) installQueue(ctx context.Context) error {
	q, fn := t.queue(), t.queue()+"_enqueue"
	stmts := []string{
		`SELECT pg_advisory_xact_lock(hashtext('` + q + `'))`,
		`CREATE TABLE IF NOT EXISTS ` + q + ` (seq bigserial PRIMARY KEY, id text NOT NULL, queued_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
		`CREATE INDEX IF NOT EXISTS ` + q + `_id ON ` + q + ` (id)`,
		`CREATE OR REPLACE FUNCTION ` + fn + `() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF TG_OP IN ('UPDATE', 'DELETE') THEN INSERT INTO ` + q + ` (id) VALUES (OLD.` + quote(t.ID) + `::text); END IF;
			IF TG_OP IN ('INSERT', 'UPDATE') THEN INSERT INTO ` + q + ` (id) VALUES (NEW.` + quote(t.ID) + `::text); END IF;
			RETURN NULL;
		END $$`,
		`DROP TRIGGER IF EXISTS ` + q + ` ON ` + quote(t.Table),
		`CREATE TRIGGER ` + q + ` AFTER INSERT OR UPDATE OR DELETE ON ` + quote(t.Table) + ` FOR EACH ROW EXECUTE FUNCTION ` + fn + `()`,
	}
	return pgx.BeginFunc(ctx, t.Pool, func(tx pgx.Tx) error {
		var installed bool
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = $2::regclass)`, q, quote(t.Table)).Scan(&installed)
		if err != nil || installed {
			return err // installed: no DDL, which would wait on the table's readers
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// WatchBatch is the number of queued ids a worker claims at once.
const WatchBatch = 32

// Watch keeps the store in step with table as its rows change, like
// pgai's vectorizer worker: a trigger queues the id of each row inserted,
// updated or deleted; Watch first indexes the whole table (with cleanup),
// then claims queued ids (FOR UPDATE SKIP LOCKED, so several workers share
// the work without doing any twice), re-indexes or deletes their
// documents and removes them from the queue, in one transaction per
// batch, so a worker that dies leaves its claim to the others. It polls
// every second, calls report after each batch that did something, and
// returns when ctx is cancelled (nil) or on an error. The store must be
// the table's database (a *store.Postgres).
func Watch(ctx context.Context, st store.Store, p *pipeline.Pipeline, table *Table, opt Options, report func(Summary)) error {
	pg, ok := st.(*store.Postgres)
	if !ok {
		return errors.New("--watch keeps a PostgreSQL store in step with a table of the same database: give --store postgres://…")
	}
	if err := table.installQueue(ctx); err != nil {
		return fmt.Errorf("watch %s: install the queue: %w", table.Table, err)
	}
	sum, err := Run(ctx, st, p, []Source{table}, opt)
	report(sum)
	if err != nil && !errors.Is(err, ErrFailed) {
		return err
	}
	config := ConfigHash(p, opt)
	for {
		n, sum, err := watchBatch(ctx, pg, p, table, opt, config)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("watch %s: %w", table.Table, err)
		}
		if n > 0 {
			report(sum)
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// watchBatch claims up to WatchBatch queued ids and brings their
// documents up to date, in one transaction.
func watchBatch(ctx context.Context, pg *store.Postgres, p *pipeline.Pipeline, t *Table, opt Options, config string) (int, Summary, error) {
	began := time.Now()
	var sum Summary
	n := 0
	err := pgx.BeginFunc(ctx, pg.Pool(), func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT seq, id FROM `+t.queue()+` ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, WatchBatch)
		if err != nil {
			return err
		}
		var seqs []int64
		var ids []string
		seen := map[string]bool{}
		var seq int64
		var id string
		if _, err := pgx.ForEachRow(rows, []any{&seq, &id}, func() error {
			seqs = append(seqs, seq)
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
			return nil
		}); err != nil || len(ids) == 0 {
			return err
		}
		n = len(ids)
		// Lock the batch's documents in one order, so two workers whose
		// batches share documents wait for each other instead of
		// deadlocking.
		slices.Sort(ids)
		for _, id := range ids {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('gochunk document ' || $1))`, id); err != nil {
				return err
			}
		}
		docs := map[string]Doc{}
		rows, err = tx.Query(ctx, t.selectRows(" WHERE "+quote(t.ID)+"::text = ANY($1)"), ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			d, err := t.scan(rows)
			if err != nil {
				rows.Close()
				return err
			}
			docs[d.ID] = d
		}
		rows.Close()
		var gone []string
		var batch []Doc
		for _, id := range ids {
			if d, ok := docs[id]; ok {
				batch = append(batch, d)
			} else {
				gone = append(gone, id)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM gochunk_documents WHERE id = ANY($1) AND source = $2`, gone, t.Name()); err != nil {
			return err
		}
		sum.Documents.Deleted = len(gone)
		w := &txStore{Postgres: pg, tx: tx}
		known, err := w.states(ctx, ids)
		if err != nil {
			return err
		}
		r := &run{st: w, p: p, opt: opt, known: known, config: config, source: t.Name(), sum: &sum}
		if r.tokens, err = embeddedTokens(ctx, p, opt); err != nil {
			return err
		}
		for _, d := range batch {
			if err := r.add(ctx, d); err != nil {
				return err
			}
		}
		if err := r.flush(ctx); err != nil {
			return err
		}
		// Only the claimed entries: an id queued again meanwhile stays queued.
		_, err = tx.Exec(ctx, `DELETE FROM `+t.queue()+` WHERE seq = ANY($1)`, seqs)
		return err
	})
	if err == nil {
		sum.Store, err = pg.Counts(ctx)
	}
	sum.Seconds = time.Since(began).Seconds()
	return n, sum, err
}

// State is a stored document's state (re-exported for the watch mode).
type State = store.State

// txStore writes through the worker's transaction.
type txStore struct {
	*store.Postgres
	tx pgx.Tx
}

func (s *txStore) Replace(ctx context.Context, puts ...store.Put) error {
	return s.ReplaceTx(ctx, s.tx, puts...)
}

func (s *txStore) states(ctx context.Context, ids []string) (map[string]State, error) {
	return store.DocumentsOf(ctx, s.tx, ids)
}
