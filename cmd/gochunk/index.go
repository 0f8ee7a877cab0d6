package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/internal/progress"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
	"github.com/gochunk/gochunk/store"
)

// storeFlag registers --store: a SQLite file or a PostgreSQL URL.
func storeFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "store", cmp.Or(os.Getenv("DATABASE_URL"), "gochunk.db"), "where chunks are kept: a SQLite file, or a postgres:// URL (default $DATABASE_URL, else gochunk.db)")
}

func cmdIndex(e env, args []string) int {
	fs := flagSet(e, "gochunk index", `Usage: gochunk index [flags] SOURCE...

Chunks and embeds documents into a store, and keeps it in step: a rerun
embeds only new or changed documents, removes those a source no longer
holds, and redoes everything when the configuration changes. A SOURCE is a
file, a directory (walked recursively) or "-" (JSON Lines of {"id", "text",
"metadata"} on standard input); --table adds a PostgreSQL table.

Flags:
`)
	pf := pipelineFlags(e)
	pf.Register(fs)
	var opt index.Options
	var where string
	var tf tableFlags
	var include, exclude pipelineflag.List
	storeFlag(fs, &where)
	tf.register(fs)
	noEmbed := fs.Bool("no-embed", false, "store text only (keyword search), no vectors")
	fs.BoolVar(&opt.KeepDeleted, "keep-deleted", false, "keep the documents a source no longer holds")
	fs.IntVar(&opt.Jobs, "jobs", runtime.GOMAXPROCS(0), "documents loaded and chunked at once")
	fs.Var(&include, "include", "index only files matching this `GLOB` (of the path under the directory, or the name; repeatable)")
	fs.Var(&exclude, "exclude", "leave out files and directories matching this `GLOB` (repeatable)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	sources, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(sources) == 0 && tf.table == "" {
		return fail(e, "index", usagef("give a SOURCE (a file, a directory or -) or --table"))
	}
	opt.Embed = !*noEmbed
	if !pf.IsSet("embed-cache") && !pf.IsSet("cache-bytes") {
		pf.Cfg.Embedder.CacheBytes = 16 << 20 // chunks are mostly unique: keep memory flat
	}
	pl, err := pf.Build(e.ctx)
	if err != nil {
		return fail(e, "index", err)
	}
	st, err := store.Open(e.ctx, where)
	if err != nil {
		return fail(e, "index", err)
	}
	defer st.Close()
	if m, ok := st.(store.MigrationReporter); ok {
		m.ReportMigration(func(msg string) { fmt.Fprintln(e.stderr, "gochunk index: "+msg) })
	}
	// Two runs on one SQLite file would each write by what it read
	// before the other wrote: the second waits for the first.
	if l, ok := st.(store.RunLocker); ok {
		release, err := l.LockRun(e.ctx, func(holder string) {
			fmt.Fprintf(e.stderr, "gochunk index: %s holds %s; waiting for it to finish… (Ctrl-C to stop)\n", holder, where)
		})
		if err != nil {
			if e.ctx.Err() != nil {
				fmt.Fprintln(e.stderr, "gochunk index: interrupted")
				return exitInterrupted
			}
			return fail(e, "index", err)
		}
		defer release()
	}
	var srcs []index.Source
	for _, s := range sources {
		if s == "-" {
			srcs = append(srcs, index.JSONLines{Label: "-", R: e.stdin})
		} else {
			srcs = append(srcs, index.Files{Root: s, Include: include, Exclude: exclude, Images: pl.Config().OCR.Enabled()})
		}
	}
	if tf.table != "" {
		t, err := tf.source(e, where)
		if err != nil {
			return fail(e, "index", err)
		}
		defer t.Close()
		srcs = append(srcs, t)
		if tf.watch {
			if err := index.Watch(e.ctx, st, pl, t, opt, func(s index.Summary) { printSummary(e, s, *asJSON) }); err != nil {
				return fail(e, "index", err)
			}
			return exitOK
		}
	}
	bar := progress.NewCounter(e.stderr, "indexing", "documents", pf.ShowProgress())
	opt.Progress = func(int, string) { bar.Add(1) }
	sum, err := index.Run(e.ctx, st, pl, srcs, opt)
	bar.Finish()
	printSummary(e, sum, *asJSON)
	// An attachment that cannot be read is skipped with a warning naming
	// it (its message was read), as gochunk chunk does; a run whose only
	// failures are such exits 0.
	failed := 0
	for _, f := range sum.Failures {
		if f.Attachment {
			fmt.Fprintf(e.stderr, "gochunk index: %s: attachment skipped: %s\n", f.ID, strings.TrimPrefix(fileMessage(f.ID, f.Error), f.ID+": "))
			continue
		}
		failed++
		fmt.Fprintf(e.stderr, "gochunk index: %s\n", fileMessage(f.ID, f.Error))
	}
	if err != nil && !(errors.Is(err, index.ErrFailed) && failed == 0) {
		return fail(e, "index", err)
	}
	return exitOK
}

func printSummary(e env, s index.Summary, asJSON bool) {
	if b, _ := json.Marshal(s); asJSON {
		fmt.Fprintf(e.stdout, "%s\n", b)
		return
	}
	fmt.Fprintln(e.stdout, s)
}

func cmdSearch(e env, args []string) int {
	fs := flagSet(e, "gochunk search", `Usage: gochunk search [flags] QUERY

Finds the chunks of a store (see gochunk index) nearest to QUERY: by vector
(with the embedder that indexed the store, unless --embedder names
another), by keyword (full-text search), or both fused by reciprocal rank.

Flags:
`)
	pf := pipelineFlags(e)
	pf.RegisterEmbedder(fs)
	var where string
	storeFlag(fs, &where)
	k := fs.Int("k", 10, "number of hits")
	mode := fs.String("mode", "hybrid", "vector, keyword or hybrid")
	asJSON := fs.Bool("json", false, "one JSON object per hit: its record (source, chunk_index, text, start, end, …) and score")
	expandFlag := fs.String("expand", "none", "return more than each hit's chunk: parent (of a store indexed with --parents), section (from the heading above it to the next of its level) or window:N (N chunks each side), as exact spans")
	merge := fs.Int("merge", 0, "when `K` (2 or more) hits are children of one parent, return the parent in their place if that is the better use of the hits' budget: their scores, with those of its other children among the candidates ranked (50, or K when more), must add up to more than those of the hits its text would push out (auto-merging; needs --parents at indexing)")
	exact := fs.Bool("exact", false, "scan every vector instead of using the SQLite store's vector index (what a store of under 8,192 vectors does anyway)")
	probes := fs.Int("probes", 0, "lists of the SQLite store's vector index to read, or dimensions of the query for the lexical embedder's sparse vectors (default: the lists about as near the query as the nearest, 8 to a third of them, every dimension; more: nearer the exact scan, fewer: sooner; on PostgreSQL with pgvector, its hnsw.ef_search)")
	source := fs.String("source", "", "keep only hits of documents whose id (path) starts with this `PREFIX`, applied inside the search")
	var metaFilter pipelineflag.List
	fs.Var(&metaFilter, "where", "keep only hits whose metadata (or their document's) has `KEY=VALUE` (repeatable), applied inside the search")
	words, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	m, err := store.ParseMode(*mode)
	if err != nil || len(words) == 0 {
		return fail(e, "search", usagef("give a QUERY and --mode vector, keyword or hybrid"))
	}
	if *k < 1 {
		return fail(e, "search", usagef("--k %d: want at least 1 hit", *k))
	}
	x, err := index.ParseExpand(*expandFlag)
	if err != nil {
		return fail(e, "search", usagef("%v", err))
	}
	if *merge < 0 || *merge > 1000 {
		return fail(e, "search", usagef("--merge: want 2 to 1000 children of one parent, or 0"))
	}
	x.Merge = *merge
	if *probes < 0 {
		return fail(e, "search", usagef("--probes %d: want 1 or more lists, or 0 for the default", *probes))
	}
	var meta map[string]string
	for _, w := range metaFilter {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return fail(e, "search", usagef("--where %q: want KEY=VALUE", w))
		}
		if meta == nil {
			meta = map[string]string{}
		}
		meta[k] = v
	}
	if _, err := os.Stat(where); err != nil && !store.IsPostgres(where) {
		return fail(e, "search", fmt.Errorf("store %s: %w", where, index.ErrEmpty))
	}
	st, err := store.Open(e.ctx, where)
	if err != nil {
		return fail(e, "search", err)
	}
	defer st.Close()
	search, err := index.NewSearcher(e.ctx, st, pf.Embedder(), pf.IsSet("embedder"))
	if err != nil {
		return fail(e, "search", err)
	}
	hits, err := search.SearchExpand(e.ctx, store.Query{Text: strings.Join(words, " "), K: *k, Mode: m, Exact: *exact, Probes: *probes, SourcePrefix: *source, Metadata: meta}, x)
	if err != nil {
		return fail(e, "search", err)
	}
	for i, h := range hits {
		if *asJSON {
			b, _ := json.Marshal(h)
			fmt.Fprintf(e.stdout, "%s\n", b)
			continue
		}
		if x := h.Expanded; x != nil {
			fmt.Fprintf(e.stdout, "%d. %s #%d, %s [%d:%d] score %.4f\n%s\n\n", i+1, h.Source, h.ChunkIndex, x.Kind, x.Start, x.End, h.Score, x.Text)
			continue
		}
		fmt.Fprintf(e.stdout, "%d. %s #%d [%d:%d] score %.4f\n%s\n\n", i+1, h.Source, h.ChunkIndex, h.Start, h.End, h.Score, h.Text)
	}
	return exitOK
}

// tableFlags choose a PostgreSQL table as a source.
type tableFlags struct {
	t           index.Table
	table, from string
	text, meta  pipelineflag.List
	watch       bool
}

func (f *tableFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.table, "table", "", "index the rows of this PostgreSQL `TABLE` (with --text-column, --id-column)")
	fs.StringVar(&f.from, "table-db", "", "the table's database (default: --store when it is PostgreSQL, else $DATABASE_URL)")
	fs.StringVar(&f.t.ID, "id-column", "id", "the table's id column")
	fs.Var(&f.text, "text-column", "a text `COLUMN` of the table (repeatable: joined by a blank line)")
	fs.Var(&f.meta, "metadata-column", "a `COLUMN` kept as metadata (repeatable)")
	fs.BoolVar(&f.watch, "watch", false, "after indexing, keep the store in step with the table as rows change (a trigger-fed queue; several workers may run)")
}

func (f *tableFlags) source(e env, where string) (*index.Table, error) {
	dsn := f.from
	if dsn == "" && store.IsPostgres(where) {
		dsn = where
	}
	f.t.Table, f.t.Text, f.t.Metadata = f.table, f.text, f.meta
	return index.OpenTable(e.ctx, dsn, f.t)
}
