package semantic

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/signal"
	"github.com/gochunk/gochunk/tokenize"
)

// BreakpointConfig configures the Breakpoint chunker.
type BreakpointConfig struct {
	Size         int     `json:"size" range:"1,1073741824" doc:"maximum chunk size in tokens of the --tokenizer unit (a hard limit)"`
	Compare      string  `json:"compare" doc:"what is compared at each gap: blocks (the block_size sentences before it with the block_size after it, TextTiling) or windows (each sentence with buffer_size neighbours on each side against the next such window, the article's and LangChain's method)"`
	BlockSize    int     `json:"block_size" range:"1,4096" doc:"sentences on each side of a gap compared with compare=blocks"`
	BufferSize   int     `json:"buffer_size" range:"0,4096" doc:"with compare=windows, sentences on each side joined to a sentence before embedding it, for context"`
	Threshold    string  `json:"threshold_type" doc:"breakpoint rule: depth (Hearst's depth scores of the similarity at local minima), percentile, stddev, iqr, gradient or absolute (of the cosine distance)"`
	Amount       float64 `json:"threshold_amount" range:"-100,100" doc:"the rule's parameter: standard deviations below the mean depth for depth, a percentile (0-100) for percentile and gradient, a number of standard deviations for stddev, an IQR multiple for iqr, a cosine distance for absolute; 0 means the rule's default (0.5, 95, 3, 1.5, 95, 0.5)"`
	NumberChunks int     `json:"number_of_chunks" range:"0,1073741824" doc:"aim at this many chunks instead (the percentile is interpolated from it, as LangChain does); 0 to use threshold_type"`
	MinChunkSize int     `json:"min_chunk_size" range:"0,1073741824" doc:"a breakpoint that would leave a chunk under this many tokens is skipped"`
	Refine       bool    `json:"refine" doc:"with compare=blocks and threshold_type=depth, look again between the cuts found with blocks that stop at those cuts, so that a block reaching past a boundary into a short topic beside it does not hide that topic's other boundary"`
	Sentences
}

// DefaultBreakpointConfig returns a size of 512 and TextTiling's
// comparison: blocks of 6 sentences, depth scores cut at the mean minus
// half a standard deviation, at paragraph breaks when the text has them,
// refined between the cuts (Refine). ArticleBreakpointConfig gives the
// article's and LangChain's method.
func DefaultBreakpointConfig() BreakpointConfig {
	return BreakpointConfig{Size: 512, Compare: "blocks", BlockSize: 6, BufferSize: 1, Threshold: "depth", Refine: true,
		Sentences: Sentences{Structure: StructureAuto, MinSize: DefaultMinSize}}
}

// ArticleBreakpointConfig returns the breakpoint method of Kamradt's "5
// levels of text splitting", LangChain's SemanticChunker and the
// article: every sentence with one neighbour on each side, compared with
// the next such window, a chunk ending where the distance is above its
// 95th percentile, sentences treated alike whatever the layout.
func ArticleBreakpointConfig() BreakpointConfig {
	return BreakpointConfig{Size: 512, Compare: "windows", BlockSize: 6, BufferSize: 1, Threshold: "percentile",
		Sentences: Sentences{Structure: StructureNone}}
}

var defaultAmounts = map[string]float64{"depth": 0.5, "percentile": 95, "stddev": 3, "iqr": 1.5, "gradient": 95, "absolute": 0.5}

// Breakpoint cuts where the text stops resembling what came before.
//
// By default (Compare "blocks") it is Hearst's TextTiling over embedded
// sentences: every sentence is embedded once; at each gap the sum of the
// BlockSize sentence vectors before it is compared with the sum of those
// after it, so the similarity is lowest on the gap itself, not where the
// dominant text of an overlapping window changes; chunks end at local
// minima whose depth score (how far the similarity dips below the peaks on
// either side) is above the mean depth minus Amount standard deviations.
// With Structure "auto", only paragraph breaks (or line breaks) are
// compared when the text has them at a grain a chunk can hold several
// of: a topic rarely changes inside a paragraph.
//
// A block of BlockSize sentences reaches past a boundary into whatever
// lies beyond it, so a topic shorter than a block blurs into its
// neighbours and only one of its two boundaries is a minimum. With Refine
// (the default), each stretch between the cuts found is looked at again
// with blocks that stop at those cuts: its depth scores are recomputed
// from the clipped blocks and its minima above the same cut-off become
// cuts too (leaving at least two units on each side), for a few rounds.
// Only the units within two blocks of a cut are embedded again.
//
// With Compare "windows" it is the breakpoint chunker of Greg Kamradt's "5
// levels of text splitting", LangChain's SemanticChunker and the article's
// first method: each sentence is embedded with BufferSize neighbours on
// each side, the cosine distance between consecutive buffered sentences is
// computed, and a chunk ends after every sentence whose distance to the
// next is above a threshold: a percentile of the distances, the mean plus
// some standard deviations, the mean plus a multiple of the interquartile
// range, a percentile of the distances' gradient, or an absolute distance
// (ArticleBreakpointConfig).
//
// Either way, a group of sentences over Size is cut at its weakest gap
// (strongest break, lowest similarity) that keeps the part before within
// Size.
type Breakpoint struct {
	base
	cfg BreakpointConfig
}

// NewBreakpoint returns a Breakpoint chunker; a nil embedder means the
// built-in lexical one.
func NewBreakpoint(cfg BreakpointConfig, counter tokenize.Counter, e gochunk.Embedder) (*Breakpoint, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	b, err := newBase("semantic", cfg.Size, cfg.Sentences, counter, e)
	if err != nil {
		return nil, err
	}
	if _, ok := defaultAmounts[cfg.Threshold]; !ok {
		return nil, fmt.Errorf("%w: threshold_type %q: want depth, percentile, stddev, iqr, gradient or absolute", gochunk.ErrConfig, cfg.Threshold)
	}
	switch cfg.Compare {
	case "":
		cfg.Compare = "blocks"
	case "blocks", "windows":
	default:
		return nil, fmt.Errorf("%w: compare %q: want blocks or windows", gochunk.ErrConfig, cfg.Compare)
	}
	if cfg.BlockSize <= 0 {
		return nil, fmt.Errorf("%w: block_size must be positive, got %d", gochunk.ErrConfig, cfg.BlockSize)
	}
	if cfg.Amount == 0 {
		cfg.Amount = defaultAmounts[cfg.Threshold]
	}
	if (cfg.Threshold == "percentile" || cfg.Threshold == "gradient") && (cfg.Amount < 0 || cfg.Amount > 100) {
		return nil, fmt.Errorf("%w: threshold_amount %v: a percentile is between 0 and 100", gochunk.ErrConfig, cfg.Amount)
	}
	if cfg.BufferSize < 0 || cfg.NumberChunks < 0 || cfg.MinChunkSize < 0 {
		return nil, fmt.Errorf("%w: buffer_size, number_of_chunks and min_chunk_size must not be negative", gochunk.ErrConfig)
	}
	return &Breakpoint{base: b, cfg: cfg}, nil
}

// Chunk implements gochunk.Chunker.
func (c *Breakpoint) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.chunk(ctx, d, false)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer. With compare=blocks the curve is
// the block similarity at every gap and Smoothed holds the depth scores;
// with compare=windows the curve is the cosine distance after each
// sentence.
func (c *Breakpoint) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	return c.chunk(ctx, d, true)
}

// chunk is Chunk, and with tracing ChunkTrace.
func (c *Breakpoint) chunk(ctx context.Context, d gochunk.Document, tracing bool) ([]gochunk.Chunk, *gochunk.Trace, error) {
	p, err := c.prepare(ctx, d)
	if err != nil || len(p.units) == 0 {
		return nil, nil, err
	}
	tr := p.trace(tracing)
	n := len(p.units)
	if n < 2 {
		tr.Breakpoints = []int{0}
		chunks, err := p.build(ctx, tr.Breakpoints)
		return chunks, tr, err
	}
	levels := p.levels()
	cands := p.candidates(c.structure, levels)
	var endsAfter []int
	var gapSim []float64
	if c.cfg.Compare == "blocks" {
		e := p.embedder()
		var err error
		if gapSim, err = p.gapSimsWith(ctx, e, c.cfg.BlockSize); err != nil {
			return nil, nil, err
		}
		tr.CurveName, tr.Curve = "block similarity", gapSim
		if c.cfg.Threshold == "depth" && c.cfg.NumberChunks == 0 {
			sims := make([]float64, len(cands))
			for k, g := range cands {
				sims[k] = gapSim[g]
			}
			cuts, depth, thr := depthCuts(sims, c.cfg.Amount)
			tr.Threshold = &thr
			if p.tracing {
				tr.Smoothed = make([]float64, len(gapSim))
				for k, g := range cands {
					tr.Smoothed[g] = depth[k]
				}
			}
			tr.Notes = "smoothed: depth score at each compared gap; threshold: on depth"
			for _, k := range cuts {
				endsAfter = append(endsAfter, cands[k])
			}
			if c.cfg.Refine {
				if endsAfter, err = p.refineCuts(ctx, e, c.cfg.BlockSize, cands, gapSim, endsAfter, thr); err != nil {
					return nil, nil, err
				}
				tr.Notes += "; refined between cuts with clipped blocks"
			}
		} else {
			dist := make([]float64, len(gapSim))
			for i, s := range gapSim {
				dist[i] = 1 - s
			}
			endsAfter = c.ruleCuts(dist, cands, tr)
		}
	} else {
		texts := p.windows(c.cfg.BufferSize)
		vs, err := p.embed(ctx, p.embedder(), texts)
		if err != nil {
			return nil, nil, err
		}
		dist := cosines(vs)
		gapSim = make([]float64, len(dist))
		for i := range dist {
			gapSim[i] = dist[i]
			dist[i] = 1 - dist[i]
		}
		tr.CurveName, tr.Curve = "cosine distance", dist
		endsAfter = c.ruleCuts(dist, cands, tr)
	}
	// min_chunk_size skips breakpoints that would leave a small chunk.
	if c.cfg.MinChunkSize > 0 {
		kept, last := endsAfter[:0], 0
		for _, i := range endsAfter {
			if p.engine.Count(p.units[last].Start, p.units[i].End) < c.cfg.MinChunkSize {
				continue
			}
			kept = append(kept, i)
			last = i + 1
		}
		endsAfter = kept
	}
	tr.Breakpoints = p.fitStarts(startsFrom(endsAfter, n), levels, gapSim)
	chunks, err := p.build(ctx, tr.Breakpoints)
	return chunks, tr, err
}

// ruleCuts applies a distance rule (percentile, stddev, iqr, gradient,
// absolute, or number_of_chunks) to the distances at the candidate gaps.
func (c *Breakpoint) ruleCuts(dist []float64, cands []int, tr *gochunk.Trace) []int {
	vals := make([]float64, len(cands))
	for k, g := range cands {
		vals[k] = dist[g]
	}
	values, thr := c.threshold(vals)
	tr.Threshold = &thr
	if c.cfg.Threshold == "gradient" && c.cfg.NumberChunks == 0 && len(cands) == len(dist) {
		tr.Smoothed = values
	}
	var endsAfter []int
	for k, v := range values {
		if v > thr {
			endsAfter = append(endsAfter, cands[k])
		}
	}
	return endsAfter
}

// threshold returns the values compared with the threshold (the distances,
// or their gradient) and the threshold.
func (c *Breakpoint) threshold(dist []float64) ([]float64, float64) {
	if c.cfg.NumberChunks > 0 {
		// LangChain: interpolate the percentile linearly between 100 (one
		// chunk) and 0 (a chunk per sentence).
		x1, x2 := float64(len(dist)), 1.0
		x := max(min(float64(c.cfg.NumberChunks), x1), x2)
		y := 0.0
		if x1 != x2 {
			y = 0 + (100-0)/(x2-x1)*(x-x1)
		}
		return dist, signal.Percentile(dist, max(0, min(100, y)))
	}
	a := c.cfg.Amount
	switch c.cfg.Threshold {
	case "stddev":
		m, s := signal.MeanStd(dist)
		return dist, m + a*s
	case "iqr":
		m, _ := signal.MeanStd(dist)
		return dist, m + a*(signal.Percentile(dist, 75)-signal.Percentile(dist, 25))
	case "gradient":
		g := signal.Gradient(dist)
		return g, signal.Percentile(g, a)
	case "absolute":
		return dist, a
	case "depth":
		// Depth on distances (compare=windows): Hearst's cut-off on the
		// depth of the similarity curve.
		sims := make([]float64, len(dist))
		for i, d := range dist {
			sims[i] = 1 - d
		}
		cuts, _, _ := depthCuts(sims, a)
		out := make([]float64, len(dist))
		for _, i := range cuts {
			out[i] = 1
		}
		return out, 0.5
	}
	return dist, signal.Percentile(dist, a)
}
