// Package pipeline is gochunk's one path from a configuration to records:
// load a document (text, standard input, a PDF, layout elements), chunk it
// with a registered chunker, refine the chunks (embeddings batched by a
// token budget) and hand out records (package record). The command line,
// the HTTP server and the evaluation build their work from a Config the
// same way, so a configuration gives the same records wherever it runs.
//
// A Pipeline is safe for concurrent use: build it once, run it on many
// documents.
package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/hfhub"
	"github.com/gochunk/gochunk/internal/params"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/tokenize"
)

// Config says what a pipeline does. Its zero value chunks text with the
// recursive chunker at its defaults, sizes in runes, and the built-in
// lexical embedder for chunkers that embed. It decodes from JSON (the
// names in the field tags), so it can live in a configuration file.
type Config struct {
	// Chunker names a chunker of chunkers.New (see `gochunk chunkers`);
	// empty means "recursive".
	Chunker string `json:"chunker,omitempty"`
	// Params are the chunker's parameters, a JSON object. They stay JSON
	// until the chunker decodes them, so numbers keep their exact value
	// and a bad one is reported by name (chunkers.ParamError).
	Params json.RawMessage `json:"config,omitempty"`
	// Tokenizer is the size unit (see tokenize.New); empty means the
	// chunker's default (chunkers.DefaultCounter).
	Tokenizer string `json:"tokenizer,omitempty"`
	// Embedder serves the chunkers that embed and EmbedChunks.
	Embedder EmbedderConfig `json:"embedder"`
	// LLM serves the chunkers that ask a language model.
	LLM LLMConfig `json:"llm"`
	// Input is the kind of the inputs Load reads when a Source names
	// none: auto (by the extension: .pdf, .html and .htm, .docx, .pptx,
	// .xlsx, .odt, .ods, .odp, .epub, .eml; else by the content: an
	// office document, a PDF, an Outlook message, RTF, UTF-16 text, a
	// Jupyter notebook (.ipynb, or JSON with a notebook's keys), an RSS
	// or Atom feed (.rss, .atom, or XML whose root is a feed's), or a
	// format gochunk does not read, refused with a *FormatError; else
	// text), text, pdf, html, elements (layout JSON), one of those office
	// kinds, msg (Outlook) or rtf. Empty means auto.
	Input string `json:"input,omitempty"`
	// PDFEngine reads PDFs: pdfium (in the process, the default: PDFium
	// compiled to WebAssembly, see layout.PDFium) or poppler (Poppler's
	// pdftotext and pdfinfo programs, which must be installed).
	PDFEngine string `json:"pdf_engine,omitempty"`
	// PDFMemory bounds the memory of the in-process PDF engine (PDFium),
	// all the PDFs it reads at once together, in bytes
	// (layout.PDFiumOptions.TotalMemory; 0: 1 GiB); one PDF gets at most
	// the smaller of it and 512 MiB (PDFiumOptions.MemoryLimit), and PDFs
	// are read at once only as far as each gets 64 MiB of it. A page that
	// needs more is left out and reported, the PDF's others read. At
	// least 32 MiB. gochunk serve sets it to half its memory budget for
	// requests when that is less than 1 GiB (64 MiB at least).
	PDFMemory int64 `json:"pdf_memory,omitempty" range:"0,4398046511104"`
	// MaxText bounds the text read from one document, in bytes: an
	// office, EPUB, e-mail, Outlook, RTF or HTML document holding more is
	// refused with an error naming the bound, checked while it is read
	// (htmldoc.Limits.MaxText; 0: 128 MiB), and so is a PDF of more
	// characters (layout.PDFOptions.MaxChars; 0: 50,000,000). A Source's
	// own Limits.MaxText takes precedence.
	MaxText int64 `json:"max_text,omitempty" range:"0,1125899906842624"`
	// TextRatio bounds the text read from an office, EPUB, e-mail,
	// Outlook, RTF or HTML document of n bytes to TextRatio × n bytes,
	// and never below 1 MiB (htmldoc.Limits.TextRatio; 0: 100): what a
	// small file may expand to. A Source's own Limits.TextRatio takes
	// precedence.
	TextRatio int64 `json:"text_ratio,omitempty" range:"0,1073741824"`
	// PDFNotice, when set, hears that the PDF engine is being compiled
	// (seconds, once per machine; see layout.PDFiumOptions.Notice).
	PDFNotice func(string) `json:"-"`
	// Attachments says what becomes of an e-mail's attachments of a kind
	// Load reads (office documents, PDF, HTML, text): documents (the
	// default: each a document of its own, see Loaded.Attachments) or
	// sections (sections of the message, "## Attachment: name").
	Attachments string `json:"attachments,omitempty"`
	// InvalidUTF8 says what happens to text that is not UTF-8: reject
	// (the default: chunking it is an error naming the first bad byte and,
	// where it recognises one, the encoding the text looks written in),
	// repair (Load replaces bad bytes with U+FFFD; offsets then refer to
	// the repaired text) or decode (Load reads a text file that is not
	// UTF-8 in the legacy encoding ICU's detector recognises, with a
	// warning naming it, and refuses one it recognises none in; offsets
	// refer to the text as UTF-8).
	InvalidUTF8 gochunk.InvalidUTF8Policy `json:"invalid_utf8,omitempty"`
	// Trace asks chunkers that explain themselves (gochunk.Tracer) for
	// their trace, returned in Result.Trace.
	Trace bool `json:"trace,omitempty"`
	// EmbedChunks adds each chunk's embedding to its result.
	EmbedChunks bool `json:"embed_chunks,omitempty"`
	// BatchTokens bounds the tokens of one embedder call when chunks are
	// embedded; 0 means embed.DefaultBatchTokens.
	BatchTokens int `json:"batch_tokens,omitempty"`
	// Context says what each chunk's embedded and keyword-indexed text
	// carries besides the chunk (its record's embed_text).
	Context ContextConfig `json:"context,omitzero"`
	// Parents, when positive, makes two levels: each document's chunks
	// are grouped into parents of at most this many tokens (of the
	// chunks' unit), sections first, and each chunk's record names its
	// parent's span (record.Parent). Search returns parents (expand,
	// merge) where small chunks matched.
	Parents int `json:"parents,omitempty" range:"0,1073741824"`
	// OCR reads images, and PDF pages without text, with OCR (see
	// OCRConfig; off without a model).
	OCR OCRConfig `json:"ocr,omitzero"`
}

// EmbedderConfig chooses and configures the embedder (see embed.New).
type EmbedderConfig struct {
	// Name is lexical (built in; the default), static:MODEL, onnx:MODEL
	// or openai:MODEL.
	Name string `json:"name,omitempty"`
	// URL is the base URL of an openai:MODEL's API.
	URL string `json:"url,omitempty"`
	// Dimensions asks an openai:MODEL for vectors of this length.
	Dimensions int `json:"dimensions,omitempty" range:"0,65536"`
	// Timeout bounds one request to an openai:MODEL's API; Retries is how
	// many times a failed one is retried (see embed.Options).
	Timeout     time.Duration `json:"timeout,omitempty" range:"0,86400000000000"`
	Retries     int           `json:"retries,omitempty" range:"-1,100"`
	Concurrency int           `json:"concurrency,omitempty" range:"0,1024"`
	// CacheDir is the Hugging Face cache of downloaded models.
	CacheDir string `json:"hf_cache,omitempty"`
	// Offline forbids downloads.
	Offline bool `json:"offline,omitempty"`
	// ONNXBackend, ONNXLibrary, ONNXThreads, ONNXCUDA and ONNXPooling
	// choose how an onnx:MODEL runs (see embed.Options).
	ONNXBackend string `json:"onnx_backend,omitempty"`
	ONNXLibrary string `json:"onnx_library,omitempty"`
	ONNXThreads int    `json:"onnx_threads,omitempty" range:"0,1024"`
	ONNXCUDA    bool   `json:"onnx_cuda,omitempty"`
	ONNXPooling string `json:"onnx_pooling,omitempty"`
	// CacheEntries bounds the in-memory cache of embeddings; 0 means
	// embed.CacheOptions' default.
	CacheEntries int `json:"cache_entries,omitempty" range:"0,1073741824"`
	// CacheBytes, when positive, also bounds the cache's memory in bytes.
	CacheBytes int64 `json:"cache_bytes,omitempty" range:"0,1125899906842624"`
	// DiskCache, when set, also keeps embeddings on disk in this
	// directory, so that they survive the process; DiskCacheBytes bounds
	// it (0: unbounded).
	DiskCache      string `json:"disk_cache,omitempty"`
	DiskCacheBytes int64  `json:"disk_cache_bytes,omitempty" range:"0,1125899906842624"`
	// Progress, when set, receives model download progress.
	Progress func(done, total int64, file string) `json:"-"`
	// Notice, when set, hears how a model runs (which ONNX backend), and
	// what an openai:MODEL's limit and tokenizer could not be settled by.
	Notice func(string) `json:"-"`
	// ModelTokenizer, an hf: tokenizer (see NewTokenizer), is taken as an
	// openai:MODEL's own instead of the one embed.OpenAIModels names; New
	// sets it to Config.Tokenizer when that is one.
	ModelTokenizer string `json:"-"`
}

// LLMConfig configures the chat model of the LLM chunkers (see llm.New).
type LLMConfig struct {
	// URL is the base URL of an OpenAI-compatible chat API (default
	// OpenAI's; the key comes from OPENAI_API_KEY).
	URL string `json:"url,omitempty"`
	// Model is the chat model; the LLM chunkers fail to build without one.
	Model string `json:"model,omitempty"`
	// CacheDir keeps the model's answers, so re-runs are free and
	// identical; CacheBytes bounds it (0: unbounded).
	CacheDir   string `json:"cache_dir,omitempty"`
	CacheBytes int64  `json:"cache_bytes,omitempty" range:"0,1125899906842624"`
	// PlainAnswers asks for plain answers instead of schema-constrained
	// JSON (servers that refuse schemas are asked plainly anyway).
	PlainAnswers bool `json:"plain_answers,omitempty"`
	// Timeout bounds one model request; 0 means two minutes.
	Timeout time.Duration `json:"timeout,omitempty" range:"0,86400000000000"`
	// Concurrency bounds requests in flight (0: 4); RequestsPerMinute
	// spaces them for rate-limited APIs (0: no spacing).
	Concurrency       int `json:"concurrency,omitempty" range:"0,1024"`
	RequestsPerMinute int `json:"requests_per_minute,omitempty" range:"0,1000000"`
}

// Options are the parts of a pipeline a caller may give already built,
// shared between pipelines (the server builds its embedder once).
type Options struct {
	// Embedder, when set, is used instead of building one from
	// Config.Embedder.
	Embedder gochunk.Embedder
	// LLM, when set, is used instead of building a client from
	// Config.LLM.
	LLM *llm.Client
	// PDF, when set, reads PDFs instead of an engine built from
	// Config.PDFEngine (share one *layout.PDFium between pipelines).
	PDF layout.PDFEngine
}

// Pipeline is a configuration made ready to run: its chunker built, its
// tokenizer, embedder and model loaded (the embedder only when something
// uses it).
type Pipeline struct {
	cfg     Config
	spec    chunkers.Spec
	chunker gochunk.Chunker
	counter tokenize.Counter
	context *contextStage // nil: chunks are embedded as they are
	res     *resources
}

// resources are what pipelines derived with With share.
type resources struct {
	reg *chunkers.Registry
	cfg Config

	embedOnce sync.Once
	embedder  gochunk.Embedder
	embedErr  error

	llmOnce sync.Once
	llm     *llm.Client
	llmErr  error

	pdfOnce sync.Once
	pdf     layout.PDFEngine
	pdfErr  error

	ocr ocrResource

	mu       sync.Mutex
	counters map[string]tokenize.Counter
	warned   map[string]bool
}

// New builds the pipeline cfg describes. A configuration that cannot work
// (an unknown chunker or tokenizer, a bad parameter, an LLM chunker without
// a model) gives an error wrapping gochunk.ErrConfig.
func New(ctx context.Context, cfg Config, opt Options) (*Pipeline, error) {
	if cfg.Chunker == "" {
		cfg.Chunker = "recursive"
	}
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := params.Check(cfg.Embedder); err != nil {
		return nil, fmt.Errorf("embedder: %w", err)
	}
	if err := params.Check(cfg.LLM); err != nil {
		return nil, fmt.Errorf("language model: %w", err)
	}
	switch cfg.Input {
	case "", "auto", "text", "pdf", "html", "elements", "docx", "pptx", "xlsx", "odt", "ods", "odp", "epub", "eml", "mbox", "msg", "rtf":
	default:
		return nil, configError("input", cfg.Input, "want auto, text, pdf, html, elements, docx, pptx, xlsx, odt, ods, odp, epub, eml, mbox, msg or rtf")
	}
	if err := cfg.OCR.check(); err != nil {
		return nil, err
	}
	switch cfg.InvalidUTF8 {
	case "":
		cfg.InvalidUTF8 = gochunk.Reject
	case gochunk.Reject, gochunk.Repair, gochunk.Decode:
	default:
		return nil, configError("invalid_utf8", string(cfg.InvalidUTF8), "want reject, repair or decode")
	}
	switch cfg.Attachments {
	case "", "documents", "sections":
	default:
		return nil, configError("attachments", cfg.Attachments, "want documents (each attachment a document of its own, the default) or sections (sections of the message)")
	}
	if cfg.PDFMemory > 0 && cfg.PDFMemory < minPDFMemory {
		return nil, configError("pdf_memory", strconv.FormatInt(cfg.PDFMemory, 10), "want at least 32 MiB (33554432): PDFium holds about 19 MiB before it reads a PDF")
	}
	switch cfg.PDFEngine {
	case "", "pdfium", "poppler":
	default:
		return nil, configError("pdf_engine", cfg.PDFEngine, "want pdfium (in the process, the default) or poppler (needs poppler-utils installed)")
	}
	if cfg.BatchTokens < 0 {
		return nil, configError("batch_tokens", fmt.Sprint(cfg.BatchTokens), "want a positive number of tokens, or 0 for the default")
	}
	if cfg.BatchTokens == 0 {
		cfg.BatchTokens = embed.DefaultBatchTokens
	}
	if strings.HasPrefix(cfg.Tokenizer, "hf:") && cfg.Embedder.ModelTokenizer == "" {
		cfg.Embedder.ModelTokenizer = cfg.Tokenizer
	}
	res := &resources{reg: chunkers.New(), cfg: cfg, counters: map[string]tokenize.Counter{}, warned: map[string]bool{}}
	if opt.Embedder != nil {
		res.embedOnce.Do(func() { res.embedder = opt.Embedder })
	}
	if opt.LLM != nil {
		res.llmOnce.Do(func() { res.llm = opt.LLM })
	}
	if opt.PDF != nil {
		res.pdfOnce.Do(func() { res.pdf = opt.PDF })
	}
	return res.build(ctx, cfg)
}

// With returns a pipeline like p but with another chunker, parameters and
// tokenizer (empty chunker: "recursive"; empty tokenizer: the chunker's
// default unit). It shares p's embedder, model and loaded tokenizers, so it
// is cheap: the server derives one per request.
func (p *Pipeline) With(ctx context.Context, chunker string, params json.RawMessage, tokenizer string) (*Pipeline, error) {
	cfg := p.cfg
	cfg.Chunker, cfg.Params, cfg.Tokenizer = chunker, params, tokenizer
	if cfg.Chunker == "" {
		cfg.Chunker = "recursive"
	}
	return p.res.build(ctx, cfg)
}

// WithContext returns a pipeline like p whose chunks carry context c
// (see ContextConfig).
func (p *Pipeline) WithContext(c ContextConfig) (*Pipeline, error) {
	if c.Mode == "none" {
		c.Mode = ""
	}
	stage, err := newContextStage(c, p.res.model)
	if err != nil {
		return nil, err
	}
	q := *p
	q.cfg.Context, q.context = c, stage
	return &q, nil
}

// WithParents returns a pipeline like p that groups chunks into parents
// of at most size tokens (Config.Parents; 0 for one level).
func (p *Pipeline) WithParents(size int) (*Pipeline, error) {
	q := *p
	q.cfg.Parents = size
	if err := params.Check(q.cfg); err != nil {
		return nil, err
	}
	return &q, nil
}

func (r *resources) build(ctx context.Context, cfg Config) (*Pipeline, error) {
	spec, ok := r.reg.Lookup(cfg.Chunker)
	if !ok {
		return nil, fmt.Errorf("%w: unknown chunker %q (known: %s)", gochunk.ErrConfig, cfg.Chunker, strings.Join(r.reg.Names(), ", "))
	}
	var env chunkers.Env
	var err error
	if spec.Embeds {
		if env.Embedder, err = r.embed(ctx); err != nil {
			return nil, err
		}
	}
	if spec.UsesLLM {
		if env.LLM, err = r.model(); err != nil {
			return nil, fmt.Errorf("chunker %q: %w", cfg.Chunker, err)
		}
	}
	if env.Counter, err = r.counter(ctx, cfg.Tokenizer, spec, env.Embedder); err != nil {
		return nil, err
	}
	if cfg.Params, err = r.fitSizes(ctx, cfg, spec, env.Counter); err != nil {
		return nil, err
	}
	ch, err := r.reg.New(cfg.Chunker, cfg.Params, env)
	if err != nil {
		return nil, err
	}
	if cfg.Context.Mode == "none" {
		cfg.Context.Mode = ""
	}
	stage, err := newContextStage(cfg.Context, r.model)
	if err != nil {
		return nil, err
	}
	return &Pipeline{cfg: cfg, spec: spec, chunker: ch, counter: env.Counter, context: stage, res: r}, nil
}

// counter returns the tokenizer named name, or the chunker's default unit
// when name is empty, loading each once.
func (r *resources) counter(ctx context.Context, name string, spec chunkers.Spec, em gochunk.Embedder) (tokenize.Counter, error) {
	key := name
	if key == "" {
		key = "default:" + chunkers.DefaultUnit(spec)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.counters[key]; ok {
		return c, nil
	}
	var c tokenize.Counter
	var err error
	if name == "" && remoteEmbedder(r.cfg.Embedder.Name) {
		// Chunks that an OpenAI-compatible API embeds are sized in the
		// model's own tokens, whatever the chunker, when it is known.
		key = "default:embedder"
		if c, ok := r.counters[key]; ok {
			return c, nil
		}
		e, err := r.embed(ctx)
		if err != nil {
			return nil, err
		}
		if tok, _ := embed.TokenizerOf(e); tok != nil {
			r.counters[key] = tok
			return tok, nil
		}
		key = "default:" + chunkers.DefaultUnit(spec)
		if c, ok := r.counters[key]; ok {
			return c, nil
		}
	}
	if name == "" {
		c, err = chunkers.DefaultCounter(spec, em)
	} else {
		c, err = NewTokenizer(ctx, name, r.cfg.Embedder)
	}
	if err != nil {
		if errors.Is(err, tokenize.ErrUnknown) || strings.HasPrefix(name, "hf:") {
			return nil, fmt.Errorf("%w: tokenizer: %w", gochunk.ErrConfig, err)
		}
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	r.counters[key] = c
	return c, nil
}

// remoteEmbedder tells whether an embedder name is an OpenAI-compatible
// API's model.
func remoteEmbedder(name string) bool { return strings.HasPrefix(name, "openai:") }

// sizeParams are the parameters that bound a chunk's size in chunkers'
// configurations.
var sizeParams = []string{"size", "max_tokens"}

// fitSizes returns cfg's chunker parameters with the sizes over the
// embedder's limit lowered to it, when chunks are counted in the
// embedder's own tokens: a chunk then fits the model by construction. A
// size given over the limit is lowered with a warning (Embedder.Notice)
// that says so; a default one silently.
func (r *resources) fitSizes(ctx context.Context, cfg Config, spec chunkers.Spec, counter tokenize.Counter) (json.RawMessage, error) {
	if !remoteEmbedder(cfg.Embedder.Name) && !spec.Embeds {
		return cfg.Params, nil
	}
	e, err := r.embed(ctx)
	if err != nil {
		if spec.Embeds {
			return nil, err
		}
		return cfg.Params, nil
	}
	tok, limit := embed.TokenizerOf(e)
	if tok == nil || limit <= 0 || tok != counter {
		return cfg.Params, nil
	}
	given := map[string]json.RawMessage{}
	if p := bytes.TrimSpace(cfg.Params); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		if err := json.Unmarshal(p, &given); err != nil {
			return cfg.Params, nil // the chunker reports it
		}
	}
	defaults := map[string]json.RawMessage{}
	if spec.Defaults != nil {
		if b, err := json.Marshal(spec.Defaults); err == nil {
			json.Unmarshal(b, &defaults)
		}
	}
	changed := false
	for _, k := range sizeParams {
		v, isGiven := given[k]
		if !isGiven {
			v = defaults[k]
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil || n <= limit {
			continue
		}
		given[k], changed = json.RawMessage(strconv.Itoa(limit)), true
		if isGiven {
			flag := "--size"
			if k != "size" {
				flag = k
			}
			r.warn(fmt.Sprintf("%s %d is over the %d tokens %s takes (counted in its own tokenizer, special tokens left out); lowered to %d", flag, n, limit, strings.TrimPrefix(cfg.Embedder.Name, "openai:"), limit))
		}
	}
	if !changed {
		return cfg.Params, nil
	}
	return json.Marshal(given)
}

// warn says s through the embedder's Notice, once per pipeline and its
// derivatives.
func (r *resources) warn(s string) {
	if r.cfg.Embedder.Notice == nil {
		return
	}
	r.mu.Lock()
	seen := r.warned[s]
	r.warned[s] = true
	r.mu.Unlock()
	if !seen {
		r.cfg.Embedder.Notice(s)
	}
}

// NewTokenizer returns the tokenizer name names (see tokenize.New). An
// hf:ID that is not a local file or directory but a hub id (ORG/NAME or a
// hub-wide NAME such as bert-base-uncased, optionally @REVISION) is the
// tokenizer.json of that model, found in the hub cache or downloaded
// into it as embedders' models are (hf's cache directory, offline mode and
// progress: cfg's CacheDir, Offline and Progress).
func NewTokenizer(ctx context.Context, name string, cfg EmbedderConfig) (tokenize.Counter, error) {
	id, ok := strings.CutPrefix(name, "hf:")
	if !ok || id == "" {
		return tokenize.New(name)
	}
	if _, err := os.Stat(id); err == nil || !hubID(id) {
		return tokenize.New(name)
	}
	repo, rev, _ := strings.Cut(id, "@")
	opt := hfhub.Options{CacheDir: cfg.CacheDir, Offline: cfg.Offline, Progress: cfg.Progress, Warn: cfg.Notice}
	path, err := hfhub.Download(ctx, repo, rev, "tokenizer.json", opt)
	if errors.Is(err, hfhub.ErrOffline) {
		return nil, fmt.Errorf("%s: the tokenizer.json of %s is not in the hub cache (%s) and downloads are off (--offline or HF_HUB_OFFLINE): run once online to download it there, or put it there with `huggingface-cli download %s tokenizer.json`, or give a local file: hf:PATH/tokenizer.json",
			name, repo, hfhub.CacheDir(opt), repo)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (or give a local file: hf:PATH/tokenizer.json)", name, err)
	}
	return tokenize.LoadHF(path)
}

// hubID tells whether id may name a model of the hub: ORG/NAME or a
// hub-wide NAME, with an optional @REVISION, and no path syntax.
func hubID(id string) bool {
	repo, _, _ := strings.Cut(id, "@")
	if strings.HasSuffix(repo, ".json") || strings.HasPrefix(repo, ".") || strings.Contains(repo, "..") {
		return false
	}
	return hfhub.ValidRepo(repo) || hubNameRe.MatchString(repo)
}

var hubNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// embed returns the embedder, building it on first use.
func (r *resources) embed(ctx context.Context) (gochunk.Embedder, error) {
	r.embedOnce.Do(func() {
		r.embedder, r.embedErr = NewEmbedder(ctx, r.cfg.Embedder)
	})
	return r.embedder, r.embedErr
}

// minPDFMemory is the least Config.PDFMemory: an instance of PDFium holds
// about 19 MiB before it reads anything. pdfMemoryPerInstance is the
// least memory of the engine's for each PDF read at once.
const (
	minPDFMemory         = layout.MinPDFiumMemory
	pdfMemoryPerInstance = 64 << 20
)

// pdfEngine returns the PDF engine, building it on first use: PDFium's
// module is compiled (or loaded from the user's cache) only when a PDF
// comes. An engine built here frees itself once the pipelines sharing it
// are all unreachable.
func (r *resources) pdfEngine(ctx context.Context) (layout.PDFEngine, error) {
	r.pdfOnce.Do(func() {
		if r.cfg.PDFEngine == "poppler" {
			r.pdf = layout.Poppler{}
			return
		}
		// Each instance starts with about 19 MiB of its own: PDFs are
		// read at once only as far as the engine's memory leaves each at
		// least pdfMemoryPerInstance.
		total := cmp.Or(r.cfg.PDFMemory, layout.DefaultPDFiumTotalMemory)
		opt := layout.PDFiumOptions{Notice: r.cfg.PDFNotice, TotalMemory: total,
			MemoryLimit: min(layout.DefaultPDFiumMemory, total),
			Instances:   int(max(1, min(int64(runtime.GOMAXPROCS(0)), total/pdfMemoryPerInstance)))}
		e, err := layout.NewPDFium(ctx, opt)
		if err != nil {
			r.pdfErr = err
			return
		}
		r.pdf = e
	})
	return r.pdf, r.pdfErr
}

// model returns the chat client, building it on first use.
func (r *resources) model() (*llm.Client, error) {
	r.llmOnce.Do(func() {
		c := r.cfg.LLM
		if c.Model == "" {
			r.llmErr = fmt.Errorf("%w: %w", gochunk.ErrConfig, ErrNoModel)
			return
		}
		if c.Timeout == 0 {
			c.Timeout = 2 * time.Minute
		}
		r.llm, r.llmErr = llm.New(llm.Config{BaseURL: c.URL, Model: c.Model, CacheDir: c.CacheDir, CacheBytes: c.CacheBytes, JSONMode: !c.PlainAnswers, Timeout: c.Timeout,
			Concurrency: c.Concurrency, RequestsPerMinute: c.RequestsPerMinute})
		if r.llmErr != nil {
			r.llmErr = fmt.Errorf("%w: LLM: %w", gochunk.ErrConfig, r.llmErr)
		}
	})
	return r.llm, r.llmErr
}

// Chunkers returns a function that builds the chunker of any chunker
// name, parameters and tokenizer, on cfg's resources (tokenizers,
// embedder, chat model), loaded once for all of them; it also returns the
// name of the chunker's size unit. Evaluations and searches over many
// configurations use it. A "context" among the parameters (none, headings)
// sets Config.Context's mode instead; a chunker with context has an
// EmbedTexts method (see Pipeline.EmbedTexts), which package eval indexes.
func Chunkers(cfg Config) func(ctx context.Context, chunker string, params map[string]any, tokenizer string) (gochunk.Chunker, string, error) {
	var base *Pipeline
	var mu sync.Mutex
	return func(ctx context.Context, chunker string, params map[string]any, tokenizer string) (gochunk.Chunker, string, error) {
		// Context and parents are pipeline settings, not a chunker's
		// parameters: an evaluation may vary them like ones.
		levels := cfg
		rest, err := levels.ApplySettings(params)
		if err != nil {
			return nil, "", err
		}
		_, hasParents := params["parents"]
		hasContext := false
		for _, k := range []string{"context", "context_template", "context_document_tokens"} {
			_, ok := params[k]
			hasContext = hasContext || ok
		}
		raw, err := json.Marshal(rest)
		if err != nil {
			return nil, "", fmt.Errorf("parameters of %s: %w", chunker, err)
		}
		mu.Lock()
		defer mu.Unlock()
		var pl *Pipeline
		if base == nil {
			c := cfg
			c.Chunker, c.Params, c.Tokenizer = chunker, raw, tokenizer
			base, err = New(ctx, c, Options{})
			pl = base
		} else {
			pl, err = base.With(ctx, chunker, raw, tokenizer)
		}
		if err != nil {
			return nil, "", err
		}
		if hasContext {
			if pl, err = pl.WithContext(levels.Context); err != nil {
				return nil, "", err
			}
		}
		if hasParents {
			if pl, err = pl.WithParents(levels.Parents); err != nil {
				return nil, "", err
			}
		}
		if pl.context != nil || pl.cfg.Parents > 0 {
			return leveledChunker{pl.Chunker(), pl}, pl.Counter().Name(), nil
		}
		return pl.Chunker(), pl.Counter().Name(), nil
	}
}

// SettingParams are the pipeline settings that may stand among a
// chunker's parameters (in a configuration file, or a point of an
// evaluation's grid); see Config.ApplySettings.
var SettingParams = []string{"context", "context_template", "context_document_tokens", "parents"}

// ApplySettings moves the pipeline settings found among a chunker's
// parameters onto c, so that one object can say both: "context" (a mode,
// none, headings, template or llm, or an object of ContextConfig's
// fields), "context_template" (a template; it sets the mode to template
// unless "context" names one), "context_document_tokens" and "parents".
// It returns the parameters left, the chunker's own (params itself when
// it holds no setting). A value of the wrong kind gives an error wrapping
// gochunk.ErrConfig that names the setting.
func (c *Config) ApplySettings(in map[string]any) (map[string]any, error) {
	found := false
	for _, k := range SettingParams {
		_, ok := in[k]
		found = found || ok
	}
	if !found {
		return in, nil
	}
	rest := maps.Clone(in)
	for _, k := range SettingParams {
		delete(rest, k)
	}
	if v, ok := in["context"]; ok {
		switch v := v.(type) {
		case string:
			c.Context = ContextConfig{Mode: v}
		case bool:
			c.Context = ContextConfig{Mode: map[bool]string{true: "headings", false: ""}[v]}
		case map[string]any:
			b, _ := json.Marshal(v)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			var cc ContextConfig
			if err := dec.Decode(&cc); err != nil {
				return nil, fmt.Errorf("%w: context: %v (its fields: mode, template, document_tokens, estimate)", gochunk.ErrConfig, strings.TrimPrefix(err.Error(), "json: "))
			}
			c.Context = cc
		default:
			return nil, configError("context", fmt.Sprint(v), "want a mode (none, headings, template or llm) or an object {\"mode\": …, \"template\": …}")
		}
		if c.Context.Mode == "none" {
			c.Context.Mode = ""
		}
	}
	if v, ok := in["context_template"]; ok {
		t, isString := v.(string)
		if !isString {
			return nil, configError("context_template", fmt.Sprint(v), "want a Go template over .Text (and .Title, .Headings, .Path, …)")
		}
		c.Context.Template = t
		if _, moded := in["context"]; !moded || c.Context.Mode == "" {
			c.Context.Mode = "template"
		}
	}
	for _, s := range []struct {
		key  string
		dst  *int
		want string
	}{{"context_document_tokens", &c.Context.DocumentTokens, "want a number of tokens, or 0 for the default"},
		{"parents", &c.Parents, "want a size in tokens, or 0 for one level"}} {
		v, ok := in[s.key]
		if !ok {
			continue
		}
		n, err := intSetting(v)
		if err != nil {
			return nil, configError(s.key, fmt.Sprint(v), s.want)
		}
		*s.dst = n
	}
	if err := params.Check(*c); err != nil {
		return nil, err
	}
	return rest, nil
}

// intSetting reads an integer setting from a decoded JSON or YAML value
// (json.Number, float64, int) or a string of digits.
func intSetting(v any) (int, error) {
	switch v := v.(type) {
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		if v != float64(int(v)) {
			return 0, errors.New("not an integer")
		}
		return int(v), nil
	case json.Number:
		return strconv.Atoi(v.String())
	case string:
		return strconv.Atoi(v)
	}
	return 0, errors.New("not an integer")
}

// leveledChunker is a chunker whose chunks are indexed with their context
// (see EmbedTexts) or grouped into parents (see Parents).
type leveledChunker struct {
	gochunk.Chunker
	p *Pipeline
}

// EmbedTexts returns the embedded texts of doc's chunks.
func (c leveledChunker) EmbedTexts(doc gochunk.Document, chunks []gochunk.Chunk) ([]string, error) {
	return c.p.EmbedTexts(doc, chunks)
}

// Parents returns the parents of doc's chunks.
func (c leveledChunker) Parents(doc gochunk.Document, chunks []gochunk.Chunk) ([]record.Parent, []int, error) {
	if c.p.cfg.Parents <= 0 {
		return nil, nil, nil
	}
	return groupParents(context.Background(), doc, chunks, c.p.counter, c.p.cfg.Parents)
}

// EmbedTexts returns, for each chunk of doc, the text its context makes
// it embedded and keyword-indexed as (Config.Context): "" where that is
// the chunk's text, nil without context.
func (p *Pipeline) EmbedTexts(doc gochunk.Document, chunks []gochunk.Chunk) ([]string, error) {
	if p.context == nil {
		return nil, nil
	}
	if p.context.mode == "llm" {
		texts, _, _, err := p.context.llmTexts(context.Background(), doc, chunks)
		return texts, err
	}
	lines, where := locate(doc, chunks)
	return p.context.embedTexts(context.Background(), doc, chunks, lines, where)
}

// NewModel returns the chat model cfg names, or nil when it names none.
func NewModel(cfg LLMConfig) (*llm.Client, error) {
	r := &resources{cfg: Config{LLM: cfg}}
	m, err := r.model()
	if errors.Is(err, ErrNoModel) {
		return nil, nil
	}
	return m, err
}

// NewEmbedder builds the embedder cfg names, behind an in-memory cache of
// embeddings. A name New does not know gives an error wrapping
// gochunk.ErrConfig and embed.ErrName.
func NewEmbedder(ctx context.Context, cfg EmbedderConfig) (gochunk.Embedder, error) {
	if err := params.Check(cfg); err != nil {
		return nil, fmt.Errorf("embedder: %w", err)
	}
	name := cfg.Name
	if name == "" {
		name = "lexical"
	}
	opt := cfg.options()
	if cfg.ModelTokenizer != "" && remoteEmbedder(name) {
		tok, err := NewTokenizer(ctx, cfg.ModelTokenizer, cfg)
		if err != nil {
			return nil, fmt.Errorf("%w: tokenizer: %w", gochunk.ErrConfig, err)
		}
		opt.ModelTokenizer = tok
	}
	em, err := embed.New(ctx, name, opt)
	if err != nil {
		if errors.Is(err, embed.ErrName) {
			return nil, fmt.Errorf("%w: embedder: %w", gochunk.ErrConfig, err)
		}
		return nil, fmt.Errorf("embedder: %w", err)
	}
	return embed.NewCached(em, embed.CacheOptions{Entries: cfg.CacheEntries, Bytes: cfg.CacheBytes,
		Dir: cfg.DiskCache, DirBytes: cfg.DiskCacheBytes, Warn: cfg.Notice}), nil
}

// options are embed's options of cfg.
func (cfg EmbedderConfig) options() embed.Options {
	return embed.Options{BaseURL: cfg.URL, Dimensions: cfg.Dimensions, Timeout: cfg.Timeout, Retries: cfg.Retries, Concurrency: cfg.Concurrency, CacheDir: cfg.CacheDir,
		Offline: cfg.Offline, Progress: cfg.Progress, Notice: cfg.Notice, ONNXBackend: cfg.ONNXBackend, ONNXRuntimeLibrary: cfg.ONNXLibrary,
		ONNXThreads: cfg.ONNXThreads, ONNXCUDA: cfg.ONNXCUDA, ONNXPooling: cfg.ONNXPooling}
}

// CrossEncoders returns a loader of ONNX cross-encoders (a directory or a
// hub id) with cfg's hub cache, offline mode and ONNX Runtime settings.
func (cfg EmbedderConfig) CrossEncoders(ctx context.Context) func(model string) (*embed.CrossEncoder, error) {
	return func(model string) (*embed.CrossEncoder, error) {
		return embed.LoadCrossEncoder(ctx, model, cfg.options())
	}
}

// ErrNoModel reports an LLM chunker in a configuration without a chat
// model (LLMConfig.Model). It is wrapped with gochunk.ErrConfig.
var ErrNoModel = llm.ErrNoModel

func configError(param, value, want string) error {
	return fmt.Errorf("%w: %s %q: %s", gochunk.ErrConfig, param, value, want)
}

// Config returns the pipeline's configuration, defaults filled in.
func (p *Pipeline) Config() Config { return p.cfg }

// Chunker returns the chunker.
func (p *Pipeline) Chunker() gochunk.Chunker { return p.chunker }

// Spec returns the chunker's registry entry.
func (p *Pipeline) Spec() chunkers.Spec { return p.spec }

// Counter returns the size unit chunks are measured in.
func (p *Pipeline) Counter() tokenize.Counter { return p.counter }

// PDFEngine returns the engine that reads the pipeline's PDFs, building it
// on first use.
func (p *Pipeline) PDFEngine(ctx context.Context) (layout.PDFEngine, error) {
	return p.res.pdfEngine(ctx)
}

// Embedder returns the embedder, building it on first use.
func (p *Pipeline) Embedder(ctx context.Context) (gochunk.Embedder, error) { return p.res.embed(ctx) }

// Names returns the names of the chunkers a Config may name.
func Names() []string { return chunkers.New().Names() }
