package eval

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/vec"
)

// Config is one chunker configuration to evaluate.
type Config struct {
	// Name labels the configuration in reports.
	Name    string
	Chunker gochunk.Chunker
	// Chunker and tokenizer names and parameters, for reports.
	ChunkerName string
	Tokenizer   string
	Params      map[string]any
	// ByCorpus, when set, chunks the corpora it names instead of Chunker
	// (a budget's per-corpus sizes).
	ByCorpus map[string]gochunk.Chunker
}

// EmbedTexter is implemented by chunkers whose chunks are indexed with a
// text of their own (their context and their text, see
// pipeline.Pipeline.EmbedTexts): an evaluation retrieves over those texts,
// while references and what a question gets back stay the chunks' texts
// and offsets, so the budget of returned tokens does not change.
type EmbedTexter interface {
	EmbedTexts(doc gochunk.Document, chunks []gochunk.Chunk) ([]string, error)
}

// Options control an evaluation.
type Options struct {
	// K is the number of chunks retrieved per question; 0 means 5.
	K int
	// NewRetriever returns a fresh retriever for each configuration; nil
	// means BM25.
	NewRetriever func() Retriever
	// Cohesion, when set, embeds the sentences of each corpus to compute
	// the S2 cohesion score.
	Cohesion embed.Embedder
	// Progress, when set, is called as questions are scored.
	Progress func(done, total int)
	// Deadline, when set, stops Compare from starting a configuration
	// after it (those left are named in Report.NotTried); the ones started
	// finish.
	Deadline time.Time
	// Budget, when set, holds every candidate of Compare to the number of
	// chunks of each corpus it gives.
	Budget *Budget
	// Reranker, when set, reorders the top RerankTop retrieved chunks
	// (default 20, at least K) of every question; the result reports the
	// metrics of its top K beside those of retrieval alone.
	Reranker  Reranker
	RerankTop int
	// Judge, when set, computes LLM-judged metrics of the top K, retrieved
	// and (with a reranker) reranked, and the generation latency.
	Judge *Judge
	// ReturnTokens, when positive, replaces K by a budget: each question
	// gets the best chunks (or parents) whose sizes, in the chunks' unit,
	// add up to at most this many tokens, so that configurations that
	// return more text per hit are compared at an equal budget.
	ReturnTokens int
	// Expand "parent" returns each retrieved chunk's parent, and Merge (2
	// or more) a parent in place of its retrieved children when that many
	// of them are returned and their scores outweigh what the parent
	// displaces from the budget (the decision of gochunk search, package
	// automerge), for chunkers that make two levels (Leveled).
	Expand string
	Merge  int
}

// Latency holds, per stage, the median and 95th percentile of the seconds
// a question takes: chunking_amortised (chunking and indexing over the
// questions), retrieval (query embedding included), rerank, end_to_end (the
// three), end_to_end_without_rerank (with a reranker), and with a judge,
// generation (of the final chunks' answers not cached) and
// end_to_end_with_generation (and end_to_end_without_rerank_with_generation
// with a reranker).
type Latency map[string]Quantiles

// Quantiles are a median and a 95th percentile, in seconds.
type Quantiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

func quantiles(xs []float64) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return Quantiles{at(0.5), at(0.95)}
}

// Metrics are averages over questions (fractions in [0, 1]) with their
// population standard deviations.
type Metrics struct {
	Recall            float64 `json:"recall"`
	RecallStd         float64 `json:"recall_std"`
	Precision         float64 `json:"precision"`
	PrecisionStd      float64 `json:"precision_std"`
	PrecisionOmega    float64 `json:"precision_omega"`
	PrecisionOmegaStd float64 `json:"precision_omega_std"`
	IoU               float64 `json:"iou"`
	IoUStd            float64 `json:"iou_std"`
	Questions         int     `json:"questions"`
	Chunks            int     `json:"chunks"`
	// HitRate is the share of questions that get back some of their
	// references' text (recall above 0): 1 − HitRate of them get nothing
	// relevant.
	HitRate float64 `json:"hit_rate"`
}

// Efficiency describes the chunks and the time spent.
type Efficiency struct {
	Chunks       int     `json:"chunks"`
	MeanTokens   float64 `json:"mean_tokens"`
	MedianTokens float64 `json:"median_tokens"`
	MaxTokens    int     `json:"max_tokens"`
	// ReturnedTokens is the mean size of what a question gets back (its
	// chunks or parents), in the chunks' unit.
	ReturnedTokens float64 `json:"returned_tokens"`
	ChunkSeconds   float64 `json:"chunk_seconds"`
	EmbedSeconds   float64 `json:"embed_seconds"`
	ScoreSeconds   float64 `json:"score_seconds"`
	TokenCounts    []int   `json:"-"`
	CorporaChunks  []int   `json:"-"`
}

// Boundary holds the metrics that need gold structure or embeddings;
// fields are nil when the data set lacks what they need.
type Boundary struct {
	// SeamRecall is the share of gold seams that a chunk boundary finds,
	// and BoundaryPrecision the share of chunk boundaries at a gold seam
	// (both within SeamTolerance bytes), over all corpora with gold
	// boundaries.
	SeamRecall        *float64 `json:"seam_recall,omitempty"`
	BoundaryPrecision *float64 `json:"boundary_precision,omitempty"`
	Pk                *float64 `json:"pk,omitempty"`
	WindowDiff        *float64 `json:"window_diff,omitempty"`
	Purity            *float64 `json:"purity,omitempty"`
	NMI               *float64 `json:"nmi,omitempty"`
	Cohesion          *float64 `json:"cohesion,omitempty"`
	// LayoutConsistency needs corpora with layout elements.
	LayoutConsistency *float64 `json:"layout_consistency,omitempty"`
}

// Result is the evaluation of one configuration.
type Result struct {
	Name       string             `json:"name"`
	Chunker    string             `json:"chunker"`
	Tokenizer  string             `json:"tokenizer"`
	Params     map[string]any     `json:"params,omitempty"`
	Retriever  string             `json:"retriever"`
	K          int                `json:"k"`
	Overall    Metrics            `json:"overall"`
	PerCorpus  map[string]Metrics `json:"per_corpus"`
	Efficiency Efficiency         `json:"efficiency"`
	Boundary   Boundary           `json:"boundary"`
	Warnings   []string           `json:"warnings,omitempty"`
	// Scores are the per-question scores behind Overall, in the data
	// set's question order (for paired comparisons).
	Scores []QuestionScores `json:"-"`
	// BudgetSizes are the sizes a budget chose, by corpus.
	BudgetSizes map[string]int `json:"budget_sizes,omitempty"`
	// Reranked holds the metrics after reranking (Options.Reranker), by
	// the reranker named Reranker; Latency the seconds per question.
	Reranker          string             `json:"reranker,omitempty"`
	Reranked          *Metrics           `json:"reranked,omitempty"`
	RerankedPerCorpus map[string]Metrics `json:"reranked_per_corpus,omitempty"`
	Latency           Latency            `json:"latency,omitempty"`
	// ReportCard, for chunks made elsewhere (ImportChunks), says how many
	// held their offsets, were found by their text or were not found, and
	// what the corpora lost.
	ReportCard *ReportCard `json:"report_card,omitempty"`
	// Judged holds the LLM-judged metrics (Options.Judge) of the
	// retrieved chunks, JudgedReranked those of the reranked chunks.
	Judged         *Judged `json:"judged,omitempty"`
	JudgedReranked *Judged `json:"judged_reranked,omitempty"`
}

// QuestionScores are one question's scores.
type QuestionScores struct{ Recall, Precision, PrecisionOmega, IoU float64 }

// Hit is 1 when the question got back some of its references' text.
func (q QuestionScores) Hit() float64 {
	if q.Recall > 0 {
		return 1
	}
	return 0
}

// Evaluate chunks every corpus of d with cfg, indexes all chunks in one
// retriever (so, as in Chroma's evaluation, a question may retrieve chunks
// of other corpora, which count against precision), retrieves the top K
// for each question and scores them.
func Evaluate(ctx context.Context, d *Dataset, cfg Config, opt Options) (*Result, error) {
	if opt.K <= 0 {
		opt.K = 5
	}
	if opt.Judge != nil {
		if err := opt.Judge.check(); err != nil {
			return nil, err
		}
	}
	newRetriever := opt.NewRetriever
	if newRetriever == nil {
		newRetriever = func() Retriever { return NewBM25() }
	}
	res := &Result{Name: cfg.Name, Chunker: cfg.ChunkerName, Tokenizer: cfg.Tokenizer, Params: cfg.Params, K: opt.K, PerCorpus: map[string]Metrics{}}

	// Chunk.
	var refs []ChunkRef
	var texts, indexed []string
	var tokens, parentOf []int
	type corpusParents struct {
		corpus  string
		text    string
		parents []record.Parent
		first   int   // the id of the corpus's first chunk
		of      []int // each chunk's parent
	}
	var leveled []corpusParents
	byCorpus := map[string][]int{}
	perCorpusChunks := map[string][]gochunk.Chunk{}
	start := time.Now()
	for _, c := range d.Corpora {
		chunker := cfg.Chunker
		if ch, ok := cfg.ByCorpus[c.ID]; ok {
			chunker = ch
		}
		doc := gochunk.Document{ID: c.ID, Text: c.Text, Elements: c.Elements}
		chunks, err := chunker.Chunk(ctx, doc)
		if err != nil {
			return nil, fmt.Errorf("chunk corpus %q: %w", c.ID, err)
		}
		var embedTexts []string
		if et, ok := chunker.(EmbedTexter); ok {
			if embedTexts, err = et.EmbedTexts(doc, chunks); err != nil {
				return nil, fmt.Errorf("context of corpus %q: %w", c.ID, err)
			}
		}
		if lv, ok := chunker.(Leveled); ok && (opt.Expand != "" || opt.Merge >= 2) {
			ps, of, err := lv.Parents(doc, chunks)
			if err != nil {
				return nil, fmt.Errorf("parents of corpus %q: %w", c.ID, err)
			}
			leveled = append(leveled, corpusParents{c.ID, c.Text, ps, len(refs), of})
		}
		if len(chunks) == 0 && c.Text != "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the chunker returned no chunks for corpus %q: its questions score 0", c.ID))
		}
		perCorpusChunks[c.ID] = chunks
		for k, ch := range chunks {
			r := ChunkRef{Corpus: c.ID}
			for _, s := range ch.Spans {
				r.Spans = append(r.Spans, Range{s.StartRune, s.EndRune})
			}
			byCorpus[c.ID] = append(byCorpus[c.ID], len(refs))
			refs = append(refs, r)
			texts = append(texts, ch.Text)
			if k < len(embedTexts) && embedTexts[k] != "" {
				indexed = append(indexed, embedTexts[k])
			} else {
				indexed = append(indexed, ch.Text)
			}
			res.Efficiency.TokenCounts = append(res.Efficiency.TokenCounts, ch.TokenCount)
			tokens = append(tokens, ch.TokenCount)
		}
	}
	// Parents follow the chunks in refs, so that what a question gets
	// back can be a parent; they are not indexed.
	chunkCount := len(refs)
	parentOf = make([]int, chunkCount)
	for i := range parentOf {
		parentOf[i] = -1
	}
	for _, lv := range leveled {
		base := len(refs)
		for _, p := range lv.parents {
			refs = append(refs, ChunkRef{Corpus: lv.corpus, Spans: []Range{{p.StartRune, p.EndRune}}})
			texts = append(texts, lv.text[p.Start:p.End])
			tokens = append(tokens, p.TokenCount)
		}
		for k, p := range lv.of {
			if p >= 0 {
				parentOf[lv.first+k] = base + p
			}
		}
	}
	res.Efficiency.ChunkSeconds = time.Since(start).Seconds()
	fillSizes(&res.Efficiency)

	if len(d.Questions) == 0 {
		// A segmentation data set: boundary metrics only.
		for id, cs := range perCorpusChunks {
			res.PerCorpus[id] = Metrics{Chunks: len(cs)}
		}
		res.Overall.Chunks = len(refs)
		if err := boundaryMetrics(ctx, d, perCorpusChunks, opt.Cohesion, &res.Boundary); err != nil {
			return nil, err
		}
		return res, nil
	}

	// Index and retrieve.
	retr := newRetriever()
	res.Retriever = retr.Name()
	start = time.Now()
	if err := retr.Index(ctx, indexed); err != nil {
		return nil, fmt.Errorf("index chunks: %w", err)
	}
	indexSeconds := time.Since(start).Seconds()
	depth := opt.K
	if opt.Reranker != nil {
		depth = max(opt.K, cmpOrInt(opt.RerankTop, 20))
	}
	if opt.ReturnTokens > 0 || opt.Expand != "" || opt.Merge >= 2 {
		depth = max(depth, 50) // what is returned is assembled from more
	}
	retrieved := make([][]int, len(d.Questions))
	var reranked [][]int
	stages := map[string][]float64{}
	amortised := (res.Efficiency.ChunkSeconds + indexSeconds) / float64(len(d.Questions))
	for i, q := range d.Questions {
		began := time.Now()
		ids, scores, err := searchScores(ctx, retr, q.Text, depth)
		if err != nil {
			return nil, fmt.Errorf("retrieve for question %d: %w", i, err)
		}
		t := time.Since(began).Seconds()
		stages["retrieval"] = append(stages["retrieval"], t)
		retrieved[i] = returned(ids, scores, opt.K, opt.ReturnTokens, opt.Expand, opt.Merge, parentOf, tokens)
		if opt.Reranker != nil {
			cands := make([]string, len(ids))
			for j, id := range ids {
				cands[j] = indexed[id]
			}
			began = time.Now()
			order, err := opt.Reranker.Rerank(ctx, q.Text, cands, opt.K)
			if err != nil {
				return nil, fmt.Errorf("rerank for question %d: %w", i, err)
			}
			r := time.Since(began).Seconds()
			stages["rerank"] = append(stages["rerank"], r)
			t += r
			top := make([]int, len(order))
			for j, o := range order {
				top[j] = ids[o]
			}
			reranked = append(reranked, returned(top, rankScores(len(top)), opt.K, opt.ReturnTokens, opt.Expand, opt.Merge, parentOf, tokens))
		}
		stages["chunking_amortised"] = append(stages["chunking_amortised"], amortised)
		stages["end_to_end"] = append(stages["end_to_end"], t+amortised)
		if opt.Reranker != nil {
			stages["end_to_end_without_rerank"] = append(stages["end_to_end_without_rerank"], stages["retrieval"][i]+amortised)
		}
	}
	res.Efficiency.EmbedSeconds = time.Since(start).Seconds()
	for _, ids := range retrieved {
		for _, id := range ids {
			res.Efficiency.ReturnedTokens += float64(tokens[id])
		}
	}
	res.Efficiency.ReturnedTokens /= float64(len(retrieved))
	res.Latency = Latency{}
	for stage, xs := range stages {
		res.Latency[stage] = quantiles(xs)
	}

	// Score.
	start = time.Now()
	var err error
	if res.Overall, res.PerCorpus, res.Scores, err = score(ctx, d, refs, byCorpus, retrieved, opt.Progress); err != nil {
		return nil, err
	}
	if reranked != nil {
		m, per, _, err := score(ctx, d, refs, byCorpus, reranked, nil)
		if err != nil {
			return nil, err
		}
		res.Reranker, res.Reranked, res.RerankedPerCorpus = opt.Reranker.Name(), &m, per
	}
	if opt.Judge != nil {
		contexts := func(lists [][]int) [][]string {
			out := make([][]string, len(lists))
			for i, ids := range lists {
				for _, id := range ids {
					out[i] = append(out[i], texts[id])
				}
			}
			return out
		}
		if res.Judged, err = opt.Judge.Run(ctx, d, contexts(retrieved), "retrieved"); err != nil {
			return nil, err
		}
		final := res.Judged
		if reranked != nil {
			if res.JudgedReranked, err = opt.Judge.Run(ctx, d, contexts(reranked), "reranked"); err != nil {
				return nil, err
			}
			final = res.JudgedReranked
			// The pipeline without the reranker, answering from the
			// retrieved chunks.
			if _, withGen := generation(res.Judged, stages["end_to_end_without_rerank"]); len(withGen) > 0 {
				res.Latency["end_to_end_without_rerank_with_generation"] = quantiles(withGen)
			}
		}
		if gen, withGen := generation(final, stages["end_to_end"]); len(gen) > 0 {
			res.Latency["generation"], res.Latency["end_to_end_with_generation"] = quantiles(gen), quantiles(withGen)
		}
	}
	res.Efficiency.ScoreSeconds = time.Since(start).Seconds()

	if err := boundaryMetrics(ctx, d, perCorpusChunks, opt.Cohesion, &res.Boundary); err != nil {
		return nil, err
	}
	return res, nil
}

func cmpOrInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// score scores the retrieved chunks of every question: overall, per
// corpus, and per question.
func score(ctx context.Context, d *Dataset, refs []ChunkRef, byCorpus map[string][]int, retrieved [][]int, progress func(done, total int)) (Metrics, map[string]Metrics, []QuestionScores, error) {
	type perQ struct{ r, p, o, iou, hit []float64 }
	all := perQ{}
	corp := map[string]*perQ{}
	var scores []QuestionScores
	for i, q := range d.Questions {
		if err := ctx.Err(); err != nil {
			return Metrics{}, nil, nil, err
		}
		got := make([]ChunkRef, len(retrieved[i]))
		for j, id := range retrieved[i] {
			got[j] = refs[id]
		}
		sc := RetrievalScores(q, got)
		var candidates []ChunkRef
		seen := map[string]bool{}
		for _, r := range q.References {
			if !seen[r.Corpus] {
				seen[r.Corpus] = true
				for _, id := range byCorpus[r.Corpus] {
					candidates = append(candidates, refs[id])
				}
			}
		}
		sc.PrecisionOmega = PrecisionOmega(q, candidates)
		scores = append(scores, QuestionScores{sc.Recall, sc.Precision, sc.PrecisionOmega, sc.IoU})
		for _, dst := range []*perQ{&all, corpusBucket(corp, q.Corpus())} {
			dst.r = append(dst.r, sc.Recall)
			dst.p = append(dst.p, sc.Precision)
			dst.o = append(dst.o, sc.PrecisionOmega)
			dst.iou = append(dst.iou, sc.IoU)
			dst.hit = append(dst.hit, scores[len(scores)-1].Hit())
		}
		if progress != nil {
			progress(i+1, len(d.Questions))
		}
	}
	metrics := func(b *perQ, chunks int) Metrics {
		r, p, o, iou := stat(b.r), stat(b.p), stat(b.o), stat(b.iou)
		return Metrics{r.Mean, r.Std, p.Mean, p.Std, o.Mean, o.Std, iou.Mean, iou.Std, len(b.r), chunks, stat(b.hit).Mean}
	}
	per := map[string]Metrics{}
	chunks := 0 // refs also holds parents, which are not chunks
	for id, b := range corp {
		per[id] = metrics(b, len(byCorpus[id]))
	}
	for _, ids := range byCorpus {
		chunks += len(ids)
	}
	return metrics(&all, chunks), per, scores, nil
}

func corpusBucket[T any](m map[string]*T, id string) *T {
	b := m[id]
	if b == nil {
		b = new(T)
		m[id] = b
	}
	return b
}

func fillSizes(e *Efficiency) {
	e.Chunks = len(e.TokenCounts)
	if e.Chunks == 0 {
		return
	}
	s := append([]int(nil), e.TokenCounts...)
	sort.Ints(s)
	sum := 0
	for _, n := range s {
		sum += n
	}
	e.MeanTokens = float64(sum) / float64(len(s))
	if len(s)%2 == 1 {
		e.MedianTokens = float64(s[len(s)/2])
	} else {
		e.MedianTokens = float64(s[len(s)/2-1]+s[len(s)/2]) / 2
	}
	e.MaxTokens = s[len(s)-1]
}

// boundaryMetrics computes Pk and WindowDiff (corpora with gold
// boundaries), purity and NMI (corpora with gold labels), and cohesion
// (with an embedder), averaged over corpora.
func boundaryMetrics(ctx context.Context, d *Dataset, chunks map[string][]gochunk.Chunk, emb embed.Embedder, out *Boundary) error {
	var pk, wd, coh, layoutScores []float64
	var assign []Assignment
	seams, found, bounds, atSeam := 0, 0, 0, 0
	for _, c := range d.Corpora {
		cs := chunks[c.ID]
		if len(c.Boundaries) > 0 {
			s := c.seamBytes()
			f, b, a := SeamScores(s, cs, SeamTolerance)
			seams, found, bounds, atSeam = seams+len(s), found+f, bounds+b, atSeam+a
			var hyp []int
			for _, ch := range cs {
				for _, s := range ch.Spans {
					hyp = append(hyp, s.StartRune)
				}
			}
			n := c.Runes()
			pk = append(pk, Pk(c.Boundaries, hyp, n))
			wd = append(wd, WindowDiff(c.Boundaries, hyp, n))
		}
		for ci, ch := range cs {
			for _, s := range ch.Spans {
				for _, l := range c.Labels {
					if in, ok := intersect(Range{s.StartRune, s.EndRune}, l.Range); ok && in.Len() > 0 {
						assign = append(assign, Assignment{fmt.Sprintf("%s#%d", c.ID, ci), l.Label, float64(in.Len())})
					}
				}
			}
		}
		if len(c.Elements) > 0 && len(cs) > 0 {
			layoutScores = append(layoutScores, LayoutConsistency(chunkElements(c.Elements, cs), func(i, j int) float64 {
				return Proximity(c.Elements[i], c.Elements[j])
			}))
		}
		if emb != nil && len(cs) > 0 {
			v, err := corpusCohesion(ctx, c.Text, cs, emb)
			if err != nil {
				return err
			}
			coh = append(coh, v)
		}
	}
	mean := func(xs []float64) *float64 {
		if len(xs) == 0 {
			return nil
		}
		m := stat(xs).Mean
		return &m
	}
	out.Pk, out.WindowDiff, out.Cohesion = mean(pk), mean(wd), mean(coh)
	if seams > 0 {
		r := float64(found) / float64(seams)
		out.SeamRecall = &r
	}
	if bounds > 0 {
		p := float64(atSeam) / float64(bounds)
		out.BoundaryPrecision = &p
	} else if seams > 0 {
		p := 0.0
		out.BoundaryPrecision = &p
	}
	out.LayoutConsistency = mean(layoutScores)
	if len(assign) > 0 {
		p, n := Purity(assign), NMI(assign)
		out.Purity, out.NMI = &p, &n
	}
	return nil
}

// chunkElements lists, for every chunk, the indexes of the elements its
// spans overlap, by binary search over the elements in text order.
func chunkElements(els []gochunk.Element, chunks []gochunk.Chunk) [][]int {
	var order []int
	for i, e := range els {
		if !e.Excluded && e.End > e.Start {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return els[order[a]].Start < els[order[b]].Start })
	out := make([][]int, len(chunks))
	for ci, ch := range chunks {
		for _, s := range ch.Spans {
			// Elements do not overlap, so their ends ascend too.
			k := sort.Search(len(order), func(k int) bool { return els[order[k]].End > s.Start })
			for ; k < len(order) && els[order[k]].Start < s.End; k++ {
				if n := len(out[ci]); n == 0 || out[ci][n-1] != order[k] {
					out[ci] = append(out[ci], order[k])
				}
			}
		}
	}
	return out
}

// corpusCohesion embeds the sentences of text and averages, over chunks,
// the pairwise similarity of the sentences that start in each chunk.
func corpusCohesion(ctx context.Context, text string, chunks []gochunk.Chunk, emb embed.Embedder) (float64, error) {
	sents := segment.Sentences(text)
	texts := make([]string, len(sents))
	for i, s := range sents {
		texts[i] = text[s.Start:s.End]
	}
	e := embed.ForDocument(emb, texts)
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return 0, fmt.Errorf("cohesion: %w", err)
	}
	groups := make([][]int, len(chunks))
	ci := 0
	for si, s := range sents {
		// Where the sentence's text starts, past leading white space.
		at := s.Start + len(texts[si]) - len(strings.TrimLeftFunc(texts[si], unicode.IsSpace))
		for ci < len(chunks) && chunks[ci].End() <= at {
			ci++
		}
		if ci == len(chunks) {
			break
		}
		for k := ci; k < len(chunks) && chunks[k].Start() <= at; k++ {
			if at < chunks[k].End() {
				groups[k] = append(groups[k], si)
				break
			}
		}
	}
	return Cohesion(groups, func(i, j int) float64 { return float64(vec.Cosine(vs[i], vs[j])) }), nil
}

// generation returns the seconds each judged question's answer took to
// generate (questions whose answer was cached left out), and those added
// to the question's end-to-end seconds.
func generation(j *Judged, endToEnd []float64) (gen, withGen []float64) {
	for i, s := range j.PerQuestion {
		if s.Generation > 0 {
			gen = append(gen, s.Generation)
			withGen = append(withGen, endToEnd[i]+s.Generation)
		}
	}
	return gen, withGen
}
