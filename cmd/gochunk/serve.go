package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
	"github.com/gochunk/gochunk/server"
	"github.com/gochunk/gochunk/store"
)

// envName is the environment variable of serve's flag flagName: the
// reference server's name, else GOCHUNK_<FLAG> ("_" for "-").
func envName(flagName string) string {
	ref := map[string]string{"port": "PORT", "max-batch-tokens": "MAX_BATCH_TOKENS", "read-timeout": "READ_TIMEOUT_SECONDS",
		"write-timeout": "WRITE_TIMEOUT_SECONDS", "request-timeout": "REQUEST_TIMEOUT_SECONDS", "shutdown-grace": "SHUTDOWN_GRACE_SECONDS",
		"body-limit": "BODY_LIMIT_BYTES", "max-documents": "MAX_DOCUMENTS", "max-concurrent": "MAX_CONCURRENT",
		"max-memory": "MAX_MEMORY_BYTES"}
	return cmp.Or(ref[flagName], "GOCHUNK_"+strings.ToUpper(strings.ReplaceAll(flagName, "-", "_")))
}

func cmdServe(e env, args []string) int {
	fs := flagSet(e, "gochunk serve", `Usage: gochunk serve [flags]

Serves the HTTP API: POST /embed (the reference server's batch API),
POST /v1/chunk, POST /v1/embeddings and GET /v1/models (OpenAI's),
GET /v1/chunkers, /healthz, /readyz, /metrics, /openapi.json. Settings come
from the flags, then the environment (the reference server's PORT,
MAX_BATCH_TOKENS, *_TIMEOUT_SECONDS, BODY_LIMIT_BYTES, MAX_MEMORY_BYTES…;
GOCHUNK_<FLAG> for the others), then --config, then the defaults. SIGTERM
or SIGINT stops accepting and lets in-flight requests finish. With --mcp it
also serves MCP (streamable HTTP) at /mcp: gochunk mcp's tools over --store.

--config FILE is the configuration gochunk chunk, index and eval read (and
gochunk tune writes) with serve's settings beside: its chunker, the
chunker's parameters (size, overlap, …), context and parents are how
POST /v1/chunk chunks a request that names no chunker (the request's own
config, context and parents replace the parts they give); a request that
names a chunker takes none of them. Without a chunker there, such a
request gets the recursive chunker at its defaults. Its tokenizer, like
its embedder, is the server's for every request (--tokenizer).

Images (PNG, JPEG, TIFF, WebP, BMP, GIF) and PDF pages without text are
read by OCR as gochunk chunk reads them, with the server's OCR settings
(requests cannot choose them): --ocr-model DIR or hf:REPO (the PP-OCR
models, GOCHUNK_OCR_MODEL), or --ocr openai:MODEL (a vision chat model at
--llm-url, a document's pages sent --llm-concurrency at once); --ocr
always|never|auto, --ocr-dpi, --ocr-max-pixels and --ocr-int8 as chunk's. The models
load at start; each page read reserves its memory from --max-memory
while it is read. Without OCR, an image is answered 415.

It listens on 127.0.0.1 (this machine only) unless --addr (GOCHUNK_ADDR)
says otherwise: --addr 0.0.0.0 opens it to the network, at --port; set
--token too, or it warns at start. The log's "serving" line says
the address it listens on.

Flags:
`)
	cfg := server.DefaultConfig()
	pf := pipelineFlags(e)
	pf.RegisterResources(fs)
	pf.RegisterReading(fs)
	pipelineflag.RegisterOCR(fs, &pf.Cfg.OCR)
	configPath := fs.String("config", "", "JSON or YAML `FILE` of settings: the flags' names (with - or _) and the chunking configuration of requests that name no chunker (chunker, its parameters, context, parents: as gochunk chunk --config reads it), e.g. {\"port\": 9000, \"embedder\": \"static:minishlab/potion-base-8M\", \"chunker\": \"markdown\", \"size\": 300, \"parents\": 3000}")
	port := fs.Int("port", 8080, "port to listen on, at the host of --addr")
	fs.StringVar(&cfg.Addr, "addr", "", "where to listen: `HOST`, HOST:PORT or :PORT (every interface); a PORT here overrides --port. Default 127.0.0.1, this machine only; 0.0.0.0 opens the server to the network (set --token)")
	for name, d := range map[string]*time.Duration{"read-timeout": &cfg.ReadTimeout, "write-timeout": &cfg.WriteTimeout,
		"request-timeout": &cfg.RequestTimeout, "shutdown-grace": &cfg.ShutdownGrace, "queue-wait": &cfg.QueueWait} {
		pipelineflag.SecondsVar(fs, d, name, fmt.Sprintf("seconds allowed for the %s (default %v)", strings.ReplaceAll(name, "-", " "), d.Seconds()))
	}
	fs.Int64Var(&cfg.BodyLimit, "body-limit", cfg.BodyLimit, "largest request body in bytes")
	fs.IntVar(&cfg.MaxDocuments, "max-documents", cfg.MaxDocuments, "documents per request")
	fs.IntVar(&cfg.MaxConcurrent, "max-concurrent", cfg.MaxConcurrent, "requests served at once; more get 429")
	pipelineflag.BytesVar(fs, "max-memory", "memory budget, bytes or with a unit (2GiB): requests reserve their estimate from it, wait --queue-wait, then get 503 (413 when they could never fit); default: 3/4 of the container's or machine's memory", &cfg.MaxMemory)
	fs.StringVar(&cfg.Token, "token", "", "bearer token required by the API")
	where := fs.String("store", "", "a store gochunk index filled (SQLite file or postgres:// URL), searched by POST /v1/search")
	var level slog.Level
	fs.TextVar(&level, "log-level", slog.LevelInfo, "debug, info, warn or error")
	mcpOn := fs.Bool("mcp", false, "also serve MCP (streamable HTTP) at /mcp over --store (see gochunk mcp), behind --token")
	var mcpRoots pipelineflag.List
	fs.Var(&mcpRoots, "mcp-root", "a `DIR` whose files /mcp's tools may read (repeatable; none: no files)")
	mcpIndex := fs.Bool("mcp-allow-index", false, "offer /mcp's index tool: clients may add files under --mcp-root to --store")
	mcpConfig := fs.String("mcp-config", "", "JSON or YAML `FILE` of what /mcp's index and chunk tools chunk with, as gochunk index --config reads it (chunker, size, parents, context)")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	chunking, err := pipelineflag.Layer(fs, *configPath, envName)
	if err != nil {
		return fail(e, "serve", err)
	}
	if chunking != nil {
		if cfg.Chunking, err = pipelineflag.ChunkingConfig(*configPath, chunking); err != nil {
			return fail(e, "serve", err)
		}
	}
	pcfg, err := pf.Config()
	if err != nil {
		return fail(e, "serve", err)
	}
	cfg.Pipeline = pcfg
	if *where != "" {
		if cfg.Store, err = store.Open(e.ctx, *where); err != nil {
			return fail(e, "serve", err)
		}
		defer cfg.Store.Close()
	}
	if cfg.Addr, err = listenAddr(cfg.Addr, *port); err != nil {
		return fail(e, "serve", err)
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	setMCP := func(*server.Server) {}
	if *mcpOn {
		closeMCP, set, err := mountMCP(e, fs, &cfg, cmp.Or(*where, "gochunk.db"), mcpRoots, *mcpIndex, *mcpConfig, log)
		if err != nil {
			return fail(e, "serve", fmt.Errorf("--mcp: %w", err))
		}
		defer closeMCP()
		setMCP = set
	}
	srv, err := server.New(e.ctx, cfg, log)
	if err != nil {
		return fail(e, "serve", err)
	}
	setMCP(srv)
	if cfg.Token == "" && beyondLoopback(e.ctx, cfg.Addr) {
		log.Warn("listening beyond this machine without a token: anyone who can reach "+cfg.Addr+" can use the API; "+
			"set --token (GOCHUNK_TOKEN), or listen on 127.0.0.1 (the default without --addr)", "addr", cfg.Addr)
	}
	if err := srv.ListenAndServe(e.ctx); err != nil {
		return fail(e, "serve", err)
	}
	return exitOK
}

// defaultHost is where serve listens without --addr: this machine only,
// as Ollama and Jupyter do.
const defaultHost = "127.0.0.1"

// listenAddr makes the listening address of serve's --addr and --port:
// addr is empty (defaultHost at port), a host alone (at port: "0.0.0.0",
// "::1", "[::1]", "localhost"), HOST:PORT, or :PORT (every interface, as
// Go writes it).
func listenAddr(addr string, port int) (string, error) {
	if port < 0 || port > 65535 {
		return "", fmt.Errorf("%w: --port %d: want 0 to 65535", gochunk.ErrConfig, port)
	}
	if addr == "" {
		return net.JoinHostPort(defaultHost, strconv.Itoa(port)), nil
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		// No port: a host alone, an IPv6 address with or without brackets.
		host, p = addr, ""
		if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
			host = host[1 : len(host)-1]
		}
		if _, perr := netip.ParseAddr(host); perr != nil && strings.ContainsAny(host, ":[]") {
			return "", fmt.Errorf("%w: --addr %q: want HOST, HOST:PORT or :PORT, e.g. 0.0.0.0:8080", gochunk.ErrConfig, addr)
		}
	}
	if p == "" {
		p = strconv.Itoa(port)
	} else if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%w: --addr %q: port %q: want a number from 0 to 65535", gochunk.ErrConfig, addr, p)
	}
	return net.JoinHostPort(host, p), nil
}

// beyondLoopback reports whether a server listening at addr (HOST:PORT)
// can be reached from other machines: every interface (no host, 0.0.0.0,
// ::), an address that is not a loopback one, or a host name that
// resolves to one. A name that does not resolve is left to the listener
// to report.
func beyondLoopback(ctx context.Context, addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "" {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return !ip.Unmap().IsLoopback()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return true
		}
	}
	return false
}
