package pipeline

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/grow"
	"github.com/gochunk/gochunk/record"
)

// Result is one document's chunks and what the pipeline added to them.
type Result struct {
	// Source is the document's id, the source of its records.
	Source string
	// Metadata, when set, is put on each record, under the keys the
	// chunk's own metadata sets (see Source.RecordMetadata).
	Metadata map[string]any
	Chunks   []gochunk.Chunk
	// Embeddings holds each chunk's embedding when Config.EmbedChunks is
	// set (Run or Embed filled them in).
	Embeddings [][]float32
	// Trace is the chunker's explanation when Config.Trace is set and the
	// chunker is a gochunk.Tracer; Text is then the document's text.
	Trace *gochunk.Trace
	Text  string
	// Lines are each chunk's first and last line in a text document;
	// Where, for a laid-out one (elements with pages), its pages and
	// boxes. One per chunk; the other is nil.
	Lines [][2]int
	Where []Where
	// EmbedTexts, when set (one per chunk, from Config.Context), are what
	// the chunks' embeddings are made of where not empty: the chunks'
	// texts and offsets stay as they are.
	EmbedTexts []string
	// Parents are the document's parents when Config.Parents asks for
	// two levels, and ParentOf each chunk's parent (an index of Parents).
	Parents  []record.Parent
	ParentOf []int
	// ContextUsage is what the chat model of context mode llm was asked,
	// and ContextEstimate, with Estimate, what it would be.
	ContextUsage    gochunk.LLMUsage
	ContextEstimate ContextEstimate
	// Truncated counts the chunks whose embedded text was over the
	// embedder's limit, so that the model embedded only its start.
	Truncated int
	// ContextTrimmed counts the chunks whose context was shortened so
	// that the embedded text fits the embedder's limit (the chunk itself
	// is never cut).
	ContextTrimmed int
}

// Chunk chunks doc, with the chunker's trace when Config.Trace asks for it.
// It does not embed, but for a chunker whose chunks come with their own
// vectors (gochunk.ChunkEmbedder: late chunking) when Config.EmbedChunks
// is set: Result.Embeddings then holds them, and Embed leaves them.
func (p *Pipeline) Chunk(ctx context.Context, doc gochunk.Document) (r Result, err error) {
	defer recovered("chunk", &err)
	r = Result{Source: doc.ID}
	if p.cfg.Trace {
		r.Text = doc.Text
	}
	if ce, ok := p.chunker.(gochunk.ChunkEmbedder); ok && p.cfg.EmbedChunks {
		r.Chunks, r.Embeddings, err = ce.ChunkEmbed(ctx, doc)
	} else if tr, ok := p.chunker.(gochunk.Tracer); ok && p.cfg.Trace {
		r.Chunks, r.Trace, err = tr.ChunkTrace(ctx, doc)
	} else {
		r.Chunks, err = p.chunker.Chunk(ctx, doc)
	}
	if err != nil {
		return r, p.explainInvalidUTF8(err, doc.Text)
	}
	r.Lines, r.Where = locate(doc, r.Chunks)
	if p.cfg.Parents > 0 {
		if r.Parents, r.ParentOf, err = groupParents(ctx, doc, r.Chunks, p.counter, p.cfg.Parents); err != nil {
			return r, err
		}
	}
	switch {
	case p.context == nil:
	case p.context.mode == "llm":
		r.EmbedTexts, r.ContextUsage, r.ContextEstimate, err = p.context.llmTexts(ctx, doc, r.Chunks)
	default:
		r.EmbedTexts, err = p.context.embedTexts(ctx, doc, r.Chunks, r.Lines, r.Where)
	}
	return r, err
}

// Run chunks doc and refines the chunks: with Config.EmbedChunks, each
// gets its embedding.
func (p *Pipeline) Run(ctx context.Context, doc gochunk.Document) (Result, error) {
	r, err := p.Chunk(ctx, doc)
	if err != nil || !p.cfg.EmbedChunks || len(r.Embeddings) == len(r.Chunks) {
		return r, err
	}
	if errs := p.Embed(ctx, []*Result{&r}); errs[0] != nil {
		return r, errs[0]
	}
	return r, nil
}

// Embedding returns a pipeline like p that embeds chunks (Config.EmbedChunks).
func (p *Pipeline) Embedding() *Pipeline {
	q := *p
	q.cfg.EmbedChunks = true
	return &q
}

// Tracing returns a pipeline like p that asks its chunker for a trace
// (Config.Trace).
func (p *Pipeline) Tracing() *Pipeline {
	q := *p
	q.cfg.Trace = true
	return &q
}

// Chunking returns a pipeline like p that does not embed chunks.
func (p *Pipeline) Chunking() *Pipeline {
	q := *p
	q.cfg.EmbedChunks = false
	return &q
}

// Offsets returns the byte offsets of doc's chunks, start and end of each
// in turn, without building chunks where the chunker can (a
// gochunk.Offsetter, such as fast).
func (p *Pipeline) Offsets(ctx context.Context, doc gochunk.Document) (_ []int, err error) {
	defer recovered("offsets", &err)
	if o, ok := p.chunker.(gochunk.Offsetter); ok {
		if err := gochunk.CheckDocument(doc); err != nil {
			return nil, p.explainInvalidUTF8(err, doc.Text)
		}
		return o.Offsets(ctx, doc)
	}
	chunks, err := p.chunker.Chunk(ctx, doc)
	if err != nil {
		return nil, p.explainInvalidUTF8(err, doc.Text)
	}
	offsets := make([]int, 0, 2*len(chunks))
	for _, c := range chunks {
		offsets = append(offsets, c.Start(), c.End())
	}
	return offsets, nil
}

// Embed fills in the embeddings of the results' chunks, batching chunks of
// all of them into embedder calls of at most Config.BatchTokens tokens (of
// the chunks' unit); chunks that have theirs already (a late chunker's,
// see Chunk, or vectors reused from a store) keep them. It returns one
// error per result, nil where every chunk of the result got its vector.
func (p *Pipeline) Embed(ctx context.Context, results []*Result) []error {
	errs := make([]error, len(results))
	missing := false
	for _, r := range results {
		missing = missing || len(r.Embeddings) != len(r.Chunks) || slices.ContainsFunc(r.Embeddings, func(v []float32) bool { return v == nil })
	}
	if !missing {
		return errs
	}
	em, err := p.Embedder(ctx)
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	var texts []string
	var tokens []int
	var refs []chunkRef
	// The model's own tokens, to fit context and count inputs it cuts;
	// when the chunks are sized in them, their counts are those already.
	limitCounter, limit := embed.TokenizerOf(em)
	splits := embed.SplitsLong(em) // over its limit is whole, in pieces, not cut
	sameUnit := limitCounter != nil && limitCounter.Name() == p.counter.Name()
	for i, r := range results {
		if len(r.Embeddings) != len(r.Chunks) {
			r.Embeddings = make([][]float32, len(r.Chunks))
		}
		for j, c := range r.Chunks {
			if r.Embeddings[j] != nil {
				continue // given (a late chunker's, or reused from a store)
			}
			text, n := c.Text, c.TokenCount
			if j < len(r.EmbedTexts) && r.EmbedTexts[j] != "" {
				if limit > 0 {
					var trimmed bool
					if r.EmbedTexts[j], trimmed = fitContext(r.EmbedTexts[j], c.Text, limitCounter, limit); trimmed {
						r.ContextTrimmed++
					}
				}
				text = r.EmbedTexts[j]
				n = p.counter.Count(text)
			}
			if limit > 0 {
				m := n
				if !sameUnit {
					m = limitCounter.Count(text)
				}
				if m > limit && !splits {
					r.Truncated++
				}
			}
			texts = append(texts, text)
			tokens = append(tokens, n)
			refs = append(refs, chunkRef{i, j})
		}
	}
	func() {
		var err error
		defer func() {
			if err != nil {
				for i := range errs {
					if errs[i] == nil {
						errs[i] = err
					}
				}
			}
		}()
		defer recovered("embed", &err)
		p.embedBatches(ctx, em, texts, tokens, refs, results, errs)
	}()
	return errs
}

// embedBatches embeds texts, the chunks refs points at, in batches, filling
// in results' embeddings and errs.
func (p *Pipeline) embedBatches(ctx context.Context, em embed.Embedder, texts []string, tokens []int, refs []chunkRef, results []*Result, errs []error) {
	embed.Batches(ctx, em, texts, tokens, p.cfg.BatchTokens, func(k int, v []float32, err error) {
		at := refs[k]
		if err != nil && errs[at.result] == nil {
			errs[at.result] = fmt.Errorf("embed chunks: %w", err)
		}
		results[at.result].Embeddings[at.chunk] = v
	})
}

// chunkRef names a chunk of one result among several.
type chunkRef struct{ result, chunk int }

// Records returns the result's chunks as records, embeddings included.
func (r Result) Records() []record.Record {
	out := make([]record.Record, len(r.Chunks))
	for i, c := range r.Chunks {
		out[i] = r.record(i, c)
	}
	return out
}

func (r Result) record(i int, c gochunk.Chunk) record.Record {
	rec := record.FromChunk(c, r.Source)
	if len(r.Metadata) > 0 {
		md := maps.Clone(r.Metadata)
		maps.Copy(md, rec.Metadata)
		rec.Metadata = md
	}
	if i < len(r.Embeddings) {
		rec.Embedding = r.Embeddings[i]
	}
	if i < len(r.Lines) {
		rec.Lines = r.Lines[i]
	}
	if i < len(r.Where) {
		rec.Pages, rec.Boxes = r.Where[i].Pages, r.Where[i].Boxes
	}
	if i < len(r.EmbedTexts) {
		rec.EmbedText = r.EmbedTexts[i]
	}
	if i < len(r.ParentOf) && r.ParentOf[i] >= 0 {
		parent := r.Parents[r.ParentOf[i]]
		rec.Parent = &parent
	}
	return rec
}

// AppendJSONL appends the records of chunks [from, to) as JSON Lines to
// dst (see record.AppendJSON).
func (r Result) AppendJSONL(dst []byte, from, to int) ([]byte, error) {
	need := 0 // the texts and a line's other fields, so that dst grows once
	for i := from; i < to; i++ {
		need += len(r.Chunks[i].Text) + 256
	}
	dst = grow.Slice(dst, need)
	var err error
	for i := from; i < to; i++ {
		if dst, err = record.AppendJSON(dst, r.record(i, r.Chunks[i])); err != nil {
			return dst, fmt.Errorf("chunk %d: %w", i, err)
		}
	}
	return dst, nil
}
