package semantic

import (
	"context"
	"fmt"
	"slices"
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

// streamBatch is how many units gapSims embeds at a time: 1,024 vectors
// of the lexical embedder's 1,024 dimensions are 4 MB. Each batch's block
// sums start afresh, as they do every rebuildEvery moves: with a batch a
// multiple of rebuildEvery they start afresh at the same gaps whatever the
// batch, so the similarities do not depend on it (TestGapSimsAnyBatch).
const streamBatch = 1024

var _ [streamBatch % rebuildEvery]struct{} = [0]struct{}{} // streamBatch is a multiple of rebuildEvery

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
	return p.gapSimsBatched(ctx, e, k, streamBatch)
}

// gapSimsBatched is gapSimsWith embedding batch units at a time.
func (p *doc) gapSimsBatched(ctx context.Context, e embed.Embedder, k, batch int) ([]float64, error) {
	n := len(p.units)
	out := make([]float64, 0, n-1)
	for s := 0; s < n-1; s += batch {
		lo, hi := max(0, s-k+1), min(n, s+batch+k)
		vs, err := p.embedUnits(ctx, e, lo, hi)
		if err != nil {
			return nil, err
		}
		var gaps []int
		for g := s; g < min(n-1, s+batch); g++ {
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

// refineRounds bounds how often refineCuts looks again at the stretches
// its own new cuts made.
const refineRounds = 4

// refineCuts looks again at each stretch of units between the cuts
// (endsAfter: the units chunks end after, increasing) with TextTiling's
// blocks clipped at the cuts: the gap after unit g in the stretch (a, b]
// compares units [max(g-k+1, a+1), g] with [g+1, min(g+k, b)]. Minima of
// the stretch's clipped similarities (over the candidate gaps) whose depth
// is above thr become cuts when they leave at least two units on each
// side; new cuts make new stretches, looked at in the next round.
//
// A clipped block differs from the first pass's only within k units of a
// cut, so only the units within 2k of a stretch's ends are embedded again,
// in calls of about streamBatch units; the rest of the stretch keeps
// gapSim. The first pass's vectors are not kept (memory would grow with
// the document); behind the pipeline's embedding cache (65,536 vectors by
// default) a model or an API is not asked for them again in a document of
// fewer units than that, and the built-in lexical embedder recomputes them
// at the cost of the first pass.
func (p *doc) refineCuts(ctx context.Context, e embed.Embedder, k int, cands []int, gapSim []float64, endsAfter []int, thr float64) ([]int, error) {
	n := len(p.units)
	if n < 4 {
		return endsAfter, nil
	}
	var todo []stretch
	prev := -1
	for _, c := range append(append([]int(nil), endsAfter...), n-1) {
		if c > prev {
			todo = append(todo, stretch{prev, c})
		}
		prev = c
	}
	cuts := endsAfter
	for round := 0; round < refineRounds && len(todo) > 0; round++ {
		var next []stretch
		var added []int
		for lo := 0; lo < len(todo); {
			// A batch of stretches whose units to embed stay near
			// streamBatch, embedded in one call.
			hi, units := lo, 0
			var ranges [][2]int
			for hi < len(todo) && (hi == lo || units < streamBatch) {
				for _, r := range todo[hi].edges(k) {
					ranges = append(ranges, r)
					units += r[1] - r[0]
				}
				hi++
			}
			vs, err := p.embedRanges(ctx, e, ranges)
			if err != nil {
				return nil, err
			}
			for _, st := range todo[lo:hi] {
				m := len(st.edges(k))
				found := st.refine(p, k, cands, gapSim, ranges[:m], vs[:m], thr)
				if m == 1 {
					// Embedded whole: its parts are refined from the same
					// vectors, round after round, without embedding again.
					found = st.refineWhole(p, k, cands, gapSim, ranges[0], vs[0], thr, found, round+1)
				} else {
					a := st.a
					for _, c := range found {
						next = append(next, stretch{a, c})
						a = c
					}
					if len(found) > 0 {
						next = append(next, stretch{a, st.b})
					}
				}
				ranges, vs = ranges[m:], vs[m:]
				added = append(added, found...)
			}
			lo = hi
		}
		if len(added) == 0 {
			break
		}
		cuts = append(cuts, added...)
		slices.Sort(cuts)
		todo = next
	}
	return cuts, nil
}

// stretch is the units a+1 … b between two cuts (a is -1 at the start).
type stretch struct{ a, b int }

// edges returns the ranges [lo, hi) of the units whose blocks a clip at
// the stretch's ends changes: those within 2k of either end (one range
// when they meet).
func (s stretch) edges(k int) [][2]int {
	if s.b-s.a <= 4*k {
		return [][2]int{{s.a + 1, s.b + 1}}
	}
	return [][2]int{{s.a + 1, s.a + 1 + 2*k}, {s.b + 1 - 2*k, s.b + 1}}
}

// refineWhole refines the parts that the cuts found make of a stretch
// embedded whole (rg, vs), from round on, and returns found with the cuts
// those parts add.
func (s stretch) refineWhole(p *doc, k int, cands []int, gapSim []float64, rg [2]int, vs [][]float32, thr float64, found []int, round int) []int {
	all := found
	for ; round < refineRounds && len(found) > 0; round++ {
		var more []int
		a := s.a
		for _, c := range append(found, s.b) {
			part := stretch{a, c}
			sub := [2]int{a + 1, c + 1}
			more = append(more, part.refine(p, k, cands, gapSim, [][2]int{sub}, [][][]float32{vs[sub[0]-rg[0] : sub[1]-rg[0]]}, thr)...)
			a = c
		}
		all = append(all, more...)
		slices.Sort(all)
		found = all
		if len(more) == 0 {
			break
		}
	}
	return all
}

// refine returns the new cuts in the stretch, given its edge ranges'
// vectors.
func (s stretch) refine(p *doc, k int, cands []int, gapSim []float64, ranges [][2]int, vs [][][]float32, thr float64) []int {
	first, _ := slices.BinarySearch(cands, s.a+1)
	last, _ := slices.BinarySearch(cands, s.b)
	gaps := cands[first:last] // gaps after units a+1 … b-1
	if len(gaps) == 0 {
		return nil
	}
	sims := make([]float64, len(gaps))
	for j, g := range gaps {
		sims[j] = gapSim[g]
	}
	// Within a range the block sums slide, and blockSimilarities clips
	// them at the range's ends, which are the stretch's ends wherever a
	// gap's blocks reach them.
	for r, rg := range ranges {
		var at, rel []int
		for j, g := range gaps {
			l, h := max(g-k+1, s.a+1), min(g+k, s.b)
			if l == g-k+1 && h == g+k || l < rg[0] || h >= rg[1] {
				continue // unclipped (the first pass's value holds), or another range's
			}
			at, rel = append(at, j), append(rel, g-rg[0])
		}
		for t, v := range blockSimilarities(vs[r], k, rel) {
			sims[at[t]] = v
		}
	}
	depth := depthScores(sims)
	var out []int
	for j, d := range depth {
		g := gaps[j]
		isMin := (j == 0 || sims[j] <= sims[j-1]) && (j == len(sims)-1 || sims[j] <= sims[j+1])
		if isMin && d > thr && d > 0 && g-s.a >= 2 && s.b-g >= 2 {
			out = append(out, g)
		}
	}
	return out
}

// embedRanges embeds the units of each range [lo, hi) in one call and
// returns their normalised vectors, range by range.
func (p *doc) embedRanges(ctx context.Context, e embed.Embedder, ranges [][2]int) ([][][]float32, error) {
	var texts []string
	for _, r := range ranges {
		for i := r[0]; i < r[1]; i++ {
			texts = append(texts, p.unitText(i))
		}
	}
	vs, err := p.embed(ctx, e, texts)
	if err != nil {
		return nil, err
	}
	out := make([][][]float32, len(ranges))
	for i, r := range ranges {
		out[i], vs = vs[:r[1]-r[0]], vs[r[1]-r[0]:]
		for _, v := range out[i] {
			vec.Normalize(v)
		}
	}
	return out, nil
}
