package split

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/tokenize"
)

// TokenConfig configures the Token chunker.
type TokenConfig struct {
	Size
}

// DefaultTokenConfig returns the Token chunker's defaults: windows of 512
// tokens, no overlap.
func DefaultTokenConfig() TokenConfig { return TokenConfig{Size{Size: 512}} }

// Token cuts text into consecutive windows of Size tokens, each starting
// Size-Overlap tokens after the previous one (Chonkie's TokenChunker). A
// window never ends inside a UTF-8 character: a cut that would falls back to
// the character's start. Chunk text is kept as is, white space included.
type Token struct {
	cfg     TokenConfig
	counter tokenize.Encoder
}

// NewToken returns a Token chunker. The counter must report token
// boundaries (every counter of package tokenize does).
func NewToken(cfg TokenConfig, counter tokenize.Counter) (*Token, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	enc, ok := counterOr(counter).(tokenize.Encoder)
	if !ok {
		return nil, fmt.Errorf("%w: the token chunker needs a tokenizer that reports token boundaries, %q does not", gochunk.ErrConfig, counter.Name())
	}
	return &Token{cfg: cfg, counter: enc}, nil
}

// Chunk implements gochunk.Chunker.
func (t *Token) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	e, err := startEngine(doc, &pack.Engine{Counter: t.counter, Limit: t.cfg.Size.Size, Overlap: t.cfg.Overlap, SkipWords: true})
	if err != nil || doc.Text == "" {
		return nil, err
	}
	ranges, err := e.Split(ctx, 0, len(doc.Text), nil)
	if err != nil {
		return nil, err
	}
	return e.Build(ctx, ranges, false)
}
