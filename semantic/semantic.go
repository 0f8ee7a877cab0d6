// Package semantic holds the embedding-based chunkers that keep chunks
// contiguous: breakpoints on the distance between neighbouring sentences
// (Kamradt, LangChain's SemanticChunker), Savitzky-Golay smoothed
// similarity minima (Chonkie's SemanticChunker), hierarchical clustering,
// dynamic-programming segmentation with a size penalty, and Chroma's
// cluster semantic chunker.
//
// They share one pipeline: the text is cut into sentences (a sentence over
// the size limit is cut further, at white space then tokens), the
// sentences are embedded through an embed.Embedder, each algorithm chooses
// the sentences where chunks start, and every group of sentences is packed
// into chunks of at most the size limit, so the contract of package gochunk
// holds whatever the algorithm decides.
package semantic

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// Sentences configures how the text is cut into the units the algorithms
// work on.
type Sentences struct {
	Delimiters    []string `json:"delimiters" doc:"cut sentences after these strings instead of the sentence rules"`
	MinCharacters int      `json:"min_characters_per_sentence" range:"0,1073741824" doc:"a sentence shorter than this (in characters) is joined to the next"`
	Structure     string   `json:"structure" doc:"auto: place topic boundaries only at paragraph breaks (else line breaks) when the text has them at a grain a chunk can hold several of; none: every sentence end alike"`
	MinSize       int      `json:"min_size" range:"0,1073741824" doc:"a chunk under this many tokens of the --tokenizer unit (a heading alone, a few words) is joined to the text after it (at the end, before it) where the size allows; at most a quarter of size counts; 0 turns it off"`
}

// DefaultMinSize is the default min_size: about two short sentences, more
// than a heading or a caption alone.
const DefaultMinSize = 16

// base is what every chunker here holds.
type base struct {
	name      string
	counter   tokenize.Counter
	embedder  embed.Embedder
	size      int
	splitter  segment.SentenceSplitter
	minChars  int
	structure string
	minSize   int
}

func newBase(name string, size int, sent Sentences, counter tokenize.Counter, e gochunk.Embedder) (base, error) {
	if size <= 0 {
		return base{}, fmt.Errorf("%w: size must be positive, got %d", gochunk.ErrConfig, size)
	}
	if err := checkStructure(sent.Structure); err != nil {
		return base{}, err
	}
	if sent.MinCharacters < 0 {
		return base{}, fmt.Errorf("%w: min_characters_per_sentence must not be negative", gochunk.ErrConfig)
	}
	counter, em := tokenize.OrRunes(counter), embed.OrLexical(e)
	return base{name: name, counter: counter, embedder: em, size: size,
		splitter: segment.SentenceSplitter{Delimiters: sent.Delimiters}, minChars: sent.MinCharacters, structure: sent.Structure,
		minSize: min(sent.MinSize, size/4)}, nil
}

// doc is one document going through the pipeline.
type doc struct {
	b      *base
	id     string
	text   string
	engine *pack.Engine
	units  []pack.Piece // sentences, each within the size limit
	// tracing: the caller wants the trace (ChunkTrace); Chunk leaves out
	// what only the trace needs (a span per unit, curves kept for it).
	tracing bool
}

// newDoc checks the text and starts its pipeline, with no units yet.
func (b *base) newDoc(d gochunk.Document) (*doc, error) {
	if err := gochunk.CheckDocument(d); err != nil {
		return nil, err
	}
	p := &doc{b: b, id: d.ID, text: d.Text}
	p.engine = &pack.Engine{Text: d.Text, Counter: b.counter, Limit: b.size}
	p.engine.Init()
	return p, nil
}

// prepare checks the text and cuts it into sentence units.
func (b *base) prepare(ctx context.Context, d gochunk.Document) (*doc, error) {
	p, err := b.newDoc(d)
	if err != nil {
		return nil, err
	}
	pending, k := -1, 0
	for r := range b.splitter.All(d.Text) {
		if k++; k%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("chunking cancelled: %w", ctx.Err())
		}
		start := r.Start
		if pending >= 0 {
			start = pending
		}
		t := pack.Trim(d.Text, pack.Range{Start: start, End: r.End})
		if t.End == t.Start || utf8.RuneCountInString(d.Text[t.Start:t.End]) < b.minChars {
			pending = start
			continue
		}
		pending = -1
		if err := p.addUnit(ctx, start, r.End); err != nil {
			return nil, err
		}
	}
	if pending >= 0 {
		if n := len(p.units); n > 0 && p.engine.CountUpTo(p.units[n-1].Start, len(d.Text), b.size) <= b.size {
			p.units[n-1].End = len(d.Text)
			p.units[n-1].Size = p.engine.Count(p.units[n-1].Start, p.units[n-1].End)
		} else if err := p.addUnit(ctx, pending, len(d.Text)); err != nil {
			return nil, err
		}
	}
	p.setGaps()
	return p, nil
}

func (p *doc) addUnit(ctx context.Context, start, end int) error {
	if n := p.engine.CountUpTo(start, end, p.b.size); n <= p.b.size {
		p.units = append(p.units, pack.Piece{Start: start, End: end, Size: n})
		return nil
	}
	parts, err := p.engine.Split(ctx, start, end, nil)
	if err != nil {
		return gochunk.WrapDocument(p.id, err)
	}
	for _, r := range parts {
		// Split measured its parts: counting a part of a megabytes-long
		// word again would run its byte-pair merges again.
		p.units = append(p.units, pack.Piece{Start: r.Start, End: r.End, Size: p.engine.Size(r)})
	}
	return nil
}

// setGaps records the size of the white space between units that do not
// touch (the parts of a cut sentence), for packing.
func (p *doc) setGaps() {
	for i := 0; i+1 < len(p.units); i++ {
		if p.units[i].End < p.units[i+1].Start {
			p.units[i].Gap = p.engine.Count(p.units[i].End, p.units[i+1].Start)
		}
	}
}

func (p *doc) unitText(i int) string { return p.text[p.units[i].Start:p.units[i].End] }

// windows returns, for every unit, the text from the unit buffer units
// before it to the unit buffer units after it: a substring of the
// document (units are contiguous), so nothing is copied.
func (p *doc) windows(buffer int) []string {
	n := len(p.units)
	out := make([]string, n)
	for i := range n {
		lo, hi := max(0, i-buffer), min(n-1, i+buffer)
		out[i] = p.text[p.units[lo].Start:p.units[hi].End]
	}
	return out
}

func (p *doc) unitTexts() []string {
	out := make([]string, len(p.units))
	for i := range p.units {
		out[i] = p.unitText(i)
	}
	return out
}

// embed embeds texts with the document-adapted embedder, checking what the
// embedder returns.
func (p *doc) embed(ctx context.Context, e embed.Embedder, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vs, err := embed.Checked(ctx, e, texts)
	if err != nil {
		return nil, gochunk.WrapDocument(p.id, err)
	}
	return vs, nil
}

// embedder returns the chunker's embedder adapted to this document.
func (p *doc) embedder() embed.Embedder {
	return embed.ForDocument(p.b.embedder, p.unitTexts())
}

// build turns chunk starts (unit indexes, the first 0) into chunks: each
// group of units is packed greedily into chunks within the size limit.
func (p *doc) build(ctx context.Context, starts []int) ([]gochunk.Chunk, error) {
	if p.b.minSize > 0 {
		starts = p.joinSmallGroups(starts)
	}
	var ranges []pack.Range
	for k, s := range starts {
		e := len(p.units)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		if s >= e {
			continue
		}
		ranges = p.engine.Merge(p.units[s:e], ranges)
	}
	if p.b.minSize > 0 {
		ranges = p.joinSmallRanges(ranges)
	}
	chunks, err := p.engine.Build(ctx, ranges, true)
	if err != nil {
		return nil, gochunk.WrapDocument(p.id, err)
	}
	// Record how many units (sentences) each chunk holds.
	u := 0
	for i := range chunks {
		n := 0
		for u < len(p.units) && p.units[u].Start < chunks[i].End() {
			if p.units[u].End > chunks[i].Start() {
				n++
			}
			if p.units[u].End > chunks[i].End() {
				break
			}
			u++
		}
		chunks[i].Stats.Sentences = n
	}
	return chunks, nil
}

// joinSmallGroups joins each group of units (from one start to the next)
// of fewer than minSize tokens to a neighbour: a heading or a line that
// introduces what follows to the group after it, anything else (the tail
// of a paragraph, a short reply) to the group before it, where the topic
// it ends began. Packing then cuts the joined group within the size.
func (p *doc) joinSmallGroups(starts []int) []int {
	out := make([]int, 0, len(starts))
	for k := 0; k < len(starts); k++ {
		end := len(p.units)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		size := 0
		for u := starts[k]; u < end && size < p.b.minSize; u++ {
			size += p.units[u].Size + p.units[u].Gap
		}
		if size >= p.b.minSize || len(starts) == 1 {
			out = append(out, starts[k])
			continue
		}
		forward := len(out) == 0 || segment.HeadingLike(p.text[p.units[starts[k]].Start:p.units[end-1].End])
		switch {
		case forward && k+1 < len(starts):
			out = append(out, starts[k])
			k++ // the next group's start goes: this one runs on through it
		case len(out) > 0:
			// this group's start goes: the one before runs on through it
		default:
			out = append(out, starts[k])
		}
	}
	return out
}

// joinSmallRanges joins each packed range of fewer than minSize tokens to
// a neighbour where the joined text fits the size: a heading to the range
// after it, anything else to the range before it, else to the other.
func (p *doc) joinSmallRanges(ranges []pack.Range) []pack.Range {
	e := p.engine
	out := make([]pack.Range, 0, len(ranges))
	for k := 0; k < len(ranges); k++ {
		r := ranges[k]
		if e.Size(r) >= p.b.minSize { // Merge measured r
			out = append(out, r)
			continue
		}
		n := len(out)
		intoNext := func() bool {
			if k+1 < len(ranges) && e.CountUpTo(r.Start, ranges[k+1].End, p.b.size) <= p.b.size {
				ranges[k+1].Start = r.Start
				return true
			}
			return false
		}
		intoPrev := func() bool {
			if n > 0 && e.CountUpTo(out[n-1].Start, r.End, p.b.size) <= p.b.size {
				out[n-1].End = r.End
				return true
			}
			return false
		}
		if segment.HeadingLike(p.text[r.Start:r.End]) {
			if intoNext() || intoPrev() {
				continue
			}
		} else if intoPrev() || intoNext() {
			continue
		}
		out = append(out, r)
	}
	return out
}

// trace starts the trace of this document; with full false (Chunk) it
// holds no units, and p.tracing says so to the rest of the pipeline.
func (p *doc) trace(full bool) *gochunk.Trace {
	p.tracing = full
	t := &gochunk.Trace{Document: p.id, Chunker: p.b.name}
	if !full {
		return t
	}
	t.Units = make([]gochunk.Span, 0, len(p.units))
	conv := runeoff.New(p.text)
	for _, u := range p.units {
		t.Units = append(t.Units, gochunk.Span{Start: u.Start, End: u.End, StartRune: conv.Rune(u.Start), EndRune: conv.Rune(u.End)})
	}
	return t
}

// cosines returns the cosine similarity of each vector with the next.
func cosines(vs [][]float32) []float64 {
	if len(vs) < 2 {
		return nil
	}
	out := make([]float64, len(vs)-1)
	for i := range out {
		out[i] = float64(vec.Cosine(vs[i], vs[i+1]))
	}
	return out
}

// startsFrom turns "a chunk ends after unit i" positions into chunk starts.
func startsFrom(endsAfter []int, n int) []int {
	starts := []int{0}
	for _, i := range endsAfter {
		if s := i + 1; s > starts[len(starts)-1] && s < n {
			starts = append(starts, s)
		}
	}
	return starts
}
