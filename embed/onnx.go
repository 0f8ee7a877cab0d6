package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
	"github.com/knights-analytics/hugot/options"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// ONNX is a transformer embedding model exported to ONNX (such as
// sentence-transformers/all-MiniLM-L6-v2, BAAI/bge-small-en-v1.5,
// thenlper/gte-small), run in pure Go by hugot's Go backend. Pooling and
// normalisation follow the model's sentence-transformers configuration:
// 1_Pooling/config.json chooses CLS or mean pooling (mean over the
// attention mask when absent), modules.json adds normalisation when it
// lists a Normalize module. Texts longer than MaxTokens (the model's
// max_seq_length, else its max_position_embeddings, else 512) are
// truncated to their first MaxTokens tokens, as sentence-transformers does.
type ONNX struct {
	mu        sync.Mutex // one inference at a time per model
	session   *hugot.Session
	pipe      *pipelines.FeatureExtractionPipeline
	pooling   string // cls, mean or last
	normalize bool
	maxTokens int
	dim       int
	batch     int
	id        string
	tok       *tokenize.HF // nil when tokenize cannot read the tokenizer
}

// newSession starts the hugot session of the backend opt names.
func newSession(ctx context.Context, opt Options) (*hugot.Session, error) {
	switch opt.ONNXBackend {
	case "", "go":
		if opt.ONNXCUDA || opt.ONNXRuntimeLibrary != "" {
			return nil, fmt.Errorf("%w: the ONNX Runtime library and CUDA need the ort backend", ErrModel)
		}
		s, err := hugot.NewGoSession(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: start onnx session: %v", ErrModel, err)
		}
		return s, nil
	case "ort":
		var opts []options.WithOption
		if opt.ONNXRuntimeLibrary != "" {
			opts = append(opts, options.WithOnnxLibraryPath(opt.ONNXRuntimeLibrary))
		}
		if opt.ONNXCUDA {
			opts = append(opts, options.WithCuda(map[string]string{"device_id": "0"}))
		}
		s, err := hugot.NewORTSession(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("%w: start ONNX Runtime session (the ort backend needs a binary built with cgo and -tags ORT, and libonnxruntime installed): %v", ErrModel, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("%w: unknown onnx backend %q: want go or ort", ErrModel, opt.ONNXBackend)
}

// ONNXFiles are the files of a model looked for on the hub; those after the
// first two may be missing.
var onnxFiles = []string{"tokenizer.json", "config.json", "onnx/model.onnx", "model.onnx", "1_Pooling/config.json", "modules.json", "sentence_bert_config.json"}

// LoadONNX loads an ONNX model from a local directory (model.onnx or
// onnx/model.onnx, tokenizer.json, config.json, and the sentence-transformers
// files when present) or from the Hugging Face hub by repository id.
func LoadONNX(ctx context.Context, model string, opt Options) (*ONNX, error) {
	if p := opt.ONNXPooling; p != "" && p != "cls" && p != "mean" && p != "last" {
		return nil, fmt.Errorf("%w: onnx pooling %q: want cls, mean or last", ErrModel, p)
	}
	dir, err := modelDir(ctx, model, onnxFiles, onnxFiles[1:], opt)
	if err != nil {
		return nil, err
	}
	onnxName := ""
	for _, f := range []string{"onnx/model.onnx", "model.onnx"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			onnxName = filepath.Base(f)
			break
		}
	}
	if onnxName == "" {
		return nil, fmt.Errorf("%w: no model.onnx or onnx/model.onnx in %s", ErrModel, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return nil, fmt.Errorf("%w: no tokenizer.json in %s", ErrModel, dir)
	}
	o := &ONNX{batch: 32, maxTokens: 512}
	// Counting in the model's tokens needs a tokenizer package tokenize
	// can read; without one, chunkers fall back to cl100k_base.
	if tok, err := tokenize.LoadHF(filepath.Join(dir, "tokenizer.json")); err == nil {
		o.tok = tok
	}
	var pool struct {
		CLS  bool `json:"pooling_mode_cls_token"`
		Mean bool `json:"pooling_mode_mean_tokens"`
		Last bool `json:"pooling_mode_lasttoken"`
	}
	if err := readJSONIf(filepath.Join(dir, "1_Pooling", "config.json"), &pool); err != nil {
		return nil, err
	}
	switch {
	case opt.ONNXPooling != "":
		o.pooling = opt.ONNXPooling
	case pool.Last && !pool.Mean:
		o.pooling = "last"
	case pool.CLS && !pool.Mean:
		o.pooling = "cls"
	default:
		o.pooling = "mean"
	}
	var modules []struct {
		Type string `json:"type"`
	}
	if err := readJSONIf(filepath.Join(dir, "modules.json"), &modules); err != nil {
		return nil, err
	}
	for _, m := range modules {
		if strings.HasSuffix(m.Type, ".Normalize") {
			o.normalize = true
		}
	}
	var cfg struct {
		MaxPosition int `json:"max_position_embeddings"`
	}
	if err := readJSONIf(filepath.Join(dir, "config.json"), &cfg); err != nil {
		return nil, err
	}
	if cfg.MaxPosition > 0 {
		o.maxTokens = cfg.MaxPosition
	}
	var st struct {
		MaxSeq int `json:"max_seq_length"`
	}
	if err := readJSONIf(filepath.Join(dir, "sentence_bert_config.json"), &st); err != nil {
		return nil, err
	}
	if st.MaxSeq > 0 {
		o.maxTokens = st.MaxSeq
	}

	session, err := newSession(ctx, opt)
	if err != nil {
		return nil, err
	}
	pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{ModelPath: dir, Name: "gochunk-embed", OnnxFilename: onnxName})
	if err != nil {
		session.Destroy()
		return nil, fmt.Errorf("%w: load %s: %v", ErrModel, model, err)
	}
	if gt := pipe.Model.Tokenizer.GoTokenizer; gt != nil {
		if err := gt.Tokenizer.With(api.EncodeOptions{AddSpecialTokens: true, MaxLen: o.maxTokens}); err != nil {
			session.Destroy()
			return nil, fmt.Errorf("%w: tokenizer: %v", ErrModel, err)
		}
	}
	dims := pipe.Output.Dimensions
	if len(dims) == 0 || dims[len(dims)-1] <= 0 {
		session.Destroy()
		return nil, fmt.Errorf("%w: output %q has no fixed last dimension (%v)", ErrModel, pipe.Output.Name, dims)
	}
	o.session, o.pipe, o.dim = session, pipe, int(dims[len(dims)-1])
	sum, err := fileDigest(filepath.Join(dir, onnxSubdir(dir), onnxName))
	if err != nil {
		session.Destroy()
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	o.id = fmt.Sprintf("onnx:%s@%s:%s:n%v:t%d", filepath.Base(strings.TrimRight(model, "/")), sum, o.pooling, o.normalize, o.maxTokens)
	return o, nil
}

func onnxSubdir(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx")); err == nil {
		return "onnx"
	}
	return ""
}

// readJSONIf decodes path into v when the file exists.
func readJSONIf(path string, v any) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrModel, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrModel, filepath.Base(path), err)
	}
	return nil
}

// Close releases the model.
func (o *ONNX) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.session == nil {
		return nil
	}
	err := o.session.Destroy()
	o.session = nil
	return err
}

// Dim returns the model's hidden size.
func (o *ONNX) Dim() int { return o.dim }

// MaxTokens returns the longest input embedded whole.
func (o *ONNX) MaxTokens() int { return o.maxTokens }

// Tokenizer returns the model's tokenizer, or nil when package tokenize
// cannot read it.
func (o *ONNX) Tokenizer() tokenize.Counter {
	if o.tok == nil {
		return nil
	}
	return o.tok
}

// ChunkLimit returns MaxTokens less the two special tokens ([CLS] and
// [SEP], or a model's equivalents) that the tokenizer adds.
func (o *ONNX) ChunkLimit() int { return max(1, o.maxTokens-2) }

// ModelID names the model file, pooling, normalisation and length.
func (o *ONNX) ModelID() string { return o.id }

// Embed returns the vectors of texts, in batches.
func (o *ONNX) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var nonEmpty []int
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, o.dim)
		} else {
			nonEmpty = append(nonEmpty, i)
		}
	}
	for start := 0; start < len(nonEmpty); start += o.batch {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("onnx embedding: %w", err)
		}
		idx := nonEmpty[start:min(start+o.batch, len(nonEmpty))]
		batch := make([]string, len(idx))
		for j, i := range idx {
			batch[j] = texts[i]
		}
		vs, err := o.run(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = vs[j]
		}
	}
	return out, nil
}

func (o *ONNX) run(ctx context.Context, texts []string) ([][]float32, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.session == nil {
		return nil, fmt.Errorf("onnx embedding: model closed")
	}
	p := o.pipe
	batch := backends.NewBatch(len(texts))
	defer batch.Destroy()
	backends.TokenizeInputs(batch, p.Model.Tokenizer, texts)
	if err := backends.CreateInputTensors(batch, p.Model, p.Runtime); err != nil {
		return nil, fmt.Errorf("onnx embedding: %w", err)
	}
	if err := backends.RunSessionOnBatch(ctx, batch, p.BasePipeline); err != nil {
		return nil, fmt.Errorf("onnx embedding: %w", err)
	}
	out := make([][]float32, len(texts))
	switch v := batch.OutputValues[p.OutputIndex].(type) {
	case [][]float32: // the model pools itself
		copy(out, v)
	case [][][]float32:
		for i, tokens := range v {
			out[i] = o.pool(tokens, batch.Input[i])
		}
	default:
		return nil, fmt.Errorf("onnx embedding: unsupported output type %T", v)
	}
	if err := checkVectors(out, len(texts), o.dim, "onnx embedding"); err != nil {
		return nil, err
	}
	if o.normalize {
		for _, v := range out {
			vec.Normalize(v)
		}
	}
	return out, nil
}

// pool reduces token vectors to one: the first ([CLS]) token, the last
// token the attention mask keeps, or the mean over the tokens it keeps.
func (o *ONNX) pool(tokens [][]float32, in backends.TokenizedInput) []float32 {
	v := make([]float32, o.dim)
	if len(tokens) == 0 {
		return v
	}
	switch o.pooling {
	case "cls":
		copy(v, tokens[0])
		return v
	case "last":
		last := len(tokens) - 1
		if len(in.AttentionMask) > 0 {
			for last > 0 && (last >= len(in.AttentionMask) || in.AttentionMask[last] == 0) {
				last--
			}
		}
		copy(v, tokens[last])
		return v
	}
	n := 0
	for j, t := range tokens {
		if j < len(in.AttentionMask) && in.AttentionMask[j] == 0 || len(in.AttentionMask) > 0 && j >= len(in.AttentionMask) {
			continue
		}
		vec.Add(v, t)
		n++
	}
	if n > 0 {
		inv := 1 / float32(n)
		for k := range v {
			v[k] *= inv
		}
	}
	return v
}
