package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
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
	// ort runs the model in ONNX Runtime when set; else hugot's pure-Go
	// session does.
	ort       *ortModel
	mu        sync.Mutex // one pure-Go inference at a time per model
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

// loadGo loads the model into hugot's pure-Go session.
func (o *ONNX) loadGo(ctx context.Context, model, dir, onnxName string) error {
	session, err := hugot.NewGoSession(ctx)
	if err != nil {
		return fmt.Errorf("%w: start onnx session: %v", ErrModel, err)
	}
	pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{ModelPath: dir, Name: "gochunk-embed", OnnxFilename: onnxName})
	if err != nil {
		session.Destroy()
		return fmt.Errorf("%w: load %s: %v", ErrModel, model, err)
	}
	if gt := pipe.Model.Tokenizer.GoTokenizer; gt != nil {
		if err := gt.Tokenizer.With(api.EncodeOptions{AddSpecialTokens: true, MaxLen: o.maxTokens}); err != nil {
			session.Destroy()
			return fmt.Errorf("%w: tokenizer: %v", ErrModel, err)
		}
	}
	dims := pipe.Output.Dimensions
	if len(dims) == 0 || dims[len(dims)-1] <= 0 {
		session.Destroy()
		return fmt.Errorf("%w: output %q has no fixed last dimension (%v)", ErrModel, pipe.Output.Name, dims)
	}
	o.session, o.pipe, o.dim = session, pipe, int(dims[len(dims)-1])
	return nil
}

// loadRuntime loads the model into ONNX Runtime; its vector length is
// learnt from a first run.
func (o *ONNX) loadRuntime(path string, opt Options) error {
	if o.tok == nil {
		return fmt.Errorf("%w: the model's tokenizer.json is not one package tokenize reads (WordPiece), which the ONNX Runtime backend needs", ErrNoRuntime)
	}
	m, err := loadORT(path, opt, false)
	if err != nil {
		return err
	}
	o.ort = m
	vs, err := o.runORT([]string{"dimension probe"})
	if err != nil {
		m.close()
		o.ort = nil
		return fmt.Errorf("%w: first run of %s: %v", ErrModel, path, err)
	}
	o.dim = len(vs[0])
	return nil
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
	if o.maxTokens, err = maxPositions(dir, o.maxTokens); err != nil {
		return nil, err
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

	path := filepath.Join(dir, onnxSubdir(dir), onnxName)
	sum, err := fileDigest(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	notice := func(format string, a ...any) {
		if opt.Notice != nil {
			opt.Notice(fmt.Sprintf("onnx:%s: ", model) + fmt.Sprintf(format, a...))
		}
	}
	backend := opt.ONNXBackend
	switch backend {
	case "", "auto", "ort":
		err := o.loadRuntime(path, opt)
		if err == nil {
			notice("ONNX Runtime %s (%s)", o.ort.version, ortLibrary())
			break
		}
		if backend == "ort" || opt.ONNXCUDA || !errors.Is(err, ErrNoRuntime) {
			return nil, err
		}
		notice("pure Go, much slower than ONNX Runtime: %v", err)
		if err := o.loadGo(ctx, model, dir, onnxName); err != nil {
			return nil, err
		}
	case "go":
		if opt.ONNXCUDA || opt.ONNXRuntimeLibrary != "" {
			return nil, fmt.Errorf("%w: the ONNX Runtime library and CUDA need the ort (or auto) backend, not go", ErrModel)
		}
		if err := o.loadGo(ctx, model, dir, onnxName); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: unknown onnx backend %q: want auto, ort or go", ErrModel, backend)
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
	if o.ort != nil {
		err := o.ort.close()
		o.ort = nil
		return err
	}
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
	if o.ort != nil {
		batch := make([]string, len(nonEmpty))
		for j, i := range nonEmpty {
			batch[j] = texts[i]
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("onnx embedding: %w", err)
		}
		vs, err := o.runORT(batch)
		if err != nil {
			return nil, err
		}
		for j, i := range nonEmpty {
			out[i] = vs[j]
		}
		return out, nil
	}
	// The pure-Go backend: texts of similar length together, each batch
	// at most goBatchTokens padded tokens (estimated at 4 bytes a token
	// when the tokenizer is not one package tokenize reads), so memory is
	// bounded by the budget, not by the number or length of the texts.
	size := func(i int) int { return min(len(texts[i])/4+2, o.maxTokens) }
	if o.tok != nil {
		size = func(i int) int { return min(o.tok.Count(texts[i])+2, o.maxTokens) }
	}
	sizes := make(map[int]int, len(nonEmpty))
	for _, i := range nonEmpty {
		sizes[i] = size(i)
	}
	sort.SliceStable(nonEmpty, func(a, b int) bool { return sizes[nonEmpty[a]] < sizes[nonEmpty[b]] })
	for start := 0; start < len(nonEmpty); {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("onnx embedding: %w", err)
		}
		end := start + 1
		for end < len(nonEmpty) && end-start < o.batch && (end-start+1)*sizes[nonEmpty[end]] <= goBatchTokens {
			end++
		}
		idx := nonEmpty[start:end]
		batch := make([]string, len(idx))
		for j, i := range idx {
			batch[j] = o.truncate(texts[i])
		}
		vs, err := o.run(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = vs[j]
		}
		start = end
	}
	return out, nil
}

// goBatchTokens bounds the padded tokens of one pure-Go model run.
const goBatchTokens = 2048

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
			out[i] = o.pool(tokens, batch.Input[i].AttentionMask)
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
func (o *ONNX) pool(tokens [][]float32, mask []uint32) []float32 {
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
		if len(mask) > 0 {
			for last > 0 && (last >= len(mask) || mask[last] == 0) {
				last--
			}
		}
		copy(v, tokens[last])
		return v
	}
	n := 0
	for j, t := range tokens {
		if j < len(mask) && mask[j] == 0 || len(mask) > 0 && j >= len(mask) {
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

// truncate cuts text after its first MaxTokens tokens less the special
// tokens, for the pure-Go backend, whose tokenizer does not truncate. (A
// WordPiece word cut after one of its tokens gives the same tokens up to
// there.)
func (o *ONNX) truncate(text string) string {
	if o.tok == nil {
		return text
	}
	before, after := o.tok.Specials()
	room := max(o.maxTokens-len(before)-len(after), 1)
	if ends := o.tok.AppendTokenEnds(nil, text); len(ends) > room {
		return text[:ends[room-1]]
	}
	return text
}

// maxPositions returns the model's max_position_embeddings from its
// config.json, or def when it gives none.
func maxPositions(dir string, def int) (int, error) {
	var cfg struct {
		MaxPosition int `json:"max_position_embeddings"`
	}
	if err := readJSONIf(filepath.Join(dir, "config.json"), &cfg); err != nil {
		return 0, err
	}
	if cfg.MaxPosition > 0 {
		return cfg.MaxPosition, nil
	}
	return def, nil
}

// ortBatchTokens bounds the padded tokens of one ONNX Runtime run. Small
// runs are faster on a CPU, not slower: measured on 2 cores with a
// MiniLM-shaped encoder on the evaluation corpora, 768 padded tokens a run
// embed 1.4× as fast as 4,096 and 2× as fast as 16,384 (the activations of
// a small run stay in cache), and hold less memory.
const ortBatchTokens = 768

// runORT embeds texts in ONNX Runtime: each text's tokens (its first
// MaxTokens, less the special tokens the tokenizer's post-processor puts
// around them) are batched with texts of similar length (sorted by
// length, padded per batch, at most ortBatchTokens padded tokens a run),
// and the token vectors pooled as the model says.
func (o *ONNX) runORT(texts []string) ([][]float32, error) {
	before, after := o.tok.Specials()
	room := max(o.maxTokens-len(before)-len(after), 1)
	ids := make([][]int, len(texts))
	for i, t := range texts {
		body := o.tok.Encode(t)
		body = body[:min(len(body), room)]
		ids[i] = append(append(append(make([]int, 0, len(before)+len(body)+len(after)), before...), body...), after...)
	}
	out := make([][]float32, len(texts))
	err := lengthBatches(ids, func(part []int) error {
		batch := make([][]int, len(part))
		for k, i := range part {
			batch[k] = ids[i]
		}
		data, shape, err := o.ort.run(batch, nil)
		if err != nil {
			return err
		}
		dim := int(shape[len(shape)-1])
		for k, i := range part {
			if len(shape) == 2 {
				out[i] = append([]float32(nil), data[k*dim:(k+1)*dim]...)
			} else {
				seq := int(shape[1])
				tokens := make([][]float32, len(batch[k]))
				for j := range tokens {
					tokens[j] = data[(k*seq+j)*dim : (k*seq+j+1)*dim]
				}
				out[i] = o.poolDim(tokens, dim)
			}
			if o.normalize {
				vec.Normalize(out[i])
			}
		}
		return nil
	})
	return out, err
}

// lengthBatches calls run with the indexes of ids in batches of sequences
// of similar length (sorted by length, at most ortBatchTokens padded
// tokens a batch, or one sequence).
func lengthBatches(ids [][]int, run func(part []int) error) error {
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(ids[order[a]]) < len(ids[order[b]]) })
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && (end-start+1)*len(ids[order[end]]) <= ortBatchTokens {
			end++
		}
		if err := run(order[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// poolDim pools token vectors of length dim, all of them real tokens.
func (o *ONNX) poolDim(tokens [][]float32, dim int) []float32 {
	if o.dim == 0 {
		o.dim = dim // the probe run of loadRuntime
	}
	return o.pool(tokens, nil)
}

// TokenVectors returns the vector of every token of text in context (see
// TokenEmbedder), with ONNX Runtime: a text longer than the model's limit
// runs in windows of the limit overlapping by a quarter, and each token
// takes its vector from the window where it has the most context on its
// shorter side, so every token has one and windows stitch without gaps.
func (o *ONNX) TokenVectors(ctx context.Context, text string) ([]int, [][]float32, error) {
	if o.ort == nil {
		return nil, nil, fmt.Errorf("%w: token vectors (late chunking) need the ONNX Runtime backend; the pure-Go one gives only pooled vectors", ErrNoRuntime)
	}
	if o.ort.rank != 3 {
		return nil, nil, fmt.Errorf("%w: the model pools its output itself; late chunking needs its token vectors", ErrModel)
	}
	ids := o.tok.Encode(text)
	ends := o.tok.AppendTokenEnds(nil, text)
	if len(ids) != len(ends) {
		return nil, nil, fmt.Errorf("onnx token vectors: %d tokens but %d token ends", len(ids), len(ends))
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	before, after := o.tok.Specials()
	room := max(o.maxTokens-len(before)-len(after), 1)
	stride := max(room-room/4, 1)
	var starts []int
	for s := 0; ; s += stride {
		starts = append(starts, s)
		if s+room >= len(ids) {
			break
		}
	}
	vectors := make([][]float32, len(ids))
	depth := make([]int, len(ids)) // context on the token's shorter side, in its window
	for first := 0; first < len(starts); {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("onnx token vectors: %w", err)
		}
		last := min(first+max(ortBatchTokens/(room+len(before)+len(after)), 1), len(starts))
		batch := make([][]int, 0, last-first)
		for _, s := range starts[first:last] {
			w := ids[s:min(s+room, len(ids))]
			batch = append(batch, append(append(append(make([]int, 0, len(w)+len(before)+len(after)), before...), w...), after...))
		}
		data, shape, err := o.ort.run(batch, nil)
		if err != nil {
			return nil, nil, err
		}
		seq, dim := int(shape[1]), int(shape[2])
		for k, s := range starts[first:last] {
			n := len(batch[k]) - len(before) - len(after)
			for j := range n {
				t := s + j
				if d := min(j, n-1-j); vectors[t] == nil || d > depth[t] {
					off := (k*seq + len(before) + j) * dim
					vectors[t], depth[t] = data[off:off+dim:off+dim], d
				}
			}
		}
		first = last
	}
	return ends, vectors, nil
}

// PoolTokens returns the mean of the token vectors, normalised when the
// model normalises its sentence vectors.
func (o *ONNX) PoolTokens(vectors [][]float32) []float32 {
	v := make([]float32, o.dim)
	for _, t := range vectors {
		vec.Add(v, t)
	}
	if len(vectors) > 0 {
		inv := 1 / float32(len(vectors))
		for k := range v {
			v[k] *= inv
		}
	}
	if o.normalize {
		vec.Normalize(v)
	}
	return v
}
