package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/internal/version"
	"github.com/gochunk/gochunk/mcpserver"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
	"github.com/gochunk/gochunk/server"
	"github.com/gochunk/gochunk/store"
)

func cmdMCP(e env, args []string) int {
	fs := flagSet(e, "gochunk mcp", `Usage: gochunk mcp [flags] [ROOT...]

Serves the Model Context Protocol over standard input and output, for a
desktop agent or an IDE that starts it: tools to search the index of
--store (search), to chunk text or a file (chunk), to read a file's text
and structure (extract), to see what the index holds (sources) and, with
--allow-index, to add or refresh files in it (index); the indexed
documents are resources (gochunk://doc/ID?start=B&end=B).

The tools read files only under the ROOT directories (symbolic links and
".." resolved) and, where the client declares roots (protocol versions
before 2026-07-28), only inside those too; without a ROOT, the client's
declared roots are used. The chunking flags set
what index indexes with and chunk's defaults; index them as you index
with gochunk index, so that a refresh does not redo everything.

Logs go to standard error; standard output carries the protocol only.
gochunk serve --mcp serves the same over streamable HTTP at /mcp.

Flags:
`)
	pf := pipelineFlags(e)
	pf.Register(fs)
	var where string
	storeFlag(fs, &where)
	allowIndex := fs.Bool("allow-index", false, "offer the index tool: the agent may add and refresh files under the ROOTs in the store")
	noEmbed := fs.Bool("no-embed", false, "the index tool stores text only (keyword search), no vectors")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "documents the index tool loads and chunks at once")
	keepDeleted := fs.Bool("keep-deleted", false, "the index tool keeps the documents a directory no longer holds")
	maxResult := fs.Int("max-result", mcpserver.DefaultMaxResultBytes, "bytes of text a tool result or resource read returns at most; longer ones are cut with a note saying how to get the rest")
	var level slog.Level
	fs.TextVar(&level, "log-level", slog.LevelInfo, "debug, info, warn or error (to standard error)")
	roots, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if *maxResult < 4096 {
		return fail(e, "mcp", usagef("--max-result %d: want at least 4096 bytes", *maxResult))
	}
	if *jobs < 1 {
		return fail(e, "mcp", usagef("--jobs must be at least 1"))
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	s, closeStore, err := newMCPServer(e.ctx, pf, mcpOptions{where: where, roots: roots, allowIndex: *allowIndex, clientRoots: true,
		index: index.Options{Embed: !*noEmbed, Jobs: *jobs, KeepDeleted: *keepDeleted}, maxResult: *maxResult, log: log})
	if err != nil {
		return fail(e, "mcp", err)
	}
	defer closeStore()
	stdin, _ := e.stdin.(*os.File)
	stdout, _ := e.stdout.(*os.File)
	var t mcp.Transport = &mcp.StdioTransport{}
	if stdin != os.Stdin || stdout != os.Stdout { // run in-process, as tests do
		t = &mcp.IOTransport{Reader: readCloser{e.stdin}, Writer: writeCloser{e.stdout}}
	}
	log.Info("serving MCP on standard input and output", "version", version.String(), "store", where, "roots", roots, "index", *allowIndex)
	if err := s.Run(e.ctx, t); err != nil && e.ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fail(e, "mcp", err)
	}
	return exitOK
}

// mcpOptions are what newMCPServer needs besides the pipeline flags.
type mcpOptions struct {
	where       string
	st          store.Store // when set, used instead of opening where
	roots       []string
	allowIndex  bool
	clientRoots bool
	index       index.Options
	maxResult   int
	reserve     func(ctx context.Context, n int64) (func(), error)
	log         *slog.Logger
}

// newMCPServer opens the store and builds the MCP server of gochunk mcp
// and gochunk serve --mcp; closeStore closes the store it opened.
func newMCPServer(ctx context.Context, pf *pipelineflag.Flags, o mcpOptions) (_ *mcpserver.Server, closeStore func(), err error) {
	for _, r := range o.roots {
		if _, err := os.Stat(r); err != nil {
			return nil, nil, usagef("ROOT %s: %v", r, err)
		}
	}
	if _, err := os.Stat(o.where); err != nil && o.st == nil && !store.IsPostgres(o.where) && !o.allowIndex {
		return nil, nil, usagef("store %s does not exist: index documents first (gochunk index --store %s DIR), or give --allow-index to let the agent index", o.where, o.where)
	}
	pl, err := pf.Build(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, closeStore := o.st, func() {}
	if st == nil {
		if st, err = store.Open(ctx, o.where); err != nil {
			return nil, nil, err
		}
		closeStore = func() { st.Close() }
	}
	s, err := mcpserver.New(ctx, mcpserver.Config{Store: st, Where: redactDSN(o.where), Pipeline: pl, Embedder: pf.Embedder(), OverrideEmbedder: pf.IsSet("embedder"),
		Roots: o.roots, ClientRoots: o.clientRoots, AllowIndex: o.allowIndex, Index: o.index, MaxResultBytes: o.maxResult,
		Reserve: o.reserve, Version: version.String(), Log: o.log})
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return s, closeStore, nil
}

// mountMCP adds gochunk serve's /mcp endpoint to cfg: the MCP server
// over the store at where, reading files under roots, served as
// streamable HTTP behind the server's token and memory budget. Its
// pipeline has serve's flags (fs: the embedder, the tokenizer, the model)
// and the chunking configuration of the file config (as gochunk index
// --config reads it; none: the defaults). The returned function hands it
// the server once made (for its budget).
func mountMCP(e env, fs *flag.FlagSet, cfg *server.Config, where string, roots []string, allowIndex bool, config string, log *slog.Logger) (closeStore func(), setServer func(*server.Server), err error) {
	pf := pipelineFlags(e)
	mfs := flag.NewFlagSet("gochunk serve --mcp", flag.ContinueOnError)
	mfs.SetOutput(io.Discard)
	pf.Register(mfs)
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if mfs.Lookup(f.Name) != nil && f.Name != "config" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	if config != "" {
		args = append(args, "--config", config)
	}
	if err := mfs.Parse(args); err != nil {
		return nil, nil, fmt.Errorf("--mcp-config: %w", err)
	}
	var srv *server.Server
	reserve := func(ctx context.Context, n int64) (func(), error) {
		if srv == nil {
			return func() {}, nil
		}
		return srv.Reserve(ctx, n)
	}
	s, closeStore, err := newMCPServer(e.ctx, pf, mcpOptions{where: where, st: cfg.Store, roots: roots, allowIndex: allowIndex,
		index: index.Options{Embed: true, Jobs: runtime.GOMAXPROCS(0)}, maxResult: mcpserver.DefaultMaxResultBytes, reserve: reserve, log: log})
	if err != nil {
		return nil, nil, err
	}
	if cfg.Mounts == nil {
		cfg.Mounts = map[string]http.Handler{}
	}
	cfg.Mounts["/mcp"] = s.Handler()
	return closeStore, func(s *server.Server) { srv = s }, nil
}

// redactDSN hides a PostgreSQL URL's password.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil && store.IsPostgres(dsn) {
		return u.Redacted()
	}
	return dsn
}

// readCloser and writeCloser are a command's standard input and output
// as the SDK's transport takes them (it closes them when the session
// ends: they stay open, the caller's).
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
