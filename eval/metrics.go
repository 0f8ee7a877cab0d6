package eval

import (
	"math"
	"sort"

	"github.com/gochunk/gochunk"
)

// The range arithmetic below follows Chroma's evaluation code, which
// defines the metrics: two ranges intersect when they overlap or touch (a
// touching chunk counts as containing a reference for precision_Ω, adding
// nothing to the numerator), unions merge overlapping or touching ranges,
// and difference removes a range from a list.

func sumRanges(rs []Range) int {
	n := 0
	for _, r := range rs {
		n += r.End - r.Start
	}
	return n
}

func unionRanges(rs []Range) []Range {
	if len(rs) == 0 {
		return nil
	}
	s := append([]Range(nil), rs...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	out := []Range{s[0]}
	for _, r := range s[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End {
			last.End = max(last.End, r.End)
		} else {
			out = append(out, r)
		}
	}
	return out
}

func intersect(a, b Range) (Range, bool) {
	s, e := max(a.Start, b.Start), min(a.End, b.End)
	return Range{s, e}, s <= e
}

func difference(rs []Range, t Range) []Range {
	var out []Range
	for _, r := range rs {
		switch {
		case r.End < t.Start || r.Start > t.End:
			out = append(out, r)
		case r.Start < t.Start && r.End > t.End:
			out = append(out, Range{r.Start, t.Start}, Range{t.End, r.End})
		case r.Start < t.Start:
			out = append(out, Range{r.Start, t.Start})
		case r.End > t.End:
			out = append(out, Range{t.End, r.End})
		}
	}
	return out
}

// ChunkRef is a chunk as the metrics see it: its corpus and its spans in
// code points. A multi-span chunk is scored as the union of its spans.
type ChunkRef struct {
	Corpus string
	Spans  []Range
}

// Scores are one question's metrics.
type Scores struct {
	Recall         float64 `json:"recall"`
	Precision      float64 `json:"precision"`
	IoU            float64 `json:"iou"`
	PrecisionOmega float64 `json:"precision_omega"`
}

// RetrievalScores computes recall, precision and IoU of the retrieved
// chunks (in rank order, the top k) for q, as Chroma does: the numerator is
// the union of the intersections of retrieved chunks of the reference's
// corpus with the references; recall divides it by the summed reference
// lengths, precision by the summed lengths of all retrieved chunks (chunks
// from other corpora and overlapping chunks count in full), and IoU by that
// sum plus the reference parts no retrieved chunk touches.
func RetrievalScores(q Question, retrieved []ChunkRef) Scores {
	var numerator []Range
	unused := make([]Range, len(q.References))
	refs := make([]Range, len(q.References))
	for i, r := range q.References {
		refs[i] = Range{r.Start, r.End}
		unused[i] = refs[i]
	}
	precDen := 0
	for _, c := range retrieved {
		for _, s := range c.Spans {
			precDen += s.Len()
			for i, r := range q.References {
				if r.Corpus != c.Corpus {
					continue
				}
				if in, ok := intersect(s, refs[i]); ok {
					unused = difference(unused, in)
					numerator = unionRanges(append(numerator, in))
				}
			}
		}
	}
	num := float64(sumRanges(numerator))
	var sc Scores
	if d := sumRanges(refs); d > 0 {
		sc.Recall = num / float64(d)
	}
	if precDen > 0 {
		sc.Precision = num / float64(precDen)
	}
	if d := precDen + sumRanges(unused); d > 0 {
		sc.IoU = num / float64(d)
	}
	return sc
}

// PrecisionOmega is the precision obtained if every chunk that overlaps
// (or touches) a reference were retrieved, and only those: the union of
// their intersections with the references over the union of those chunks
// and the reference parts no chunk covers. chunks are the chunks of all
// corpora; only those of a reference's corpus matter.
func PrecisionOmega(q Question, chunks []ChunkRef) float64 {
	var numerator, denomChunks []Range
	unused := make([]Range, len(q.References))
	for i, r := range q.References {
		unused[i] = Range{r.Start, r.End}
	}
	for _, c := range chunks {
		hit := false
		for _, s := range c.Spans {
			for _, r := range q.References {
				if r.Corpus != c.Corpus {
					continue
				}
				if in, ok := intersect(s, Range{r.Start, r.End}); ok {
					hit = true
					unused = difference(unused, in)
					numerator = unionRanges(append(numerator, in))
				}
			}
		}
		if hit {
			denomChunks = unionRanges(append(denomChunks, c.Spans...))
		}
	}
	if len(numerator) == 0 {
		return 0
	}
	d := sumRanges(unionRanges(append(denomChunks, unused...)))
	if d == 0 {
		return 0
	}
	return float64(sumRanges(numerator)) / float64(d)
}

// Stat is the mean and population standard deviation of a metric.
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

func stat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return Stat{m, math.Sqrt(v / float64(len(xs)))}
}

// Pk is Beeferman's probabilistic error of a segmentation of n units
// (code points) against a gold one, both given as segment starts: the share
// of positions i for which "i and i+k are in the same segment" differs,
// with k half the mean gold segment length. 0 is perfect.
func Pk(gold, hyp []int, n int) float64 {
	k := windowSize(gold, n)
	if k <= 0 || n <= k {
		return 0
	}
	g, h := boundaryPrefix(gold, n), boundaryPrefix(hyp, n)
	miss := 0
	for i := 0; i+k < n; i++ {
		if (g[i+k]-g[i] == 0) != (h[i+k]-h[i] == 0) {
			miss++
		}
	}
	return float64(miss) / float64(n-k)
}

// WindowDiff is Pevzner and Hearst's variant of Pk: the share of windows of
// k units in which the number of boundaries differs.
func WindowDiff(gold, hyp []int, n int) float64 {
	k := windowSize(gold, n)
	if k <= 0 || n <= k {
		return 0
	}
	g, h := boundaryPrefix(gold, n), boundaryPrefix(hyp, n)
	miss := 0
	for i := 0; i+k < n; i++ {
		if g[i+k]-g[i] != h[i+k]-h[i] {
			miss++
		}
	}
	return float64(miss) / float64(n-k)
}

// windowSize is half the mean gold segment length.
func windowSize(gold []int, n int) int {
	segs := 0
	for _, b := range gold {
		if b > 0 && b < n {
			segs++
		}
	}
	return int(math.Round(float64(n) / float64(segs+1) / 2))
}

// boundaryPrefix returns p with p[i] the number of boundaries in (0, i].
func boundaryPrefix(starts []int, n int) []int {
	p := make([]int, n+1)
	for _, b := range starts {
		if b > 0 && b < n {
			p[b]++
		}
	}
	for i := 1; i <= n; i++ {
		p[i] += p[i-1]
	}
	return p
}

// Purity and NMI compare a clustering of items with gold classes; items
// are given as pairs (cluster, class) with a weight (the number of code
// points they cover).
type Assignment struct {
	Cluster, Class string
	Weight         float64
}

// Purity is the share of the total weight that falls in the majority class
// of its cluster.
func Purity(as []Assignment) float64 {
	byCluster := map[string]map[string]float64{}
	total := 0.0
	for _, a := range as {
		m := byCluster[a.Cluster]
		if m == nil {
			m = map[string]float64{}
			byCluster[a.Cluster] = m
		}
		m[a.Class] += a.Weight
		total += a.Weight
	}
	if total == 0 {
		return 0
	}
	sum := 0.0
	for _, m := range byCluster {
		best := 0.0
		for _, w := range m {
			best = max(best, w)
		}
		sum += best
	}
	return sum / total
}

// NMI is the mutual information of clusters and classes normalised by the
// arithmetic mean of their entropies (scikit-learn's default); 1 when both
// have a single group.
func NMI(as []Assignment) float64 {
	joint := map[[2]string]float64{}
	pc, pk := map[string]float64{}, map[string]float64{}
	total := 0.0
	for _, a := range as {
		joint[[2]string{a.Cluster, a.Class}] += a.Weight
		pc[a.Cluster] += a.Weight
		pk[a.Class] += a.Weight
		total += a.Weight
	}
	if total == 0 {
		return 0
	}
	h := func(m map[string]float64) float64 {
		e := 0.0
		for _, w := range m {
			if p := w / total; p > 0 {
				e -= p * math.Log(p)
			}
		}
		return e
	}
	hc, hk := h(pc), h(pk)
	if hc == 0 && hk == 0 {
		return 1
	}
	mi := 0.0
	for key, w := range joint {
		p := w / total
		mi += p * math.Log(p/(pc[key[0]]/total*pk[key[1]]/total))
	}
	if den := (hc + hk) / 2; den > 0 {
		return max(0, min(1, mi/den))
	}
	return 0
}

// Cohesion is the S2 paper's cohesion score: the mean, over chunks with at
// least two elements, of the average pairwise cosine similarity of the
// chunk's element vectors. sim must return the cosine similarity of two
// element indexes.
func Cohesion(chunks [][]int, sim func(i, j int) float64) float64 {
	return meanPairwise(chunks, sim)
}

// LayoutConsistency is the S2 paper's layout consistency score: the mean,
// over chunks with at least two elements, of the average pairwise spatial
// proximity of the chunk's elements (see Proximity).
func LayoutConsistency(chunks [][]int, proximity func(i, j int) float64) float64 {
	return meanPairwise(chunks, proximity)
}

// Proximity is the spatial proximity 1/(1+d) of two elements, d the
// distance of their bounding-box centres in page diagonals (so that pages
// of any unit compare); elements on different pages have proximity 0.
func Proximity(a, b gochunk.Element) float64 {
	if a.Page != b.Page {
		return 0
	}
	diag := math.Hypot(max(a.PageWidth, b.PageWidth), max(a.PageHeight, b.PageHeight))
	if diag == 0 {
		diag = 1000
	}
	dx := (a.BBox[0] + a.BBox[2] - b.BBox[0] - b.BBox[2]) / 2
	dy := (a.BBox[1] + a.BBox[3] - b.BBox[1] - b.BBox[3]) / 2
	return 1 / (1 + math.Hypot(dx, dy)/diag)
}

func meanPairwise(chunks [][]int, f func(i, j int) float64) float64 {
	sum, n := 0.0, 0
	for _, c := range chunks {
		if len(c) < 2 {
			continue
		}
		s, pairs := 0.0, 0
		for a := 0; a < len(c); a++ {
			for b := a + 1; b < len(c); b++ {
				s += f(c[a], c[b])
				pairs++
			}
		}
		sum += s / float64(pairs)
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
