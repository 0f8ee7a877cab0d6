package semantic

import (
	"context"
	"fmt"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
)

// Late is late chunking (Günther et al., 2024; Chonkie's LateChunker): the
// chunks are a rule-based chunker's, and each chunk's vector is pooled from
// the vectors of its own tokens, computed by running the whole document
// through the model once (in overlapping windows of the model's limit
// when longer), so every chunk's vector sees the text around it.
type Late struct {
	base gochunk.Chunker
	em   embed.TokenEmbedder
}

// NewLate returns the late chunker over base's chunks with e's token
// vectors; e must be (or wrap) an embed.TokenEmbedder: an onnx:MODEL run by
// ONNX Runtime.
func NewLate(base gochunk.Chunker, e gochunk.Embedder) (*Late, error) {
	te := embed.TokenEmbedderOf(e)
	if te == nil {
		name := "none"
		if e != nil {
			name = e.ModelID()
		}
		return nil, fmt.Errorf("%w: late chunking needs a model's token vectors (an onnx:MODEL embedder run by ONNX Runtime), not %s", gochunk.ErrConfig, name)
	}
	return &Late{base: base, em: te}, nil
}

// Chunk returns the base chunker's chunks, without vectors.
func (l *Late) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	return l.base.Chunk(ctx, doc)
}

// ChunkEmbed returns the base chunker's chunks and each chunk's vector:
// the pooled vectors of the tokens that lie inside the chunk's spans.
func (l *Late) ChunkEmbed(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, [][]float32, error) {
	chunks, err := l.base.Chunk(ctx, doc)
	if err != nil {
		return nil, nil, err
	}
	ends, vectors, err := l.em.TokenVectors(ctx, doc.Text)
	if err != nil {
		return nil, nil, gochunk.WrapDocument(doc.ID, fmt.Errorf("late chunking: %w", err))
	}
	starts := tokenStarts(doc.Text, ends)
	out := make([][]float32, len(chunks))
	for i, c := range chunks {
		var own [][]float32
		for _, s := range c.Spans {
			for t := sort.SearchInts(starts, s.Start); t < len(ends) && ends[t] <= s.End; t++ {
				own = append(own, vectors[t])
			}
		}
		if len(own) == 0 {
			// No whole token inside (a chunk cut inside a word): its
			// overlapping tokens stand for it.
			for _, s := range c.Spans {
				for t := sort.SearchInts(ends, s.Start+1); t < len(ends) && starts[t] < s.End; t++ {
					own = append(own, vectors[t])
				}
			}
		}
		out[i] = l.em.PoolTokens(own)
	}
	return chunks, out, nil
}

// tokenStarts returns where each token starts: after the previous token's
// end and the white space that follows it.
func tokenStarts(text string, ends []int) []int {
	starts := make([]int, len(ends))
	prev := 0
	for i, e := range ends {
		s := prev
		for s < e {
			r, n := utf8.DecodeRuneInString(text[s:])
			if !unicode.IsSpace(r) {
				break
			}
			s += n
		}
		starts[i], prev = s, e
	}
	return starts
}
