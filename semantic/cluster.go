package semantic

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// ClusterConfig configures the Cluster chunker.
type ClusterConfig struct {
	Size          int    `json:"size" range:"1,1073741824" doc:"max_chunk_size: the hard maximum chunk size in tokens of the --tokenizer unit"`
	MinChunkSize  int    `json:"min_chunk_size" range:"1,1073741824" doc:"size of the pieces the text is first cut into (recursively, on paragraphs, lines, sentence ends, spaces); a chunk holds at most size/min_chunk_size pieces"`
	KeepSeparator string `json:"keep_separator" doc:"with pieces=chroma, where the piece splitter keeps a separator: end (with the text before it, so a period ends its sentence) or start (with the text after it, as Chroma's splitter does: pieces then begin with the previous sentence's period)"`
	Pieces        string `json:"pieces" doc:"how the text is cut into pieces: sentences (whole sentences packed up to min_chunk_size, a longer sentence cut at white space: chunks end at sentence ends) or chroma (Chroma's recursive separators, which also cut at a period inside a sentence, \"3.14\" or \"e.g.\")"`
	MinSize       int    `json:"min_size" range:"0,1073741824" doc:"a chunk under this many tokens (a heading alone, a few words) is joined to the text after it (at the end, before it) where the size allows; at most a quarter of size counts; 0 turns it off"`
}

// The values of ClusterConfig.Pieces.
const (
	PiecesSentences = "sentences"
	PiecesChroma    = "chroma"
)

// DefaultClusterConfig returns Chroma's defaults: pieces of 50 tokens,
// chunks of at most 400.
func DefaultClusterConfig() ClusterConfig {
	return ClusterConfig{Size: 400, MinChunkSize: 50, KeepSeparator: split.KeepEnd, Pieces: PiecesSentences, MinSize: DefaultMinSize}
}

// Cluster is the ClusterSemanticChunker of Chroma's report "Evaluating
// Chunking Strategies for Retrieval": the text is cut into pieces of about
// MinChunkSize tokens by a recursive splitter (separators "\n\n", "\n",
// ".", "?", "!", " ", ""), the pieces are embedded and normalised, their
// pairwise similarities are centred on the mean similarity of all pairs,
// and dynamic programming picks the contiguous grouping, of at most
// Size/MinChunkSize pieces per chunk, that maximises the sum over chunks of
// the centred similarities of all pairs within a chunk.
//
// Chroma builds the full n×n similarity matrix; this implementation keeps
// only the band of pairs that can share a chunk (O(n·w) memory, O(n·w²)
// time for w pieces per chunk) and gets the mean of all pairs from the sum
// of the vectors, so long documents fit in memory. Unlike Chroma's code,
// whose table starts at 0 and so can return one chunk spanning the whole
// prefix when every reward is negative, the DP here starts at -∞ and always
// respects the piece limit; any chunk still over Size is then split.
//
// Chroma's splitter keeps a separator with the text after it
// (KeepSeparator "start"): a period then begins the next piece, and since
// chunks are runs of pieces, every chunk but the first starts with the
// previous sentence's period and ends without its own. The default keeps
// it with the text before it ("end"), so chunks end where sentences do;
// "start" reproduces Chroma's pieces.
type Cluster struct {
	base
	cfg    ClusterConfig
	pieces gochunk.Chunker
}

// NewCluster returns a Cluster chunker; a nil embedder means the built-in
// lexical one.
func NewCluster(cfg ClusterConfig, counter tokenize.Counter, e gochunk.Embedder) (*Cluster, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if cfg.Size <= 0 || cfg.MinChunkSize <= 0 {
		return nil, fmt.Errorf("%w: size and min_chunk_size must be positive", gochunk.ErrConfig)
	}
	if cfg.KeepSeparator != split.KeepEnd && cfg.KeepSeparator != split.KeepStart {
		return nil, fmt.Errorf("%w: keep_separator %q: want end or start", gochunk.ErrConfig, cfg.KeepSeparator)
	}
	if cfg.MinChunkSize > cfg.Size {
		return nil, fmt.Errorf("%w: min_chunk_size (%d) must not exceed size (%d)", gochunk.ErrConfig, cfg.MinChunkSize, cfg.Size)
	}
	b, err := newBase("cluster", cfg.Size, Sentences{MinSize: cfg.MinSize}, counter, e)
	if err != nil {
		return nil, err
	}
	var pieces gochunk.Chunker
	switch cfg.Pieces {
	case PiecesSentences, "":
		// Paragraphs, lines, then sentences: the engine's own levels.
	case PiecesChroma:
		rc := split.RecursiveConfig{Size: split.Size{Size: cfg.MinChunkSize}, Separators: []string{"\n\n", "\n", ".", "?", "!", " ", ""},
			KeepSeparator: cfg.KeepSeparator, StripWhitespace: true}
		pieces, err = split.NewRecursive(rc, b.counter)
	default:
		return nil, fmt.Errorf("%w: pieces %q: want sentences or chroma", gochunk.ErrConfig, cfg.Pieces)
	}
	if err != nil {
		return nil, err
	}
	return &Cluster{base: b, cfg: cfg, pieces: pieces}, nil
}

// Chunk implements gochunk.Chunker.
func (c *Cluster) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.chunk(ctx, d, false)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer: the units are the pieces and the
// curve is the centred similarity of each piece with the next.
func (c *Cluster) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	return c.chunk(ctx, d, true)
}

// chunk is Chunk, and with tracing ChunkTrace.
func (c *Cluster) chunk(ctx context.Context, d gochunk.Document, tracing bool) ([]gochunk.Chunk, *gochunk.Trace, error) {
	p, err := c.newDoc(d)
	if err != nil {
		return nil, nil, err
	}
	if err := c.cutPieces(ctx, p); err != nil {
		return nil, nil, err
	}
	if len(p.units) == 0 {
		return nil, nil, nil
	}
	p.setGaps()
	tr := p.trace(tracing)
	w := max(1, c.cfg.Size/c.cfg.MinChunkSize)
	b, err := p.streamBand(ctx, w)
	if err != nil {
		return nil, nil, err
	}
	starts, curve := b.segment()
	tr.CurveName, tr.Curve = "centred similarity", curve
	tr.Breakpoints = starts
	chunks, err := p.build(ctx, starts)
	return chunks, tr, err
}

// simBand is what Chroma's DP needs of n normalised vectors: the
// similarities of the pairs that can share a chunk (dots[i*m+k] for i and
// i+k+1, k < m = max(w-1, 1) and i+k+1 < n: one array, the slots past the
// last unit unused), and the sums that give the mean similarity of all
// pairs.
type simBand struct {
	n, w, m int
	dots    []float64
	sum     []float64 // sum of the vectors
	self    float64   // sum of their squared norms
}

func newSimBand(n, w, dim int) *simBand {
	m := max(w-1, 1)
	return &simBand{n: n, w: w, m: m, dots: make([]float64, n*m), sum: make([]float64, dim)}
}

// row returns the similarities of unit i with the units after it.
func (b *simBand) row(i int) []float64 {
	return b.dots[i*b.m : i*b.m+min(b.m, b.n-1-i)]
}

// add records the vectors of units [from, to), where vs[i-off] is the
// vector of unit i and vs holds every unit up to max(w-1, 1) after to.
func (b *simBand) add(vs [][]float32, off, from, to int) {
	for i := from; i < to; i++ {
		v := vs[i-off]
		for d, x := range v {
			b.sum[d] += float64(x)
		}
		b.self += float64(vec.Dot(v, v))
		// At least the next unit, for the trace's curve when w is 1.
		row := b.row(i)
		for k := range row {
			row[k] = float64(vec.Dot(v, vs[i+k+1-off]))
		}
	}
}

// bandBatch is how many units streamBand embeds at a time. The band and
// the sums do not depend on it (each similarity is of two vectors, the
// sums run in unit order), so it is set for memory alone: 1,024 vectors
// of the lexical embedder's 1,024 dimensions are 4 MB.
const bandBatch = 1024

// streamBand embeds the units in batches, holding one batch of vectors at
// a time, and returns their similarity band.
func (p *doc) streamBand(ctx context.Context, w int) (*simBand, error) {
	n := len(p.units)
	e := p.embedder()
	var b *simBand
	for s := 0; s < n; s += bandBatch {
		to := min(n, s+bandBatch)
		vs, err := p.embedUnits(ctx, e, s, min(n, to+max(w-1, 1)))
		if err != nil {
			return nil, err
		}
		if b == nil {
			b = newSimBand(n, w, len(vs[0]))
		}
		b.add(vs, s, s, to)
	}
	return b, nil
}

// clusterSegment returns the chunk starts of the best grouping of n
// normalised vectors into runs of at most w, and the centred similarity of
// neighbours.
func clusterSegment(vs [][]float32, w int) ([]int, []float64) {
	if len(vs) == 0 {
		return nil, nil
	}
	b := newSimBand(len(vs), w, len(vs[0]))
	b.add(vs, 0, 0, len(vs))
	return b.segment()
}

// segment centres the band on the mean similarity of all pairs and runs
// the DP.
func (b *simBand) segment() ([]int, []float64) {
	n, w := b.n, b.w
	if n == 0 {
		return nil, nil
	}
	// Mean similarity of all pairs i < j: (|Σv|² − Σ|v|²) / 2 / pairs.
	mean := 0.0
	if n > 1 {
		sq := 0.0
		for _, x := range b.sum {
			sq += x * x
		}
		mean = (sq - b.self) / 2 / (float64(n) * float64(n-1) / 2)
	}
	for i := range n {
		row := b.row(i)
		for k := range row {
			row[k] -= mean
		}
	}
	band, m := b.dots, b.m
	curve := make([]float64, 0, n)
	for i := 0; i+1 < n; i++ {
		curve = append(curve, band[i*m])
	}
	dp := make([]float64, n+1) // dp[j]: best score of the first j pieces
	from := make([]int, n+1)
	for j := 1; j <= n; j++ {
		dp[j] = math.Inf(-1)
		reward := 0.0 // sum over pairs of the run [i, j), both orders, as Chroma's matrix sum
		for i := j - 1; i >= max(0, j-w); i-- {
			for k := i + 1; k < j; k++ {
				reward += 2 * band[i*m+k-i-1]
			}
			if s := dp[i] + reward; s > dp[j] {
				dp[j], from[j] = s, i
			}
		}
	}
	var starts []int
	for j := n; j > 0; j = from[j] {
		starts = append(starts, from[j])
	}
	for l, r := 0, len(starts)-1; l < r; l, r = l+1, r-1 {
		starts[l], starts[r] = starts[r], starts[l]
	}
	return starts, curve
}

// cutPieces cuts the document into the units the DP groups: with the
// reference's recursive separators, or (pieces=sentences) at paragraph
// breaks, line breaks and sentence ends, merged up to min_chunk_size
// tokens, so that a chunk boundary, which falls between units, is a
// sentence end unless a sentence alone is over min_chunk_size.
func (c *Cluster) cutPieces(ctx context.Context, p *doc) error {
	if c.pieces != nil {
		pieces, err := c.pieces.Chunk(ctx, gochunk.Document{ID: p.id, Text: p.text})
		if err != nil {
			return gochunk.WrapDocument(p.id, err)
		}
		for _, pc := range pieces {
			p.units = append(p.units, pack.Piece{Start: pc.Start(), End: pc.End(), Size: pc.TokenCount})
		}
		return nil
	}
	e := &pack.Engine{Text: p.text, Counter: c.counter, Limit: c.cfg.MinChunkSize,
		Levels: []pack.Level{pack.SplitParagraphs, pack.SplitLines, pack.SplitSentences}}
	ranges, err := e.Split(ctx, 0, len(p.text), nil)
	if err != nil {
		return gochunk.WrapDocument(p.id, err)
	}
	for _, r := range ranges {
		if r = pack.Trim(p.text, r); r.End > r.Start {
			p.units = append(p.units, pack.Piece{Start: r.Start, End: r.End, Size: e.Size(r)})
		}
	}
	return nil
}
