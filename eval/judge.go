package eval

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/vec"
)

// Judge computes RAGAS's LLM-judged metrics of the chunks an evaluation
// retrieves (after reranking when there is a reranker), through an
// OpenAI-compatible chat model. For each judged question:
//
//   - LLM context precision: the model marks each of the k retrieved
//     chunks useful or not for giving the reference answer (the text of the
//     question's reference excerpts); the score is the mean of precision@i
//     over the ranks i of the useful chunks, so useful chunks ranked first
//     score higher (0 when none is useful).
//   - LLM context recall: the model splits the reference answer into
//     claims and says which the retrieved chunks support; the score is the
//     supported share.
//   - Faithfulness: the model answers the question from the retrieved
//     chunks; that answer is split into claims, and the score is the share
//     the chunks support.
//   - Answer relevancy: the model writes Strictness questions the answer
//     responds to; the score is the mean cosine similarity of their
//     embeddings with the question's (0 for a noncommittal answer).
//
// These are not Chroma's token-level precision and recall (Metrics): those
// measure the overlap of retrieved text with the reference excerpts, these
// a model's reading. Prompts are versioned in package llm (judge_context_v1,
// judge_support_v1, answer_v1, judge_questions_v1) and ask for JSON of a
// schema; the client's cache makes a rerun free and identical.
type Judge struct {
	Model *llm.Client
	// Embedder embeds questions for answer relevancy; nil means the
	// built-in lexical embedder (a neural one reads paraphrases better).
	Embedder embed.Embedder
	// Strictness is the number of questions generated per answer for
	// answer relevancy; 0 means 3, as in RAGAS.
	Strictness int
	// Sample bounds the questions judged: 0 judges all, n judges n spread
	// evenly over the data set (the same ones on every run).
	Sample int
	// Concurrency is the number of questions judged at once; 0 means 8.
	// The model client bounds requests in flight and their rate.
	Concurrency int
	// PriceInput and PriceOutput are dollars per million prompt and
	// completion tokens; when set the report gives the cost.
	PriceInput, PriceOutput float64
}

// JudgePrompts are the versions of the prompts the judge asks.
var JudgePrompts = []string{"judge_context_v1", "judge_support_v1", "answer_v1", "judge_questions_v1"}

// Judged holds the LLM-judged metrics of one configuration, means over
// the judged questions with their standard deviations and counts (a
// question whose answer has no claim has no faithfulness).
type Judged struct {
	Model    string   `json:"model"`
	Prompts  []string `json:"prompts"`
	Contexts string   `json:"contexts"`
	// Questions is the number of questions judged.
	Questions        int        `json:"questions"`
	ContextPrecision JudgedStat `json:"llm_context_precision"`
	ContextRecall    JudgedStat `json:"llm_context_recall"`
	Faithfulness     JudgedStat `json:"faithfulness"`
	AnswerRelevancy  JudgedStat `json:"answer_relevancy"`
	// Usage counts every model call; cached calls cost nothing.
	Usage llm.Usage `json:"usage"`
	// CostUSD is what this run's uncached calls cost, and CostUncachedUSD
	// what the same run costs with an empty cache (with prices given).
	CostUSD         *float64 `json:"cost_usd,omitempty"`
	CostUncachedUSD *float64 `json:"cost_uncached_usd,omitempty"`
	// PerQuestion are the judged questions' scores (NaN where a metric
	// has none), by question index.
	PerQuestion map[int]JudgedScores `json:"-"`
}

// JudgedStat is a mean with its population standard deviation over N
// questions.
type JudgedStat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	N    int     `json:"n"`
}

// JudgedScores are one question's judged scores.
type JudgedScores struct {
	ContextPrecision, ContextRecall, Faithfulness, AnswerRelevancy float64
	Answer                                                         string
	// Generation is the seconds the answer took (0 when it was cached).
	Generation float64
}

// asker renders a prompt with data, asks the model and decodes its JSON
// answer into v.
type asker func(ctx context.Context, p *llm.Prompt, data, v any) (llm.Response, error)

type judgePrompts struct{ context, support, answer, questions *llm.Prompt }

// passage is a numbered text in a prompt.
type passage struct {
	N    int
	Text string
}

// Run judges the contexts retrieved for the questions of d: contexts[i]
// are the texts of question i's chunks, best first; which names them
// ("retrieved" or "reranked") in the result.
func (j *Judge) Run(ctx context.Context, d *Dataset, contexts [][]string, which string) (*Judged, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	var ps judgePrompts
	for i, dst := range []**llm.Prompt{&ps.context, &ps.support, &ps.answer, &ps.questions} {
		p, err := llm.LoadPrompt(JudgePrompts[i])
		if err != nil {
			return nil, err
		}
		*dst = p
	}
	emb := j.Embedder
	if emb == nil {
		emb = embed.NewLexical(embed.LexicalConfig{})
	}
	strict := cmpOrInt(j.Strictness, 3)
	picked := sampleIndexes(len(d.Questions), j.Sample)
	out := &Judged{Model: j.Model.Model(), Prompts: JudgePrompts, Contexts: which, Questions: len(picked), PerQuestion: map[int]JudgedScores{}}
	var mu sync.Mutex
	var spent, all llm.Usage
	account := func(r llm.Response) {
		mu.Lock()
		defer mu.Unlock()
		out.Usage.Merge(r.Usage())
		all.PromptTokens += r.PromptTokens
		all.CompletionTokens += r.CompletionTokens
		if !r.Cached {
			spent.PromptTokens += r.PromptTokens
			spent.CompletionTokens += r.CompletionTokens
		}
	}
	ask := func(ctx context.Context, p *llm.Prompt, data any, v any) (llm.Response, error) {
		req, err := p.Request(data)
		if err != nil {
			return llm.Response{}, err
		}
		r, err := j.Model.Complete(ctx, req)
		if err != nil {
			return r, fmt.Errorf("%s: %w", p.Name, err)
		}
		account(r)
		if err := llm.ParseJSON(r.Content, v); err != nil {
			return r, fmt.Errorf("%s: %w", p.Name, err)
		}
		return r, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmpOrInt(j.Concurrency, 8))
	for _, qi := range picked {
		g.Go(func() error {
			s, err := j.question(gctx, ps, ask, emb, strict, d.Questions[qi], d.referenceText(d.Questions[qi]), contexts[qi])
			if err != nil {
				return fmt.Errorf("judge question %d (%.60q): %w", qi, d.Questions[qi].Text, err)
			}
			mu.Lock()
			out.PerQuestion[qi] = s
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var cp, cr, fa, ar []float64
	for _, qi := range picked {
		s := out.PerQuestion[qi]
		for _, m := range []struct {
			v   float64
			dst *[]float64
		}{{s.ContextPrecision, &cp}, {s.ContextRecall, &cr}, {s.Faithfulness, &fa}, {s.AnswerRelevancy, &ar}} {
			if !math.IsNaN(m.v) {
				*m.dst = append(*m.dst, m.v)
			}
		}
	}
	js := func(xs []float64) JudgedStat { st := stat(xs); return JudgedStat{st.Mean, st.Std, len(xs)} }
	out.ContextPrecision, out.ContextRecall, out.Faithfulness, out.AnswerRelevancy = js(cp), js(cr), js(fa), js(ar)
	if j.PriceInput > 0 || j.PriceOutput > 0 {
		cost := func(u llm.Usage) *float64 {
			c := (float64(u.PromptTokens)*j.PriceInput + float64(u.CompletionTokens)*j.PriceOutput) / 1e6
			return &c
		}
		out.CostUSD, out.CostUncachedUSD = cost(spent), cost(all)
	}
	return out, nil
}

func (j *Judge) check() error {
	if j.Model == nil {
		return fmt.Errorf("%w: the judge needs a chat model: give --llm-model (and --llm-url for a server other than OpenAI)", gochunk.ErrConfig)
	}
	return nil
}

// question judges one question's contexts.
func (j *Judge) question(ctx context.Context, ps judgePrompts, ask asker,
	emb embed.Embedder, strict int, q Question, reference string, contexts []string) (JudgedScores, error) {
	s := JudgedScores{ContextPrecision: math.NaN(), ContextRecall: math.NaN(), Faithfulness: math.NaN(), AnswerRelevancy: math.NaN()}
	passages := make([]passage, len(contexts))
	for i, t := range contexts {
		passages[i] = passage{i + 1, t}
	}
	if len(passages) == 0 {
		return s, nil
	}
	// Context precision.
	var useful struct {
		Useful []bool `json:"useful"`
	}
	if _, err := ask(ctx, ps.context, map[string]any{"Question": q.Text, "Reference": reference, "Passages": passages}, &useful); err != nil {
		return s, err
	}
	if len(useful.Useful) != len(passages) {
		return s, fmt.Errorf("%s: the model gave %d verdicts for %d passages", ps.context.Name, len(useful.Useful), len(passages))
	}
	s.ContextPrecision = ContextPrecision(useful.Useful)
	// Context recall: the reference's claims supported by the contexts.
	var err error
	if s.ContextRecall, err = supported(ctx, ps.support, ask, reference, passages); err != nil {
		return s, err
	}
	// An answer from the contexts, its faithfulness and relevancy.
	var answer struct {
		Answer string `json:"answer"`
	}
	r, err := ask(ctx, ps.answer, map[string]any{"Question": q.Text, "Passages": passages}, &answer)
	if err != nil {
		return s, err
	}
	if !r.Cached {
		s.Generation = r.Latency.Seconds()
	}
	s.Answer = answer.Answer
	if s.Faithfulness, err = supported(ctx, ps.support, ask, answer.Answer, passages); err != nil {
		return s, err
	}
	var gq struct {
		Questions    []string `json:"questions"`
		Noncommittal bool     `json:"noncommittal"`
	}
	if _, err := ask(ctx, ps.questions, map[string]any{"Answer": answer.Answer, "N": strict}, &gq); err != nil {
		return s, err
	}
	if s.AnswerRelevancy, err = answerRelevancy(ctx, emb, q.Text, gq.Questions, gq.Noncommittal); err != nil {
		return s, err
	}
	return s, nil
}

// supported asks which claims of text the passages support and returns
// the supported share; NaN when the model finds no claim.
func supported(ctx context.Context, p *llm.Prompt, ask asker, text string, passages []passage) (float64, error) {
	var ans struct {
		Claims []struct {
			Claim     string `json:"claim"`
			Supported bool   `json:"supported"`
		} `json:"claims"`
	}
	if _, err := ask(ctx, p, map[string]any{"Text": text, "Passages": passages}, &ans); err != nil {
		return 0, err
	}
	if len(ans.Claims) == 0 {
		return math.NaN(), nil
	}
	n := 0
	for _, c := range ans.Claims {
		if c.Supported {
			n++
		}
	}
	return float64(n) / float64(len(ans.Claims)), nil
}

// ContextPrecision is RAGAS's context precision of ranked verdicts: the
// mean over the useful ranks i of precision@i (the useful share of the
// first i); 0 when none is useful.
func ContextPrecision(useful []bool) float64 {
	hits, sum := 0, 0.0
	for i, u := range useful {
		if u {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	if hits == 0 {
		return 0
	}
	return sum / float64(hits)
}

// answerRelevancy is the mean cosine similarity of the generated
// questions with the question, 0 for a noncommittal answer or none.
func answerRelevancy(ctx context.Context, emb gochunk.Embedder, question string, generated []string, noncommittal bool) (float64, error) {
	if noncommittal || len(generated) == 0 {
		return 0, nil
	}
	vs, err := emb.Embed(ctx, append([]string{question}, generated...))
	if err != nil {
		return 0, fmt.Errorf("answer relevancy: embed: %w", err)
	}
	sum := 0.0
	for _, v := range vs[1:] {
		sum += float64(vec.Cosine(vs[0], v))
	}
	return sum / float64(len(generated)), nil
}

// ParsePrices reads "IN,OUT", dollars per million prompt and completion
// tokens.
func ParsePrices(s string) (in, out float64, err error) {
	a, b, ok := strings.Cut(s, ",")
	if ok {
		if in, err = strconv.ParseFloat(strings.TrimSpace(a), 64); err == nil {
			out, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
		}
	}
	if !ok || err != nil || in < 0 || out < 0 {
		return 0, 0, fmt.Errorf("prices %q: want IN,OUT, dollars per million prompt and completion tokens, such as 0.15,0.60", s)
	}
	return in, out, nil
}

// sampleIndexes returns n indexes of [0, total) spread evenly (all of them
// when n is 0 or at least total).
func sampleIndexes(total, n int) []int {
	if n <= 0 || n >= total {
		n = total
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i * total / n
	}
	return out
}

// referenceText is the text of q's reference excerpts, joined by blank
// lines: the reference answer the judge compares with.
func (d *Dataset) referenceText(q Question) string {
	var parts []string
	for _, r := range q.References {
		t := r.Content
		if t == "" {
			for _, c := range d.Corpora {
				if c.ID == r.Corpus {
					t = runeSlice(c.Text, r.Start, r.End)
				}
			}
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "\n\n")
}

// runeSlice returns s from code point start to code point end.
func runeSlice(s string, start, end int) string {
	from, to, n := len(s), len(s), 0
	for i := range s {
		if n == start {
			from = i
		}
		if n == end {
			to = i
			break
		}
		n++
	}
	return s[from:to]
}
