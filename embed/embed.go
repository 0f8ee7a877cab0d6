// Package embed turns texts into vectors for the embedding-based chunkers,
// the server's chunk embeddings and the evaluation's dense retriever.
//
// Four providers implement Embedder: Lexical (built in, deterministic, no
// download), Static (Model2Vec static embeddings such as potion-base-8M,
// from a local directory or the Hugging Face hub), ONNX transformer models
// and any OpenAI-compatible /v1/embeddings endpoint. Cached wraps any of
// them with a bounded cache keyed by model id and text.
package embed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// Embedder turns texts into vectors: gochunk.Embedder, declared once, in
// the root package, with the contract every provider here keeps.
type Embedder = gochunk.Embedder

// Tokenized is implemented by embedders with a tokenizer of their own
// (static and ONNX models). Tokenizer counts a text's tokens as the model
// sees them, special tokens left out, or is nil when the model's tokenizer
// cannot count on its own; ChunkLimit is the most such tokens a text may
// have to be embedded whole (MaxTokens less the special tokens the model
// adds), 0 for no limit. Chunkers that embed count their sizes in these
// tokens by default, so that a chunk is never cut short by the model.
type Tokenized interface {
	Tokenizer() tokenize.Counter
	ChunkLimit() int
}

// OrLexical returns e, or the built-in lexical embedder (default
// configuration) when e is nil: the embedder of a chunker given none.
func OrLexical(e Embedder) Embedder {
	if e == nil {
		return NewLexical(LexicalConfig{})
	}
	return e
}

// TokenizerOf returns e's own tokenizer and chunk limit, or nil and 0.
func TokenizerOf(e Embedder) (tokenize.Counter, int) {
	if t, ok := e.(Tokenized); ok {
		if c := t.Tokenizer(); c != nil {
			return c, t.ChunkLimit()
		}
	}
	return nil, 0
}

// Truncates returns, for an embedder that cuts what is over its limit
// (static and ONNX models embed the first ChunkLimit tokens, as
// sentence-transformers does), a test of whether a text will be cut, and
// the limit; nil for one that embeds any text whole (the lexical
// embedder; OpenAI-compatible APIs, whose long texts this package splits
// and averages). Callers count and report the inputs that were cut.
func Truncates(e Embedder) (cut func(text string) bool, limit int) {
	if SplitsLong(e) {
		return nil, 0
	}
	tok, limit := TokenizerOf(e)
	if tok == nil || limit <= 0 {
		return nil, 0
	}
	return func(text string) bool { return tok.Count(text) > limit }, limit
}

// tokenizerOf and chunkLimitOf are TokenizerOf's two results, for
// wrappers that pass them through.
func tokenizerOf(e Embedder) tokenize.Counter { t, _ := TokenizerOf(e); return t }
func chunkLimitOf(e Embedder) int             { _, n := TokenizerOf(e); return n }

// DocumentAware is implemented by embedders whose vectors depend on the
// document being chunked (the lexical provider takes its IDF from it).
// Chunkers call ForDocument with the pieces they will embed before
// embedding them.
type DocumentAware interface {
	ForDocument(pieces []string) Embedder
}

// ForDocument returns e adapted to a document's pieces when e is
// DocumentAware, and e itself otherwise.
func ForDocument(e Embedder, pieces []string) Embedder {
	if d, ok := e.(DocumentAware); ok {
		return d.ForDocument(pieces)
	}
	return e
}

// CollectionAware is implemented by embedders that can be weighted for
// retrieval over a collection of texts (the lexical provider takes its IDF
// from them); the texts and the queries are then embedded by the result.
type CollectionAware interface {
	ForCollection(texts []string) Embedder
}

// ForCollection returns e weighted for retrieval over texts when e is
// CollectionAware, and e itself otherwise.
func ForCollection(e Embedder, texts []string) Embedder {
	if c, ok := e.(CollectionAware); ok {
		return c.ForCollection(texts)
	}
	return e
}

// Errors of embedders, wrapped with context.
var (
	// ErrDimension reports vectors of the wrong length.
	ErrDimension = errors.New("embedding has the wrong dimension")
	// ErrCount reports a provider that returned a different number of
	// vectors than texts.
	ErrCount = errors.New("wrong number of embeddings")
	// ErrModel reports an embedding or reranking model that cannot be
	// loaded: missing or corrupt files, a tokenizer that does not match the
	// embedding table, a model without the output it needs.
	ErrModel = errors.New("bad model")
	// ErrName reports an embedder name New does not know or that lacks
	// its model.
	ErrName = errors.New("bad embedder name")
	// ErrNoRuntime reports that ONNX Runtime cannot be used: its library
	// is missing, the build has no cgo, or it lacks an execution provider.
	ErrNoRuntime = errors.New("ONNX Runtime is not available")
)

// Options are the settings New passes to the providers that take them.
type Options struct {
	// BaseURL of an OpenAI-compatible API (openai provider); empty means
	// $OPENAI_BASE_URL, else OpenAI's.
	BaseURL string
	// APIKey for the API; empty means the OPENAI_API_KEY environment
	// variable.
	APIKey string
	// Dimensions asks the API for vectors of this length (0: the model's).
	Dimensions int
	// Timeout bounds one request to the API (0: 60 s); Retries is how
	// many times a failed request is retried (0: the default, negative:
	// none).
	Timeout time.Duration
	Retries int
	// Concurrency bounds the requests in flight to the API (0: 4).
	Concurrency int
	// CacheDir overrides the Hugging Face cache directory for downloads.
	CacheDir string
	// Offline forbids downloads, as HF_HUB_OFFLINE=1 does.
	Offline bool
	// Progress, when set, receives download progress lines.
	Progress func(done, total int64, file string)
	// ONNXBackend runs onnx models: "auto" (the default: ONNX Runtime
	// when its library loads and the model's tokenizer is one package
	// tokenize reads, else pure Go), "ort" (ONNX Runtime, or an error
	// saying why not) or "go" (pure Go, in every build; much slower).
	// ONNX Runtime needs a build with cgo (the default) and the
	// libonnxruntime shared library at run time; nothing at link time.
	ONNXBackend string
	// ONNXThreads is the number of threads ONNX Runtime uses for one
	// model run; 0 means one per core.
	ONNXThreads int
	// Notice, when set, hears one line about how a model runs (which
	// backend, and why when it is not the one asked for).
	Notice func(string)
	// ONNXRuntimeLibrary is the path of libonnxruntime (else
	// GOCHUNK_ONNX_LIBRARY, else the usual names and places)
	// backend; empty means the system's default location.
	ONNXRuntimeLibrary string
	// ONNXCUDA runs the ort backend on a CUDA GPU.
	ONNXCUDA bool
	// ONNXPooling overrides how an onnx model's token vectors become one:
	// "cls" (the first token), "mean" (over the attention mask) or "last"
	// (the last token the mask keeps, as Qwen3-Embedding and other
	// decoder models need); empty means what the model's
	// sentence-transformers 1_Pooling/config.json says, else mean.
	ONNXPooling string
	// ModelTokenizer, when set, is taken as an openai:MODEL's own
	// tokenizer (a --tokenizer hf:… given for it) instead of the one
	// OpenAIModels names.
	ModelTokenizer tokenize.Counter
	// Client makes an openai:MODEL's requests; nil means
	// http.DefaultClient.
	Client *http.Client
}

// New returns the embedder a name describes: "lexical", "static:MODEL"
// (a Model2Vec directory or hub id), "onnx:MODEL" or "openai:MODEL".
func New(ctx context.Context, name string, opt Options) (Embedder, error) {
	kind, model, _ := strings.Cut(name, ":")
	switch kind {
	case "", "lexical":
		if model != "" {
			return nil, fmt.Errorf("%w %q: lexical takes no model", ErrName, name)
		}
		return NewLexical(LexicalConfig{}), nil
	case "static":
		if model == "" {
			return nil, fmt.Errorf("%w %q: want static:DIR or static:ORG/NAME", ErrName, name)
		}
		s, err := LoadStatic(ctx, model, opt)
		if err != nil {
			return nil, err
		}
		return s, nil
	case "openai":
		if model == "" {
			return nil, fmt.Errorf("%w %q: want openai:MODEL", ErrName, name)
		}
		// As the LLM clients (package llm) do, and OpenAI's own SDKs.
		opt.BaseURL = cmp.Or(opt.BaseURL, os.Getenv("OPENAI_BASE_URL"))
		tok, limit, special := openAIModel(ctx, model, opt)
		o, err := NewOpenAI(OpenAIConfig{BaseURL: opt.BaseURL, APIKey: opt.APIKey, Model: model, Dimensions: opt.Dimensions, Timeout: opt.Timeout,
			Retries: opt.Retries, Concurrency: opt.Concurrency, Notice: opt.Notice, Client: opt.Client,
			Tokenizer: tok, MaxTokens: limit, SpecialTokens: special})
		if err != nil {
			return nil, err
		}
		return o, nil
	case "onnx":
		if model == "" {
			return nil, fmt.Errorf("%w %q: want onnx:DIR or onnx:ORG/NAME", ErrName, name)
		}
		o, err := LoadONNX(ctx, model, opt)
		if err != nil {
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("%w %q: want lexical, static:MODEL, onnx:MODEL or openai:MODEL", ErrName, name)
}

// DefaultBatchTokens is the token budget of one embedding call for chunk
// embeddings, on the server and the command line.
const DefaultBatchTokens = 8192

// Batches embeds texts with e in calls of at most budget tokens (tokens[i]
// is the size of texts[i]; a text over the budget goes alone), in order,
// and hands each vector, or its call's error, to done. It is how chunk
// embeddings are computed for the server and the command line.
func Batches(ctx context.Context, e Embedder, texts []string, tokens []int, budget int, done func(i int, v []float32, err error)) {
	start, used := 0, 0
	flush := func(end int) {
		if end <= start {
			return
		}
		vs, err := e.Embed(ctx, texts[start:end])
		if err == nil && len(vs) != end-start {
			err = fmt.Errorf("%w: got %d vectors for %d texts", ErrCount, len(vs), end-start)
		}
		for i := start; i < end; i++ {
			if err != nil {
				done(i, nil, err)
			} else {
				done(i, vs[i-start], nil)
			}
		}
		start, used = end, 0
	}
	for i := range texts {
		if i > start && used+tokens[i] > budget {
			flush(i)
		}
		used += tokens[i]
	}
	flush(len(texts))
}

// parallel runs fn(i) for i in [0, n) on up to GOMAXPROCS goroutines and
// returns the first error.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= n {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			firstErr = err
			return 0, false
		}
		i := next
		next++
		return i, true
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// Checked embeds texts with e and checks what comes back: one vector per
// text, all of one non-zero length, every number finite. Chunkers use it so
// that a misbehaving provider is an error, not a wrong chunk. Errors start
// with "embedding:".
func Checked(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embedding: %w", err)
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("embedding: %w: got %d vectors for %d texts", ErrCount, len(vs), len(texts))
	}
	for i, v := range vs {
		if len(v) != len(vs[0]) || len(v) == 0 {
			return nil, fmt.Errorf("embedding: %w: vector %d has %d numbers, the first %d", ErrDimension, i, len(v), len(vs[0]))
		}
		if !vec.Valid(v) {
			return nil, fmt.Errorf("embedding: vector %d holds NaN or infinite numbers", i)
		}
	}
	return vs, nil
}

// checkVectors verifies count, dimension and finiteness of provider
// output.
func checkVectors(vs [][]float32, n, dim int, who string) error {
	if len(vs) != n {
		return fmt.Errorf("%s: %w: got %d for %d texts", who, ErrCount, len(vs), n)
	}
	for i, v := range vs {
		if len(v) != dim {
			return fmt.Errorf("%s: %w: vector %d has %d numbers, want %d", who, ErrDimension, i, len(v), dim)
		}
	}
	return nil
}

// slab returns n zero vectors of length dim sharing one allocation.
func slab(n, dim int) [][]float32 {
	backing := make([]float32, n*dim)
	out := make([][]float32, n)
	for i := range out {
		out[i] = backing[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return out
}

// TokenEmbedder is an Embedder that can give the output vector of every
// token of a text in context (a transformer's last hidden state), for late
// chunking: a chunk's vector is then pooled from its own tokens' vectors,
// computed with the whole document around them.
type TokenEmbedder interface {
	Embedder
	// TokenVectors returns the byte offset in text where each token ends
	// and each token's vector; a text longer than the model's limit runs in
	// overlapping windows. Special tokens are left out.
	TokenVectors(ctx context.Context, text string) (ends []int, vectors [][]float32, err error)
	// PoolTokens pools token vectors into one vector as the model's own
	// sentence vectors are pooled from theirs: the mean, normalised when
	// the model normalises.
	PoolTokens(vectors [][]float32) []float32
}

// Wrapper is implemented by embedders that wrap another (the cache, the
// server's metrics).
type Wrapper interface {
	Unwrap() Embedder
}

// SplitsLong reports whether e is or wraps an embedder that embeds a
// text over its limit whole, in pieces whose vectors it averages (an
// OpenAI-compatible API's model), rather than cutting it.
func SplitsLong(e Embedder) bool {
	for e != nil {
		if _, ok := e.(*OpenAI); ok {
			return true
		}
		w, ok := e.(Wrapper)
		if !ok {
			return false
		}
		e = w.Unwrap()
	}
	return false
}

// TokenEmbedderOf returns the TokenEmbedder e is or wraps, or nil.
func TokenEmbedderOf(e Embedder) TokenEmbedder {
	for e != nil {
		if t, ok := e.(TokenEmbedder); ok {
			return t
		}
		w, ok := e.(Wrapper)
		if !ok {
			return nil
		}
		e = w.Unwrap()
	}
	return nil
}
