// Package mcpserver is gochunk's Model Context Protocol server: the tools
// an agent searches an index with (search, with parents, sections, windows
// and auto-merging), chunks and extracts files with (chunk, extract), fills
// the index with (index, when allowed) and learns what the index holds
// with (sources), and the indexed documents as resources, named by
// gochunk:// URIs that say a source and a span of its text.
//
// Every tool runs through the library the command line and the HTTP
// server use: package index's Searcher and Run, package pipeline's Stream
// and Load. Files are read only inside the roots the server was given,
// after resolving symbolic links and "..", and, where the client declares
// roots of its own, only inside those too. Results are bounded in size
// (Config.MaxResultBytes), with a note that says how to ask for the rest.
//
// Serve it over standard input and output with Run (a desktop agent or an
// IDE starts "gochunk mcp"), or over streamable HTTP with Handler (gochunk
// serve mounts it at /mcp).
package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// DefaultMaxResultBytes bounds the text a tool result or a resource read
// returns when Config.MaxResultBytes is 0: about 50,000 tokens, what an
// agent's context can take in one answer.
const DefaultMaxResultBytes = 200_000

// Config configures a Server.
type Config struct {
	// Store is the index searched, listed and (with AllowIndex) filled.
	Store store.Store
	// Where names the store in what the sources tool reports (a SQLite
	// file, a PostgreSQL URL without its password).
	Where string
	// Pipeline chunks, extracts and indexes: its chunker and parameters
	// are the chunk tool's defaults and what the index tool indexes with.
	Pipeline *pipeline.Pipeline
	// Embedder completes the configuration of the embedder that indexed
	// the store (caches, ONNX Runtime), as gochunk search's flags do;
	// with OverrideEmbedder, it is used instead (see index.NewSearcher).
	Embedder         pipeline.EmbedderConfig
	OverrideEmbedder bool
	// Roots are the directories (or files) whose files the tools may read.
	// Without any, the tools read no file unless ClientRoots is set and
	// the client declares roots.
	Roots []string
	// ClientRoots lets the roots a client declares stand for Roots when
	// there are none (a local agent over standard input, whose user is
	// the server's). With Roots, the client's roots only narrow them.
	ClientRoots bool
	// AllowIndex enables the index tool; Index is its options (Embed,
	// Jobs; Progress is the server's own).
	AllowIndex bool
	Index      index.Options
	// MaxResultBytes bounds a tool result's or a resource read's text (0:
	// DefaultMaxResultBytes).
	MaxResultBytes int
	// Reserve, when set, takes bytes from a memory budget before a tool
	// reads or chunks (gochunk serve's budget); release gives them back.
	Reserve func(ctx context.Context, n int64) (release func(), err error)
	// Version is reported to clients as the server's version.
	Version string
	// Log, when set, hears of the sessions and of failed calls.
	Log *slog.Logger
}

// Server is an MCP server over a gochunk index. Create it with New; it is
// safe for concurrent use by many sessions.
type Server struct {
	cfg   Config
	roots []string // resolved: absolute, symbolic links followed
	// given are the roots as given, made absolute: a path under one is
	// checked, once resolved, against roots (a root may be a link).
	given []string
	srv   *mcp.Server

	mu     sync.Mutex
	search *index.Searcher // made on first use: the store may be empty at start

	indexing sync.Mutex // one index run at a time
	docs     []string   // the documents listed as resources
}

// New returns a server for cfg, with its tools and resources registered.
// A root that does not exist is an error.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Pipeline == nil {
		return nil, errors.New("mcpserver: a store and a pipeline are needed")
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg}
	for _, r := range cfg.Roots {
		real, err := realPath(r)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		abs, _ := filepath.Abs(r)
		s.roots, s.given = append(s.roots, real), append(s.given, abs)
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "gochunk", Title: "gochunk", Version: cmp.Or(cfg.Version, "devel")}, &mcp.ServerOptions{
		Instructions: s.instructions(),
		Logger:       cfg.Log,
		Capabilities: &mcp.ServerCapabilities{},
	})
	// A panic in a handler (a bug, never an input's fault) answers its
	// request with an error instead of ending the process and every
	// session with it.
	s.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					s.cfg.Log.Error("panic", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					res, err = nil, fmt.Errorf("internal error in %s: %v", method, p)
				}
			}()
			return next(ctx, method, req)
		}
	})
	s.addTools()
	s.addResources()
	if err := s.refreshResources(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// instructions tells the client what the server offers and how to start.
func (s *Server) instructions() string {
	var b strings.Builder
	b.WriteString("gochunk searches an index of documents and chunks and extracts files. ")
	b.WriteString("Use search to find passages (each hit has its source, lines or pages, and a gochunk:// link to its exact span, readable as a resource); ")
	b.WriteString("expand=parent|section|window:N returns more text around each hit. ")
	b.WriteString("Use sources to see what the index holds, extract for a file's text and structure, chunk to split text or a file as gochunk chunk does. ")
	if s.cfg.AllowIndex {
		b.WriteString("index adds or refreshes files in the index. ")
	}
	if len(s.roots) > 0 {
		fmt.Fprintf(&b, "Files are readable under: %s.", strings.Join(s.roots, ", "))
	}
	return b.String()
}

// Run serves one client over t (mcp.StdioTransport for a desktop agent)
// until the client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.srv.Run(ctx, t)
}

// MCP returns the SDK's server, to connect transports to it directly.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Handler returns the streamable HTTP handler of the server: each client
// gets a session (the Mcp-Session-Id header), over which progress
// notifications and cancellation travel. Sessions idle for an hour are
// closed.
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: time.Hour, Logger: s.cfg.Log})
}

// searcher returns the store's searcher, made when the store first holds
// an index.
func (s *Server) searcher(ctx context.Context) (*index.Searcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.search != nil {
		return s.search, nil
	}
	se, err := index.NewSearcher(ctx, s.cfg.Store, s.cfg.Embedder, s.cfg.OverrideEmbedder)
	if err != nil {
		return nil, err
	}
	s.search = se
	return se, nil
}

// forgetSearcher drops the searcher after an index run, which may have
// changed the store's embedder.
func (s *Server) forgetSearcher() {
	s.mu.Lock()
	s.search = nil
	s.mu.Unlock()
}

// errOutside is wrapped by the errors of paths outside the allowed roots.
var errOutside = errors.New("outside the allowed roots")

// realPath returns p made absolute, cleaned and with its symbolic links
// followed; p must exist.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within tells whether path p is root or under it (both cleaned).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve returns the real path of p, a file or directory that a tool of
// session ss wants to read, or an error an agent can act on when it is
// outside the allowed roots or does not exist. A relative p is taken
// under each root in turn.
func (s *Server) resolve(ctx context.Context, ss *mcp.ServerSession, p string) (string, error) {
	if p == "" {
		return "", errors.New("path: empty; give a file or directory under an allowed root")
	}
	roots, err := s.allowedRoots(ctx, ss)
	if err != nil {
		return "", err
	}
	switch {
	case len(roots) == 0 && len(s.roots) > 0:
		return "", fmt.Errorf("path %q: %w: no file is readable, as the client's roots and the server's (%s) do not overlap", p, errOutside, strings.Join(s.roots, ", "))
	case len(roots) == 0:
		return "", fmt.Errorf("path %q: %w: this server reads no files (start gochunk mcp with ROOT directories)", p, errOutside)
	}
	var candidates []string
	if filepath.IsAbs(p) {
		candidates = []string{p}
	} else {
		for _, r := range roots {
			candidates = append(candidates, filepath.Join(r, p))
		}
	}
	var firstErr error
	for _, c := range candidates {
		abs := filepath.Clean(c)
		if !s.anyWithin(roots, abs) && !s.anyWithin(s.given, abs) {
			// Checked before the file system is: whether a path outside
			// the roots exists is not told.
			return "", fmt.Errorf("path %q: %w (%s); give a path under one of them", p, errOutside, strings.Join(roots, ", "))
		}
		real, err := filepath.EvalSymlinks(abs)
		switch {
		case err != nil:
			firstErr = cmp.Or(firstErr, err)
			continue
		case !s.anyWithin(roots, real):
			return "", fmt.Errorf("path %q: %w (%s): a symbolic link on its way leads out of them; give a path under one of them", p, errOutside, strings.Join(roots, ", "))
		}
		return real, nil
	}
	if errors.Is(firstErr, os.ErrNotExist) {
		return "", fmt.Errorf("path %q: no such file or directory under the allowed roots (%s); the sources tool lists what is indexed", p, strings.Join(roots, ", "))
	}
	return "", fmt.Errorf("path %q: %w", p, firstErr)
}

func (s *Server) anyWithin(roots []string, p string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return within(r, p) })
}

// allowedRoots returns the roots session ss may read under: the server's,
// narrowed to those of them within the client's roots (or the client's
// within them) where the client lists roots that exist here; the
// client's alone when the server has none and ClientRoots is set. A
// client that lists no roots, or only roots this machine does not have
// (a client on another machine, over HTTP), does not narrow them.
func (s *Server) allowedRoots(ctx context.Context, ss *mcp.ServerSession) ([]string, error) {
	client, _, err := s.clientRoots(ctx, ss)
	if err != nil {
		return nil, err
	}
	if len(client) == 0 {
		return s.roots, nil
	}
	if len(s.roots) == 0 {
		if s.cfg.ClientRoots {
			return client, nil
		}
		return nil, nil
	}
	var out []string
	for _, r := range s.roots {
		for _, c := range client {
			switch {
			case within(c, r):
				out = append(out, r)
			case within(r, c):
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// clientRoots asks the client for its roots, where it declares them, as
// real paths (roots that do not exist here are left out).
func (s *Server) clientRoots(ctx context.Context, ss *mcp.ServerSession) (roots []string, declared bool, err error) {
	if ss == nil {
		return nil, false, nil
	}
	ip := ss.InitializeParams()
	// From protocol version 2026-07-28 on, roots are deprecated and a
	// server may not ask for them while serving a request: only the
	// server's roots apply.
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil || ip.ProtocolVersion >= "2026-07-28" {
		return nil, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("the client declares roots but did not list them: %w", err)
	}
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" {
			continue
		}
		if real, err := realPath(filepath.FromSlash(u.Path)); err == nil {
			roots = append(roots, real)
		}
	}
	return roots, true, nil
}
