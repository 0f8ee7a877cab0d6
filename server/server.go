// Package server is gochunk's HTTP API: the reference semantic-chunking
// server's batch POST /embed, every chunker at POST /v1/chunk, an
// OpenAI-compatible POST /v1/embeddings, and the endpoints a deployment
// needs (health, readiness, Prometheus metrics, an OpenAPI description).
package server

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/inspect"
	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/store"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/version"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/tokenize"
)

// Config configures a Server. Zero fields take the defaults of
// DefaultConfig.
type Config struct {
	// Addr is ListenAndServe's address, HOST:PORT: 127.0.0.1:8080 (this
	// machine only) by default; ":8080" or "0.0.0.0:8080" listens on
	// every interface, where a Token should be set.
	Addr string
	// ReadTimeout and WriteTimeout bound reading a request and writing its
	// answer (READ_TIMEOUT_SECONDS, WRITE_TIMEOUT_SECONDS).
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// RequestTimeout is the deadline given to the work of one request.
	RequestTimeout time.Duration
	// ShutdownGrace is how long in-flight requests may finish after a
	// shutdown signal.
	ShutdownGrace time.Duration
	// BodyLimit bounds a request body, in bytes.
	BodyLimit int64
	// MaxDocuments bounds the documents of one request.
	MaxDocuments int
	// MaxConcurrent bounds the requests served at once; more get 429.
	MaxConcurrent int
	// Token, when set, is the bearer token every API request and
	// /metrics must carry (compared in constant time). Open without it:
	// /healthz and /readyz (probes), /openapi.json and the playground's
	// page (the same static files in every deployment; the playground
	// asks for the token when the API refuses it).
	Token string
	// MaxMemory is the memory budget in bytes (MAX_MEMORY_BYTES): each
	// request reserves an estimate before its work starts (its body three
	// times over, then its size times the chunker's measured memory
	// factor, chunkers.Spec.Memory, and once more with embeddings); one
	// that does not fit waits up to QueueWait and is then answered 503,
	// one that could never fit 413. The embedding cache (its CacheBytes,
	// an eighth of the budget by default) and 64 MiB for the process come
	// off it first. 0 means three quarters of the container's memory
	// limit, else of the machine's memory. ListenAndServe sets the Go
	// runtime's memory limit to it unless GOMEMLIMIT is set. The PDF
	// engine's memory (Pipeline.PDFMemory), when not set, is half of
	// what is left for requests, 1 GiB at most and 64 MiB at least.
	MaxMemory int64
	// QueueWait is how long a request may wait for memory.
	QueueWait time.Duration
	// Pipeline holds what every request's pipeline shares: the default
	// size unit (Tokenizer; empty means each chunker's own), the embedder
	// of /embed, chunk embeddings and the embedding-based chunkers (the
	// lexical one is also always served by /v1/embeddings), the chat model
	// of the LLM chunkers, and the token budget of one embedder call
	// (BatchTokens, MAX_BATCH_TOKENS of the reference). Its chunker
	// settings are taken per request.
	Pipeline pipeline.Config
	// Chunking, when its Chunker is set, is how POST /v1/chunk chunks a
	// request that names no chunker: the chunker, its parameters
	// (Params), the size unit (Tokenizer; empty: Pipeline's), Context and
	// Parents; a request's own config, tokenizer, context and parents
	// replace the parts they give. A request that names a chunker takes
	// none of it. gochunk serve --config FILE sets it from the file's
	// chunking keys. New checks that it builds.
	Chunking pipeline.Config
	// Embedder, when set, is served instead of the one Pipeline.Embedder
	// names (a library user's own embedder); it is named "custom" at
	// /v1/embeddings unless Pipeline.Embedder.Name is set.
	Embedder gochunk.Embedder
	// Store, when set, is searched by POST /v1/search (gochunk index fills
	// it); queries are embedded by the embedder that indexed it.
	Store store.Store
	// Mounts are more handlers by pattern (gochunk serve --mcp's MCP
	// endpoint at /mcp), served behind the token; each request reserves
	// three times its body from the memory budget while it runs, and may
	// stream its answer (no write deadline, no buffering). Use Reserve
	// for what their work holds.
	Mounts map[string]http.Handler
}

// DefaultConfig returns the defaults: 127.0.0.1:8080, 60 s timeouts, a 32 MiB
// body limit, 1000 documents per request, 64 concurrent requests, each
// chunker's default unit, the lexical embedder with a cache of 100,000
// embeddings, embedder calls of at most embed.DefaultBatchTokens tokens.
func DefaultConfig() Config {
	return Config{Addr: "127.0.0.1:8080", ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second,
		RequestTimeout: 60 * time.Second, ShutdownGrace: 30 * time.Second, BodyLimit: 32 << 20, MaxDocuments: 1000, QueueWait: 5 * time.Second,
		MaxConcurrent: 64, Pipeline: pipeline.Config{Embedder: pipeline.EmbedderConfig{Name: "lexical", CacheEntries: 100_000},
			BatchTokens: embed.DefaultBatchTokens}}
}

// Server serves the API. Create it with New.
type Server struct {
	cfg Config
	log *slog.Logger
	// base is the pipeline requests derive theirs from (pipeline.With):
	// they share its tokenizers, embedder and model.
	base *pipeline.Pipeline
	// embedCounter counts /embed's chunks.
	embedCounter tokenize.Counter
	// cl100k counts and decodes /v1/embeddings tokens for a model without
	// a tokenizer of its own.
	cl100k    *tokenize.TikToken
	embedder  embed.Embedder
	embedders map[string]embed.Embedder
	search    *index.Searcher // nil without a store
	budget    *budget.Budget
	dpMemory  float64 // the memory factor of /embed's chunker
	m         *metrics
	sem       chan struct{}
	ready     atomic.Bool
	handler   http.Handler
	ocr       string // the OCR engine's name (pp-ocr, openai:MODEL); "" without OCR
}

//go:embed openapi.json
var openapi []byte

// New loads the tokenizer, the embedder and the model and returns a ready
// server.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Server, error) {
	def := DefaultConfig()
	for _, p := range []struct{ v, d *int }{{&cfg.MaxDocuments, &def.MaxDocuments}, {&cfg.MaxConcurrent, &def.MaxConcurrent},
		{&cfg.Pipeline.BatchTokens, &def.Pipeline.BatchTokens}, {&cfg.Pipeline.Embedder.CacheEntries, &def.Pipeline.Embedder.CacheEntries}} {
		*p.v = cmp.Or(max(*p.v, 0), *p.d)
	}
	for _, p := range []struct{ v, d *time.Duration }{{&cfg.ReadTimeout, &def.ReadTimeout}, {&cfg.WriteTimeout, &def.WriteTimeout},
		{&cfg.RequestTimeout, &def.RequestTimeout}, {&cfg.ShutdownGrace, &def.ShutdownGrace}, {&cfg.QueueWait, &def.QueueWait}} {
		*p.v = cmp.Or(max(*p.v, 0), *p.d)
	}
	cfg.BodyLimit = cmp.Or(max(cfg.BodyLimit, 0), def.BodyLimit)
	cfg.Addr = cmp.Or(cfg.Addr, def.Addr)
	cfg.Pipeline.Embedder.Name = cmp.Or(cfg.Pipeline.Embedder.Name, def.Pipeline.Embedder.Name)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.MaxMemory = cmp.Or(max(cfg.MaxMemory, 0), budget.SystemLimit()*3/4, 4<<30)
	cfg.Pipeline.Embedder.CacheBytes = cmp.Or(max(cfg.Pipeline.Embedder.CacheBytes, 0), cfg.MaxMemory/8)
	avail := cfg.MaxMemory - cfg.Pipeline.Embedder.CacheBytes - 64<<20
	if avail < 16<<20 {
		return nil, fmt.Errorf("server: a memory budget of %s leaves too little for requests after the cache (%s) and the process (64 MiB); raise it", budget.Format(cfg.MaxMemory), budget.Format(cfg.Pipeline.Embedder.CacheBytes))
	}
	em, err := cfg.Embedder, error(nil)
	if cfg.Pipeline.Embedder.Notice == nil {
		cfg.Pipeline.Embedder.Notice = func(s string) { log.Info(s) }
	}
	// PDFium's memory, all PDFs read at once together, is held within
	// the budget: half of what requests may reserve, 1 GiB at most
	// (PDFium's default) and 64 MiB at least, unless configured.
	cfg.Pipeline.PDFMemory = cmp.Or(max(cfg.Pipeline.PDFMemory, 0), max(min(layout.DefaultPDFiumTotalMemory, avail/2), 64<<20))
	if cfg.Pipeline.PDFNotice == nil {
		cfg.Pipeline.PDFNotice = func(s string) { log.Info(s) }
	}
	if em == nil {
		em, err = pipeline.NewEmbedder(ctx, cfg.Pipeline.Embedder)
	} else if cfg.Pipeline.Embedder.Name == def.Pipeline.Embedder.Name {
		cfg.Pipeline.Embedder.Name = "custom"
	}
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{cfg: cfg, log: log, m: newMetrics(), sem: make(chan struct{}, cfg.MaxConcurrent), budget: budget.New(avail, cfg.MaxConcurrent)}
	s.m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gochunk_memory_budget_bytes", Help: "Bytes requests may reserve."}, func() float64 { return float64(avail) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gochunk_memory_reserved_bytes", Help: "Bytes reserved by requests now."}, func() float64 { return float64(s.budget.Reserved()) }))
	s.embedder = s.observed(em)
	if s.base, err = pipeline.New(ctx, cfg.Pipeline, pipeline.Options{Embedder: s.embedder}); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := s.loadOCR(ctx); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	// /embed sizes its chunks and reports token_count in the embedder's
	// tokens, as the reference server does, unless a tokenizer is set.
	dp, err := s.base.With(ctx, "dp", nil, cfg.Pipeline.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.embedCounter, s.dpMemory = dp.Counter(), dp.Spec().Memory
	if c := cfg.Chunking; c.Chunker != "" {
		if _, err := s.defaultPipeline(ctx, nil, "", false, false); err != nil {
			return nil, fmt.Errorf("server: the default chunking (chunker %s): %w", c.Chunker, err)
		}
	}
	if s.cl100k, err = tokenize.NewTikToken("cl100k_base"); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.embedders = map[string]embed.Embedder{cfg.Pipeline.Embedder.Name: s.embedder}
	if _, ok := s.embedders["lexical"]; !ok {
		s.embedders["lexical"] = s.observed(embed.NewLexical(embed.LexicalConfig{}))
	}
	if cfg.Store != nil {
		if s.search, err = index.NewSearcher(ctx, cfg.Store, cfg.Pipeline.Embedder, false); err != nil {
			return nil, fmt.Errorf("server: store: %w", err)
		}
	}
	s.handler = s.routes()
	s.ready.Store(true)
	return s, nil
}

// loadOCR loads the OCR engine of Pipeline.OCR at start (the PP-OCR
// models, or the vision model's client), so that models the server cannot
// load are said before it serves rather than at its first scan, and logs
// it. OCR asked for on every PDF page (mode always) without an engine is
// an error.
func (s *Server) loadOCR(ctx context.Context) error {
	c := s.cfg.Pipeline.OCR
	name, err := s.base.OCR(ctx)
	switch {
	case err != nil:
		return err
	case name == "" && c.Mode == "always":
		return fmt.Errorf("%w: OCR of every PDF page (ocr always) needs an OCR engine: give the OCR models (--ocr-model DIR or hf:REPO, GOCHUNK_OCR_MODEL) or a vision model (--ocr openai:MODEL)", gochunk.ErrConfig)
	case name != "":
		s.ocr = name
		s.log.Info("OCR of images and of PDF pages without text", "engine", name, "mode", cmp.Or(c.Mode, "auto"))
	}
	return nil
}

// observed counts em's calls, texts and errors in the metrics.
func (s *Server) observed(em embed.Embedder) embed.Embedder {
	return &embed.Observed{Embedder: em, Observe: func(texts int, err error) {
		s.m.embedCall.Inc()
		s.m.embedText.Add(float64(texts))
		if err != nil {
			s.m.embedErr.Inc()
		}
	}}
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics returns the Prometheus handler (also served at /metrics).
func (s *Server) Metrics() http.Handler { return promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}) }

// Serve accepts connections on l until ctx is done, then stops accepting,
// lets in-flight requests finish within the shutdown grace, and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	// The write timeout runs from the end of the request's headers to the
	// end of its answer: it must outlast the request timeout, or a 504 (or
	// a late answer) would find its connection closed.
	srv := &http.Server{Handler: s.handler, ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: max(s.cfg.WriteTimeout, s.cfg.RequestTimeout+10*time.Second),
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	s.log.Info("serving", "version", version.String(), "addr", l.Addr().String(), "embedder", s.embedder.ModelID(), "tokenizer", s.embedCounter.Name())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	s.log.Info("shutting down", "grace", s.cfg.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ListenAndServe listens on the configured address and serves until ctx
// is done.
func (s *Server) ListenAndServe(ctx context.Context) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(s.cfg.MaxMemory)
	}
	l, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	// The PDF engine is made ready while the server starts listening, so
	// the first PDF does not wait for PDFium's module to compile (seconds
	// on a machine's first run, then loaded from the cache).
	go func() {
		began := time.Now()
		if eng, err := s.base.PDFEngine(context.WithoutCancel(ctx)); err != nil {
			s.log.Warn("the PDF engine cannot start: PDF documents will fail", "error", err)
		} else {
			s.log.Info("PDF engine ready", "engine", eng.Name(), "seconds", time.Since(began).Seconds())
		}
	}()
	return s.Serve(ctx, l)
}

func (s *Server) routes() http.Handler {
	root := http.NewServeMux()
	var patterns []string
	mux := handleFunc(func(p string, h http.Handler) {
		root.Handle(p, h)
		patterns = append(patterns, p)
	})
	api := func(path string, h http.HandlerFunc) { mux.Handle(path, s.limit(s.auth(h))) }
	api("POST /embed", s.handleEmbed)
	api("POST /v1/chunk", s.handleChunk)
	api("POST /v1/embeddings", s.handleEmbeddings)
	api("POST /v1/search", s.handleSearch)
	mux.Handle("GET /v1/chunkers", s.auth(http.HandlerFunc(s.handleChunkers)))
	mux.Handle("GET /v1/models", s.auth(http.HandlerFunc(s.handleModels)))
	mux.Handle("GET /v1/models/{id}", s.auth(http.HandlerFunc(s.handleModels)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": version.String()})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	for p, h := range s.cfg.Mounts {
		mux.Handle(p, s.auth(s.streaming(h)))
	}
	mux.Handle("GET /metrics", s.auth(s.Metrics()))
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openapi)
	})
	mux.Handle("GET /{$}", inspect.Handler()) // the playground
	mux.Handle("GET /playground/", inspect.Handler())
	// The catch-all answers what the mux cannot: a known path with the
	// wrong method is 405 with Allow (the catch-all would otherwise take
	// it for an unknown path), anything else 404.
	known := http.NewServeMux()
	for _, p := range patterns {
		known.Handle(p, http.NotFoundHandler())
	}
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if _, p := known.Handler(&http.Request{Method: m, URL: r.URL, Host: r.Host}); p != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.fail(w, r, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s does not take %s; use %s", r.URL.Path, r.Method, strings.Join(allow, " or ")))
			return
		}
		s.fail(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s %s; see GET /openapi.json", r.Method, r.URL.Path))
	})
	return s.observe(root)
}

// handleFunc registers handlers on a mux and records their patterns.
type handleFunc func(pattern string, h http.Handler)

func (f handleFunc) Handle(pattern string, h http.Handler) { f(pattern, h) }

func (f handleFunc) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	f(pattern, http.HandlerFunc(h))
}

type ctxKey int

const requestIDKey ctxKey = 0

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// statusWriter records the status and size of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the connection's writer (to
// flush a stream, to lift a deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// observe gives every request an id, recovers panics into 500 answers
// with a logged stack, logs the request, and records its metrics.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 128 {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
		sw := &statusWriter{ResponseWriter: w}
		s.m.inflight.Inc()
		defer func() {
			s.m.inflight.Dec()
			if p := recover(); p != nil {
				s.m.panics.Inc()
				s.log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.fail(sw, r, http.StatusInternalServerError, "internal_error", "internal error; the server logged the details under this request id")
				}
			}
			path := r.Pattern
			if path == "" {
				path = "other"
			}
			s.m.requests.WithLabelValues(path, strconv.Itoa(sw.status)).Inc()
			s.m.latency.WithLabelValues(path).Observe(time.Since(start).Seconds())
			s.log.Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path, "status", sw.status,
				"bytes", sw.bytes, "ms", float64(time.Since(start).Microseconds())/1000)
		}()
		next.ServeHTTP(sw, r)
	})
}

// auth checks the bearer token when one is configured.
func (s *Server) auth(next http.Handler) http.Handler {
	if s.cfg.Token == "" {
		return next
	}
	want := []byte(s.cfg.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The scheme is case-insensitive (RFC 9110 section 11.1), the
		// token is not. Constant time, so that the answer's timing says
		// nothing of how much of a guess was right.
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		token = strings.TrimLeft(token, " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(token), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			s.fail(w, r, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token: send Authorization: Bearer <token>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limit refuses requests beyond MaxConcurrent with 429 and Retry-After,
// rather than queueing them without bound, and bounds the body and the
// time of those it serves. The work runs on its own goroutine and writes
// its answer to a buffer: when the deadline passes first, the client gets
// its 504 at once, and the work, cancelled through its context, keeps its
// concurrency slot and its memory reservation until it has stopped, so
// that abandoned work still counts against the limits. A panic in the work
// is recovered into a 500 for this request alone.
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.sem <- struct{}{}:
		default:
			s.m.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			s.fail(w, r, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("the server is busy (%d requests in flight); retry after 1 s", s.cfg.MaxConcurrent))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
		r = r.WithContext(ctx)
		buf := &bufferedWriter{header: http.Header{}}
		r.Body = http.MaxBytesReader(buf, r.Body, s.cfg.BodyLimit)
		done := make(chan struct{})
		go func() {
			defer func() {
				<-s.sem
				close(done)
				cancel() // after done: the answer is there before the context ends
			}()
			defer func() {
				if p := recover(); p != nil {
					s.m.panics.Inc()
					s.log.Error("panic", "request_id", requestID(ctx), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					buf.reset()
					s.fail(buf, r, http.StatusInternalServerError, "internal_error", "internal error; the server logged the details under this request id")
				}
			}()
			res, ok := s.reserve(buf, r, 3)
			if !ok {
				return
			}
			defer res.Release()
			next.ServeHTTP(buf, r.WithContext(budget.NewContext(r.Context(), res)))
		}()
		select {
		case <-done:
		case <-ctx.Done():
			select {
			case <-done: // finished as the deadline came: its answer stands
			default:
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					s.m.abandoned.Inc()
					s.fail(w, r, http.StatusGatewayTimeout, "timeout", fmt.Sprintf("the request did not finish within %s; send fewer or smaller documents, or raise the request timeout", s.cfg.RequestTimeout))
				}
				return // the client went away, or has its 504
			}
		}
		buf.flush(w)
	})
}

// streaming serves a mounted handler: its request reserves three times
// its body from the memory budget until it ends, and its answer may
// stream (server-sent events) past the write timeout.
func (s *Server) streaming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, ok := s.reserve(w, r, 3)
		if !ok {
			return
		}
		defer res.Release()
		http.NewResponseController(w).SetWriteDeadline(time.Time{})
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.BodyLimit)
		next.ServeHTTP(w, r.WithContext(budget.NewContext(r.Context(), res)))
	})
}

// Reserve takes n bytes from the server's memory budget, waiting up to
// the queue wait for them, for work a mounted handler does; release
// gives them back.
func (s *Server) Reserve(ctx context.Context, n int64) (release func(), err error) {
	return s.budget.Reserve(ctx, n, s.cfg.QueueWait)
}

// bufferedWriter holds a handler's answer until it is complete, so that an
// answer that comes too late is never half-written after a 504.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedWriter) reset() {
	b.status = 0
	b.body.Reset()
	clear(b.header)
}

func (b *bufferedWriter) flush(w http.ResponseWriter) {
	maps.Copy(w.Header(), b.header)
	w.WriteHeader(cmp.Or(b.status, http.StatusOK))
	w.Write(b.body.Bytes())
}

// reserve takes factor times the request body's size (its Content-Length,
// else the body limit) from the memory budget, answering 413 or 503 (with
// Retry-After) itself when it cannot, and reports whether it could. The
// reservation is the request's: its context carries it, for the handler
// and the readers below it to grow (budget.Grow) as they learn what the
// request holds.
func (s *Server) reserve(w http.ResponseWriter, r *http.Request, factor float64) (res *budget.Reservation, ok bool) {
	res, err := s.budget.Take(r.Context(), int64(factor*float64(s.bodySize(r)))+64<<10, s.cfg.QueueWait)
	if err != nil {
		s.overBudget(w, r, "this request", err)
		return nil, false
	}
	return res, true
}

// bodySize is the request body's size as declared: its Content-Length,
// else the body limit.
func (s *Server) bodySize(r *http.Request) int64 {
	n := r.ContentLength
	if n < 0 || n > s.cfg.BodyLimit {
		n = s.cfg.BodyLimit
	}
	return n
}

// reserveExtra grows the request's reservation by factor times its body
// and extra bytes: what its work holds beyond reading it (the chunker's
// share, what a text's long runs cost, what its files expand to).
// It answers 413 or 503 itself when it cannot, and reports whether it
// could.
func (s *Server) reserveExtra(w http.ResponseWriter, r *http.Request, factor float64, extra int64) bool {
	n := int64(factor*float64(s.bodySize(r))) + extra + 64<<10
	var err error
	if res := budget.FromContext(r.Context()); res != nil {
		err = res.Grow(r.Context(), n)
	} else { // a handler served without limit, as in tests
		var res *budget.Reservation
		if res, err = s.budget.Take(r.Context(), n, s.cfg.QueueWait); err == nil {
			context.AfterFunc(r.Context(), res.Release)
		}
	}
	if err != nil {
		s.overBudget(w, r, "this request", err)
		return false
	}
	return true
}

// overBudget answers a reservation refused by the memory budget: 413 when
// what would be held passes the whole budget, 503 (with Retry-After) when
// other requests hold what it needs. what names what needed it.
func (s *Server) overBudget(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, budget.ErrTooLarge) {
		s.m.refused.WithLabelValues("too_large").Inc()
		s.fail(w, r, http.StatusRequestEntityTooLarge, "over_memory_budget", fmt.Sprintf("%s would need more memory than the server's budget (%v); send smaller documents or fewer at once", what, err))
		return
	}
	s.m.refused.WithLabelValues("busy").Inc()
	w.Header().Set("Retry-After", "2")
	s.fail(w, r, http.StatusServiceUnavailable, "memory_busy", fmt.Sprintf("the server's memory is taken by other requests: %s could not get what it needs (%v); retry after 2 s", what, err))
}

// fail writes an error answer.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, kind, msg string) {
	s.m.errors.WithLabelValues(kind).Inc()
	writeJSON(w, status, api.ErrorBody{Error: api.ErrorDetail{Message: msg, Type: kind, RequestID: requestID(r.Context())}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
