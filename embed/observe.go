package embed

import (
	"context"

	"github.com/gochunk/gochunk/tokenize"
)

// Observed is an Embedder that reports each call (how many texts, and its
// error) to a function, for metrics, and otherwise is the embedder it
// wraps: its tokenizer, chunk limit and document adaptation pass through.
type Observed struct {
	Embedder
	// Observe is called after each Embed call.
	Observe func(texts int, err error)
}

// Embed embeds texts with the wrapped embedder and reports the call.
func (o *Observed) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := o.Embedder.Embed(ctx, texts)
	o.Observe(len(texts), err)
	return vs, err
}

// Tokenizer returns the wrapped embedder's own tokenizer, if any.
func (o *Observed) Tokenizer() tokenize.Counter { return tokenizerOf(o.Embedder) }

// ChunkLimit returns the wrapped embedder's chunk limit.
func (o *Observed) ChunkLimit() int { return chunkLimitOf(o.Embedder) }

// ForDocument adapts the wrapped embedder to a document, still observed.
func (o *Observed) ForDocument(pieces []string) Embedder {
	return &Observed{ForDocument(o.Embedder, pieces), o.Observe}
}

// ForCollection weighs the wrapped embedder for a collection, still
// observed.
func (o *Observed) ForCollection(texts []string) Embedder {
	return &Observed{ForCollection(o.Embedder, texts), o.Observe}
}

// Unwrap returns the embedder observed.
func (o *Observed) Unwrap() Embedder { return o.Embedder }
