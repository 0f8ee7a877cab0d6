package semantic

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/signal"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// SavGolConfig configures the SavGol chunker.
type SavGolConfig struct {
	Size             int     `json:"size" range:"1,1073741824" doc:"maximum chunk size in tokens of the --tokenizer unit (a hard limit)"`
	Compare          string  `json:"compare" doc:"the curve that is smoothed: blocks (at each gap that may end a topic, the similarity_window sentences before it against those after it) or window (Chonkie's: each sentence against the similarity_window sentences before it)"`
	Threshold        float64 `json:"threshold" range:"0,1" doc:"percentile (a fraction in (0,1)) of the similarity minima: minima at or below it become splits; also the similarity needed to merge groups with skip_window"`
	SimilarityWindow int     `json:"similarity_window" range:"1,4096" doc:"each sentence is compared with the window of this many sentences before it"`
	MinSentences     int     `json:"min_sentences_per_chunk" range:"1,1073741824" doc:"minimum distance, in sentences, between two splits"`
	SkipWindow       int     `json:"skip_window" range:"0,4096" doc:"merge a group with the most similar of the next skip_window+1 groups (and everything between) when similarity >= threshold; 0 disables"`
	FilterWindow     int     `json:"filter_window" range:"1,1001" doc:"Savitzky-Golay window length (odd)"`
	FilterPolyorder  int     `json:"filter_polyorder" range:"0,100" doc:"Savitzky-Golay polynomial order (below filter_window)"`
	FilterTolerance  float64 `json:"filter_tolerance" range:"0,1" doc:"a point is a local minimum when |first derivative| < tolerance and the second derivative is positive"`
	Sentences
}

// DefaultSavGolConfig returns Chonkie's SemanticChunker defaults, with a
// size of 512.
func DefaultSavGolConfig() SavGolConfig {
	return SavGolConfig{Size: 512, Compare: "blocks", Threshold: 0.8, SimilarityWindow: 3, MinSentences: 1, FilterWindow: 5, FilterPolyorder: 3,
		FilterTolerance: 0.2, Sentences: Sentences{MinCharacters: 24, Structure: StructureAuto, MinSize: DefaultMinSize}}
}

// SavGol is Chonkie's SemanticChunker, with a two-sided curve by default.
//
// With Compare "window" (ChonkieSavGolConfig) it is Chonkie's algorithm:
// the similarity of every sentence
// to the window of the SimilarityWindow sentences before it is computed,
// the curve's first and second derivatives are taken with a Savitzky-Golay
// filter, local minima (near-zero slope, positive curvature) are
// candidates, those at or below the Threshold percentile of the minima's
// values become splits (at least MinSentences apart), and, with
// SkipWindow, a group is merged with a similar group a few groups ahead
// together with everything between.
//
// With Compare "blocks" (the default) the curve is, at every gap where a
// topic may end (paragraph breaks when the text has them, see Structure),
// the similarity of the SimilarityWindow sentences before the gap with
// those after it; the same smoothing, minima and threshold then pick the
// gaps. A one-sided window dips one sentence after a seam and whenever a
// single sentence strays; the two-sided block dips on the seam.
type SavGol struct {
	base
	cfg SavGolConfig
}

// NewSavGol returns a SavGol chunker; a nil embedder means the built-in
// lexical one.
func NewSavGol(cfg SavGolConfig, counter tokenize.Counter, e gochunk.Embedder) (*SavGol, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	b, err := newBase("savgol", cfg.Size, cfg.Sentences, counter, e)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.Threshold <= 0 || cfg.Threshold >= 1:
		return nil, fmt.Errorf("%w: threshold must be in (0, 1), got %v", gochunk.ErrConfig, cfg.Threshold)
	case cfg.SimilarityWindow <= 0:
		return nil, fmt.Errorf("%w: similarity_window must be positive", gochunk.ErrConfig)
	case cfg.MinSentences <= 0:
		return nil, fmt.Errorf("%w: min_sentences_per_chunk must be positive", gochunk.ErrConfig)
	case cfg.Compare != "blocks" && cfg.Compare != "window":
		return nil, fmt.Errorf("%w: compare %q: want blocks or window", gochunk.ErrConfig, cfg.Compare)
	case cfg.SkipWindow < 0:
		return nil, fmt.Errorf("%w: skip_window must not be negative", gochunk.ErrConfig)
	case cfg.FilterTolerance <= 0 || cfg.FilterTolerance >= 1:
		return nil, fmt.Errorf("%w: filter_tolerance must be in (0, 1)", gochunk.ErrConfig)
	}
	if _, err := signal.SavGolCoeffs(cfg.FilterWindow, cfg.FilterPolyorder, 2); err != nil {
		return nil, fmt.Errorf("%w: %v", gochunk.ErrConfig, err)
	}
	return &SavGol{base: b, cfg: cfg}, nil
}

// Chunk implements gochunk.Chunker.
func (c *SavGol) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.chunk(ctx, d, false)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer: the curve is the window-to-sentence
// similarity, starting at sentence similarity_window; Smoothed holds the
// Savitzky-Golay smoothing of it.
func (c *SavGol) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	return c.chunk(ctx, d, true)
}

// chunk is Chunk, and with tracing ChunkTrace.
func (c *SavGol) chunk(ctx context.Context, d gochunk.Document, tracing bool) ([]gochunk.Chunk, *gochunk.Trace, error) {
	p, err := c.prepare(ctx, d)
	if err != nil || len(p.units) == 0 {
		return nil, nil, err
	}
	tr := p.trace(tracing)
	if c.cfg.Compare == "blocks" {
		return c.blocks(ctx, p, tr)
	}
	n, w := len(p.units), c.cfg.SimilarityWindow
	if n <= w {
		tr.Breakpoints = []int{0}
		tr.Notes = "fewer sentences than the similarity window: one group"
		chunks, err := p.build(ctx, tr.Breakpoints)
		return chunks, tr, err
	}
	// Windows of w sentences and the sentence after each.
	texts := make([]string, 0, 2*(n-w))
	for i := 0; i < n-w; i++ {
		texts = append(texts, p.text[p.units[i].Start:p.units[i+w-1].End])
	}
	for i := w; i < n; i++ {
		texts = append(texts, p.unitText(i))
	}
	e := p.embedder()
	vs, err := p.embed(ctx, e, texts)
	if err != nil {
		return nil, nil, err
	}
	sims := make([]float64, n-w)
	for i := range sims {
		sims[i] = float64(vec.Cosine(vs[i], vs[n-w+i]))
	}
	tr.CurveName, tr.Curve, tr.CurveOffset = "window similarity", sims, w
	var splits []int
	for _, i := range c.minima(sims, tr, p.tracing) {
		splits = append(splits, i+w)
	}
	starts := []int{0}
	for _, s := range splits {
		if s > starts[len(starts)-1] && s < n {
			starts = append(starts, s)
		}
	}
	if c.cfg.SkipWindow > 0 && len(starts) > 1 {
		if starts, err = c.skipMerge(ctx, p, e, starts); err != nil {
			return nil, nil, err
		}
	}
	tr.Breakpoints = starts
	chunks, err := p.build(ctx, starts)
	return chunks, tr, err
}

// minima returns the positions of the curve's split minima, and with
// tracing puts its smoothing in tr.
func (c *SavGol) minima(sims []float64, tr *gochunk.Trace, tracing bool) []int {
	var splits []int
	if len(sims) < c.cfg.FilterWindow {
		tr.Notes = "fewer similarities than the filter window: no split"
		return nil
	}
	if tracing { // the smoothed curve is the trace's only
		tr.Smoothed, _ = signal.SavGol(sims, c.cfg.FilterWindow, c.cfg.FilterPolyorder, 0)
	}
	d1, _ := signal.SavGol(sims, c.cfg.FilterWindow, c.cfg.FilterPolyorder, 1)
	d2, _ := signal.SavGol(sims, c.cfg.FilterWindow, c.cfg.FilterPolyorder, 2)
	var idx []int
	var vals []float64
	for i := range sims {
		if math.Abs(d1[i]) < c.cfg.FilterTolerance && d2[i] > 0 {
			idx = append(idx, i)
			vals = append(vals, sims[i])
		}
	}
	if len(idx) == 0 {
		return nil
	}
	thr := signal.Percentile(vals, c.cfg.Threshold*100)
	tr.Threshold = &thr
	last := -c.cfg.MinSentences - 1
	for k, i := range idx {
		if vals[k] <= thr && i-last >= c.cfg.MinSentences {
			splits = append(splits, i)
			last = i
		}
	}
	return splits
}

// blocks is ChunkTrace with compare=blocks.
func (c *SavGol) blocks(ctx context.Context, p *doc, tr *gochunk.Trace) ([]gochunk.Chunk, *gochunk.Trace, error) {
	n := len(p.units)
	if n < 2 {
		tr.Breakpoints = []int{0}
		chunks, err := p.build(ctx, tr.Breakpoints)
		return chunks, tr, err
	}
	e := p.embedder() // adapted to the document once, for the curve and skip_window
	gapSim, err := p.gapSimsWith(ctx, e, c.cfg.SimilarityWindow)
	if err != nil {
		return nil, nil, err
	}
	levels := p.levels()
	cands := p.candidates(p.b.structure, levels)
	tr.CurveName, tr.Curve = "block similarity", gapSim
	isCand := make([]bool, len(gapSim))
	for _, g := range cands {
		isCand[g] = true
	}
	var endsAfter []int
	for _, i := range c.minima(gapSim, tr, p.tracing) {
		// A minimum between sentences moves to the lowest gap where a
		// topic may end within the window around it (Hearst moves
		// boundaries to paragraph breaks likewise).
		best := -1
		for g := max(0, i-c.cfg.SimilarityWindow); g <= min(len(gapSim)-1, i+c.cfg.SimilarityWindow); g++ {
			if isCand[g] && (best < 0 || gapSim[g] < gapSim[best]) {
				best = g
			}
		}
		if best >= 0 && (len(endsAfter) == 0 || endsAfter[len(endsAfter)-1] < best) {
			endsAfter = append(endsAfter, best)
		}
	}
	starts := startsFrom(endsAfter, n)
	if c.cfg.SkipWindow > 0 && len(starts) > 1 {
		if starts, err = c.skipMerge(ctx, p, e, starts); err != nil {
			return nil, nil, err
		}
	}
	tr.Breakpoints = p.fitStarts(starts, levels, gapSim)
	chunks, err := p.build(ctx, tr.Breakpoints)
	return chunks, tr, err
}

// skipMerge merges each group with the most similar group among the next
// skip_window+1 when their similarity reaches the threshold, together with
// the groups between (chunks stay contiguous).
func (c *SavGol) skipMerge(ctx context.Context, p *doc, e gochunk.Embedder, starts []int) ([]int, error) {
	groups := len(starts)
	texts := make([]string, groups)
	for g, s := range starts {
		end := len(p.units)
		if g+1 < groups {
			end = starts[g+1]
		}
		var sb strings.Builder
		for u := s; u < end; u++ {
			sb.WriteString(p.unitText(u))
		}
		texts[g] = sb.String()
	}
	vs, err := p.embed(ctx, e, texts)
	if err != nil {
		return nil, err
	}
	var out []int
	for i := 0; i < groups; {
		out = append(out, starts[i])
		if i == groups-1 {
			break
		}
		skip := min(i+c.cfg.SkipWindow+1, groups-1)
		best, bestSim := -1, -1.0
		for j := i + 1; j <= skip; j++ {
			if s := float64(vec.Cosine(vs[i], vs[j])); s >= c.cfg.Threshold && s > bestSim {
				best, bestSim = j, s
			}
		}
		if best >= 0 {
			i = best + 1
		} else {
			i++
		}
	}
	return out, nil
}
