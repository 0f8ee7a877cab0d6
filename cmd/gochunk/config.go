package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/tokenize"
)

// chunkFlags are the flags shared by the commands that build a chunker.
type chunkFlags struct {
	chunker, tokenizer, config, invalidUTF8 string
	size, overlap                           int
	fs                                      *flag.FlagSet
	// embedder loads the embedder for chunkers that use one, once.
	embedder func() (gochunk.Embedder, error)

	llmURL, llmModel, llmCache string
	llmJSON                    bool
	llmTimeout                 time.Duration
	llmClient                  *llm.Client
}

func (c *chunkFlags) register(fs *flag.FlagSet) {
	c.registerChunker(fs)
	fs.StringVar(&c.config, "config", "", "JSON or YAML `FILE` with chunker parameters (and optionally \"chunker\" and \"tokenizer\"); flags override it")
}

// registerChunker registers the flags of register except --config.
func (c *chunkFlags) registerChunker(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.chunker, "chunker", "recursive", "chunker `NAME` (see 'gochunk chunkers')")
	fs.IntVar(&c.size, "size", 0, "maximum chunk size in tokens of --tokenizer (default: the chunker's)")
	fs.IntVar(&c.overlap, "overlap", 0, "tokens repeated between consecutive chunks (default: the chunker's)")
	fs.StringVar(&c.tokenizer, "tokenizer", "", "size unit: runes, words, bytes, cl100k_base, o200k_base or hf:PATH (a tokenizer.json); default: runes for rule-based chunkers, the embedder's tokenizer (else cl100k_base) for those that embed")
	fs.StringVar(&c.llmURL, "llm-url", "", "base URL of an OpenAI-compatible chat API for llm-split and propositions, e.g. http://localhost:11434/v1 (key from OPENAI_API_KEY)")
	fs.StringVar(&c.llmModel, "llm-model", "", "chat model for llm-split and propositions")
	fs.StringVar(&c.llmCache, "llm-cache", "", "directory keeping the model's answers, so re-runs are free and identical")
	fs.BoolVar(&c.llmJSON, "llm-json", true, "ask for schema-constrained JSON answers (servers that refuse are asked plainly)")
	fs.DurationVar(&c.llmTimeout, "llm-timeout", 2*time.Minute, "time limit of one model request")
	fs.StringVar(&c.invalidUTF8, "invalid-utf8", "reject", "what to do with invalid UTF-8: reject (an error) or repair (replace with U+FFFD; offsets refer to the repaired text)")
}

func (c *chunkFlags) set(name string) bool {
	found := false
	c.fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// built is a chunker ready to run, with what it was built from.
type built struct {
	name    string
	chunker gochunk.Chunker
	counter tokenize.Counter
	params  map[string]any
	policy  gochunk.InvalidUTF8Policy
}

// build makes the chunker the flags and the config file describe.
func (c *chunkFlags) build(reg *chunkers.Registry) (*built, error) {
	name, tok, params, err := c.resolve()
	if err != nil {
		return nil, err
	}
	return c.buildFrom(reg, name, tok, params)
}

// resolve merges the config file and the flags into a chunker name, a
// tokenizer name and parameters.
func (c *chunkFlags) resolve() (name, tok string, params map[string]any, err error) {
	params = map[string]any{}
	if c.config != "" {
		if params, err = readParams(c.config); err != nil {
			return "", "", nil, err
		}
	}
	name, tok = c.chunker, c.tokenizer
	if v, ok := params["chunker"].(string); ok && !c.set("chunker") {
		name = v
	}
	if v, ok := params["tokenizer"].(string); ok && !c.set("tokenizer") {
		tok = v
	}
	delete(params, "chunker")
	delete(params, "tokenizer")
	if c.set("size") {
		params["size"] = c.size
	}
	if c.set("overlap") {
		params["overlap"] = c.overlap
	}
	return name, tok, params, nil
}

// readParams reads a JSON or YAML object of parameters.
func readParams(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("read config: %w", err)}
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, usageError{fmt.Errorf("config %s: %w", path, err)}
	}
	// Numbers stay exact (json.Number): a seed of 2^53+1 is not rounded.
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var params map[string]any
	if err := dec.Decode(&params); err != nil || params == nil {
		return nil, usageError{fmt.Errorf("config %s: want an object of parameters", path)}
	}
	return params, nil
}

// buildFrom makes a chunker from a name, a tokenizer name and parameters.
func (c *chunkFlags) buildFrom(reg *chunkers.Registry, name, tok string, params map[string]any) (*built, error) {
	policy := gochunk.InvalidUTF8Policy(c.invalidUTF8)
	if policy != gochunk.Reject && policy != gochunk.Repair {
		return nil, usageError{fmt.Errorf("--invalid-utf8 %q: want reject or repair", c.invalidUTF8)}
	}
	spec, known := reg.Lookup(name)
	var env chunkers.Env
	if known && spec.Embeds && c.embedder != nil {
		var err error
		if env.Embedder, err = c.embedder(); err != nil {
			return nil, err
		}
	}
	var counter tokenize.Counter
	var err error
	if tok == "" {
		counter, err = chunkers.DefaultCounter(spec, env.Embedder)
	} else {
		counter, err = tokenize.New(tok)
	}
	if err != nil {
		if errors.Is(err, tokenize.ErrUnknown) || strings.HasPrefix(tok, "hf:") {
			return nil, usageError{err}
		}
		return nil, err
	}
	env.Counter = counter
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, usageError{err}
	}
	if spec, ok := reg.Lookup(name); ok && spec.UsesLLM {
		if c.llmModel == "" {
			return nil, usageError{fmt.Errorf("chunker %q needs a model: give --llm-model (and --llm-url for a server other than OpenAI)", name)}
		}
		if c.llmClient == nil {
			if c.llmClient, err = llm.New(llm.Config{BaseURL: c.llmURL, Model: c.llmModel, CacheDir: c.llmCache, JSONMode: c.llmJSON, Timeout: c.llmTimeout}); err != nil {
				return nil, usageError{err}
			}
		}
		env.LLM = c.llmClient
	}
	ch, err := reg.New(name, raw, env)
	if err != nil {
		return nil, usageError{err}
	}
	return &built{name: name, chunker: ch, counter: counter, params: params, policy: policy}, nil
}

func registry() *chunkers.Registry { return chunkers.New() }
