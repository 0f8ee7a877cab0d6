// Package mst is the MST Semantic Chunker: short pieces of text are nodes
// of a graph whose edge weights mix the semantic distance of the pieces'
// embeddings with their distance in the document; Kruskal's minimum
// spanning tree is cut at a threshold λ and each connected component
// becomes a chunk, even when its pieces are not adjacent (a chunk of
// several spans, in reading order).
package mst

import (
	"cmp"
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"github.com/gochunk/gochunk/segment"
	"math"
	"slices"
	"sort"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// Config holds the reference's parameters, under its names.
type Config struct {
	// MaxTokens is the hard maximum chunk size, in tokens of the counter.
	MaxTokens int `json:"max_tokens" range:"0,1073741824" doc:"hard maximum chunk size in tokens of the --tokenizer unit; a component over it is split in reading order, never truncated (also settable as size)"`
	Size      int `json:"size" range:"0,1073741824" doc:"alias of max_tokens (the --size flag)"`
	// MaxPieceTokens bounds the pre-chunker's pieces.
	MaxPieceTokens int    `json:"max_piece_tokens" range:"1,1073741824" doc:"the pre-chunker's largest piece; longer pieces are cut"`
	Segmenter      string `json:"segmenter" doc:"the pre-chunker: lines (the seed's Jina segmenter: headings, list items, code blocks, tables of up to 20 rows, lines of up to 800 characters whole, longer lines cut into sentences) or sentences (every paragraph cut into sentences)"`

	Gamma          float64 `json:"gamma" range:"0,100" doc:"scale of the positional penalty exp(gamma*|a-b|)-1: how fast distance in the document pushes pieces apart"`
	MinLen         int     `json:"min_len" range:"0,1073741824" doc:"token length below which a piece counts as this long in the vicinity reward (avoids rewards for near-empty pieces)"`
	ShortThreshold int     `json:"short_threshold" range:"1,1073741824" doc:"pieces under this many tokens are 'short' for the vicinity reward"`
	LongTermWindow int     `json:"long_term_window" range:"0,4096" doc:"short pieces at most this far apart are rewarded (the bullet-list case)"`
	ImmediateWind  int     `json:"immediate_window" range:"0,4096" doc:"a short piece followed at exactly this distance by another is rewarded (the heading-paragraph case; directional: the short piece comes first)"`
	VicinityReward float64 `json:"vicinity_reward" range:"0,1000" doc:"scale of the bullet-list reward"`
	HeadingReward  float64 `json:"heading_reward" range:"0,1000" doc:"scale of the heading-paragraph reward"`
	SemanticWeight float64 `json:"semantic_weight" range:"0,1000" doc:"w1: weight of the cosine distance"`
	LocalityWeight float64 `json:"locality_weight" range:"0,1000" doc:"w2: weight of the positional penalty"`
	VicinityWeight float64 `json:"vicinity_weight" range:"0,1000" doc:"w3: weight of the (negative) vicinity reward"`
	DistanceThresh int     `json:"distance_threshold" range:"2,4096" doc:"pairs of pieces at least this far apart in the document get no edge (keeps the graph O(n·window))"`
	Alpha          float64 `json:"alpha" range:"0,100" doc:"adaptive lambda = mean(edge distances)^alpha"`
	Lambda         float64 `json:"lambda" range:"0,1000000" doc:"a fixed lambda instead of the adaptive one (0: adaptive); MST edges heavier than lambda are cut"`
	Contiguous     bool    `json:"contiguous" doc:"split components at their gaps so every chunk is one substring of the input"`
}

// DefaultConfig returns the reference's defaults: max_tokens 400,
// gamma 0.0275, min_len 5, short_threshold 80, long_term_window 2,
// immediate_window 1, vicinity_reward 0.275, heading_reward 0.85, weights
// 1.20, 1.1 and 0.735, distance_threshold 6, alpha 2.26; the seed's
// segmenter (lines of up to 800 characters whole), pieces of at most 200
// tokens.
func DefaultConfig() Config {
	return Config{MaxTokens: 400, MaxPieceTokens: 200, Segmenter: SegmentLines, Gamma: 0.0275, MinLen: 5, ShortThreshold: 80, LongTermWindow: 2, ImmediateWind: 1,
		VicinityReward: 0.275, HeadingReward: 0.85, SemanticWeight: 1.20, LocalityWeight: 1.1, VicinityWeight: 0.735,
		DistanceThresh: 6, Alpha: 2.26}
}

// Chunker is the MST Semantic Chunker.
type Chunker struct {
	cfg      Config
	counter  tokenize.Counter
	embedder embed.Embedder
}

// New returns an MST chunker; a nil embedder means the built-in lexical one.
func New(cfg Config, counter tokenize.Counter, e gochunk.Embedder) (*Chunker, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if cfg.Size > 0 {
		cfg.MaxTokens = cfg.Size
	}
	switch {
	case cfg.MaxTokens <= 0:
		return nil, fmt.Errorf("%w: max_tokens must be positive", gochunk.ErrConfig)
	case cfg.MaxPieceTokens <= 0:
		return nil, fmt.Errorf("%w: max_piece_tokens must be positive", gochunk.ErrConfig)
	case cfg.Segmenter != "" && cfg.Segmenter != SegmentLines && cfg.Segmenter != SegmentSentences:
		return nil, fmt.Errorf("%w: segmenter %q: want lines or sentences", gochunk.ErrConfig, cfg.Segmenter)
	case cfg.DistanceThresh < 2:
		return nil, fmt.Errorf("%w: distance_threshold must be at least 2 (neighbours must have an edge)", gochunk.ErrConfig)
	case cfg.ShortThreshold <= 0 || cfg.MinLen < 0 || cfg.LongTermWindow < 0 || cfg.ImmediateWind < 0:
		return nil, fmt.Errorf("%w: short_threshold must be positive and min_len, long_term_window, immediate_window not negative", gochunk.ErrConfig)
	case cfg.Lambda < 0 || badFloat(cfg.Gamma, cfg.Alpha, cfg.Lambda, cfg.SemanticWeight, cfg.LocalityWeight, cfg.VicinityWeight, cfg.VicinityReward, cfg.HeadingReward):
		return nil, fmt.Errorf("%w: weights, rewards, gamma, alpha and lambda must be finite numbers (lambda not negative)", gochunk.ErrConfig)
	}
	cfg.MaxPieceTokens = min(cfg.MaxPieceTokens, cfg.MaxTokens)
	counter, em := tokenize.OrRunes(counter), embed.OrLexical(e)
	return &Chunker{cfg: cfg, counter: counter, embedder: em}, nil
}

func badFloat(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// Distance is the reference's distance between pieces a < b, given the
// cosine distance of their embeddings and their token lengths:
//
//	semantic·w1 + (exp(γ·(b−a)) − 1)·w2 + reward·w3
//
// where reward (≤ 0) is −vicinity_reward·exp(−min(la, lb)/short) when both
// are short and at most long_term_window apart, plus
// −heading_reward·exp(−la/short) when b follows a at immediate_window and a
// is short; lengths under min_len count as min_len.
func (c Config) Distance(a, b int, cosineDist float64, lenA, lenB int) float64 {
	seq := b - a
	if seq < 0 {
		seq = -seq
	}
	penalty := math.Exp(c.Gamma*float64(seq)) - 1
	la := float64(max(lenA, c.MinLen))
	lb := float64(max(lenB, c.MinLen))
	short := float64(c.ShortThreshold)
	reward := 0.0
	if seq <= c.LongTermWindow && la < short && lb < short {
		reward -= c.VicinityReward * math.Exp(-min(la, lb)/short)
	}
	if seq == c.ImmediateWind && la < short {
		reward -= c.HeadingReward * math.Exp(-la/short)
	}
	return cosineDist*c.SemanticWeight + penalty*c.LocalityWeight + reward*c.VicinityWeight
}

// Edge is a weighted edge of the piece graph, a < b.
type Edge struct {
	A, B int
	W    float64
}

// Edges returns the edges between pieces less than distance_threshold
// apart, with vectors vs (normalised or not) and token lengths.
func (c Config) Edges(vs [][]float32, lengths []int) []Edge {
	n := len(vs)
	return c.appendEdges(make([]Edge, 0, n*min(n, c.DistanceThresh-1)), vs, 0, 0, n, lengths)
}

// appendEdges appends the edges from the pieces a in [from, to) to the
// pieces after them, where vs[i-off] is the vector of piece i and holds
// every piece up to distance_threshold-1 after to (or to the end).
func (c Config) appendEdges(edges []Edge, vs [][]float32, off, from, to int, lengths []int) []Edge {
	n := len(lengths)
	norms := make([]float64, len(vs))
	for i, v := range vs {
		norms[i] = float64(vec.Norm(v))
	}
	norm := func(i int) float64 { return norms[i-off] }
	for a := from; a < to; a++ {
		na := norm(a)
		for b := a + 1; b < n && b-a < c.DistanceThresh; b++ {
			cd := 1.0 // a zero vector is as far as can be
			if nb := norm(b); na > 0 && nb > 0 {
				cd = 1 - float64(vec.Dot(vs[a-off], vs[b-off]))/(na*nb)
			}
			edges = append(edges, Edge{a, b, c.Distance(a, b, cd, lengths[a], lengths[b])})
		}
	}
	return edges
}

// streamBatch is how many pieces are embedded at a time: only their
// vectors (and those of the distance_threshold pieces after them) are
// held, so memory does not grow with the document beyond the pieces and
// their edges. An edge's weight depends on its two pieces alone, so the
// batch changes nothing but memory: 1,024 vectors of the lexical
// embedder's 1,024 dimensions are 4 MB.
const streamBatch = 1024

// graph is the piece graph as the chunker keeps it: the weight of the edge
// from piece a to piece a+1+j (j < m, m = distance_threshold-1) is
// w[a*m+j], the slots past the last piece unused. An edge's index orders
// edges as (A, B) does, and no endpoints are stored: 8 bytes an edge
// instead of an Edge's 24.
type graph struct {
	n, m int
	w    []float64
}

// edges returns the number of edges.
func (g *graph) edges() int {
	// The first n-m pieces have m edges after them, the last t have t-1,
	// t-2, …, 0.
	t := min(g.m, g.n)
	return max(0, g.n-g.m)*g.m + t*(t-1)/2
}

// each calls f with every edge's index and weight, in the order of
// Config.Edges.
func (g *graph) each(f func(id int, w float64)) {
	for a := range g.n {
		for j := range min(g.m, g.n-1-a) {
			f(a*g.m+j, g.w[a*g.m+j])
		}
	}
}

// streamGraph embeds the pieces of text batch by batch and returns the
// graph of Config.Edges, with the same weights.
func (c *Chunker) streamGraph(ctx context.Context, e embed.Embedder, text string, pieces []pack.Piece) (*graph, error) {
	n := len(pieces)
	g := &graph{n: n, m: c.cfg.DistanceThresh - 1}
	g.w = make([]float64, n*g.m)
	var norms []float64
	var texts []string
	for s := 0; s < n; s += streamBatch {
		to := min(n, s+streamBatch)
		hi := min(n, to+g.m)
		texts = texts[:0]
		for _, p := range pieces[s:hi] {
			texts = append(texts, text[p.Start:p.End])
		}
		vs, err := embed.Checked(ctx, e, texts)
		if err != nil {
			return nil, err
		}
		norms = norms[:0]
		for _, v := range vs {
			norms = append(norms, float64(vec.Norm(v)))
		}
		for a := s; a < to; a++ {
			na := norms[a-s]
			for b := a + 1; b < n && b-a <= g.m; b++ {
				cd := 1.0 // a zero vector is as far as can be
				if nb := norms[b-s]; na > 0 && nb > 0 {
					cd = 1 - float64(vec.Dot(vs[a-s], vs[b-s]))/(na*nb)
				}
				g.w[a*g.m+b-a-1] = c.cfg.Distance(a, b, cd, pieces[a].Size, pieces[b].Size)
			}
		}
	}
	return g, nil
}

// lambda is LambdaFor of the graph's edges.
func (c Config) lambda(g *graph) float64 {
	if c.Lambda > 0 {
		return c.Lambda
	}
	n := g.edges()
	if n == 0 {
		return 0
	}
	sum := 0.0
	g.each(func(_ int, w float64) { sum += w })
	mean := sum / float64(n)
	if mean <= 0 {
		return 0
	}
	return math.Pow(mean, c.Alpha)
}

// components is Components of the graph's edges, without the tree: each
// piece's component root, the same partition.
func (g *graph) components(lambda float64) []int {
	if g.n*g.m <= math.MaxInt32 {
		return componentsOf[int32](g, lambda)
	}
	return componentsOf[int](g, lambda)
}

// componentsOf runs Kruskal's algorithm over the edges sorted by weight,
// then by index (by A, then B, as Components sorts them: the indexes are
// distinct, so the order is total and no stable sort is needed), and
// joins the forest's edges of weight at most lambda.
func componentsOf[I int32 | int](g *graph, lambda float64) []int {
	ids := make([]I, 0, g.edges())
	g.each(func(id int, _ float64) { ids = append(ids, I(id)) })
	w := g.w
	slices.SortFunc(ids, func(x, y I) int {
		if c := cmp.Compare(w[x], w[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	uf, cut := newUnionFind(g.n), newUnionFind(g.n)
	for _, id := range ids {
		a := int(id) / g.m
		b := a + 1 + int(id)%g.m
		if uf.union(a, b) && w[id] <= lambda {
			cut.union(a, b)
		}
	}
	roots := make([]int, g.n)
	for i := range roots {
		roots[i] = cut.find(i)
	}
	return roots
}

// Lambda returns the cut threshold: the fixed lambda, or the mean edge
// weight raised to alpha (0 when the mean is not positive, where the power
// is undefined).
func (c Config) LambdaFor(edges []Edge) float64 {
	if c.Lambda > 0 {
		return c.Lambda
	}
	if len(edges) == 0 {
		return 0
	}
	sum := 0.0
	for _, e := range edges {
		sum += e.W
	}
	mean := sum / float64(len(edges))
	if mean <= 0 {
		return 0
	}
	return math.Pow(mean, c.Alpha)
}

// Components runs Kruskal's algorithm over n nodes to get the minimum
// spanning forest, cuts its edges heavier than lambda, and returns each
// node's component root and the forest's edges (cut ones included).
func Components(n int, edges []Edge, lambda float64) ([]int, []Edge) {
	sorted := slices.Clone(edges)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].W != sorted[j].W {
			return sorted[i].W < sorted[j].W
		}
		if sorted[i].A != sorted[j].A {
			return sorted[i].A < sorted[j].A
		}
		return sorted[i].B < sorted[j].B
	})
	tree := make([]Edge, 0, n)
	uf := newUnionFind(n)
	for _, e := range sorted {
		if uf.union(e.A, e.B) {
			tree = append(tree, e)
		}
	}
	cut := newUnionFind(n)
	for _, e := range tree {
		if e.W <= lambda {
			cut.union(e.A, e.B)
		}
	}
	roots := make([]int, n)
	for i := range roots {
		roots[i] = cut.find(i)
	}
	return roots, tree
}

type unionFind struct {
	parent []int
	rank   []uint8
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), rank: make([]uint8, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

// union joins the sets of a and b and reports whether they were apart.
func (u *unionFind) union(a, b int) bool {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return false
	}
	if u.rank[ra] < u.rank[rb] {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	if u.rank[ra] == u.rank[rb] {
		u.rank[ra]++
	}
	return true
}

// Chunk implements gochunk.Chunker.
func (c *Chunker) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.chunk(ctx, d, false)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer: the units are the pieces, the
// curve the weight of the edge from each piece to the next, the threshold
// lambda.
func (c *Chunker) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	return c.chunk(ctx, d, true)
}

// chunk is Chunk, and with tracing ChunkTrace.
func (c *Chunker) chunk(ctx context.Context, d gochunk.Document, tracing bool) ([]gochunk.Chunk, *gochunk.Trace, error) {
	if err := gochunk.CheckDocument(d); err != nil {
		return nil, nil, err
	}
	e := &pack.Engine{Text: d.Text, Counter: c.counter, Limit: c.cfg.MaxTokens}
	e.Init()
	pieces, err := Pieces(ctx, e, c.cfg.MaxPieceTokens, c.cfg.Segmenter)
	if err == nil {
		pieces, err = keepHeadings(ctx, e, pieces, c.cfg.MaxTokens)
	}
	if err != nil || len(pieces) == 0 {
		return nil, nil, gochunk.WrapDocument(d.ID, err)
	}
	// The reference's heading-paragraph reward keeps a heading in the
	// component of the text it heads; when a component is cut for size,
	// the cut must not separate them either.
	e.KeepWithNext = func(i int) bool { return segment.HeadingLike(d.Text[pieces[i].Start:pieces[i].End]) }
	// The pieces' texts (16 bytes each) are for the embedder's document
	// weights only: the graph's batches take theirs from the pieces.
	texts := make([]string, len(pieces))
	for i, p := range pieces {
		texts[i] = d.Text[p.Start:p.End]
	}
	em := embed.ForDocument(c.embedder, texts)
	g, err := c.streamGraph(ctx, em, d.Text, pieces)
	if err != nil {
		return nil, nil, gochunk.WrapDocument(d.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	lambda := c.cfg.lambda(g)
	roots := g.components(lambda)

	tr := &gochunk.Trace{Document: d.ID, Chunker: "mst", CurveName: "edge weight to the next piece", Threshold: &lambda}
	if tracing {
		conv := runeoff.New(d.Text)
		tr.Units = make([]gochunk.Span, 0, len(pieces))
		for _, p := range pieces {
			tr.Units = append(tr.Units, gochunk.Span{Start: p.Start, End: p.End, StartRune: conv.Rune(p.Start), EndRune: conv.Rune(p.End)})
		}
		for a := 0; a+1 < g.n; a++ {
			tr.Curve = append(tr.Curve, g.w[a*g.m])
		}
	}
	// Group pieces by component, components in order of their first piece.
	var groups [][]int
	index := map[int]int{}
	for i, r := range roots {
		g, ok := index[r]
		if !ok {
			g = len(groups)
			index[r] = g
			groups = append(groups, nil)
			tr.Breakpoints = append(tr.Breakpoints, i)
		}
		groups[g] = append(groups[g], i)
	}
	if c.cfg.Contiguous {
		groups = splitAtGaps(groups)
		sort.SliceStable(groups, func(i, j int) bool { return groups[i][0] < groups[j][0] })
	}
	chunks, err := c.assemble(ctx, e, pieces, groups)
	if err != nil {
		return nil, nil, gochunk.WrapDocument(d.ID, err)
	}
	return chunks, tr, nil
}

// splitAtGaps cuts each group into runs of consecutive pieces.
func splitAtGaps(groups [][]int) [][]int {
	var out [][]int
	for _, g := range groups {
		start := 0
		for i := 1; i <= len(g); i++ {
			if i == len(g) || g[i] != g[i-1]+1 {
				out = append(out, g[start:i])
				start = i
			}
		}
	}
	return out
}

// assemble turns groups of pieces into chunks within the size limit (see
// pack.Engine.PackGroups); a chunk of several spans says how many in its
// metadata.
func (c *Chunker) assemble(ctx context.Context, e *pack.Engine, pieces []pack.Piece, groups [][]int) ([]gochunk.Chunk, error) {
	chunks, _, err := e.PackGroups(ctx, pieces, groups)
	if err != nil {
		return nil, err
	}
	for i := range chunks {
		if n := len(chunks[i].Spans); n > 1 {
			chunks[i].Metadata = map[string]any{"spans": n}
		}
	}
	return chunks, nil
}
