package eval

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// QuestionsPrompt is the versioned prompt Generate asks its questions
// with (llm/prompts/questions_v1): the model answers in the shape of
// Chroma's SyntheticEvaluation, {"question": …, "references": [exact
// excerpts]}.
const QuestionsPrompt = "questions_v1"

// GenerateConfig configures Generate. Zero values take the defaults named.
type GenerateConfig struct {
	// Questions is how many questions to keep in all, shared among the
	// corpora by their length (at least one each when there are as many);
	// 0 means 50.
	Questions int
	// Window is the length, in code points, of the excerpt of a corpus
	// each request shows the model; 0 means 4,000 (Chroma's).
	Window int
	// Seed draws the windows: the same seed, corpora and settings ask
	// the same requests, so a run answered from the model's cache is
	// identical.
	Seed uint64
	// MaxRequests bounds the requests; 0 means three per question.
	MaxRequests int
	// Approximate lets an excerpt the model did not copy exactly be found
	// by a whitespace-, quote- and dash-insensitive match (see
	// LocateExcerpt) instead of dropping its question.
	Approximate bool
	// MinRelevance drops a question when the cosine similarity of its
	// embedding with one of its excerpts' is under it (Chroma's filter of
	// poor excerpts); 0 means 0.36, Chroma's value for OpenAI's
	// text-embedding-3 models; negative keeps every question.
	MinRelevance float64
	// MaxSimilarity drops a question whose embedding's cosine similarity
	// with an earlier kept question of its corpus is above it (Chroma's
	// duplicate filter); 0 means 0.78, Chroma's value; 1 or more keeps
	// near-duplicates (identical questions are always dropped).
	MaxSimilarity float64
	// Model asks the questions (required).
	Model *llm.Client
	// Embedder embeds questions and excerpts for the two filters; nil
	// means the built-in lexical embedder.
	Embedder embed.Embedder
	// Progress, when set, is called after each round of requests.
	Progress func(GenerateProgress)
}

// GenerateProgress is where a Generate run stands.
type GenerateProgress struct {
	Requests, Kept, Target int
}

// GenerateStats accounts for a Generate run: every request and every
// question dropped, by reason.
type GenerateStats struct {
	Requests int `json:"requests"`
	Kept     int `json:"kept"`
	// Garbage counts answers that were not the JSON asked for, or whose
	// question or excerpts were empty.
	Garbage int `json:"garbage"`
	// NotFound counts questions dropped because an excerpt is not in the
	// text (with Approximate, not even by the approximate match).
	NotFound int `json:"not_found"`
	// Repaired counts excerpts found only by the approximate match.
	Repaired   int       `json:"repaired"`
	Irrelevant int       `json:"irrelevant"`
	Duplicates int       `json:"duplicates"`
	Failed     int       `json:"failed"` // requests that got no answer after the client's retries
	Usage      llm.Usage `json:"usage"`
}

// GenerateEstimate is what a Generate run will ask before it asks: the
// requests at least (one per question) and at most (MaxRequests), and the
// prompt tokens of each bound (cl100k_base counts of the prompts).
type GenerateEstimate struct {
	MinRequests, MaxRequests         int
	MinPromptTokens, MaxPromptTokens int
}

// ErrGenerate reports a Generate run that cannot start or kept nothing.
var ErrGenerate = errors.New("eval generate")

type genConfig struct {
	GenerateConfig
	prompt *llm.Prompt
}

func (cfg GenerateConfig) withDefaults() (genConfig, error) {
	c := genConfig{GenerateConfig: cfg}
	if c.Questions == 0 {
		c.Questions = 50
	}
	if c.Window == 0 {
		c.Window = 4000
	}
	if c.MaxRequests == 0 {
		c.MaxRequests = 3 * c.Questions
	}
	if c.MinRelevance == 0 {
		c.MinRelevance = 0.36
	}
	if c.MaxSimilarity == 0 {
		c.MaxSimilarity = 0.78
	}
	switch {
	case c.Questions < 0:
		return c, fmt.Errorf("%w: questions must be positive, got %d", ErrGenerate, c.Questions)
	case c.Window < 200:
		return c, fmt.Errorf("%w: window must be at least 200 code points, got %d", ErrGenerate, c.Window)
	case c.MaxRequests < c.Questions:
		return c, fmt.Errorf("%w: max requests (%d) must be at least the questions asked for (%d)", ErrGenerate, c.MaxRequests, c.Questions)
	}
	if c.Embedder == nil {
		c.Embedder = embed.NewLexical(embed.LexicalConfig{})
	}
	var err error
	c.prompt, err = llm.LoadPrompt(QuestionsPrompt)
	return c, err
}

// genJob is one request: a window of a corpus.
type genJob struct {
	corpus     int
	start, end int // byte offsets of the window
}

// genPlan holds each corpus's windows in the order they are asked, and how
// many questions each corpus is to keep.
type genPlan struct {
	corpora []*Corpus
	windows [][]genJob
	target  []int
}

// plan shares the questions among the corpora by their length (largest
// remainders; at least one each when there are enough) and draws each
// corpus's windows: starts every half window, snapped to white space,
// shuffled with the seed, so that the first requests spread over the
// whole corpus.
func plan(corpora []*Corpus, c genConfig) genPlan {
	p := genPlan{corpora: corpora, windows: make([][]genJob, len(corpora)), target: make([]int, len(corpora))}
	total := 0
	for _, co := range corpora {
		total += co.Runes()
	}
	if total == 0 {
		return p
	}
	type rem struct {
		i    int
		frac float64
	}
	var rems []rem
	given := 0
	for i, co := range corpora {
		share := float64(c.Questions) * float64(co.Runes()) / float64(total)
		p.target[i] = int(share)
		given += p.target[i]
		rems = append(rems, rem{i, share - float64(p.target[i])})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].frac > rems[b].frac })
	for k := 0; given < c.Questions; k++ {
		p.target[rems[k%len(rems)].i]++
		given++
	}
	if c.Questions >= len(corpora) {
		// at least one question each, taken from the largest shares
		for i := range p.target {
			for p.target[i] == 0 {
				j := 0
				for k := range p.target {
					if p.target[k] > p.target[j] {
						j = k
					}
				}
				p.target[j]--
				p.target[i]++
			}
		}
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	for i, co := range corpora {
		byteAt := runeByteOffsets(co.Text)
		n := len(byteAt) - 1 // code points
		var jobs []genJob
		step := max(1, c.Window/2)
		for s := 0; ; s += step {
			e := min(n, s+c.Window)
			a, b := snapWindow(co.Text, byteAt[s], byteAt[e])
			if b > a {
				jobs = append(jobs, genJob{corpus: i, start: a, end: b})
			}
			if e == n {
				break
			}
		}
		rng.Shuffle(len(jobs), func(x, y int) { jobs[x], jobs[y] = jobs[y], jobs[x] })
		p.windows[i] = jobs
	}
	return p
}

// runeByteOffsets returns the byte offset of every code point of text,
// and len(text) last.
func runeByteOffsets(text string) []int {
	out := make([]int, 0, len(text)+1)
	for i := range text {
		out = append(out, i)
	}
	return append(out, len(text))
}

// snapWindow moves a window's start past the word it cuts and its end
// back before the word it cuts (within 100 bytes), so that the model is
// not shown half words.
func snapWindow(text string, a, b int) (int, int) {
	if a > 0 {
		for i := a; i < min(len(text), a+100); {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			if unicode.IsSpace(r) {
				a = i
				break
			}
		}
	}
	if b < len(text) {
		for i := b; i > max(a, b-100); {
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if unicode.IsSpace(r) {
				b = i - size
				break
			}
			i -= size
		}
	}
	return a, b
}

// EstimateGenerate says how many requests and prompt tokens a Generate run
// with cfg will take, asking nothing.
func EstimateGenerate(corpora []*Corpus, cfg GenerateConfig) (GenerateEstimate, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return GenerateEstimate{}, err
	}
	p := plan(corpora, c)
	counter, err := tokenize.New("cl100k_base")
	if err != nil {
		return GenerateEstimate{}, err
	}
	var est GenerateEstimate
	var all []int // prompt tokens of every window in the order asked
	for i, jobs := range p.windows {
		for k, j := range jobs {
			msgs, err := c.prompt.Messages(map[string]string{"Window": p.corpora[j.corpus].Text[j.start:j.end]})
			if err != nil {
				return est, err
			}
			n := 0
			for _, m := range msgs {
				n += counter.Count(m.Content)
			}
			if k < p.target[i] {
				est.MinRequests++
				est.MinPromptTokens += n
			}
			all = append(all, n)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(all)))
	for _, n := range all[:min(len(all), c.MaxRequests)] {
		est.MaxRequests++
		est.MaxPromptTokens += n
	}
	return est, nil
}

// genAnswer is the model's answer to one job.
type genAnswer struct {
	Question   string   `json:"question"`
	References []string `json:"references"`
}

// Generate writes questions about corpora with a chat model, in Chroma's
// way: each request shows the model a window of a corpus (Window code
// points, drawn with Seed, spread over the corpus) and asks, with the
// versioned prompt QuestionsPrompt and its JSON schema, for a question and
// the excerpts of the window that answer it. Each excerpt is located in
// the corpus exactly (with Approximate, by LocateExcerpt's approximate
// match when not exactly) and becomes a reference in code points; a
// question with an excerpt found nowhere is dropped and counted. The
// questions left are filtered as Chroma does: those with an excerpt
// poorly related to them (embedding similarity under MinRelevance), then
// those too similar to a question kept before them (over MaxSimilarity).
// Rounds of requests go on until every corpus has its share of questions,
// its windows are all asked, or MaxRequests are spent.
//
// Requests run under the client's concurrency and rate limits; its cache
// makes an interrupted run resume where it stopped, and a finished one
// repeat for free. The result is the same whatever order the answers
// arrive in.
func Generate(ctx context.Context, corpora []*Corpus, cfg GenerateConfig) ([]Question, GenerateStats, error) {
	var st GenerateStats
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, st, err
	}
	if c.Model == nil {
		return nil, st, fmt.Errorf("%w: %w", ErrGenerate, llm.ErrNoModel)
	}
	p := plan(corpora, c)
	kept := make([][]Question, len(corpora))
	keptVecs := make([][][]float32, len(corpora))
	next := make([]int, len(corpora)) // next window of each corpus
	target := 0
	for _, t := range p.target {
		target += t
	}
	for st.Requests < c.MaxRequests {
		// This round asks, corpus by corpus, as many windows as questions
		// are still missing.
		var round []genJob
		for i := range corpora {
			for need := p.target[i] - len(kept[i]); need > 0 && next[i] < len(p.windows[i]) && st.Requests+len(round) < c.MaxRequests; need-- {
				round = append(round, p.windows[i][next[i]])
				next[i]++
			}
		}
		if len(round) == 0 {
			break
		}
		answers := make([]llm.Response, len(round))
		errs := make([]error, len(round))
		var wg sync.WaitGroup
		for k, j := range round {
			req, err := c.prompt.Request(map[string]string{"Window": p.corpora[j.corpus].Text[j.start:j.end]})
			if err != nil {
				return nil, st, err
			}
			wg.Go(func() { answers[k], errs[k] = c.Model.Complete(ctx, req) })
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("%w: interrupted after %d requests (answers so far are in the model's cache): %w", ErrGenerate, st.Requests, err)
		}
		st.Requests += len(round)
		var cands []Question
		for k, j := range round {
			if errs[k] != nil {
				st.Failed++
				continue
			}
			st.Usage.Merge(answers[k].Usage())
			q, ok := c.question(p.corpora[j.corpus], j, answers[k].Content, &st)
			if ok {
				cands = append(cands, q)
			}
		}
		if err := c.filter(ctx, p, cands, kept, keptVecs, &st); err != nil {
			return nil, st, err
		}
		st.Kept = 0
		for _, k := range kept {
			st.Kept += len(k)
		}
		if c.Progress != nil {
			c.Progress(GenerateProgress{Requests: st.Requests, Kept: st.Kept, Target: target})
		}
		if st.Failed == st.Requests {
			return nil, st, fmt.Errorf("%w: none of %d requests got an answer: %w", ErrGenerate, st.Requests, errors.Join(errs...))
		}
	}
	var out []Question
	for _, k := range kept {
		out = append(out, k...)
	}
	for i := range out {
		out[i].ID = fmt.Sprint(i)
	}
	if len(out) == 0 {
		return nil, st, fmt.Errorf("%w: no question kept from %d requests (%d answers not the JSON asked for, %d with an excerpt not in the text, %d with excerpts unrelated to the question, %d duplicates)",
			ErrGenerate, st.Requests, st.Garbage, st.NotFound, st.Irrelevant, st.Duplicates)
	}
	return out, st, nil
}

// question reads one answer into a question with located references.
func (c genConfig) question(co *Corpus, j genJob, content string, st *GenerateStats) (Question, bool) {
	var a genAnswer
	if err := llm.ParseJSON(content, &a); err != nil || strings.TrimSpace(a.Question) == "" || len(a.References) == 0 {
		st.Garbage++
		return Question{}, false
	}
	q := Question{Text: strings.TrimSpace(a.Question)}
	for _, ex := range a.References {
		if strings.TrimSpace(ex) == "" {
			st.Garbage++
			return Question{}, false
		}
		s, e, exact, ok := LocateExcerpt(co.Text, j.start, j.end, ex, c.Approximate)
		if !ok {
			st.NotFound++
			return Question{}, false
		}
		if !exact {
			st.Repaired++
		}
		start := utf8.RuneCountInString(co.Text[:s])
		q.References = append(q.References, Reference{Corpus: co.ID, Start: start, End: start + utf8.RuneCountInString(co.Text[s:e]), Content: co.Text[s:e]})
	}
	sort.Slice(q.References, func(x, y int) bool { return q.References[x].Start < q.References[y].Start })
	return q, true
}

// filter applies the two filters to a round's candidates, in order, and
// appends the questions kept to their corpus's.
func (c genConfig) filter(ctx context.Context, p genPlan, cands []Question, kept [][]Question, keptVecs [][][]float32, st *GenerateStats) error {
	if len(cands) == 0 {
		return nil
	}
	var texts []string
	for _, q := range cands {
		texts = append(texts, q.Text)
		for _, r := range q.References {
			texts = append(texts, r.Content)
		}
	}
	vs, err := embed.Checked(ctx, c.Embedder, texts)
	if err != nil {
		return fmt.Errorf("%w: embedding questions for the filters: %w", ErrGenerate, err)
	}
	corpusIndex := map[string]int{}
	for i, co := range p.corpora {
		corpusIndex[co.ID] = i
	}
	for _, q := range cands {
		qv := vec.Normalize(vs[0])
		refs := vs[1 : 1+len(q.References)]
		vs = vs[1+len(q.References):]
		worst := 1.0
		for _, r := range refs {
			worst = min(worst, float64(vec.Cosine(qv, r)))
		}
		if c.MinRelevance >= 0 && worst < c.MinRelevance {
			st.Irrelevant++
			continue
		}
		i := corpusIndex[q.Corpus()]
		dup := false
		for k, o := range kept[i] {
			if strings.EqualFold(o.Text, q.Text) || float64(vec.Cosine(qv, keptVecs[i][k])) > c.MaxSimilarity {
				dup = true
				break
			}
		}
		if dup {
			st.Duplicates++
			continue
		}
		if len(kept[i]) < p.target[i] {
			kept[i] = append(kept[i], q)
			keptVecs[i] = append(keptVecs[i], qv)
		}
	}
	return nil
}

// LocateExcerpt finds an excerpt a model copied from the window [start,
// end) of text and returns its byte range: exactly in the window, else
// exactly anywhere in text, else, when approximate is set, by an
// approximate match in the window: runs of white space match any run of
// white space, curly quotes match straight ones, en and em dashes match
// hyphens, and the excerpt's ends are trimmed of white space. exact says
// which. The approximate match never changes which characters are
// matched, only how they are spelled, so the range returned holds the
// text's own characters.
func LocateExcerpt(text string, start, end int, excerpt string, approximate bool) (s, e int, exact, ok bool) {
	if i := strings.Index(text[start:end], excerpt); i >= 0 && excerpt != "" {
		return start + i, start + i + len(excerpt), true, true
	}
	if i := strings.Index(text, excerpt); i >= 0 && excerpt != "" {
		return i, i + len(excerpt), true, true
	}
	if !approximate {
		return 0, 0, false, false
	}
	pat := normalizeRunes(strings.TrimSpace(excerpt))
	if len(pat) == 0 {
		return 0, 0, false, false
	}
	win, at := normalizeWithOffsets(text[start:end])
	for i := 0; i+len(pat) <= len(win); i++ {
		if win[i] == pat[0] && equalRunes(win[i:i+len(pat)], pat) {
			a, b := start+at[i], start+at[i+len(pat)-1]
			_, size := utf8.DecodeRuneInString(text[b:])
			return a, b + size, false, true
		}
	}
	return 0, 0, false, false
}

func equalRunes(a, b []rune) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// foldRune spells a character the way the approximate match compares it.
func foldRune(r rune) rune {
	switch r {
	case '‘', '’', '‚', '′':
		return '\''
	case '“', '”', '„', '″':
		return '"'
	case '–', '—', '−', '‐':
		return '-'
	}
	if unicode.IsSpace(r) {
		return ' '
	}
	return r
}

// normalizeRunes folds s and collapses its runs of white space.
func normalizeRunes(s string) []rune {
	out, _ := normalizeWithOffsets(s)
	return out
}

// normalizeWithOffsets folds s, collapses its runs of white space, and
// returns the byte offset in s of each character kept.
func normalizeWithOffsets(s string) ([]rune, []int) {
	var out []rune
	var at []int
	for i, r := range s {
		f := foldRune(r)
		if f == ' ' && len(out) > 0 && out[len(out)-1] == ' ' {
			continue
		}
		out = append(out, f)
		at = append(at, i)
	}
	return out, at
}

// WriteChroma writes a data set in the format of Chroma's evaluation,
// which Load and LoadChroma read: each corpus as CORPUS_ID.md, and
// questions.csv with the columns question, references (a JSON list of
// {content, start_index, end_index}, code points) and corpus_id.
func WriteChroma(dir string, corpora []*Corpus, questions []Question) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, co := range corpora {
		if strings.ContainsAny(co.ID, `/\`) || strings.Contains(co.ID, "..") || co.ID == "" {
			return fmt.Errorf("%w: corpus id %q is not a file name", ErrDataset, co.ID)
		}
		if err := os.WriteFile(filepath.Join(dir, co.ID+".md"), []byte(co.Text), 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, "questions.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"question", "references", "corpus_id"})
	type ref struct {
		Content string `json:"content"`
		Start   int    `json:"start_index"`
		End     int    `json:"end_index"`
	}
	for _, q := range questions {
		var refs []ref
		for _, r := range q.References {
			refs = append(refs, ref{r.Content, r.Start, r.End})
		}
		b, err := json.Marshal(refs)
		if err != nil {
			f.Close()
			return err
		}
		w.Write([]string{q.Text, string(b), q.Corpus()})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
