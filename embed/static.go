package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gochunk/gochunk/hfhub"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// Static is a Model2Vec static embedding model (such as
// minishlab/potion-base-8M): a table of one vector per token. A text's
// vector is computed exactly as Model2Vec does: the text is cut to
// MaxTokens times the vocabulary's median token length in characters,
// tokenized without special tokens, unknown tokens are dropped, the first
// MaxTokens tokens are kept, their rows are averaged, and the mean is
// normalised when the model's config.json says "normalize". A text with no
// known token gets a zero vector. Pure Go; all cores are used.
type Static struct {
	tok       *tokenize.HF
	table     []float32
	dim       int
	rows      int
	normalize bool
	maxTokens int
	medianLen int
	id        string
}

// StaticFiles are the files of a Model2Vec model.
var StaticFiles = []string{"model.safetensors", "tokenizer.json", "config.json"}

// LoadStatic loads a Model2Vec model from a local directory, or from the
// Hugging Face hub by repository id ("minishlab/potion-base-8M", optionally
// "@REVISION"), downloading it into the hub cache when needed.
func LoadStatic(ctx context.Context, model string, opt Options) (*Static, error) {
	dir, err := modelDir(ctx, model, StaticFiles, []string{"config.json"}, opt)
	if err != nil {
		return nil, err
	}
	return loadStaticDir(dir, model)
}

// modelDir returns the directory holding a model's files: model itself
// when it is a directory, else the hub snapshot after downloading files
// (those in optional may be missing from the repository).
func modelDir(ctx context.Context, model string, files, optional []string, opt Options) (string, error) {
	if fi, err := os.Stat(model); err == nil && fi.IsDir() {
		return model, nil
	}
	repo, rev, _ := strings.Cut(model, "@")
	if !hfhub.ValidRepo(repo) {
		return "", fmt.Errorf("%w: %q is neither a directory nor a hub id (ORG/NAME)", ErrModel, model)
	}
	hopt := hfhub.Options{CacheDir: opt.CacheDir, Offline: opt.Offline, Progress: opt.Progress, Warn: opt.Notice}
	dir := ""
	for _, f := range files {
		p, err := hfhub.Download(ctx, repo, rev, f, hopt)
		if err != nil {
			if slices.Contains(optional, f) && !errors.Is(err, context.Canceled) {
				continue
			}
			return "", fmt.Errorf("%w: %v", ErrModel, err)
		}
		dir = strings.TrimSuffix(p, string(filepath.Separator)+filepath.FromSlash(f))
	}
	return dir, nil
}

func loadStaticDir(dir, name string) (*Static, error) {
	tok, err := tokenize.LoadHF(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	weights := filepath.Join(dir, "model.safetensors")
	t, err := readSafetensor(weights, "embeddings")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if len(t.shape) != 2 || t.shape[0] == 0 || t.shape[1] == 0 {
		return nil, fmt.Errorf("%w: embedding table has shape %v, want [tokens, dim]", ErrModel, t.shape)
	}
	if max := tok.MaxID(); max >= t.shape[0] {
		return nil, fmt.Errorf("%w: the tokenizer has token ids up to %d but the embedding table has %d rows", ErrModel, max, t.shape[0])
	}
	if !vec.Valid(t.data) {
		return nil, fmt.Errorf("%w: the embedding table holds NaN or infinite numbers", ErrModel)
	}
	s := &Static{tok: tok, table: t.data, rows: t.shape[0], dim: t.shape[1], maxTokens: 512, medianLen: tok.MedianTokenLength()}
	if b, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		var cfg struct {
			Normalize *bool `json:"normalize"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("%w: config.json: %v", ErrModel, err)
		}
		s.normalize = cfg.Normalize != nil && *cfg.Normalize
	}
	sum, err := fileDigest(weights)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	s.id = fmt.Sprintf("static:%s@%s", filepath.Base(strings.TrimRight(name, "/")), sum)
	return s, nil
}

// fileDigest returns a short SHA-256 of a file's contents.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Dim returns the table's vector length.
func (s *Static) Dim() int { return s.dim }

// Tokenizer returns the model's tokenizer: chunk sizes count in it by
// default.
func (s *Static) Tokenizer() tokenize.Counter { return s.tok }

// ChunkLimit returns MaxTokens: Model2Vec adds no special tokens.
func (s *Static) ChunkLimit() int { return s.maxTokens }

// MaxTokens returns how many tokens of a text are used (512, as Model2Vec's
// encode does by default); later tokens are ignored.
func (s *Static) MaxTokens() int { return s.maxTokens }

// ModelID names the model and its weights.
func (s *Static) ModelID() string { return s.id }

// Embed returns the vectors of texts.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := slab(len(texts), s.dim)
	err := parallel(ctx, len(texts), func(i int) error {
		s.embedOne(texts[i], out[i])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static embedding: %w", err)
	}
	return out, nil
}

// embedOne writes the vector of text into v, which must be zero.
func (s *Static) embedOne(text string, v []float32) {
	if s.maxTokens > 0 {
		text = truncateRunes(text, s.maxTokens*s.medianLen)
	}
	ids := s.tok.Encode(text)
	n := 0
	unk := s.tok.UnknownID()
	for _, id := range ids {
		if id == unk {
			continue
		}
		if s.maxTokens > 0 && n == s.maxTokens {
			break
		}
		vec.Add(v, s.table[id*s.dim:(id+1)*s.dim])
		n++
	}
	if n == 0 {
		return
	}
	inv := 1 / float32(n)
	for j := range v {
		v[j] *= inv
	}
	if s.normalize {
		vec.Normalize(v)
	}
}

func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
