package semantic

import (
	"container/heap"
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// HierarchicalConfig configures the Hierarchical chunker.
type HierarchicalConfig struct {
	Size              int     `json:"size" range:"1,1073741824" doc:"maximum chunk size in tokens of the --tokenizer unit (a hard limit)"`
	BufferSize        int     `json:"buffer_size" range:"0,4096" doc:"sentences on each side joined to a sentence before embedding it"`
	Linkage           string  `json:"linkage" doc:"average, complete, single or ward"`
	NumClusters       int     `json:"num_clusters" range:"0,1073741824" doc:"cut the tree into this many clusters (per window when not contiguous); 0 to use distance_threshold or auto"`
	DistanceThreshold float64 `json:"distance_threshold" range:"0,1000000" doc:"stop merging at this linkage distance; 0 to use num_clusters or auto"`
	Auto              string  `json:"auto" doc:"how to pick the number of clusters when neither is given: local-silhouette (the silhouette against the neighbouring segments, linear), silhouette (against every cluster, up to 2000 sentences) or elbow (of the within-cluster sum of squares)"`
	MaxClusters       int     `json:"max_clusters" range:"0,1000000" doc:"largest number of clusters auto considers (per window when not contiguous); 0 means 10 when not contiguous, and 4 times the fewest possible when contiguous"`
	Contiguous        bool    `json:"contiguous" doc:"only merge neighbouring groups (chunks are runs of sentences, never over size); false clusters freely as the article does and cuts label runs"`
	Window            int     `json:"window" range:"2,4096" doc:"when not contiguous, sentences clustered together at most (memory grows with its square)"`
	Sentences
}

// DefaultHierarchicalConfig returns a size of 512, no buffer, average
// linkage, the number of clusters by the silhouette against neighbouring
// segments (local-silhouette), contiguous clusters of paragraphs when the
// text has them (Structure auto), windows of 256 sentences. The article's
// setting differs in buffer_size 1 and auto elbow: on documents stitched
// from unrelated sources, buffered windows blur every boundary by a
// sentence and the elbow stops at two or three clusters; the full
// silhouette is quadratic, and against every cluster rather than the
// neighbouring ones it finds fewer seams.
func DefaultHierarchicalConfig() HierarchicalConfig {
	return HierarchicalConfig{Size: 512, BufferSize: 0, Linkage: "average", Auto: "local-silhouette", Contiguous: true, Window: 256, Sentences: Sentences{Structure: StructureAuto, MinSize: DefaultMinSize}}
}

// Hierarchical is the article's hierarchical-clustering chunker: sentences
// (with BufferSize neighbours for context) are embedded and clustered
// agglomeratively on cosine distance with average, complete, single or
// Ward linkage; the tree is cut into NumClusters clusters, at
// DistanceThreshold, or where the elbow of the within-cluster sum of squares
// (or the best silhouette score) says; runs of sentences with one label
// become chunks.
//
// By default (Contiguous) only neighbouring groups may merge, which is
// what a chunker wants: every cluster is a run of sentences, a merge that
// would exceed Size is never made, and the algorithm needs only the
// distances of neighbours (average linkage from the clusters' vector sums,
// complete and single from a band of pairwise distances as wide as the
// most sentences that fit in a chunk), so memory is O(n·band) and time
// O(n log n). Without it, the article's unconstrained clustering runs on
// windows of Window sentences (memory O(Window²)), and label runs longer
// than Size are split.
type Hierarchical struct {
	base
	cfg HierarchicalConfig
}

// NewHierarchical returns a Hierarchical chunker; a nil embedder means the
// built-in lexical one.
func NewHierarchical(cfg HierarchicalConfig, counter tokenize.Counter, e gochunk.Embedder) (*Hierarchical, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	b, err := newBase("hierarchical", cfg.Size, cfg.Sentences, counter, e)
	if err != nil {
		return nil, err
	}
	switch cfg.Linkage {
	case "average", "complete", "single", "ward":
	default:
		return nil, fmt.Errorf("%w: linkage %q: want average, complete, single or ward", gochunk.ErrConfig, cfg.Linkage)
	}
	if cfg.Auto != "elbow" && cfg.Auto != "silhouette" && cfg.Auto != "local-silhouette" {
		return nil, fmt.Errorf("%w: auto %q: want elbow or silhouette", gochunk.ErrConfig, cfg.Auto)
	}
	if cfg.NumClusters < 0 || cfg.DistanceThreshold < 0 || cfg.MaxClusters < 0 || cfg.BufferSize < 0 {
		return nil, fmt.Errorf("%w: num_clusters, distance_threshold, max_clusters and buffer_size must not be negative", gochunk.ErrConfig)
	}
	if !cfg.Contiguous && (cfg.Window < 2 || cfg.Window > 4096) {
		return nil, fmt.Errorf("%w: window must be in [2, 4096], got %d", gochunk.ErrConfig, cfg.Window)
	}
	return &Hierarchical{base: b, cfg: cfg}, nil
}

// Chunk implements gochunk.Chunker.
func (c *Hierarchical) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.chunk(ctx, d, false)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer: the curve is the cosine distance
// of each sentence to the next.
func (c *Hierarchical) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	return c.chunk(ctx, d, true)
}

// chunk is Chunk, and with tracing ChunkTrace.
func (c *Hierarchical) chunk(ctx context.Context, d gochunk.Document, tracing bool) ([]gochunk.Chunk, *gochunk.Trace, error) {
	p, err := c.prepare(ctx, d)
	if err != nil || len(p.units) == 0 {
		return nil, nil, err
	}
	p.groupUnits(c.structure)
	tr := p.trace(tracing)
	texts := p.windows(c.cfg.BufferSize)
	var starts []int
	if c.cfg.Contiguous {
		starts, err = c.contiguousWindows(ctx, p, texts, tr)
	} else {
		var vs [][]float32
		if vs, err = p.embed(ctx, p.embedder(), texts); err != nil {
			return nil, nil, err
		}
		for _, v := range vs {
			vec.Normalize(v)
		}
		dist := cosines(vs)
		for i := range dist {
			dist[i] = 1 - dist[i]
		}
		tr.CurveName, tr.Curve = "cosine distance", dist
		starts, err = c.windows(ctx, vs, tr)
	}
	if err != nil {
		return nil, nil, gochunk.WrapDocument(d.ID, err)
	}
	tr.Breakpoints = starts
	chunks, err := p.build(ctx, starts)
	return chunks, tr, err
}

// contiguousWindow is how many units the contiguous variant clusters at a
// time: merges never cross a window's end, which bounds memory by the
// window (clusters are local anyway: none grows over the size limit).
const contiguousWindow = 4096

// contiguousWindows embeds and clusters the units window by window and
// returns the chunk starts; the trace's curve is the cosine distance of
// each unit to the next.
func (c *Hierarchical) contiguousWindows(ctx context.Context, p *doc, texts []string, tr *gochunk.Trace) ([]int, error) {
	e := p.embedder()
	n := len(texts)
	if p.tracing {
		tr.CurveName, tr.Curve = "cosine distance", make([]float64, 0, max(0, n-1))
	}
	var starts []int
	var prev []float32
	for s := 0; s < n; s += contiguousWindow {
		vs, err := p.embed(ctx, e, texts[s:min(n, s+contiguousWindow)])
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			vec.Normalize(v)
		}
		if p.tracing {
			if prev != nil {
				tr.Curve = append(tr.Curve, 1-float64(vec.Cosine(prev, vs[0])))
			}
			for _, x := range cosines(vs) {
				tr.Curve = append(tr.Curve, 1-x)
			}
			prev = append(prev[:0], vs[len(vs)-1]...)
		}
		st, err := c.contiguous(ctx, p, vs, s, tr)
		if err != nil {
			return nil, err
		}
		starts = append(starts, st...)
	}
	return starts, nil
}

// run is a cluster of consecutive sentences in the contiguous variant.
type run struct {
	start, end  int       // sentences [start, end)
	tokens      int       // tokens, separators included
	sum         []float32 // sum of the sentence vectors
	owned       bool      // sum is the run's own, not its first sentence's vector
	left, right int       // neighbouring runs, -1 at the ends
	alive       bool
	version     int
}

type mergeCand struct {
	dist        float64
	left, right int
	lv, rv      int // versions when computed
}

type candHeap []mergeCand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].dist != h[j].dist {
		return h[i].dist < h[j].dist
	}
	return h[i].left < h[j].left
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(mergeCand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// contiguous merges neighbouring runs, closest first, never over Size,
// recording each merge's distance and its increase of the within-cluster
// sum of squares; then cuts the merge sequence where the configuration
// says.
func (c *Hierarchical) contiguous(ctx context.Context, p *doc, vs [][]float32, off int, tr *gochunk.Trace) ([]int, error) {
	n := len(vs)
	runs := make([]run, n)
	band := 1
	for i := range runs {
		// A run's sum is its sentence's vector until it takes in another
		// run: then it is copied (a window's vectors are 16 MB with the
		// lexical embedder's 1,024 dimensions; most runs never grow).
		runs[i] = run{start: i, end: i + 1, tokens: p.units[off+i].Size + p.units[off+i].Gap, sum: vs[i], left: i - 1, right: i + 1, alive: true}
	}
	runs[n-1].right = -1
	// The band: the most sentences that fit in one chunk.
	for i, tok, j := 0, 0, 0; i < n; i++ {
		for j < n && tok+runs[j].tokens <= c.cfg.Size {
			tok += runs[j].tokens
			j++
		}
		band = max(band, j-i)
		if j > i {
			tok -= runs[i].tokens
		} else {
			j = i + 1
		}
	}
	var pairDist func(a, b int) float64
	if c.cfg.Linkage == "complete" || c.cfg.Linkage == "single" {
		bd := make([][]float64, n)
		for i := range bd {
			bd[i] = make([]float64, min(band, n-1-i))
			for k := range bd[i] {
				bd[i][k] = 1 - float64(vec.Dot(vs[i], vs[i+k+1]))
			}
		}
		pairDist = func(a, b int) float64 { return bd[a][b-a-1] }
	}
	linkage := func(a, b *run) float64 {
		na, nb := float64(a.end-a.start), float64(b.end-b.start)
		switch c.cfg.Linkage {
		case "average":
			return 1 - float64(vec.Dot(a.sum, b.sum))/(na*nb)
		case "ward":
			return wardDelta(a.sum, b.sum, na, nb)
		}
		best := math.Inf(1)
		if c.cfg.Linkage == "complete" {
			best = math.Inf(-1)
		}
		for i := a.start; i < a.end; i++ {
			for j := b.start; j < b.end; j++ {
				d := pairDist(i, j)
				if c.cfg.Linkage == "complete" {
					best = max(best, d)
				} else {
					best = min(best, d)
				}
			}
		}
		return best
	}
	wcssDelta := func(a, b *run) float64 {
		return wardDelta(a.sum, b.sum, float64(a.end-a.start), float64(b.end-b.start))
	}
	h := &candHeap{}
	push := func(l, r int) {
		if l < 0 || r < 0 || runs[l].tokens+runs[r].tokens > c.cfg.Size {
			return
		}
		heap.Push(h, mergeCand{linkage(&runs[l], &runs[r]), l, r, runs[l].version, runs[r].version})
	}
	for i := 0; i+1 < n; i++ {
		push(i, i+1)
	}
	type merge struct {
		left, right int // run ids merged (right into left)
		dist, delta float64
	}
	var merges []merge
	for h.Len() > 0 {
		if len(merges)%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m := heap.Pop(h).(mergeCand)
		l, r := &runs[m.left], &runs[m.right]
		if !l.alive || !r.alive || l.version != m.lv || r.version != m.rv || l.right != m.right {
			continue
		}
		merges = append(merges, merge{m.left, m.right, m.dist, wcssDelta(l, r)})
		l.end, l.tokens = r.end, l.tokens+r.tokens
		if !l.owned {
			l.sum, l.owned = append([]float32(nil), l.sum...), true
		}
		vec.Add(l.sum, r.sum)
		l.right = r.right
		if r.right >= 0 {
			runs[r.right].left = m.left
		}
		r.alive = false
		l.version++
		push(l.left, m.left)
		push(m.left, l.right)
	}
	// How many merges to keep.
	keep := len(merges)
	fewest := n - len(merges)
	switch {
	case c.cfg.NumClusters > 0:
		keep = min(len(merges), max(0, n-c.cfg.NumClusters))
	case c.cfg.DistanceThreshold > 0:
		keep = 0
		for keep < len(merges) && merges[keep].dist <= c.cfg.DistanceThreshold {
			keep++
		}
	default:
		maxK := c.cfg.MaxClusters
		if maxK == 0 {
			maxK = 4 * fewest
		}
		maxK = min(n, max(maxK, fewest+2))
		// WCSS with k clusters = sum of the deltas of the first n-k merges.
		pref := make([]float64, len(merges)+1)
		for i, m := range merges {
			pref[i+1] = pref[i] + m.delta
		}
		total := pref[len(merges)]
		var ks []int
		var ev []float64
		for k := fewest; k <= maxK; k++ {
			ks = append(ks, k)
			if total > 0 {
				ev = append(ev, 1-pref[n-k]/total)
			} else {
				ev = append(ev, 1)
			}
		}
		k := fewest
		if c.cfg.Auto == "local-silhouette" {
			k = localSilhouette(vs, n, fewest, maxK, func(j int) (int, int) { return merges[j].left, merges[j].right })
		} else if c.cfg.Auto == "silhouette" && n <= 2000 {
			k = c.bestSilhouette(vs, ks, func(keep int) []int {
				return replay(n, merges, keep, func(m merge) (int, int) { return m.left, m.right })
			})
		} else {
			if c.cfg.Auto == "silhouette" {
				tr.Notes = "more than 2000 sentences: elbow used instead of silhouette"
			}
			k = elbow(ks, ev)
		}
		keep = n - k
	}
	labels := replay(n, merges, keep, func(m merge) (int, int) { return m.left, m.right })
	starts := labelRuns(labels)
	for i := range starts {
		starts[i] += off
	}
	return starts, nil
}

// replay applies the first keep merges to n singletons and returns each
// sentence's cluster id.
func replay[M any](n int, merges []M, keep int, ends func(M) (int, int)) []int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, m := range merges[:keep] {
		a, b := ends(m)
		parent[find(b)] = find(a)
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = find(i)
	}
	return labels
}

// labelRuns turns per-sentence labels into chunk starts: a chunk starts
// wherever the label changes.
func labelRuns(labels []int) []int {
	starts := []int{0}
	for i := 1; i < len(labels); i++ {
		if labels[i] != labels[i-1] {
			starts = append(starts, i)
		}
	}
	return starts
}

// localSilhouette returns the number of clusters, between fewest and
// maxK, whose contiguous clustering (the first n-k merges, each merging a
// run into the run on its left) has the highest mean silhouette, where a
// unit's alternative is only the closer of the neighbouring segments (the
// one before or after its own), not every other cluster: for a
// segmentation, moving a unit to a distant segment is not a choice. With
// normalised vectors the mean cosine distance of a unit to a segment is
// 1 − v·S/|S| for the segment's vector sum S. The score is computed once
// for maxK clusters and then updated merge by merge for the units of the
// merged run and of its two neighbours only, so the whole search costs
// O(n·w·dim) for runs of at most w units, not O(n²·dim) per candidate as
// the full silhouette does.
func localSilhouette(vs [][]float32, n, fewest, maxK int, mergeAt func(j int) (left, right int)) int {
	type seg struct {
		end         int // units [id, end)
		sum         []float32
		owned       bool // sum is the segment's own, not its first unit's vector (copied on the first merge)
		left, right int  // neighbouring segment ids, -1 at the ends
	}
	segs := make([]seg, n)
	for i := range segs {
		segs[i] = seg{end: i + 1, sum: vs[i], left: i - 1, right: i + 1}
	}
	segs[n-1].right = -1
	merge := func(l, r int) {
		if !segs[l].owned {
			segs[l].sum, segs[l].owned = append([]float32(nil), segs[l].sum...), true
		}
		vec.Add(segs[l].sum, segs[r].sum)
		segs[l].end = segs[r].end
		segs[l].right = segs[r].right
		if segs[r].right >= 0 {
			segs[segs[r].right].left = l
		}
	}
	for j := 0; j < n-maxK; j++ {
		merge(mergeAt(j))
	}
	score := make([]float64, n)
	total := 0.0
	// rescore recomputes the silhouette of the units of segment id.
	rescore := func(id int) {
		if id < 0 {
			return
		}
		sg := &segs[id]
		size := float64(sg.end - id)
		for i := id; i < sg.end; i++ {
			total -= score[i]
			score[i] = 0
			if size < 2 || (sg.left < 0 && sg.right < 0) {
				continue // a singleton's silhouette is 0
			}
			self := float64(vec.Dot(vs[i], vs[i]))
			a := 1 - (float64(vec.Dot(vs[i], sg.sum))-self)/(size-1)
			b := math.Inf(1)
			for _, o := range []int{sg.left, sg.right} {
				if o >= 0 {
					b = min(b, 1-float64(vec.Dot(vs[i], segs[o].sum))/float64(segs[o].end-o))
				}
			}
			if d := max(a, b); d > 0 {
				score[i] = (b - a) / d
			}
			total += score[i]
		}
	}
	for id := 0; id >= 0; id = segs[id].right {
		rescore(id)
	}
	best, bestK := math.Inf(-1), fewest
	k := maxK
	for {
		if k >= 2 && k < n && total/float64(n) > best {
			best, bestK = total/float64(n), k
		}
		if k <= fewest || n-k >= n-fewest {
			break
		}
		l, r := mergeAt(n - k)
		merge(l, r)
		k--
		rescore(l)
		rescore(segs[l].left)
		rescore(segs[l].right)
	}
	return bestK
}

// elbow returns the x at the largest second difference of y (the article's
// find_elbow_point).
func elbow(xs []int, ys []float64) int {
	if len(xs) < 3 {
		return xs[0]
	}
	best, bi := math.Inf(-1), 0
	for i := 0; i+2 < len(ys); i++ {
		if d := ys[i+2] - 2*ys[i+1] + ys[i]; d > best {
			best, bi = d, i
		}
	}
	return xs[bi+1]
}

// bestSilhouette returns the k of ks whose clustering (from labelsFor with
// n-k merges kept) has the highest mean silhouette score on cosine
// distance.
func (c *Hierarchical) bestSilhouette(vs [][]float32, ks []int, labelsFor func(keep int) []int) int {
	n := len(vs)
	best, bestK := math.Inf(-1), ks[0]
	for _, k := range ks {
		if k < 2 || k >= n {
			continue
		}
		if s := silhouette(vs, labelsFor(n-k)); s > best {
			best, bestK = s, k
		}
	}
	return bestK
}

// silhouette is the mean silhouette coefficient of labels on cosine
// distance (0 for points alone in their cluster, as scikit-learn).
func silhouette(vs [][]float32, labels []int) float64 {
	n := len(vs)
	size := map[int]int{}
	for _, l := range labels {
		size[l]++
	}
	if len(size) < 2 {
		return 0
	}
	total := 0.0
	sums := map[int]float64{}
	for i := range n {
		clear(sums)
		for j := range n {
			if i != j {
				sums[labels[j]] += 1 - float64(vec.Dot(vs[i], vs[j]))
			}
		}
		own := labels[i]
		if size[own] == 1 {
			continue
		}
		a := sums[own] / float64(size[own]-1)
		b := math.Inf(1)
		for l, s := range sums {
			if l != own {
				b = min(b, s/float64(size[l]))
			}
		}
		if m := max(a, b); m > 0 {
			total += (b - a) / m
		}
	}
	return total / float64(n)
}

// windows clusters each window of Window sentences without the contiguity
// constraint (the article's method) and cuts label runs.
func (c *Hierarchical) windows(ctx context.Context, vs [][]float32, tr *gochunk.Trace) ([]int, error) {
	var starts []int
	for lo := 0; lo < len(vs); lo += c.cfg.Window {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+c.cfg.Window, len(vs))
		labels := c.freeCluster(vs[lo:hi])
		for _, s := range labelRuns(labels) {
			starts = append(starts, lo+s)
		}
	}
	return starts, nil
}

// freeCluster runs unconstrained agglomerative clustering (Lance-Williams
// updates on a full distance matrix) and cuts it as configured.
func (c *Hierarchical) freeCluster(vs [][]float32) []int {
	n := len(vs)
	if n < 2 {
		return make([]int, n)
	}
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
		for j := range i {
			x := 1 - float64(vec.Dot(vs[i], vs[j]))
			if c.cfg.Linkage == "ward" {
				x = 2 * x // squared Euclidean distance of unit vectors
			}
			d[i][j], d[j][i] = x, x
		}
	}
	size := make([]int, n)
	alive := make([]bool, n)
	for i := range size {
		size[i], alive[i] = 1, true
	}
	type merge struct {
		a, b int
		dist float64
	}
	var merges []merge
	for step := 0; step < n-1; step++ {
		ba, bb, bd := -1, -1, math.Inf(1)
		for i := range n {
			if !alive[i] {
				continue
			}
			for j := i + 1; j < n; j++ {
				if alive[j] && d[i][j] < bd {
					ba, bb, bd = i, j, d[i][j]
				}
			}
		}
		merges = append(merges, merge{ba, bb, bd})
		for k := range n {
			if !alive[k] || k == ba || k == bb {
				continue
			}
			var x float64
			na, nb, nk := float64(size[ba]), float64(size[bb]), float64(size[k])
			switch c.cfg.Linkage {
			case "average":
				x = (na*d[ba][k] + nb*d[bb][k]) / (na + nb)
			case "complete":
				x = max(d[ba][k], d[bb][k])
			case "single":
				x = min(d[ba][k], d[bb][k])
			case "ward":
				x = ((na+nk)*d[ba][k] + (nb+nk)*d[bb][k] - nk*bd) / (na + nb + nk)
			}
			d[ba][k], d[k][ba] = x, x
		}
		size[ba] += size[bb]
		alive[bb] = false
	}
	ends := func(m merge) (int, int) { return m.a, m.b }
	keep := len(merges)
	switch {
	case c.cfg.NumClusters > 0:
		keep = max(0, n-c.cfg.NumClusters)
	case c.cfg.DistanceThreshold > 0:
		keep = 0
		for keep < len(merges) && merges[keep].dist <= c.cfg.DistanceThreshold {
			keep++
		}
	default:
		maxK := c.cfg.MaxClusters
		if maxK == 0 {
			maxK = 10
		}
		maxK = min(maxK, n)
		var ks []int
		var ev []float64
		total := wcss(vs, make([]int, n))
		for k := 2; k <= maxK; k++ {
			ks = append(ks, k)
			w := wcss(vs, replay(n, merges, n-k, ends))
			if total > 0 {
				ev = append(ev, 1-w/total)
			} else {
				ev = append(ev, 1)
			}
		}
		if len(ks) == 0 {
			return make([]int, n)
		}
		k := elbow(ks, ev)
		if c.cfg.Auto == "silhouette" {
			k = c.bestSilhouette(vs, ks, func(keep int) []int { return replay(n, merges, keep, ends) })
		}
		keep = n - k
	}
	return replay(n, merges, keep, ends)
}

// wcss is the within-cluster sum of squared distances to the centroids.
func wcss(vs [][]float32, labels []int) float64 {
	dim := len(vs[0])
	sums := map[int][]float64{}
	counts := map[int]int{}
	for i, v := range vs {
		s := sums[labels[i]]
		if s == nil {
			s = make([]float64, dim)
			sums[labels[i]] = s
		}
		for k, x := range v {
			s[k] += float64(x)
		}
		counts[labels[i]]++
	}
	total := 0.0
	for i, v := range vs {
		s, n := sums[labels[i]], float64(counts[labels[i]])
		for k, x := range v {
			d := float64(x) - s[k]/n
			total += d * d
		}
	}
	return total
}

// wardDelta is the increase of the within-cluster sum of squares when
// clusters with vector sums a and b and sizes na and nb merge:
// na·nb/(na+nb) · |a/na − b/nb|², from three dot products.
func wardDelta(a, b []float32, na, nb float64) float64 {
	aa, bb, ab := float64(vec.Dot(a, a)), float64(vec.Dot(b, b)), float64(vec.Dot(a, b))
	d := aa/(na*na) + bb/(nb*nb) - 2*ab/(na*nb)
	return na * nb / (na + nb) * max(d, 0)
}
