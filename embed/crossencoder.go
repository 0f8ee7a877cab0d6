package embed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gochunk/gochunk/tokenize"
)

// CrossEncoder is a reranking model exported to ONNX with a
// sequence-classification head (such as cross-encoder/ms-marco-MiniLM-L-6-v2
// or BAAI/bge-reranker-base): it reads a query and a passage together, as
// one input laid out by the tokenizer's post-processor ([CLS] query [SEP]
// passage [SEP], the passage's tokens of type 1, for BERT), and its output
// scores how well the passage answers the query. It runs in ONNX Runtime.
// Pairs longer than MaxTokens are truncated as the tokenizers library's
// longest_first strategy does.
type CrossEncoder struct {
	ort       *ortModel
	tok       *tokenize.HF
	maxTokens int
	id        string
}

// crossEncoderFiles are the files of a cross-encoder looked for on the
// hub; those after the first two may be missing.
var crossEncoderFiles = []string{"tokenizer.json", "config.json", "onnx/model.onnx", "model.onnx"}

// LoadCrossEncoder loads a cross-encoder from a local directory (model.onnx
// or onnx/model.onnx, tokenizer.json, config.json) or from the Hugging
// Face hub by repository id, into ONNX Runtime (opt.ONNXRuntimeLibrary,
// opt.ONNXThreads and opt.ONNXCUDA apply; the pure-Go backend does not
// run cross-encoders).
func LoadCrossEncoder(ctx context.Context, model string, opt Options) (*CrossEncoder, error) {
	if opt.ONNXBackend == "go" {
		return nil, fmt.Errorf("%w: a cross-encoder runs in ONNX Runtime only: use the ort (or auto) backend, not go", ErrModel)
	}
	dir, err := modelDir(ctx, model, crossEncoderFiles, crossEncoderFiles[2:], opt)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, onnxSubdir(dir), "model.onnx")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: no model.onnx or onnx/model.onnx in %s", ErrModel, dir)
	}
	tok, err := tokenize.LoadHF(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: cross-encoder %s: %v", ErrModel, model, err)
	}
	c := &CrossEncoder{tok: tok, maxTokens: 512}
	if c.maxTokens, err = maxPositions(dir, c.maxTokens); err != nil {
		return nil, err
	}
	sum, err := fileDigest(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if c.ort, err = loadORT(path, opt, true); err != nil {
		return nil, err
	}
	if _, err := c.Score(ctx, "probe", []string{"probe"}); err != nil {
		c.ort.close()
		return nil, fmt.Errorf("%w: first run of %s: %v", ErrModel, path, err)
	}
	if opt.Notice != nil {
		opt.Notice(fmt.Sprintf("onnx:%s: cross-encoder in ONNX Runtime %s (%s)", model, c.ort.version, ortLibrary()))
	}
	c.id = fmt.Sprintf("onnx:%s@%s:t%d", filepath.Base(strings.TrimRight(model, "/")), sum, c.maxTokens)
	return c, nil
}

// ModelID names the model file and its length limit.
func (c *CrossEncoder) ModelID() string { return c.id }

// MaxTokens returns the most tokens a query and passage pair is given,
// special tokens included.
func (c *CrossEncoder) MaxTokens() int { return c.maxTokens }

// Score returns the relevance of each passage to query, higher for more
// relevant: the model's logit, or for a model of two labels the relevant
// label's logit less the other's (whose sigmoid is the softmax
// probability of relevance). Pairs are run in batches of similar length.
func (c *CrossEncoder) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	ids := make([][]int, len(passages))
	types := make([][]int, len(passages))
	q := c.tok.Encode(query)
	for i, p := range passages {
		ids[i], types[i] = c.tok.Pair(q, c.tok.Encode(p), c.maxTokens)
	}
	scores := make([]float32, len(passages))
	err := lengthBatches(ids, func(part []int) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cross-encoder: %w", err)
		}
		bi, bt := make([][]int, len(part)), make([][]int, len(part))
		for k, i := range part {
			bi[k], bt[k] = ids[i], types[i]
		}
		data, shape, err := c.ort.run(bi, bt)
		if err != nil {
			return fmt.Errorf("cross-encoder: %w", err)
		}
		labels := int(shape[len(shape)-1])
		if labels != 1 && labels != 2 {
			return fmt.Errorf("%w: the cross-encoder gives %d scores a pair, want 1 (a relevance logit) or 2 (irrelevant, relevant)", ErrModel, labels)
		}
		for k, i := range part {
			row := data[k*labels : (k+1)*labels]
			scores[i] = row[labels-1]
			if labels == 2 {
				scores[i] -= row[0]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return scores, nil
}

// Close releases the ONNX Runtime session.
func (c *CrossEncoder) Close() error {
	if c.ort == nil {
		return nil
	}
	err := c.ort.close()
	c.ort = nil
	return err
}
