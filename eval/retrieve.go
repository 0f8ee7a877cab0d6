package eval

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/vec"
)

// Retriever finds the chunks most relevant to a query.
type Retriever interface {
	// Index prepares search over texts (replacing any earlier index).
	Index(ctx context.Context, texts []string) error
	// Search returns the indexes of the k best texts for query, best
	// first; ties go to the lower index.
	Search(ctx context.Context, query string, k int) ([]int, error)
	// Name describes the retriever.
	Name() string
}

// ScoredRetriever is a Retriever that also gives the scores of what it
// finds (higher is better), so that auto-merging can weigh a parent's
// children against what the parent would displace (see Options.Merge).
// A retriever without scores is weighed by reciprocal rank.
type ScoredRetriever interface {
	Retriever
	// SearchScores is Search with each text's score.
	SearchScores(ctx context.Context, query string, k int) ([]int, []float64, error)
}

// searchScores runs r's search, with its scores when it gives them and
// 1/(60 + rank) otherwise.
func searchScores(ctx context.Context, r Retriever, query string, k int) ([]int, []float64, error) {
	if sr, ok := r.(ScoredRetriever); ok {
		return sr.SearchScores(ctx, query, k)
	}
	ids, err := r.Search(ctx, query, k)
	return ids, rankScores(len(ids)), err
}

// rankScores returns 1/(60 + rank) for ranks 1 to n, the reciprocal-rank
// scores of a ranking that has no scores of its own.
func rankScores(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1 / float64(60+i+1)
	}
	return out
}

// BM25 is the Okapi BM25 ranking function over lowercased words (runs of
// letters and digits), with Lucene's always-positive IDF,
// ln(1 + (N - df + 0.5) / (df + 0.5)). It needs no model, so evaluations
// run anywhere.
type BM25 struct {
	K1, B float64

	postings map[string][]posting
	lengths  []float64
	avgLen   float64
}

type posting struct {
	doc int32
	tf  float32
}

// NewBM25 returns a BM25 retriever with k1 = 1.2 and b = 0.75.
func NewBM25() *BM25 { return &BM25{K1: 1.2, B: 0.75} }

// Name returns "bm25".
func (b *BM25) Name() string { return "bm25" }

// Index builds the inverted index of texts.
func (b *BM25) Index(ctx context.Context, texts []string) error {
	b.postings = map[string][]posting{}
	b.lengths = make([]float64, len(texts))
	total := 0.0
	tf := map[string]int{}
	for i, t := range texts {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		clear(tf)
		n := 0
		words(t, func(w string) {
			tf[w]++
			n++
		})
		for w, c := range tf {
			b.postings[w] = append(b.postings[w], posting{int32(i), float32(c)})
		}
		b.lengths[i] = float64(n)
		total += float64(n)
	}
	if len(texts) > 0 {
		b.avgLen = total / float64(len(texts))
	}
	return nil
}

// Search scores every text sharing a word with query.
func (b *BM25) Search(ctx context.Context, query string, k int) ([]int, error) {
	ids, _, err := b.SearchScores(ctx, query, k)
	return ids, err
}

// SearchScores is Search with the BM25 scores.
func (b *BM25) SearchScores(ctx context.Context, query string, k int) ([]int, []float64, error) {
	scores := map[int32]float64{}
	n := float64(len(b.lengths))
	seen := map[string]bool{}
	words(query, func(w string) {
		if seen[w] {
			return
		}
		seen[w] = true
		ps := b.postings[w]
		if len(ps) == 0 {
			return
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := b.K1 * (1 - b.B + b.B*b.lengths[p.doc]/max(b.avgLen, 1e-9))
			scores[p.doc] += idf * tf * (b.K1 + 1) / (tf + norm)
		}
	})
	ids, ss := topKScored(len(scores), k, func(yield func(int, float64)) {
		for d, s := range scores {
			yield(int(d), s)
		}
	})
	return ids, ss, nil
}

// words calls fn with each lowercased run of letters and digits of s.
func words(s string, fn func(string)) {
	var buf []byte
	flush := func() {
		if len(buf) > 0 {
			fn(string(buf))
			buf = buf[:0]
		}
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		} else {
			flush()
		}
	}
	flush()
}

// Dense ranks texts by the cosine similarity of their embeddings to the
// query's, with an exact flat index held in memory (MaxBytes bounds it).
// An embedder that can be fitted to a collection (the lexical one: the
// inverse document frequency of each term among the chunks, see
// embed.Lexical.ForCollection) is fitted to the chunks being indexed, and
// queries are embedded with the fitted one: a term rare in the collection
// weighs more than a common one, as in BM25.
type Dense struct {
	Embedder embed.Embedder
	// MaxBytes bounds the index's vectors; 0 means 4 GiB.
	MaxBytes int64
	// NoFit keeps the embedder as it is (no IDF of the collection).
	NoFit bool

	fitted  embed.Embedder
	vectors [][]float32
}

// Name returns the embedder's model id.
func (d *Dense) Name() string { return "dense:" + d.Embedder.ModelID() }

// Index embeds texts.
func (d *Dense) Index(ctx context.Context, texts []string) error {
	limit := d.MaxBytes
	if limit <= 0 {
		limit = 4 << 30
	}
	if dim := int64(d.Embedder.Dim()); dim > 0 && int64(len(texts))*dim*4 > limit {
		return fmt.Errorf("dense index of %d vectors of %d dimensions exceeds %d bytes", len(texts), dim, limit)
	}
	d.fitted = d.Embedder
	if !d.NoFit {
		d.fitted = embed.ForCollection(d.Embedder, texts)
	}
	vs, err := d.fitted.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed chunks: %w", err)
	}
	for _, v := range vs {
		vec.Normalize(v)
	}
	d.vectors = vs
	return nil
}

// Search embeds query and returns the k nearest texts.
func (d *Dense) Search(ctx context.Context, query string, k int) ([]int, error) {
	ids, _, err := d.SearchScores(ctx, query, k)
	return ids, err
}

// SearchScores is Search with the cosine similarities.
func (d *Dense) SearchScores(ctx context.Context, query string, k int) ([]int, []float64, error) {
	em := d.fitted
	if em == nil {
		em = d.Embedder
	}
	qv, err := em.Embed(ctx, []string{query})
	if err != nil {
		return nil, nil, fmt.Errorf("embed query: %w", err)
	}
	q := vec.Normalize(qv[0])
	ids, ss := topKScored(len(d.vectors), k, func(yield func(int, float64)) {
		for i, v := range d.vectors {
			yield(i, float64(vec.Dot(q, v)))
		}
	})
	return ids, ss, nil
}

// topK returns the indexes of the k highest scores, best first, ties to
// the lower index.
func topK(n, k int, each func(yield func(int, float64))) []int {
	ids, _ := topKScored(n, k, each)
	return ids
}

// topKScored is topK with the scores.
func topKScored(n, k int, each func(yield func(int, float64))) ([]int, []float64) {
	if k <= 0 || n == 0 {
		return nil, nil
	}
	h := &scoreHeap{}
	each(func(i int, s float64) {
		if h.Len() < k {
			heap.Push(h, scored{i, s})
			return
		}
		if worse((*h)[0], scored{i, s}) {
			(*h)[0] = scored{i, s}
			heap.Fix(h, 0)
		}
	})
	out := make([]int, h.Len())
	scores := make([]float64, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		x := heap.Pop(h).(scored)
		out[i], scores[i] = x.i, x.s
	}
	return out, scores
}

type scored struct {
	i int
	s float64
}

// worse reports whether a ranks below b.
func worse(a, b scored) bool {
	if a.s != b.s {
		return a.s < b.s
	}
	return a.i > b.i
}

// scoreHeap is a min-heap of the k best so far (the worst on top).
type scoreHeap []scored

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Hybrid fuses the rankings of several retrievers (BM25 and dense, say) by
// reciprocal rank fusion (Cormack et al., 2009; k = 60): a text scores the
// sum of 1/(60 + rank) over the rankings, each cut at Depth (default
// max(10·k, 100)).
type Hybrid struct {
	Retrievers []Retriever
	Depth      int
}

// Name joins the retrievers' names.
func (h *Hybrid) Name() string {
	names := make([]string, len(h.Retrievers))
	for i, r := range h.Retrievers {
		names[i] = r.Name()
	}
	return "hybrid(" + strings.Join(names, "+") + ")"
}

// Index indexes texts in every retriever.
func (h *Hybrid) Index(ctx context.Context, texts []string) error {
	for _, r := range h.Retrievers {
		if err := r.Index(ctx, texts); err != nil {
			return err
		}
	}
	return nil
}

// Search fuses the retrievers' rankings.
func (h *Hybrid) Search(ctx context.Context, query string, k int) ([]int, error) {
	ids, _, err := h.SearchScores(ctx, query, k)
	return ids, err
}

// SearchScores is Search with the fused reciprocal-rank scores.
func (h *Hybrid) SearchScores(ctx context.Context, query string, k int) ([]int, []float64, error) {
	depth := h.Depth
	if depth <= 0 {
		depth = max(10*k, 100)
	}
	score := map[int]float64{}
	for _, r := range h.Retrievers {
		ids, err := r.Search(ctx, query, depth)
		if err != nil {
			return nil, nil, err
		}
		for rank, id := range ids {
			score[id] += 1 / float64(60+rank+1)
		}
	}
	ids := make([]int, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	top, ss := topKScored(len(ids), k, func(yield func(int, float64)) {
		for _, id := range ids {
			yield(id, score[id])
		}
	})
	return top, ss, nil
}

// NewRetriever returns a factory of the retriever named: "bm25", an
// embedder's name for dense retrieval ("lexical", "static:…", "onnx:…",
// "openai:…"; newEmbedder builds it, once), or "hybrid:EMBEDDER" for BM25
// and that dense retrieval fused.
func NewRetriever(name string, newEmbedder func(name string) (embed.Embedder, error)) (func() Retriever, error) {
	if name == "" || name == "bm25" {
		return func() Retriever { return NewBM25() }, nil
	}
	hybrid := strings.HasPrefix(name, "hybrid:")
	em, err := newEmbedder(strings.TrimPrefix(name, "hybrid:"))
	if err != nil {
		return nil, err
	}
	if hybrid {
		return func() Retriever { return &Hybrid{Retrievers: []Retriever{NewBM25(), &Dense{Embedder: em}}} }, nil
	}
	return func() Retriever { return &Dense{Embedder: em} }, nil
}
