package layout

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// S2Config configures the S2 chunker.
type S2Config struct {
	Size           int     `json:"size" range:"1,1073741824" doc:"maximum chunk size (MaxTokenLength) in tokens of the --tokenizer unit; clusters over it are split in reading order"`
	SpatialWeight  float64 `json:"spatial_weight" range:"0,1000" doc:"weight of the spatial proximity 1/(1+d) in the edge weight (the paper averages: 0.5 and 0.5)"`
	SemanticWeight float64 `json:"semantic_weight" range:"0,1000" doc:"weight of the cosine similarity of the elements' embeddings (negative similarities count as 0)"`
	PageDistance   float64 `json:"page_distance" range:"0,1000000" doc:"distance added per page between two elements' centroids (distances are in page diagonals)"`
	Neighbors      int     `json:"neighbors" range:"1,4096" doc:"with graph=sparse, each element is linked to this many elements before and after it in reading order"`
	Graph          string  `json:"graph" doc:"sparse (neighbours in reading order) or dense (every pair of a window's elements, the paper's complete graph)"`
	Clusters       string  `json:"clusters" doc:"how many clusters a window gets: tokens (ceil(tokens/size), the fewest that can fit) or paper (tokens/size scaled by (1 - mean affinity)², as the paper's code computes CalculateNClusters, at least 1; fewer, larger clusters, then split in reading order)"`
	Window         int     `json:"window" range:"2,2000" doc:"elements clustered together at most; longer documents are clustered window by window (memory and time grow with its square)"`
	Seed           uint64  `json:"seed" range:"0,18446744073709551615" doc:"seed of the k-means initialisation (results are deterministic for a seed)"`
}

// DefaultS2Config returns the paper's equal weights, a size of 512,
// neighbours 8, windows of 200 elements.
func DefaultS2Config() S2Config {
	return S2Config{Size: 512, SpatialWeight: 0.5, SemanticWeight: 0.5, PageDistance: 1, Neighbors: 8, Graph: "sparse", Clusters: "tokens", Window: 200, Seed: 1}
}

// S2 is S2 Chunking: document elements are nodes of a graph whose edges
// weigh the spatial proximity of their bounding boxes, 1/(1+d) for the
// distance d of their centroids in page diagonals (plus page_distance per
// page between them), and the cosine similarity of their embeddings,
// averaged; spectral clustering (the normalised Laplacian's eigenvectors
// of the smallest eigenvalues, then k-means) cuts the graph into
// ceil(tokens / size) clusters, and clusters over the size are split in
// reading order. A cluster whose elements are not adjacent is one chunk of
// several spans. Chunks carry their elements' pages, boxes and types.
//
// The paper's graph is complete and its clustering cubic; by default each
// element is linked to its Neighbors before and after it in reading order
// (so a figure and its caption, or a heading and its paragraph, stay
// linked), and documents are clustered in windows of Window elements, so
// the cost grows linearly with the number of elements. Graph "dense" links
// every pair of a window, as the paper does. Clusters "paper" takes the
// paper's cluster count as its authors' code computes it, tokens/size
// times (1 − mean affinity)²: fewer clusters, whose splitting in reading
// order then decides more of the chunks; on a labelled two-column PDF it
// scores lower purity than ceil(tokens/size) (see the README), so it is
// not the default.
//
// Documents with Elements (from a PDF or a layout tool) use them, in the
// order of their offsets in the text (the reading order: Assemble writes
// the text in that order); text no element covers becomes an element of
// its own, placed like the element before it, so nothing is lost. Plain
// text gets elements derived from its paragraphs (see FromText).
type S2 struct {
	cfg      S2Config
	counter  tokenize.Counter
	embedder embed.Embedder
}

// NewS2 returns an S2 chunker; a nil embedder means the lexical one.
func NewS2(cfg S2Config, counter tokenize.Counter, e gochunk.Embedder) (*S2, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	switch {
	case cfg.Size <= 0:
		return nil, fmt.Errorf("%w: size must be positive", gochunk.ErrConfig)
	case cfg.SpatialWeight < 0 || cfg.SemanticWeight < 0 || cfg.SpatialWeight+cfg.SemanticWeight == 0:
		return nil, fmt.Errorf("%w: spatial_weight and semantic_weight must not be negative nor both 0", gochunk.ErrConfig)
	case cfg.Graph != "" && cfg.Graph != "sparse" && cfg.Graph != "dense":
		return nil, fmt.Errorf("%w: graph %q: want sparse or dense", gochunk.ErrConfig, cfg.Graph)
	case cfg.Clusters != "" && cfg.Clusters != "paper" && cfg.Clusters != "tokens":
		return nil, fmt.Errorf("%w: clusters %q: want paper or tokens", gochunk.ErrConfig, cfg.Clusters)
	case cfg.PageDistance < 0 || cfg.Neighbors < 1 || cfg.Window < 2:
		return nil, fmt.Errorf("%w: page_distance must not be negative, neighbors at least 1, window at least 2", gochunk.ErrConfig)
	case cfg.Window > 2000:
		return nil, fmt.Errorf("%w: window above 2000 elements (memory grows with its square)", gochunk.ErrConfig)
	}
	counter, em := tokenize.OrRunes(counter), embed.OrLexical(e)
	return &S2{cfg: cfg, counter: counter, embedder: em}, nil
}

// node is an element, or a part of one that was over the size.
type node struct {
	el         int // element index
	start, end int // bytes of the document text
	tokens     int
	cx, cy     float64 // centroid in page diagonals
	page       int
	split      bool // a piece of an element over the size
}

// Chunk implements gochunk.Chunker.
func (s *S2) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	if err := gochunk.CheckDocument(d); err != nil {
		return nil, err
	}
	els := d.Elements
	if len(els) == 0 {
		if strings.TrimSpace(d.Text) == "" {
			return nil, nil
		}
		els = FromText(d.Text)
	}
	if err := Validate(els); err != nil {
		return nil, gochunk.WrapDocument(d.ID, err)
	}
	els, err := inText(d.Text, els)
	if err != nil {
		return nil, gochunk.WrapDocument(d.ID, err)
	}
	e := &pack.Engine{Text: d.Text, Counter: s.counter, Limit: s.cfg.Size}
	e.Init()
	nodes, err := s.nodes(ctx, e, els)
	if err != nil || len(nodes) == 0 {
		return nil, gochunk.WrapDocument(d.ID, err)
	}
	texts := make([]string, len(nodes))
	for i, n := range nodes {
		texts[i] = d.Text[n.start:n.end]
	}
	// Vectors are made window by window (the embedder adapted to the whole
	// document once), so memory holds one window's, not the document's.
	em := embed.ForDocument(s.embedder, texts)
	vectors := func(ids []int) ([][]float32, error) {
		sub := make([]string, len(ids))
		for k, id := range ids {
			sub[k] = texts[id]
		}
		vs, err := embed.Checked(ctx, em, sub)
		for i := range vs {
			vs[i] = vec.Normalize(append([]float32(nil), vs[i]...)) // a cache may share its vectors
		}
		return vs, err
	}
	groups, err := s.groups(ctx, nodes, vectors)
	if err != nil {
		return nil, gochunk.WrapDocument(d.ID, err)
	}
	chunks, err := s.assemble(ctx, e, els, nodes, groups)
	return chunks, gochunk.WrapDocument(d.ID, err)
}

// groups clusters the nodes: pieces of an element over the size become
// chunks of their own, in order (mixing a tail piece into another cluster
// would scatter one paragraph over several chunks); runs of whole elements
// are spectrally clustered window by window.
func (s *S2) groups(ctx context.Context, nodes []node, vectors func(ids []int) ([][]float32, error)) ([][]int, error) {
	var groups [][]int
	var free []int
	for i, n := range nodes {
		if n.split {
			if len(groups) > 0 && nodes[groups[len(groups)-1][0]].el == n.el {
				groups[len(groups)-1] = append(groups[len(groups)-1], i)
			} else {
				groups = append(groups, []int{i})
			}
			continue
		}
		free = append(free, i)
		if i+1 < len(nodes) && !nodes[i+1].split {
			continue
		}
		// A run of whole elements ends: cluster it window by window.
		for lo := 0; lo < len(free); lo += s.cfg.Window {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			hi := min(lo+s.cfg.Window, len(free))
			sub := make([]node, hi-lo)
			for k, id := range free[lo:hi] {
				sub[k] = nodes[id]
			}
			subv, err := vectors(free[lo:hi])
			if err != nil {
				return nil, err
			}
			for _, g := range s.cluster(sub, subv) {
				for k := range g {
					g[k] = free[lo+g[k]]
				}
				groups = append(groups, g)
			}
		}
		free = free[:0]
	}
	return groups, nil
}

// nodes makes the graph's nodes: every element in the text, cut when over
// the size.
func (s *S2) nodes(ctx context.Context, e *pack.Engine, els []gochunk.Element) ([]node, error) {
	var out []node
	for i, el := range els {
		if el.Excluded || el.End <= el.Start {
			continue
		}
		diag := math.Hypot(el.PageWidth, el.PageHeight)
		if diag == 0 {
			diag = 1000
		}
		cx, cy := (el.BBox[0]+el.BBox[2])/2/diag, (el.BBox[1]+el.BBox[3])/2/diag
		r := pack.Trim(e.Text, pack.Range{Start: el.Start, End: el.End})
		if r.End <= r.Start {
			continue
		}
		n := e.Count(r.Start, r.End)
		if n <= s.cfg.Size {
			out = append(out, node{el: i, start: r.Start, end: r.End, tokens: n, cx: cx, cy: cy, page: el.Page})
			continue
		}
		parts, err := s.balanced(ctx, e, r, n)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			// Chunks hold trimmed text: count that, so that a chunk of one
			// node is exactly the node's size.
			p = pack.Trim(e.Text, p)
			if p.End <= p.Start {
				continue
			}
			n := e.Count(p.Start, p.End)
			if n > s.cfg.Size {
				return nil, fmt.Errorf("a piece of element %d has %d tokens once trimmed, over the size %d", i, n, s.cfg.Size)
			}
			out = append(out, node{el: i, start: p.Start, end: p.End, tokens: n, cx: cx, cy: cy, page: el.Page, split: true})
		}
	}
	return out, nil
}

// balanced cuts an element of n tokens, over the size, into as few pieces
// as the size allows, of about equal size, at line and sentence boundaries
// where it can: it searches for the smallest limit that still gives that
// number of pieces.
func (s *S2) balanced(ctx context.Context, e *pack.Engine, r pack.Range, n int) ([]pack.Range, error) {
	levels := []pack.Level{pack.SplitLines, pack.SplitSentences}
	split := func(limit int) ([]pack.Range, error) {
		en := &pack.Engine{Text: e.Text, Counter: e.Counter, Limit: limit, Levels: levels}
		return en.Split(ctx, r.Start, r.End, nil)
	}
	best, err := split(s.cfg.Size)
	if err != nil {
		return nil, err
	}
	lo, hi := (n+len(best)-1)/len(best), s.cfg.Size-1
	for lo <= hi {
		mid := (lo + hi) / 2
		out, err := split(mid)
		if err == nil && len(out) <= len(best) {
			best, hi = out, mid-1
		} else {
			lo = mid + 1
		}
	}
	return best, nil
}

// Weight is the edge weight of two nodes with embedding similarity sim.
func (s *S2) Weight(a, b node, sim float64) float64 {
	d := math.Hypot(a.cx-b.cx, a.cy-b.cy) + s.cfg.PageDistance*math.Abs(float64(a.page-b.page))
	spatial := 1 / (1 + d)
	semantic := max(0, sim)
	return (s.cfg.SpatialWeight*spatial + s.cfg.SemanticWeight*semantic) / (s.cfg.SpatialWeight + s.cfg.SemanticWeight)
}

// cluster spectrally clusters one window of nodes and returns the
// clusters as groups of node indexes in reading order.
func (s *S2) cluster(nodes []node, vs [][]float32) [][]int {
	n := len(nodes)
	tokens := 0
	for _, nd := range nodes {
		tokens += nd.tokens
	}
	// The affinity graph: neighbours in reading order, or every pair.
	reach := s.cfg.Neighbors
	if s.cfg.Graph == "dense" {
		reach = n
	}
	w := mat.NewSymDense(n, nil)
	deg := make([]float64, n)
	for i := range n {
		for j := i + 1; j < n && j-i <= reach; j++ {
			x := s.Weight(nodes[i], nodes[j], float64(vec.Dot(vs[i], vs[j])))
			w.SetSym(i, j, x)
			deg[i] += x
			deg[j] += x
		}
	}
	k := (tokens + s.cfg.Size - 1) / s.cfg.Size
	if s.cfg.Clusters == "paper" {
		// The paper's CalculateNClusters, as its authors' code computes
		// it: tokens/size scaled by (1 − mean affinity)² over every pair of
		// the window, a node with itself included (weight 1); clusters over
		// the size are split afterwards.
		sum := float64(n) // the diagonal
		for i := range n {
			for j := i + 1; j < n; j++ {
				x := w.At(i, j)
				if j-i > reach {
					x = s.Weight(nodes[i], nodes[j], float64(vec.Dot(vs[i], vs[j])))
				}
				sum += 2 * x
			}
		}
		mean := sum / float64(n*n)
		k = int(float64(tokens) / float64(s.cfg.Size) * (1 - mean) * (1 - mean))
	}
	k = max(1, min(k, n))
	if k == 1 || n <= 2 {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	// Normalised Laplacian L = I − D^-½ W D^-½ (isolated nodes get a tiny
	// degree, so they form clusters of their own).
	lap := mat.NewSymDense(n, nil)
	for i := range n {
		lap.SetSym(i, i, 1)
		for j := i + 1; j < n && j-i <= reach; j++ {
			if x := w.At(i, j); x != 0 {
				lap.SetSym(i, j, -x/math.Sqrt(max(deg[i], 1e-12)*max(deg[j], 1e-12)))
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(lap, true) {
		return splitEven(n, k)
	}
	var ev mat.Dense
	eig.VectorsTo(&ev) // columns, eigenvalues ascending
	rows := make([][]float64, n)
	for i := range n {
		r := make([]float64, k)
		norm := 0.0
		for c := range k {
			r[c] = ev.At(i, c)
			norm += r[c] * r[c]
		}
		if norm = math.Sqrt(norm); norm > 0 {
			for c := range r {
				r[c] /= norm
			}
		}
		rows[i] = r
	}
	labels := kmeans(rows, k, s.cfg.Seed)
	byLabel := map[int][]int{}
	var order []int
	for i, l := range labels {
		if _, ok := byLabel[l]; !ok {
			order = append(order, l)
		}
		byLabel[l] = append(byLabel[l], i)
	}
	out := make([][]int, 0, len(order))
	for _, l := range order {
		out = append(out, byLabel[l])
	}
	return out
}

func splitEven(n, k int) [][]int {
	out := make([][]int, k)
	for i := range n {
		out[i*k/n] = append(out[i*k/n], i)
	}
	return out
}

// kmeans clusters points into k groups with k-means++ seeding from seed
// and Lloyd iterations; deterministic for a seed.
func kmeans(points [][]float64, k int, seed uint64) []int {
	n, dim := len(points), len(points[0])
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	dist := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			d := a[i] - b[i]
			s += d * d
		}
		return s
	}
	centers := [][]float64{append([]float64(nil), points[r.IntN(n)]...)}
	d2 := make([]float64, n) // squared distance to the nearest center so far
	for i := range d2 {
		d2[i] = math.Inf(1)
	}
	for len(centers) < k {
		total := 0.0
		last := centers[len(centers)-1]
		for i, p := range points {
			d2[i] = min(d2[i], dist(p, last))
			total += d2[i]
		}
		pick := 0
		if total > 0 {
			x := r.Float64() * total
			for pick = 0; pick < n-1 && x > d2[pick]; pick++ {
				x -= d2[pick]
			}
		} else {
			pick = r.IntN(n)
		}
		centers = append(centers, append([]float64(nil), points[pick]...))
	}
	labels := make([]int, n)
	for iter := 0; iter < 100; iter++ {
		changed := false
		for i, p := range points {
			best, bl := math.Inf(1), 0
			for c, ctr := range centers {
				if d := dist(p, ctr); d < best {
					best, bl = d, c
				}
			}
			if labels[i] != bl || iter == 0 {
				changed = changed || labels[i] != bl
				labels[i] = bl
			}
		}
		if !changed && iter > 0 {
			break
		}
		counts := make([]int, k)
		for c := range centers {
			clear(centers[c])
		}
		for i, p := range points {
			counts[labels[i]]++
			for j := range dim {
				centers[labels[i]][j] += p[j]
			}
		}
		for c := range centers {
			if counts[c] == 0 {
				copy(centers[c], points[r.IntN(n)])
				continue
			}
			for j := range dim {
				centers[c][j] /= float64(counts[c])
			}
		}
	}
	return labels
}

// assemble packs each group's nodes into chunks within the size (see
// pack.Engine.PackGroups), with their elements' pages and boxes.
func (s *S2) assemble(ctx context.Context, e *pack.Engine, els []gochunk.Element, nodes []node, groups [][]int) ([]gochunk.Chunk, error) {
	items := make([]pack.Piece, len(nodes))
	for i, n := range nodes {
		items[i] = pack.Piece{Start: n.start, End: n.end, Size: n.tokens}
	}
	chunks, ids, err := e.PackGroups(ctx, items, groups)
	if err != nil {
		return nil, err
	}
	for i := range chunks {
		chunks[i].Metadata = elementMeta(els, nodes, ids[i])
	}
	return chunks, nil
}

// elementMeta lists the pages, boxes and types of a chunk's elements.
func elementMeta(els []gochunk.Element, nodes []node, ids []int) map[string]any {
	type box struct {
		Page int        `json:"page"`
		BBox [4]float64 `json:"bbox"`
		Type string     `json:"type"`
	}
	var boxes []box
	pages := []int{}
	seen := map[int]bool{}
	for _, id := range ids {
		el := els[nodes[id].el]
		if seen[nodes[id].el] {
			continue
		}
		seen[nodes[id].el] = true
		boxes = append(boxes, box{el.Page, el.BBox, el.Type})
		if len(pages) == 0 || pages[len(pages)-1] != el.Page {
			pages = append(pages, el.Page)
		}
	}
	return map[string]any{"pages": pages, "elements": boxes}
}
