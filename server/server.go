// Package server is gochunk's HTTP API: the reference semantic-chunking
// server's batch POST /embed, every chunker at POST /v1/chunk, an
// OpenAI-compatible POST /v1/embeddings, and the endpoints a deployment
// needs (health, readiness, Prometheus metrics, an OpenAPI description).
package server

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/tokenize"
)

// Config configures a Server. Zero fields take the defaults of
// DefaultConfig.
type Config struct {
	// Addr is the listening address, e.g. ":8080".
	Addr string `json:"addr"`
	// MaxBatchTokens bounds the tokens of one embedder call when chunk
	// embeddings are computed (MAX_BATCH_TOKENS of the reference).
	MaxBatchTokens int `json:"max_batch_tokens"`
	// ReadTimeout and WriteTimeout bound reading a request and writing its
	// answer (READ_TIMEOUT_SECONDS, WRITE_TIMEOUT_SECONDS).
	ReadTimeout  time.Duration `json:"read_timeout"`
	WriteTimeout time.Duration `json:"write_timeout"`
	// RequestTimeout is the deadline given to the work of one request.
	RequestTimeout time.Duration `json:"request_timeout"`
	// ShutdownGrace is how long in-flight requests may finish after a
	// shutdown signal.
	ShutdownGrace time.Duration `json:"shutdown_grace"`
	// BodyLimit bounds a request body, in bytes.
	BodyLimit int64 `json:"body_limit"`
	// MaxDocuments bounds the documents of one request.
	MaxDocuments int `json:"max_documents"`
	// MaxConcurrent bounds the requests served at once; more get 429.
	MaxConcurrent int `json:"max_concurrent"`
	// Token, when set, is the bearer token every API request must carry
	// (health, readiness and metrics are open).
	Token string `json:"token"`
	// Tokenizer is the default size unit (see package tokenize); empty
	// means each chunker's own default (chunkers.DefaultCounter).
	Tokenizer string `json:"tokenizer"`
	// Embedder names the embedder for /embed, chunk embeddings and the
	// embedding-based chunkers (see package embed); "lexical" is also
	// always served by /v1/embeddings.
	Embedder string `json:"embedder"`
	// EmbedURL is the base URL of an openai:MODEL embedder.
	EmbedURL string `json:"embed_url"`
	// ONNXBackend, ONNXLibrary and ONNXCUDA choose how onnx:MODEL runs
	// (see embed.Options).
	ONNXBackend string `json:"onnx_backend"`
	ONNXLibrary string `json:"onnx_library"`
	ONNXCUDA    bool   `json:"onnx_cuda"`
	// ONNXPooling overrides the model's pooling: cls, mean or last.
	ONNXPooling string `json:"onnx_pooling"`
	// CacheEntries bounds the embedding cache.
	CacheEntries int `json:"cache_entries"`
	// LLMURL and LLMModel configure the chat model of the llm-split and
	// propositions chunkers (none when LLMModel is empty).
	LLMURL   string `json:"llm_url"`
	LLMModel string `json:"llm_model"`
}

// DefaultConfig returns the defaults: port 8080, batches of 8192 tokens,
// 60 s timeouts, a 32 MiB body limit, 1000 documents per request, 64
// concurrent requests, runes, the lexical embedder.
func DefaultConfig() Config {
	return Config{Addr: ":8080", MaxBatchTokens: embed.DefaultBatchTokens, ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second,
		RequestTimeout: 60 * time.Second, ShutdownGrace: 30 * time.Second, BodyLimit: 32 << 20, MaxDocuments: 1000,
		MaxConcurrent: 64, Embedder: "lexical", CacheEntries: 100_000}
}

// Server serves the API. Create it with New.
type Server struct {
	cfg     Config
	log     *slog.Logger
	reg     *chunkers.Registry
	counter tokenize.Counter // nil: each chunker's default unit
	// embedCounter counts /embed's chunks and /v1/embeddings usage.
	embedCounter tokenize.Counter
	embedder     embed.Embedder
	embedders    map[string]embed.Embedder
	llm          *llm.Client
	m            *metrics
	sem          chan struct{}
	ready        atomic.Bool
	handler      http.Handler
}

//go:embed openapi.json
var openapi []byte

// New loads the tokenizer and embedder and returns a ready server.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Server, error) {
	def := DefaultConfig()
	if cfg.Addr == "" {
		cfg.Addr = def.Addr
	}
	fill := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	fill(&cfg.MaxBatchTokens, def.MaxBatchTokens)
	fill(&cfg.MaxDocuments, def.MaxDocuments)
	fill(&cfg.MaxConcurrent, def.MaxConcurrent)
	fill(&cfg.CacheEntries, def.CacheEntries)
	for _, p := range []struct{ v, d *time.Duration }{{&cfg.ReadTimeout, &def.ReadTimeout}, {&cfg.WriteTimeout, &def.WriteTimeout},
		{&cfg.RequestTimeout, &def.RequestTimeout}, {&cfg.ShutdownGrace, &def.ShutdownGrace}} {
		if *p.v <= 0 {
			*p.v = *p.d
		}
	}
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = def.BodyLimit
	}
	if cfg.Tokenizer == "" {
		cfg.Tokenizer = def.Tokenizer
	}
	if cfg.Embedder == "" {
		cfg.Embedder = def.Embedder
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var counter tokenize.Counter // nil: each chunker's default unit
	if cfg.Tokenizer != "" {
		c, err := tokenize.New(cfg.Tokenizer)
		if err != nil {
			return nil, fmt.Errorf("server tokenizer: %w", err)
		}
		counter = c
	}
	em, err := embed.New(ctx, cfg.Embedder, embed.Options{BaseURL: cfg.EmbedURL,
		ONNXBackend: cfg.ONNXBackend, ONNXRuntimeLibrary: cfg.ONNXLibrary, ONNXCUDA: cfg.ONNXCUDA, ONNXPooling: cfg.ONNXPooling})
	if err != nil {
		return nil, fmt.Errorf("server embedder: %w", err)
	}
	s := &Server{cfg: cfg, log: log, reg: chunkers.New(), counter: counter, m: newMetrics(), sem: make(chan struct{}, cfg.MaxConcurrent)}
	s.embedder = &countedEmbedder{embed.NewCached(em, embed.CacheOptions{Entries: cfg.CacheEntries}), s.m}
	// /embed sizes its chunks and reports token_count in the embedder's
	// tokens, as the reference server does, unless a tokenizer is set.
	if s.embedCounter = counter; counter == nil {
		if s.embedCounter, err = chunkers.DefaultCounter(chunkers.Spec{Embeds: true}, s.embedder); err != nil {
			return nil, fmt.Errorf("server tokenizer: %w", err)
		}
	}
	s.embedders = map[string]embed.Embedder{cfg.Embedder: s.embedder}
	if _, ok := s.embedders["lexical"]; !ok {
		s.embedders["lexical"] = &countedEmbedder{embed.NewLexical(embed.LexicalConfig{}), s.m}
	}
	if cfg.LLMModel != "" {
		if s.llm, err = llm.New(llm.Config{BaseURL: cfg.LLMURL, Model: cfg.LLMModel, JSONMode: true}); err != nil {
			return nil, fmt.Errorf("server model: %w", err)
		}
	}
	s.handler = s.routes()
	s.ready.Store(true)
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics returns the Prometheus handler (also served at /metrics).
func (s *Server) Metrics() http.Handler { return promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}) }

// Serve accepts connections on l until ctx is done, then stops accepting,
// lets in-flight requests finish within the shutdown grace, and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: s.handler, ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.WriteTimeout,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	s.log.Info("serving", "addr", l.Addr().String(), "embedder", s.embedder.ModelID(), "tokenizer", s.embedCounter.Name())
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
	l, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, l)
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(path string, h http.HandlerFunc) { mux.Handle(path, s.limit(s.auth(h))) }
	api("POST /embed", s.handleEmbed)
	api("POST /v1/chunk", s.handleChunk)
	api("POST /v1/embeddings", s.handleEmbeddings)
	mux.Handle("GET /v1/chunkers", s.auth(http.HandlerFunc(s.handleChunkers)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.Handle("GET /metrics", s.Metrics())
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openapi)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s %s; see GET /openapi.json", r.Method, r.URL.Path))
	})
	return s.observe(mux)
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
	want := "Bearer " + s.cfg.Token
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", "Bearer")
			s.fail(w, r, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token: send Authorization: Bearer <token>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limit refuses requests beyond MaxConcurrent with 429 and Retry-After,
// rather than queueing them without bound, and bounds the body and the
// time of those it serves.
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		default:
			s.m.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			s.fail(w, r, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("the server is busy (%d requests in flight); retry after 1 s", s.cfg.MaxConcurrent))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
		defer cancel()
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.BodyLimit)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// fail writes an error answer.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, kind, msg string) {
	s.m.errors.WithLabelValues(kind).Inc()
	writeJSON(w, status, ErrorBody{ErrorDetail{Message: msg, Type: kind, RequestID: requestID(r.Context())}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// countedEmbedder records embedder metrics.
type countedEmbedder struct {
	embed.Embedder
	m *metrics
}

func (c *countedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.m.embedCall.Inc()
	c.m.embedText.Add(float64(len(texts)))
	vs, err := c.Embedder.Embed(ctx, texts)
	if err != nil {
		c.m.embedErr.Inc()
	}
	return vs, err
}

// Tokenizer returns the wrapped embedder's own tokenizer, if any.
func (c *countedEmbedder) Tokenizer() tokenize.Counter {
	t, _ := embed.TokenizerOf(c.Embedder)
	return t
}

// ChunkLimit returns the wrapped embedder's chunk limit.
func (c *countedEmbedder) ChunkLimit() int {
	_, n := embed.TokenizerOf(c.Embedder)
	return n
}

// ForDocument keeps the document adaptation of the wrapped embedder.
func (c *countedEmbedder) ForDocument(pieces []string) embed.Embedder {
	return &countedEmbedder{embed.ForDocument(c.Embedder, pieces), c.m}
}
