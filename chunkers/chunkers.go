// Package chunkers builds every chunker of this module by name from a JSON
// configuration. It is what the gochunk command and server use; library
// users can call the constructors of the chunker packages directly.
package chunkers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/syntax"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/llmchunk"
	"github.com/gochunk/gochunk/mst"
	"github.com/gochunk/gochunk/semantic"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
)

// New returns a registry holding every built-in chunker.
func New() *Registry {
	r := NewRegistry()
	for _, s := range Specs() {
		if err := r.Register(s); err != nil {
			panic(err) // a programming error in this package, caught by its tests
		}
	}
	return r
}

// memory is each chunker's Spec.Memory: peak resident memory of
// `gochunk chunk --chunker NAME` on 30 MB of mixed text (the Chroma
// corpora, Newton's Opticks, four licences and Candide repeated; and the
// same with the code of the codebases set) over the input's size, the
// larger of the two with a twentieth added for the machine's swing,
// rounded up (the LLM chunkers keep their text and pieces: about the
// rule-based chunkers' figure; late is not measured on it). Measured, not
// guessed: the server's memory budget reserves by it, and
// TestLiveHeapWithinMemoryFactor holds the chunkers' live heap to it.
// code is measured on code, where it parses with tree-sitter (the
// grammar's tree in C and its copy as Go values): 53.6x at 30 MB of the
// Go distribution's own source (52.1x at 10 MB), against 2.7x on mixed text,
// where no grammar applies; TestCodeMemoryFactorCoversSyntaxTrees holds
// it to that. A build without cgo parses nothing and keeps codeLines.
// adaptive 2.8x and markdown 2.7x at 30 MB with the codebases' code
// (174d4bf; 4.0x and 3.1x before).
var memory = map[string]float64{"token": 3, "character": 3, "recursive": 3, "sentence": 3, "semchunk": 3, "adaptive": 3, "markdown": 3,
	"fast": 3, "table": 3, "code": 57, "semantic": 7, "savgol": 6, "hierarchical": 7, "dp": 6, "cluster": 7, "mst": 8, "s2": 6, "late": 4,
	"llm-split": 3, "propositions": 3}

// codeLines is the code chunker's memory factor where it splits by lines
// alone (a build without cgo): 2.7x at 30 MB of mixed text with the
// codebases' code.
const codeLines = 3

// Specs returns the specs of the built-in chunkers.
func Specs() []Spec {
	specs := []Spec{
		spec("token", "fixed windows of N tokens with overlap (Chonkie TokenChunker)", split.DefaultTokenConfig, split.NewToken),
		spec("character", "split on one separator, merge up to the size (LangChain CharacterTextSplitter)", split.DefaultCharacterConfig, split.NewCharacter),
		spec("recursive", "split on a list of separators, recursing into oversized pieces (LangChain RecursiveCharacterTextSplitter)", split.DefaultRecursiveConfig, split.NewRecursive),
		spec("sentence", "pack whole sentences up to the size (Chonkie SentenceChunker)", split.DefaultSentenceConfig, split.NewSentence),
		spec("semchunk", "semantic delimiter hierarchy with adaptive binary-search merging (semchunk)", split.DefaultSemchunkConfig, split.NewSemchunk),
		spec("adaptive", "sizes and ends that follow the text: the whole segmentation chosen at once, chunks near a target size ending at paragraph breaks and topic shifts, smaller over long sentences and larger over runs of short ones", split.DefaultAdaptiveConfig, split.NewAdaptive),
		spec("markdown", "markdown structure: sections, blocks, code fences and tables kept whole, heading paths", split.DefaultMarkdownConfig, split.NewMarkdown),
		specFast(),
		spec("table", "markdown tables split by rows, the header repeated in every chunk of a table; the text around them as recursive", split.DefaultTableConfig, split.NewTable),
		spec("code", "source code on its tree-sitter syntax tree (whole functions, classes, statements; cgo build), else by definition patterns and lines", split.DefaultCodeConfig, split.NewCode),
		specE("semantic", "breakpoints where the embedding distance between neighbouring sentences is high (Kamradt, LangChain SemanticChunker)", semantic.DefaultBreakpointConfig, semantic.NewBreakpoint),
		specE("savgol", "minima of the Savitzky-Golay smoothed window similarity (Chonkie SemanticChunker)", semantic.DefaultSavGolConfig, semantic.NewSavGol),
		specE("hierarchical", "agglomerative clustering of sentence embeddings, contiguous by default, cut by count, distance or elbow", semantic.DefaultHierarchicalConfig, semantic.NewHierarchical),
		specE("dp", "dynamic-programming segmentation: similarity reward, size penalty, chunk penalty (the reference Go server)", semantic.DefaultDPConfig, semantic.NewDP),
		specE("cluster", "Chroma's ClusterSemanticChunker: 50-token pieces grouped by DP on within-chunk similarity", semantic.DefaultClusterConfig, semantic.NewCluster),
		specE("mst", "MST Semantic Chunker: minimum spanning tree over pieces with a semantic+positional distance; multi-span chunks", mst.DefaultConfig, mst.New),
		specE("s2", "S2 layout chunking: spectral clustering of layout elements on spatial proximity and semantic similarity; PDFs and element JSON", layout.DefaultS2Config, layout.NewS2),
		specLate(),
		specL("llm-split", "a language model picks split points between numbered pieces (Chroma's LLM chunker, Chonkie's agentic chunker)", llmchunk.DefaultSplitConfig, llmchunk.NewSplit),
		specL("propositions", "a language model rewrites text into propositions, packed into chunks that cite their source spans", llmchunk.DefaultPropositionsConfig, llmchunk.NewPropositions),
	}
	for i := range specs {
		specs[i].Memory = memory[specs[i].Name]
		if specs[i].Name == "code" && len(syntax.Languages()) == 0 {
			specs[i].Memory = codeLines
		}
	}
	return specs
}

// LateConfig configures the late chunker: the rule-based chunker whose
// chunks get late vectors, and its parameters.
type LateConfig struct {
	Chunker string          `json:"chunker" doc:"the rule-based chunker whose chunks are pooled (any of gochunk chunkers that does not embed)"`
	Config  json.RawMessage `json:"config" doc:"that chunker's parameters; its size defaults to the model's limit, in the model's tokens"`
}

// specLate is the late chunker's spec: its base chunker is built by name,
// sized in the embedder's tokens.
func specLate() Spec {
	d := LateConfig{Chunker: "recursive", Config: json.RawMessage(`{}`)}
	return Spec{
		Name:     "late",
		Summary:  "late chunking: a rule-based chunker's chunks, each vector pooled from its tokens embedded with the whole document (Chonkie LateChunker; needs onnx:MODEL on ONNX Runtime)",
		Defaults: &d,
		Embeds:   true,
		New: func(config []byte, env Env) (gochunk.Chunker, error) {
			cfg := d
			if err := DecodeConfig(config, &cfg); err != nil {
				return nil, err
			}
			reg := New()
			spec, ok := reg.Lookup(cfg.Chunker)
			if !ok || spec.Embeds || spec.UsesLLM {
				return nil, fmt.Errorf("%w: late chunking pools the chunks of a rule-based chunker; %q is not one", gochunk.ErrConfig, cfg.Chunker)
			}
			counter := env.Counter
			if counter == nil {
				var err error
				if counter, err = DefaultCounter(Spec{Embeds: true}, env.Embedder); err != nil {
					return nil, err
				}
			}
			params := map[string]json.RawMessage{}
			if c := bytes.TrimSpace(cfg.Config); len(c) > 0 && json.Unmarshal(c, &params) != nil {
				return nil, &ParamError{Param: "config", Want: "a JSON object", Got: string(cfg.Config)}
			}
			if _, set := params["size"]; !set {
				if tok, limit := embed.TokenizerOf(env.Embedder); tok != nil && limit > 0 && tok == counter {
					params["size"] = json.RawMessage(strconv.Itoa(limit))
				}
			}
			raw, _ := json.Marshal(params)
			base, err := reg.New(cfg.Chunker, raw, Env{Counter: counter})
			if err != nil {
				return nil, err
			}
			return semantic.NewLate(base, env.Embedder)
		},
	}
}

// specFast is the fast chunker's spec: sizes in bytes by default.
func specFast() Spec {
	s := spec("fast", "windows of size bytes cut at the last delimiter, searched backwards (Chonkie's chunk library): speed over structure", split.DefaultFastConfig, split.NewFast)
	s.Unit = "bytes"
	inner := s.New
	s.New = func(config []byte, env Env) (gochunk.Chunker, error) {
		if env.Counter == nil {
			env.Counter = tokenize.Bytes{}
		}
		return inner(config, env)
	}
	return s
}

// specE wraps a typed constructor of an embedding-based chunker.
func specE[C any, K gochunk.Chunker](name, summary string, defaults func() C, build func(C, tokenize.Counter, gochunk.Embedder) (K, error)) Spec {
	d := defaults()
	return Spec{
		Name:     name,
		Summary:  summary,
		Defaults: &d,
		Embeds:   true,
		New: func(config []byte, env Env) (gochunk.Chunker, error) {
			cfg := defaults()
			if err := DecodeConfig(config, &cfg); err != nil {
				return nil, err
			}
			counter := env.Counter
			if counter == nil {
				var err error
				if counter, err = DefaultCounter(Spec{Embeds: true}, env.Embedder); err != nil {
					return nil, err
				}
			}
			if tok, limit := embed.TokenizerOf(env.Embedder); tok != nil && limit > 0 && tok == counter {
				capSizes(&cfg, limit)
			}
			return build(cfg, counter, env.Embedder)
		},
	}
}

// DefaultCounter returns the size unit of chunker s when the caller names
// none: s.Unit when it names one (bytes for fast); for chunkers that embed,
// tokens, as the seeds they reproduce count: the embedder's own tokenizer
// when it has one (static and ONNX models; see embed.Tokenized),
// cl100k_base otherwise; for the others runes (characters), as LangChain
// and Chonkie count.
func DefaultCounter(s Spec, e gochunk.Embedder) (tokenize.Counter, error) {
	if s.Unit != "" {
		return tokenize.New(s.Unit)
	}
	if !s.Embeds {
		return tokenize.Runes{}, nil
	}
	if e != nil {
		if tok, _ := embed.TokenizerOf(e); tok != nil {
			return tok, nil
		}
	}
	return tokenize.New("cl100k_base")
}

// DefaultUnit describes the size unit DefaultCounter picks for s, for
// listings.
func DefaultUnit(s Spec) string {
	if s.Unit != "" {
		return s.Unit
	}
	if s.Embeds {
		return "tokens of the embedder's tokenizer, else cl100k_base"
	}
	return "runes"
}

// capSizes lowers the size limits of cfg (its fields named size or
// max_tokens in JSON) to limit, the most tokens the embedder takes whole:
// a chunk in the model's own tokens is then never truncated by it.
func capSizes(cfg any, limit int) {
	v := reflect.ValueOf(cfg).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if f := v.Field(i); (name == "size" || name == "max_tokens") && f.Kind() == reflect.Int && f.Int() > int64(limit) {
			f.SetInt(int64(limit))
		}
	}
}

// spec wraps a typed constructor as a Spec.
func spec[C any, K gochunk.Chunker](name, summary string, defaults func() C, build func(C, tokenize.Counter) (K, error)) Spec {
	d := defaults()
	return Spec{
		Name:     name,
		Summary:  summary,
		Defaults: &d,
		New: func(config []byte, env Env) (gochunk.Chunker, error) {
			cfg := defaults()
			if err := DecodeConfig(config, &cfg); err != nil {
				return nil, err
			}
			return build(cfg, env.CounterOrDefault())
		},
	}
}

// specL wraps a typed constructor of an LLM-based chunker.
func specL[C any, K gochunk.Chunker](name, summary string, defaults func() C, build func(C, tokenize.Counter, *llm.Client) (K, error)) Spec {
	d := defaults()
	return Spec{
		Name:     name,
		Summary:  summary,
		Defaults: &d,
		UsesLLM:  true,
		New: func(config []byte, env Env) (gochunk.Chunker, error) {
			cfg := defaults()
			if err := DecodeConfig(config, &cfg); err != nil {
				return nil, err
			}
			return build(cfg, env.CounterOrDefault(), env.LLM)
		},
	}
}
