// Package pipelineflag defines a pipeline.Config's settings as
// command-line flags: the flags of gochunk chunk, shared by every command
// that builds a pipeline (gochunk's chunk, index, inspect, bench, eval,
// tune and serve, and gochunk-beam), so each knob exists everywhere under
// one name. It also layers settings from the environment and a JSON or
// YAML file under the flags.
package pipelineflag

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/internal/progress"
	"github.com/gochunk/gochunk/pipeline"
)

// Flags are a pipeline's flags. Register them on a flag set, parse it,
// then read the configuration with Config or build the pipeline with
// Build.
type Flags struct {
	// Cfg receives the flags' values; set fields before registering to
	// change the defaults of those without one.
	Cfg           pipeline.Config
	size, overlap int
	// Params is --config: a configuration file (see Register).
	Params   string
	llmJSON  bool
	progress string // auto (""), always or never
	// Stderr receives notices and, when ShowProgress, download progress;
	// TTY says whether it is a terminal.
	Stderr io.Writer
	TTY    bool
	fs     *flag.FlagSet
	// shared holds the settings of the configuration files read (by
	// Chunker) that apply to the whole pipeline rather than to one
	// chunker (the embedder, the input kind, …), by flag name.
	shared map[string]fileSetting
}

// fileSetting is a value a configuration file gave a pipeline flag.
type fileSetting struct {
	value any
	path  string
}

// RegisterResources registers the flags of the tokenizer, the embedder and
// the language model: what serve shares with the chunking commands.
func (p *Flags) RegisterResources(fs *flag.FlagSet) {
	p.fs = fs
	c := &p.Cfg
	fs.StringVar(&c.Tokenizer, "tokenizer", "", "size unit: runes, words, bytes, cl100k_base, o200k_base, hf:PATH (a tokenizer.json, or a directory holding one) or hf:MODEL (a hub model's tokenizer.json, from the --hf-cache or downloaded there: hf:bert-base-uncased, hf:BAAI/bge-small-en-v1.5); default: runes for rule-based chunkers, the embedder's tokenizer (else cl100k_base) for those that embed")
	p.RegisterEmbedder(fs)
	fs.IntVar(&c.BatchTokens, "max-batch-tokens", 0, fmt.Sprintf("tokens per embedder call when chunks are embedded (default %d)", embed.DefaultBatchTokens))
	l := &c.LLM
	fs.StringVar(&l.URL, "llm-url", "", "base URL of an OpenAI-compatible chat API for llm-split, propositions, --context llm and --ocr openai:MODEL, e.g. http://localhost:11434/v1 (default $OPENAI_BASE_URL, else https://api.openai.com/v1; key from OPENAI_API_KEY)")
	fs.StringVar(&l.Model, "llm-model", "", "chat model for llm-split, propositions and --context llm")
	fs.StringVar(&l.CacheDir, "llm-cache", "", "directory keeping the chat model's answers (llm-split, propositions, --context llm, --ocr openai:MODEL's pages), so re-runs are free and identical")
	BytesVar(fs, "cache-limit", "bound of each disk cache (--llm-cache, --embed-cache-dir), bytes or with a unit (1GiB); least recently used entries go first; see gochunk cache", &l.CacheBytes, &c.Embedder.DiskCacheBytes)
	fs.BoolVar(&p.llmJSON, "llm-json", true, "ask for schema-constrained JSON answers (servers that refuse are asked plainly)")
	fs.DurationVar(&l.Timeout, "llm-timeout", 2*time.Minute, "time limit of one chat model request (llm-split, propositions, --context llm, --ocr openai:MODEL)")
	fs.IntVar(&l.Concurrency, "llm-concurrency", 4, "chat model requests in flight at once (llm-split, propositions, --context llm; --ocr openai:MODEL sends that many pages of a document at once)")
	fs.IntVar(&l.RequestsPerMinute, "llm-rpm", 0, "at most this many chat model requests per minute (llm-split, propositions, --context llm, --ocr openai:MODEL), for rate-limited APIs (0: no limit; 429s are retried either way)")
}

// RegisterEmbedder registers the flags that choose the embedder.
func (p *Flags) RegisterEmbedder(fs *flag.FlagSet) {
	p.fs = fs
	e := &p.Cfg.Embedder
	fs.StringVar(&e.Name, "embedder", "lexical", "embedder: lexical (built in), static:MODEL (Model2Vec directory or hub id), onnx:MODEL, openai:MODEL")
	fs.StringVar(&e.URL, "embed-url", "", "base URL of an OpenAI-compatible API for openai:MODEL (default $OPENAI_BASE_URL, else https://api.openai.com/v1; key from OPENAI_API_KEY)")
	fs.IntVar(&e.Dimensions, "embed-dimensions", 0, "ask an openai:MODEL for vectors of this length")
	fs.DurationVar(&e.Timeout, "embed-timeout", 60*time.Second, "time limit of one request to an openai:MODEL's API")
	fs.IntVar(&e.Retries, "embed-retries", 0, "retries of a failed request to an openai:MODEL's API (default 5; -1: none)")
	fs.IntVar(&e.Concurrency, "embed-concurrency", 0, "requests to an openai:MODEL's API in flight at once (default 4)")
	fs.StringVar(&e.CacheDir, "hf-cache", "", "Hugging Face cache directory for downloaded models (default $HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)")
	fs.BoolVar(&e.Offline, "offline", false, "never download models (as HF_HUB_OFFLINE=1)")
	fs.StringVar(&e.ONNXBackend, "onnx-backend", "auto", "how onnx:MODEL runs: auto (ONNX Runtime when its library loads, else pure Go), ort (ONNX Runtime: 20-30x faster) or go (pure Go)")
	fs.StringVar(&e.ONNXLibrary, "onnx-library", "", "path of libonnxruntime (default: $GOCHUNK_ONNX_LIBRARY, then the system's; see the README)")
	fs.IntVar(&e.ONNXThreads, "onnx-threads", 0, "threads of one ONNX Runtime run (default: one per core)")
	fs.BoolVar(&e.ONNXCUDA, "onnx-cuda", false, "run --onnx-backend ort on a CUDA GPU")
	fs.StringVar(&e.ONNXPooling, "onnx-pooling", "", "how onnx:MODEL pools token vectors: cls, mean or last (Qwen3-Embedding and other decoder models); default: the model's 1_Pooling/config.json")
	fs.IntVar(&e.CacheEntries, "embed-cache", 0, "embeddings kept in memory (default 65536)")
	fs.StringVar(&e.DiskCache, "embed-cache-dir", "", "directory keeping embeddings on disk, so re-runs embed nothing twice")
	BytesVar(fs, "cache-bytes", "memory of the embeddings kept, bytes or with a unit (256MiB); default: unbounded but by --embed-cache (serve: 1/8 of --max-memory)", &e.CacheBytes)
}

// Register registers the chunking flags, --config and
// RegisterResources'.
//
// --config names a configuration file, JSON or YAML: one object whose keys
// are the chunker's parameters and the names of the pipeline's flags
// (with - or _), for example
//
//	{"chunker": "recursive", "size": 300, "tokenizer": "cl100k_base",
//	 "parents": 3000, "context": "headings", "embedder": "static:minishlab/potion-base-8M"}
//
// "context" also takes an object, {"mode": "template", "template":
// "{{.Title}}\n\n{{.Text}}"}. Flags given on the command line override
// the file; a key that is neither is an error naming the valid ones.
// gochunk chunk, index, eval and gochunk-beam read it alike, and gochunk
// tune writes it (see File).
func (p *Flags) Register(fs *flag.FlagSet) {
	p.RegisterChunking(fs)
	fs.StringVar(&p.Params, "config", "", "JSON or YAML `FILE` of the pipeline's configuration: the chunker's parameters and the flags' names, e.g. {\"chunker\": \"recursive\", \"size\": 300, \"parents\": 3000, \"context\": \"headings\"} (what gochunk tune writes); flags given override it")
}

// RegisterChunking registers the flags of Register but --config.
func (p *Flags) RegisterChunking(fs *flag.FlagSet) {
	p.RegisterResources(fs)
	c := &p.Cfg
	fs.StringVar(&c.Chunker, "chunker", "recursive", "chunker `NAME` (see 'gochunk chunkers')")
	fs.IntVar(&p.size, "size", 0, "maximum chunk size in tokens of --tokenizer (default: the chunker's)")
	fs.IntVar(&p.overlap, "overlap", 0, "tokens repeated between consecutive chunks (default: the chunker's)")
	textVar(fs, "progress", "progress bar on stderr: auto (when stderr is a terminal; the default), always or never", func(v string) error {
		if v != "auto" && v != "always" && v != "never" {
			return errors.New("want auto, always or never")
		}
		p.progress = v
		return nil
	})
	fs.Var((*contextFlag)(&c.Context), "context", "what each chunk's embedded and keyword-indexed text carries besides the chunk: none (the default), headings (title > heading path, or a code file's path > enclosing definition), template (--context-template) or llm (a chat model, --llm-model, situates each chunk in its document: contextual retrieval); the chunk's text and offsets stay exact")
	fs.IntVar(&c.Context.DocumentTokens, "context-document-tokens", 0, "with --context llm: the most `TOKENS` of a document sent with each chunk (default 16000; a longer one is sent as the chunk's section or the text around it)")
	fs.BoolVar(&c.Context.Estimate, "context-estimate", false, "with --context llm: ask the model nothing, and report the requests and tokens it would take")
	fs.IntVar(&c.Parents, "parents", 0, "make two levels: group each document's chunks into parents of at most `SIZE` tokens of --tokenizer, sections first; search can then return parents (--expand, --merge)")
	textVar(fs, "context-template", "Go `TEMPLATE` of the embedded text over .Title, .Headings, .Path, .Source, .Lines, .Pages, .Metadata and .Text (sets --context template)", func(v string) error {
		c.Context.Template = v
		if c.Context.Mode == "" {
			c.Context.Mode = "template"
		}
		return nil
	})
	fs.StringVar(&c.Input, "input", "auto", "input kind: auto (by the extension: .pdf, .html, .htm, .docx, .pptx, .xlsx, .odt, .ods, .odp, .epub, .eml, .mbox, .msg, .rtf, .ipynb (Jupyter), .rss, .atom; else by the content: text unless it is one of those (a .json notebook and an .xml feed included), and formats gochunk does not read are refused naming them), text, pdf (read by --pdf-engine), html (its structure as markdown), docx, pptx, xlsx, odt, ods, odp, epub, eml, mbox, msg (Outlook), rtf (read in Go, their structure as markdown), elements (layout JSON: gochunk, Unstructured, Docling, PyMuPDF)")
	textVar(fs, "attachments", "an e-mail's attachments of a kind gochunk reads: documents (each a document of its own, ID MESSAGE/NAME; the default) or sections (sections of the message)", func(v string) error {
		c.Attachments = v
		return nil
	})
	RegisterOCR(fs, &c.OCR) // pipelineflag/ocr.go
	textVar(fs, "pdf-engine", "what reads PDFs: pdfium (in the process, the default; its compiled module is kept in the user's cache directory) or poppler (Poppler's pdftotext, which must be installed)", func(v string) error {
		c.PDFEngine = v
		return nil
	})
	p.RegisterReading(fs)
	textVar(fs, "invalid-utf8", "what to do with text that is not UTF-8: reject (an error naming the byte and the encoding it reads as; the default), repair (replace invalid bytes with U+FFFD) or decode (read a file in the legacy encoding recognised: Windows-1252, Shift_JIS, GBK, Big5, EUC-KR, KOI8-R, …); offsets refer to the text as UTF-8", func(v string) error {
		c.InvalidUTF8 = gochunk.InvalidUTF8Policy(v)
		return nil
	})
}

// RegisterReading registers the bounds of what reading one document may
// take: --max-text, --text-ratio and --pdf-memory (RegisterChunking's
// too; gochunk serve registers them beside RegisterResources').
func (p *Flags) RegisterReading(fs *flag.FlagSet) {
	c := &p.Cfg
	BytesVar(fs, "max-text", "most text read from one document, bytes or with a unit (64MiB): an office, EPUB, e-mail, Outlook, RTF or HTML document with more, or a PDF of more characters, is an error naming it (default 128MiB; PDFs 50,000,000 characters)", &c.MaxText)
	fs.Int64Var(&c.TextRatio, "text-ratio", 0, "most text read from an office, EPUB, e-mail, Outlook, RTF or HTML document, as a multiple of its size in bytes, never below 1MiB (default 100)")
	BytesVar(fs, "pdf-memory", "memory of the in-process PDF engine (PDFium), all PDFs read at once together, bytes or with a unit (512MiB); one PDF gets at most min(this, 512MiB), a page needing more is left out and reported (default 1GiB; serve: half its memory budget when less)", &c.PDFMemory)
}

// Embedder returns the embedder configuration, drawing download progress
// on Stderr when ShowProgress.
func (p *Flags) Embedder() pipeline.EmbedderConfig {
	c := p.Cfg
	if len(p.shared) > 0 {
		c, _, _ = p.applyShared(c) // an error is Config's to report
	}
	return withNotices(c.Embedder, p)
}

// withNotices returns c writing its notices and download progress on
// p.Stderr.
func withNotices(c pipeline.EmbedderConfig, p *Flags) pipeline.EmbedderConfig {
	w := p.Stderr
	if w == nil {
		w = io.Discard
	}
	if p.ShowProgress() {
		c.Progress = progress.Downloads(w)
	}
	c.Notice = func(s string) { fmt.Fprintln(w, "gochunk:", s) }
	return c
}

// ShowProgress tells whether --progress wants progress drawn on Stderr.
func (p *Flags) ShowProgress() bool {
	return p.progress == "always" || p.progress != "never" && p.TTY && p.Stderr != nil
}

// IsSet tells whether the flag name was given on the command line.
func (p *Flags) IsSet(name string) bool {
	found := false
	p.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// Config returns the configuration of the flags and the --config file
// (and of the other files Chunker read: their settings of the whole
// pipeline).
func (p *Flags) Config() (pipeline.Config, error) {
	c := p.Cfg
	name, tok, params, err := p.Chunker()
	if err != nil {
		return c, err
	}
	llmJSON := p.llmJSON
	if len(p.shared) > 0 {
		if c, llmJSON, err = p.applyShared(c); err != nil {
			return c, err
		}
	}
	c.LLM.PlainAnswers = !llmJSON
	c.Embedder = withNotices(c.Embedder, p)
	c.PDFNotice = c.Embedder.Notice // "gochunk: ..." on standard error
	c.Chunker, c.Tokenizer = name, tok
	if params, err = c.ApplySettings(params); err != nil {
		return c, fmt.Errorf("--config %s: %w", p.Params, err)
	}
	c.Params, err = json.Marshal(params)
	return c, err
}

// Chunker returns the chunker, tokenizer and parameters of the flags and
// the --config file. The parameters include the settings that may vary
// with a chunker (see pipeline.SettingParams) where the file gives them
// and the command line does not; the file's settings of the whole
// pipeline are kept for Config.
func (p *Flags) Chunker() (name, tok string, params map[string]any, err error) {
	name, tok, params = p.Cfg.Chunker, p.Cfg.Tokenizer, map[string]any{}
	if p.Params != "" {
		file, err := ReadParams(p.Params)
		if err != nil {
			return "", "", nil, err
		}
		if params, err = p.readFile(p.Params, file); err != nil {
			return "", "", nil, err
		}
	}
	if v, ok := params["chunker"].(string); ok && !p.IsSet("chunker") {
		name = v
	}
	if v, ok := params["tokenizer"].(string); ok && !p.IsSet("tokenizer") {
		tok = v
	}
	delete(params, "chunker")
	delete(params, "tokenizer")
	if p.IsSet("size") {
		params["size"] = p.size
	}
	if p.IsSet("overlap") {
		params["overlap"] = p.overlap
	}
	if p.Params != "" {
		if err := checkParams(p.Params, name, params); err != nil {
			return "", "", nil, err
		}
	}
	return name, tok, params, nil
}

// readFile sorts the keys of configuration file path: the chunker, the
// tokenizer, the chunker's parameters and the settings that vary with it
// are returned (those the command line gives left out); the settings of
// the whole pipeline are kept in p.shared.
func (p *Flags) readFile(path string, file map[string]any) (map[string]any, error) {
	flags := settingFlags()
	params := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(file)) {
		v := file[key]
		name := strings.ReplaceAll(key, "_", "-")
		switch {
		case name == "chunker" || name == "tokenizer":
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%w: --config %s: %s: want a name, not %v", gochunk.ErrConfig, path, key, v)
			}
			params[name] = s
		case name == "size" || name == "overlap" || !flags[name]:
			params[key] = v // the chunker's (checked by checkParams)
		case slices.Contains(pipeline.SettingParams, strings.ReplaceAll(name, "-", "_")):
			if !p.givenOver(name) {
				params[strings.ReplaceAll(name, "-", "_")] = v
			}
		default:
			if err := p.share(path, name, v); err != nil {
				return nil, err
			}
		}
	}
	return params, nil
}

// givenOver tells whether the command line gives the setting name
// (--context-template gives the context too, and --context the
// template's).
func (p *Flags) givenOver(name string) bool {
	if p.fs == nil {
		return false
	}
	switch name {
	case "context", "context-template":
		return p.IsSet("context") || p.IsSet("context-template")
	}
	return p.IsSet(name)
}

// share keeps a file's setting of the whole pipeline, refusing one that
// another file read sets otherwise (the configurations an evaluation
// compares share one embedder, one input kind, …).
func (p *Flags) share(path, name string, v any) error {
	if _, err := settingText(v); err != nil {
		return fmt.Errorf("%w: --config %s: %s: %v", gochunk.ErrConfig, path, name, err)
	}
	if old, ok := p.shared[name]; ok && fmt.Sprint(old.value) != fmt.Sprint(v) {
		return fmt.Errorf("%w: --config %s: %s %v differs from %v in %s: the configurations compared share it; give it once (--%s)", gochunk.ErrConfig, path, name, v, old.value, old.path, name)
	}
	if p.shared == nil {
		p.shared = map[string]fileSetting{}
	}
	p.shared[name] = fileSetting{v, path}
	return nil
}

// applyShared returns c with the files' settings of the whole pipeline
// that the command line does not give, and whether --llm-json holds.
func (p *Flags) applyShared(c pipeline.Config) (pipeline.Config, bool, error) {
	var s Flags
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.RegisterChunking(fs)
	// The flags' values point into s: give them p's values, then set
	// the files' on top.
	s.Cfg, s.size, s.overlap, s.llmJSON, s.progress = c, p.size, p.overlap, p.llmJSON, p.progress
	for _, name := range slices.Sorted(maps.Keys(p.shared)) {
		if p.givenOver(name) {
			continue
		}
		set := p.shared[name]
		text, _ := settingText(set.value)
		if err := fs.Set(name, text); err != nil {
			return c, false, fmt.Errorf("%w: --config %s: %s: %v", gochunk.ErrConfig, set.path, name, err)
		}
	}
	return s.Cfg, s.llmJSON, nil
}

// settingText is a file's value of a flag as the flag's text.
func settingText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool, json.Number, int, int64, float64:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("want a single value (a string, number or boolean), not %v", v)
}

// settingFlags are the names of the flags a configuration file may set
// (all those of RegisterChunking but --progress, which is not the
// pipeline's).
func settingFlags() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	(&Flags{}).RegisterChunking(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	delete(names, "progress")
	return names
}

// checkParams refuses a key of configuration file path that is neither a
// pipeline setting nor a parameter of chunker name, naming both kinds of
// valid keys. A chunker it does not know (or a list of them, as eval
// takes) is left to report its own parameters.
func checkParams(path, name string, params map[string]any) error {
	spec, ok := chunkers.New().Lookup(name)
	if !ok {
		return nil
	}
	known := map[string]bool{}
	var names []string
	for _, prm := range spec.Params() {
		known[prm.Name] = true
		names = append(names, prm.Name)
	}
	for _, key := range slices.Sorted(maps.Keys(params)) {
		if known[key] || slices.Contains(pipeline.SettingParams, key) {
			continue
		}
		var settings []string
		for s := range settingFlags() {
			if s != "size" && s != "overlap" { // the chunker's, named above
				settings = append(settings, strings.ReplaceAll(s, "-", "_"))
			}
		}
		slices.Sort(settings)
		return fmt.Errorf("%w: --config %s: unknown setting %q: not a parameter of %s (it has: %s) nor a setting of the pipeline (%s)",
			gochunk.ErrConfig, path, key, name, strings.Join(names, ", "), strings.Join(settings, ", "))
	}
	return nil
}

// File returns the configuration file (see Register) of chunker name with
// tokenizer tok and params, and the pipeline settings the command line and
// the configuration files read gave (but --config, --progress and
// --context-estimate): what gochunk tune writes for the configuration it
// chose, so that chunk, index and eval with --config FILE run that
// configuration.
func (p *Flags) File(name, tok string, params map[string]any) map[string]any {
	out := map[string]any{}
	for n, s := range p.shared {
		out[strings.ReplaceAll(n, "-", "_")] = s.value
	}
	settings := settingFlags()
	if p.fs != nil {
		p.fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "chunker", "size", "overlap", "tokenizer", "config", "context-estimate":
				return
			}
			if settings[f.Name] {
				out[strings.ReplaceAll(f.Name, "-", "_")] = flagValue(f.Value)
			}
		})
	}
	if out["context"] == "none" {
		delete(out, "context")
	}
	out["chunker"] = name
	if tok != "" {
		out["tokenizer"] = tok
	}
	maps.Copy(out, params)
	return out
}

// flagValue is a flag's value as JSON writes it: numbers and booleans as
// such, durations and the rest as text.
func flagValue(v flag.Value) any {
	if g, ok := v.(flag.Getter); ok {
		switch x := g.Get().(type) {
		case int, int64, uint, uint64, float64, bool:
			return x
		}
	}
	return v.String()
}

// Build returns the pipeline of the flags.
func (p *Flags) Build(ctx context.Context) (*pipeline.Pipeline, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	return New(ctx, cfg)
}

// New builds cfg, naming the flags to give when a chunker lacks its model.
func New(ctx context.Context, cfg pipeline.Config) (*pipeline.Pipeline, error) {
	pl, err := pipeline.New(ctx, cfg, pipeline.Options{})
	if errors.Is(err, pipeline.ErrNoModel) {
		err = fmt.Errorf("%w: give --llm-model (and --llm-url for a server other than OpenAI)", err)
	}
	return pl, err
}

// ReadParams reads a JSON or YAML object (chunker parameters, serve's
// settings); numbers stay exact (json.Number), so a seed of 2^53+1 is not
// rounded.
func ReadParams(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		data, err = yaml.YAMLToJSON(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: --config %s: %w", gochunk.ErrConfig, path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var params map[string]any
	if err := dec.Decode(&params); err != nil || params == nil {
		return nil, fmt.Errorf("%w: --config %s: want an object of settings", gochunk.ErrConfig, path)
	}
	return params, nil
}

// BytesVar defines a flag of a size in bytes, optionally with a unit
// (2GiB), stored in every dst.
func BytesVar(fs *flag.FlagSet, name, usage string, dst ...*int64) {
	textVar(fs, name, usage, func(v string) error {
		n, err := budget.ParseBytes(v)
		for _, d := range dst {
			*d = n
		}
		return err
	})
}

// SecondsVar defines a flag of a duration given in seconds ("60") or with
// a unit ("1m30s").
func SecondsVar(fs *flag.FlagSet, d *time.Duration, name, usage string) {
	fs.Func(name, usage, func(v string) error { return setSeconds(d, v) })
}

func setSeconds(d *time.Duration, v string) (err error) {
	if _, e := strconv.ParseFloat(v, 64); e == nil {
		v += "s"
	}
	if *d, err = time.ParseDuration(v); err != nil || *d < 0 {
		return fmt.Errorf("want seconds (60) or a duration (1m30s)")
	}
	return nil
}

// Layer sets the flags of fs not given on the command line from the
// environment (env names a flag's variable; "" for none), else from the
// JSON or YAML file at path, whose keys are the flags' names (with - or
// _). The file's keys of a chunking run's configuration that fs has no
// flag for (the chunker, its parameters, context, context_template,
// context_document_tokens and parents, as chunk --config reads them) are
// returned, for ChunkingConfig: gochunk serve takes them as the defaults
// of requests that name no chunker. Any other key is an error naming the
// known ones.
func Layer(fs *flag.FlagSet, path string, env func(flag string) string) (chunking map[string]any, err error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if path != "" {
		file, err := ReadParams(path)
		if err != nil {
			return nil, err
		}
		chunker, _ := file["chunker"].(string)
		for _, key := range slices.Sorted(maps.Keys(file)) {
			name := strings.ReplaceAll(key, "_", "-")
			if fs.Lookup(name) == nil && chunkingKey(chunker, key) {
				if chunking == nil {
					chunking = map[string]any{}
				}
				chunking[key] = file[key]
				continue
			}
			if fs.Lookup(name) == nil && settingFlags()[name] {
				return nil, fmt.Errorf("%w: --config %s: %q is a setting of a chunking run that this command does not make (gochunk serve takes the chunker, its parameters, context and parents as the defaults of its requests, and reads what requests send)", gochunk.ErrConfig, path, key)
			}
			if fs.Lookup(name) == nil || name == "config" {
				var known []string
				fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
				return nil, fmt.Errorf("%w: --config %s: unknown setting %q (known: %s; and chunker, the chunker's parameters, context, context_template, context_document_tokens, parents)", gochunk.ErrConfig, path, key, strings.Join(known, ", "))
			}
			if given[name] {
				continue
			}
			if err := fs.Set(name, fmt.Sprint(file[key])); err != nil {
				return nil, fmt.Errorf("%w: --config %s: %s: %v", gochunk.ErrConfig, path, key, err)
			}
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		name := env(f.Name)
		if v, ok := os.LookupEnv(name); ok && name != "" && !given[f.Name] && f.Name != "config" && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%w: %s=%q: %v", gochunk.ErrConfig, name, v, e)
			}
		}
	})
	return chunking, err
}

// chunkingKey tells whether key of a configuration file is one of a
// chunking run's configuration that ChunkingConfig reads: the chunker,
// size, overlap, a setting among the parameters (pipeline.SettingParams)
// or a parameter of chunker (the file's; recursive when it names none).
func chunkingKey(chunker, key string) bool {
	switch key = strings.ReplaceAll(key, "-", "_"); {
	case key == "chunker" || key == "size" || key == "overlap" || slices.Contains(pipeline.SettingParams, key):
		return true
	}
	spec, ok := chunkers.New().Lookup(cmp.Or(chunker, "recursive"))
	if !ok {
		return false
	}
	for _, prm := range spec.Params() {
		if prm.Name == key {
			return true
		}
	}
	return false
}

// ChunkingConfig reads the chunking configuration Layer returned from
// configuration file path, as chunk --config reads it: the chunker
// (recursive when it names none), its parameters, and the settings that
// stand among them (context, context_template, context_document_tokens,
// parents), into a pipeline.Config's Chunker, Params, Context and
// Parents.
func ChunkingConfig(path string, keys map[string]any) (pipeline.Config, error) {
	c := pipeline.Config{Chunker: "recursive"}
	params := map[string]any{}
	for key, v := range keys {
		switch under := strings.ReplaceAll(key, "-", "_"); {
		case under == "chunker":
			name, ok := v.(string)
			if !ok {
				return c, fmt.Errorf("%w: --config %s: chunker: want a name, not %v", gochunk.ErrConfig, path, v)
			}
			c.Chunker = name
		case slices.Contains(pipeline.SettingParams, under):
			params[under] = v
		default:
			params[key] = v
		}
	}
	if err := checkParams(path, c.Chunker, params); err != nil {
		return c, err
	}
	params, err := c.ApplySettings(params)
	if err != nil {
		return c, fmt.Errorf("--config %s: %w", path, err)
	}
	c.Params, err = json.Marshal(params)
	return c, err
}

// textVar defines a flag whose value set decodes; unlike flag.Func's, its
// String is the text last given, so that the flag's value can be written
// back (see File).
func textVar(fs *flag.FlagSet, name, usage string, set func(string) error) {
	fs.Var(&textValue{set: set}, name, usage)
}

type textValue struct {
	set  func(string) error
	text string
}

func (t *textValue) String() string {
	if t == nil {
		return ""
	}
	return t.text
}

func (t *textValue) Set(v string) error {
	if err := t.set(v); err != nil {
		return err
	}
	t.text = v
	return nil
}

// List is a repeatable string flag.
type List []string

func (l *List) String() string     { return strings.Join(*l, " ") }
func (l *List) Set(v string) error { *l = append(*l, v); return nil }

// CountVar defines a flag that takes an optional count: "--name" alone
// sets *dst to all (such as -1), "--name=N" to N; the flag absent leaves
// *dst as it is. The count must be written with "=", as for a boolean
// flag.
func CountVar(fs *flag.FlagSet, dst *int, name string, all int, usage string) {
	fs.Var(&countFlag{dst, all}, name, usage)
}

type countFlag struct {
	dst *int
	all int
}

func (c *countFlag) IsBoolFlag() bool { return true }
func (c *countFlag) String() string {
	if c == nil || c.dst == nil {
		return ""
	}
	return strconv.Itoa(*c.dst)
}
func (c *countFlag) Set(v string) error {
	if v == "true" {
		*c.dst = c.all
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want a count of at least 0 after =, or nothing for all, not %q", v)
	}
	*c.dst = n
	return nil
}

// contextFlag is --context: a mode.
type contextFlag pipeline.ContextConfig

func (c *contextFlag) String() string {
	if c == nil {
		return ""
	}
	return c.Mode
}

func (c *contextFlag) Set(v string) error {
	switch v {
	case "true":
		v = "headings"
	case "false":
		v = "none"
	}
	switch v {
	case "none", "headings", "template", "llm":
		c.Mode = v
		return nil
	}
	return errors.New("want none, headings, template or llm")
}
