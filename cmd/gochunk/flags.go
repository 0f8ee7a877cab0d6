package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/internal/progress"
	"github.com/gochunk/gochunk/pipeline"
)

// pipelineFlags are the flags every command that builds a pipeline shares
// (chunk, inspect, bench, eval, tune, serve): one definition, so each knob
// exists everywhere. They fill a pipeline.Config.
type pipelineFlags struct {
	cfg           pipeline.Config
	size, overlap int
	params        string // --config: a file of chunker parameters
	llmJSON       bool
	progress      string // auto (""), always or never
	fs            *flag.FlagSet
}

// registerResources registers the flags of the tokenizer, the embedder and
// the language model: what serve shares with the chunking commands.
func (p *pipelineFlags) registerResources(fs *flag.FlagSet) {
	p.fs = fs
	c := &p.cfg
	fs.StringVar(&c.Tokenizer, "tokenizer", "", "size unit: runes, words, bytes, cl100k_base, o200k_base or hf:PATH (a tokenizer.json); default: runes for rule-based chunkers, the embedder's tokenizer (else cl100k_base) for those that embed")
	p.registerEmbedder(fs)
	fs.IntVar(&c.BatchTokens, "max-batch-tokens", 0, fmt.Sprintf("tokens per embedder call when chunks are embedded (default %d)", embed.DefaultBatchTokens))
	l := &c.LLM
	fs.StringVar(&l.URL, "llm-url", "", "base URL of an OpenAI-compatible chat API for llm-split and propositions, e.g. http://localhost:11434/v1 (key from OPENAI_API_KEY)")
	fs.StringVar(&l.Model, "llm-model", "", "chat model for llm-split and propositions")
	fs.StringVar(&l.CacheDir, "llm-cache", "", "directory keeping the model's answers, so re-runs are free and identical")
	bytesVar(fs, "cache-limit", "bound of each disk cache (--llm-cache, --embed-cache-dir), bytes or with a unit (1GiB); least recently used entries go first; see gochunk cache", &l.CacheBytes, &c.Embedder.DiskCacheBytes)
	fs.BoolVar(&p.llmJSON, "llm-json", true, "ask for schema-constrained JSON answers (servers that refuse are asked plainly)")
	fs.DurationVar(&l.Timeout, "llm-timeout", 2*time.Minute, "time limit of one model request")
}

// registerEmbedder registers the flags that choose the embedder.
func (p *pipelineFlags) registerEmbedder(fs *flag.FlagSet) {
	p.fs = fs
	e := &p.cfg.Embedder
	fs.StringVar(&e.Name, "embedder", "lexical", "embedder: lexical (built in), static:MODEL (Model2Vec directory or hub id), onnx:MODEL, openai:MODEL")
	fs.StringVar(&e.URL, "embed-url", "", "base URL of an OpenAI-compatible API for openai:MODEL (default https://api.openai.com/v1; key from OPENAI_API_KEY)")
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
	bytesVar(fs, "cache-bytes", "memory of the embeddings kept, bytes or with a unit (256MiB); default: unbounded but by --embed-cache (serve: 1/8 of --max-memory)", &e.CacheBytes)
}

// register registers the chunking flags, --config (a file of chunker
// parameters) and registerResources'.
func (p *pipelineFlags) register(fs *flag.FlagSet) {
	p.registerChunking(fs)
	fs.StringVar(&p.params, "config", "", "JSON or YAML `FILE` with chunker parameters (and optionally \"chunker\" and \"tokenizer\"); flags override it")
}

// registerChunking registers the flags of register but --config.
func (p *pipelineFlags) registerChunking(fs *flag.FlagSet) {
	p.registerResources(fs)
	c := &p.cfg
	fs.StringVar(&c.Chunker, "chunker", "recursive", "chunker `NAME` (see 'gochunk chunkers')")
	fs.IntVar(&p.size, "size", 0, "maximum chunk size in tokens of --tokenizer (default: the chunker's)")
	fs.IntVar(&p.overlap, "overlap", 0, "tokens repeated between consecutive chunks (default: the chunker's)")
	fs.Func("progress", "progress bar on stderr: auto (when stderr is a terminal; the default), always or never", func(v string) error {
		if v != "auto" && v != "always" && v != "never" {
			return errors.New("want auto, always or never")
		}
		p.progress = v
		return nil
	})
	fs.StringVar(&c.Input, "input", "auto", "input kind: auto (by the extension: .pdf, .html, .htm, else text), text, pdf (needs Poppler's pdftotext), html (its structure as markdown), elements (layout JSON: gochunk, Unstructured, Docling, PyMuPDF)")
	fs.Func("invalid-utf8", "what to do with invalid UTF-8: reject (an error; the default) or repair (replace with U+FFFD; offsets refer to the repaired text)", func(v string) error {
		c.InvalidUTF8 = gochunk.InvalidUTF8Policy(v)
		return nil
	})
}

// embedder returns the embedder configuration, drawing download progress
// on stderr when it is a terminal.
func (p *pipelineFlags) embedder(e env) pipeline.EmbedderConfig {
	c := p.cfg.Embedder
	if p.showProgress(e) {
		c.Progress = progress.Downloads(e.stderr)
	}
	c.Notice = func(s string) { fmt.Fprintln(e.stderr, "gochunk:", s) }
	return c
}

func (p *pipelineFlags) showProgress(e env) bool {
	return p.progress == "always" || p.progress != "never" && e.stderrTTY
}

// bar returns a progress bar on stderr when --progress wants one.
func (p *pipelineFlags) bar(e env, label string, total int64) *progress.Bar {
	return progress.New(e.stderr, label, total, total > 0 && p.showProgress(e))
}

func (p *pipelineFlags) set(name string) bool {
	found := false
	p.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// config returns the configuration of the flags and the --config file.
func (p *pipelineFlags) config(e env) (pipeline.Config, error) {
	c := p.cfg
	c.LLM.PlainAnswers = !p.llmJSON
	c.Embedder = p.embedder(e)
	var params map[string]any
	var err error
	c.Chunker, c.Tokenizer, params, err = p.chunker()
	if err == nil {
		c.Params, err = json.Marshal(params)
	}
	return c, err
}

// chunker returns the chunker, tokenizer and parameters of the flags and
// the --config file.
func (p *pipelineFlags) chunker() (name, tok string, params map[string]any, err error) {
	name, tok, params = p.cfg.Chunker, p.cfg.Tokenizer, map[string]any{}
	if p.params != "" {
		if params, err = readParams(p.params); err != nil {
			return "", "", nil, err
		}
	}
	if v, ok := params["chunker"].(string); ok && !p.set("chunker") {
		name = v
	}
	if v, ok := params["tokenizer"].(string); ok && !p.set("tokenizer") {
		tok = v
	}
	delete(params, "chunker")
	delete(params, "tokenizer")
	if p.set("size") {
		params["size"] = p.size
	}
	if p.set("overlap") {
		params["overlap"] = p.overlap
	}
	return name, tok, params, nil
}

// build returns the pipeline of the flags.
func (p *pipelineFlags) build(e env) (*pipeline.Pipeline, error) {
	cfg, err := p.config(e)
	if err != nil {
		return nil, err
	}
	return newPipeline(e.ctx, cfg)
}

// newPipeline builds cfg, naming the flags to give when a chunker lacks
// its model.
func newPipeline(ctx context.Context, cfg pipeline.Config) (*pipeline.Pipeline, error) {
	pl, err := pipeline.New(ctx, cfg, pipeline.Options{})
	if errors.Is(err, pipeline.ErrNoModel) {
		err = fmt.Errorf("%w: give --llm-model (and --llm-url for a server other than OpenAI)", err)
	}
	return pl, err
}

// readParams reads a JSON or YAML object (chunker parameters, serve's
// settings); numbers stay exact (json.Number), so a seed of 2^53+1 is not
// rounded.
func readParams(path string) (map[string]any, error) {
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

// bytesVar defines a flag of a size in bytes, optionally with a unit
// (2GiB), stored in every dst.
func bytesVar(fs *flag.FlagSet, name, usage string, dst ...*int64) {
	fs.Func(name, usage, func(v string) error {
		n, err := budget.ParseBytes(v)
		for _, d := range dst {
			*d = n
		}
		return err
	})
}

// pipelineSource is the source of input name ("-": standard input).
func pipelineSource(e env, name string) pipeline.Source {
	return pipeline.Source{Path: name, Reader: e.stdin, Metadata: map[string]any{"source": name}}
}
