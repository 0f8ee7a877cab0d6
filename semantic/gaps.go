package semantic

import (
	"context"
	"fmt"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/signal"
	"github.com/gochunk/gochunk/vec"
)

// The strength of the break between two units, read from the white space
// between them: a paragraph break (a blank line) is stronger evidence of a
// new topic than a line break, which is stronger than a sentence end.
const (
	levelSentence int8 = iota
	levelLine
	levelParagraph
)

// Structure values: how the text's layout constrains where topics end.
const (
	// StructureAuto cuts only at the strongest kind of break (paragraph,
	// else line) when the text has such breaks at a grain a chunk can hold
	// several of; otherwise at any sentence.
	StructureAuto = "auto"
	// StructureNone treats every sentence end alike.
	StructureNone = "none"
)

func checkStructure(s string) error {
	if s != "" && s != StructureAuto && s != StructureNone {
		return fmt.Errorf("%w: structure %q: want auto or none", gochunk.ErrConfig, s)
	}
	return nil
}

// levels returns the break level of every gap: levels[i] is the break
// between unit i and unit i+1.
func (p *doc) levels() []int8 {
	n := len(p.units)
	if n < 2 {
		return nil
	}
	out := make([]int8, n-1)
	for i := range out {
		// The white space between the units' texts: trailing white space
		// of unit i and anything between the two units.
		t := p.text[p.units[i].Start:p.units[i+1].Start]
		ws := t[len(strings.TrimRight(t, " \t\r\n\f\v")):]
		switch nl := strings.Count(ws, "\n"); {
		case nl >= 2:
			out[i] = levelParagraph
		case nl == 1:
			out[i] = levelLine
		}
	}
	return out
}

// candidates returns the gaps where a topic boundary may go: all of them
// with StructureNone; with StructureAuto, the gaps of the strongest level
// that occurs at least twice and whose segments average at most half the
// size limit (so a chunk can hold a few of them), or all gaps when no
// level qualifies.
func (p *doc) candidates(structure string, levels []int8) []int {
	all := func() []int {
		out := make([]int, len(levels))
		for i := range out {
			out[i] = i
		}
		return out
	}
	if structure == StructureNone || len(levels) == 0 {
		return all()
	}
	total := 0
	for _, u := range p.units {
		total += u.Size + u.Gap
	}
	for lvl := levelParagraph; lvl > levelSentence; lvl-- {
		var gaps []int
		for i, l := range levels {
			if l >= lvl {
				gaps = append(gaps, i)
			}
		}
		if len(gaps) >= 2 && total/(len(gaps)+1) <= p.b.size/2 {
			return gaps
		}
	}
	return all()
}

// blockSimilarities returns, for each gap in gaps (increasing), the
// cosine similarity of the sum of the k unit vectors before it with the
// sum of the k after it (fewer at the ends): TextTiling's block
// comparison, from unit vectors embedded once, in O(n·dim) with sliding
// sums.
func blockSimilarities(vs [][]float32, k int, gaps []int) []float64 {
	out := make([]float64, len(gaps))
	if len(vs) == 0 || len(gaps) == 0 {
		return out
	}
	n := len(vs)
	left, right := newWindow(len(vs[0])), newWindow(len(vs[0]))
	for g, i := range gaps {
		left.slide(vs, max(0, i-k+1), i+1)
		right.slide(vs, i+1, min(n, i+1+k))
		out[g] = left.cosine(right)
	}
	return out
}

// window is the sum of the vectors of units [lo, hi), slid with the SIMD
// kernels of package vec. Float32 sums would drift over a long document,
// so every rebuildEvery moves the sum is recomputed from its vectors.
type window struct {
	sum    []float32
	lo, hi int
	moves  int
}

const rebuildEvery = 256

func newWindow(dim int) *window { return &window{sum: make([]float32, dim)} }

// slide moves the window to [lo, hi); both bounds only grow.
func (w *window) slide(vs [][]float32, lo, hi int) {
	if lo >= w.hi || w.moves >= rebuildEvery {
		clear(w.sum)
		w.lo, w.hi, w.moves = lo, lo, 0
	}
	for ; w.hi < hi; w.hi++ {
		vec.Add(w.sum, vs[w.hi])
	}
	for ; w.lo < lo; w.lo++ {
		vec.Sub(w.sum, vs[w.lo])
	}
	w.moves++
}

func (w *window) cosine(o *window) float64 { return float64(vec.Cosine(w.sum, o.sum)) }

// depthScores returns Hearst's depth score of every value of a similarity
// sequence: how far it lies below the top of the climb to its left (while
// the values do not decrease), plus the same to its right. A climb from i
// continues the climb from its neighbour when the neighbour is at least as
// high, so both tops take one pass each.
func depthScores(sims []float64) []float64 {
	n := len(sims)
	left, right := make([]float64, n), make([]float64, n)
	for i := range n {
		left[i] = sims[i]
		if i > 0 && sims[i-1] >= sims[i] {
			left[i] = left[i-1]
		}
	}
	for i := n - 1; i >= 0; i-- {
		right[i] = sims[i]
		if i+1 < n && sims[i+1] >= sims[i] {
			right[i] = right[i+1]
		}
	}
	out := make([]float64, n)
	for i, s := range sims {
		out[i] = left[i] - s + right[i] - s
	}
	return out
}

// depthCuts returns the positions (indexes into sims) that TextTiling
// makes boundaries: local minima of sims whose depth score exceeds the
// mean depth minus c standard deviations (Hearst's cut-off; c = 0.5 is
// her "liberal" setting), and is positive.
func depthCuts(sims []float64, c float64) (cuts []int, depth []float64, thr float64) {
	depth = depthScores(sims)
	if len(sims) == 0 {
		return nil, depth, 0
	}
	m, sd := signal.MeanStd(depth)
	thr = m - c*sd
	for i, d := range depth {
		isMin := (i == 0 || sims[i] <= sims[i-1]) && (i == len(sims)-1 || sims[i] <= sims[i+1])
		if isMin && d > thr && d > 0 {
			cuts = append(cuts, i)
		}
	}
	return cuts, depth, thr
}

// fitStarts cuts every group of units (given by its start) that is over
// the size limit, left to right: each cut goes to the best gap among those
// that leave the part before it within the limit, the best being the
// strongest break level and, among those, the lowest score (score[i] is
// the similarity across the gap after unit i). Sizes are summed from the
// units' counts, so build's exact packing may still cut where a join
// counts differently; the work is O(n·w) for w units per chunk.
func (p *doc) fitStarts(starts []int, levels []int8, score []float64) []int {
	n := len(p.units)
	out := make([]int, 0, len(starts))
	for k, s := range starts {
		e := n
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		for s < e {
			out = append(out, s)
			size, best := 0, -1
			for i := s; i < e; i++ {
				size += p.units[i].Size
				if size > p.b.size {
					break
				}
				if i == e-1 {
					best = -1 // the rest fits
					break
				}
				if best < 0 || levels[i] > levels[best] || levels[i] == levels[best] && score[i] < score[best] {
					best = i
				}
				size += p.units[i].Gap
			}
			if best < 0 && size <= p.b.size {
				break
			}
			if best < 0 {
				best = s // one unit over the limit alone: build cuts it
			}
			s = best + 1
		}
	}
	return out
}

// streamBatch is how many units gapSims embeds at a time.
const streamBatch = 4096

// embedUnits returns the normalised vectors of units [lo, hi).
func (p *doc) embedUnits(ctx context.Context, e embed.Embedder, lo, hi int) ([][]float32, error) {
	texts := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		texts = append(texts, p.unitText(i))
	}
	vs, err := p.embed(ctx, e, texts)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		vec.Normalize(v)
	}
	return vs, nil
}

// gapSims embeds the units in batches and returns the block similarity at
// every gap (k units each side). Only one batch of vectors (and the k
// units on each side of it) is held at a time, so memory does not grow
// with the document beyond the units and one similarity per gap.
func (p *doc) gapSims(ctx context.Context, k int) ([]float64, error) {
	return p.gapSimsWith(ctx, nil, k)
}

// gapSimsWith is gapSims with e, the chunker's embedder already adapted to
// the document (nil: adapt it here).
func (p *doc) gapSimsWith(ctx context.Context, e embed.Embedder, k int) ([]float64, error) {
	n := len(p.units)
	if n < 2 {
		return nil, nil
	}
	if e == nil {
		e = p.embedder()
	}
	out := make([]float64, 0, n-1)
	for s := 0; s < n-1; s += streamBatch {
		lo, hi := max(0, s-k+1), min(n, s+streamBatch+k)
		vs, err := p.embedUnits(ctx, e, lo, hi)
		if err != nil {
			return nil, err
		}
		var gaps []int
		for g := s; g < min(n-1, s+streamBatch); g++ {
			gaps = append(gaps, g-lo)
		}
		out = append(out, blockSimilarities(vs, k, gaps)...)
	}
	return out, nil
}

// groupUnits replaces the units by runs of units between the gaps where a
// topic boundary may go (see candidates), so that an algorithm working on
// units compares paragraphs when the text has paragraphs. A run over the
// size limit keeps its units. It returns whether anything was grouped.
func (p *doc) groupUnits(structure string) bool {
	levels := p.levels()
	cands := p.candidates(structure, levels)
	if len(cands) == len(levels) {
		return false
	}
	var out []pack.Piece
	flush := func(s, e int) { // units [s, e)
		size := 0
		for _, u := range p.units[s:e] {
			size += u.Size + u.Gap
		}
		if e-s > 1 && size <= p.b.size {
			if n := p.engine.Count(p.units[s].Start, p.units[e-1].End); n <= p.b.size {
				out = append(out, pack.Piece{Start: p.units[s].Start, End: p.units[e-1].End, Size: n})
				return
			}
		}
		for _, u := range p.units[s:e] {
			u.Gap = 0
			out = append(out, u)
		}
	}
	s := 0
	for _, g := range cands {
		flush(s, g+1)
		s = g + 1
	}
	flush(s, len(p.units))
	p.units = out
	p.setGaps()
	return true
}
