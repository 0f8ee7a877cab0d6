package llmchunk

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// PropositionsConfig configures the Propositions chunker.
type PropositionsConfig struct {
	Size          int    `json:"size" range:"1,1073741824" doc:"hard maximum chunk size (of the propositions' text) in tokens of the --tokenizer unit"`
	PassageTokens int    `json:"passage_tokens" range:"1,1073741824" doc:"tokens of sentences sent to the model at once"`
	Retries       int    `json:"retries" range:"0,100" doc:"corrective retries after an invalid answer, before the passage's sentences are kept as they are"`
	Prompt        string `json:"prompt" doc:"version of the prompt template (llm/prompts)"`
}

// DefaultPropositionsConfig returns chunks of 512 tokens, passages of 512.
func DefaultPropositionsConfig() PropositionsConfig {
	return PropositionsConfig{Size: 512, PassageTokens: 512, Retries: 1, Prompt: "propositions_v1"}
}

// Propositions is the article's LLM-based chunker: the model rewrites each
// passage into propositions (short self-contained statements), which are
// packed in order into chunks of at most Size tokens.
//
// Propositions are new text, so a chunk's Text is its propositions joined
// by newlines, not a substring of the input: its Spans are the source
// sentences its propositions were derived from (by the model's citation of
// sentence numbers, checked, or else by the sentence sharing the most
// words), its metadata holds "derived": true and the propositions, and the
// evaluation scores it by those spans. A sentence the model cites in no
// proposition is kept verbatim as a proposition of its own, so no text is
// lost; an answer that stays invalid keeps the passage's sentences as they
// are.
type Propositions struct {
	cfg     PropositionsConfig
	counter tokenize.Counter
	client  *llm.Client
	prompt  *llm.Prompt
}

// NewPropositions returns a Propositions chunker.
func NewPropositions(cfg PropositionsConfig, counter tokenize.Counter, client *llm.Client) (*Propositions, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, fmt.Errorf("%w: the propositions chunker: %w", gochunk.ErrConfig, llm.ErrNoModel)
	}
	if cfg.Size <= 0 || cfg.PassageTokens <= 0 || cfg.Retries < 0 {
		return nil, fmt.Errorf("%w: size and passage_tokens must be positive, retries not negative", gochunk.ErrConfig)
	}
	counter = tokenize.OrRunes(counter)
	p, err := llm.LoadPrompt(cfg.Prompt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", gochunk.ErrConfig, err)
	}
	return &Propositions{cfg: cfg, counter: counter, client: client, prompt: p}, nil
}

type proposition struct {
	text    string
	sources []int // sentence indexes in the document
	order   int
}

type propSentence struct {
	N    int
	Text string
}

type propData struct {
	Sentences       []propSentence
	Invalid, Reason string
}

// Chunk implements gochunk.Chunker.
func (p *Propositions) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	if err := gochunk.CheckDocument(d); err != nil {
		return nil, err
	}
	e := &pack.Engine{Text: d.Text, Counter: p.counter, Limit: p.cfg.Size}
	e.Init()
	// Sentences, trimmed, cut to the size.
	var sents []pack.Range
	for _, r := range segment.Sentences(d.Text) {
		t := pack.Trim(d.Text, pack.Range{Start: r.Start, End: r.End})
		if t.End <= t.Start {
			continue
		}
		if e.Count(t.Start, t.End) <= p.cfg.Size {
			sents = append(sents, t)
			continue
		}
		parts, err := e.Split(ctx, t.Start, t.End, nil)
		if err != nil {
			return nil, gochunk.WrapDocument(d.ID, err)
		}
		sents = append(sents, parts...)
	}
	if len(sents) == 0 {
		return nil, nil
	}
	// Passages of whole sentences.
	var passages [][2]int // sentence index ranges [a, b)
	for a := 0; a < len(sents); {
		b, tok := a, 0
		for b < len(sents) && (b == a || tok+e.Count(sents[b].Start, sents[b].End) <= p.cfg.PassageTokens) {
			tok += e.Count(sents[b].Start, sents[b].End)
			b++
		}
		passages = append(passages, [2]int{a, b})
		a = b
	}
	results := make([][]proposition, len(passages))
	usages := make([]llm.Usage, len(passages))
	errs := make([]error, len(passages))
	var wg sync.WaitGroup
	for i, ps := range passages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = p.passage(ctx, d.Text, sents, ps[0], ps[1], &usages[i])
		}()
	}
	wg.Wait()
	var usage llm.Usage
	for i, err := range errs {
		if err != nil {
			return nil, gochunk.WrapDocument(d.ID, err)
		}
		usage.Merge(usages[i])
	}
	var props []proposition
	for _, r := range results {
		props = append(props, r...)
	}
	return p.pack(ctx, e, sents, props, usage)
}

// passage asks the model for the propositions of sentences [a, b).
func (p *Propositions) passage(ctx context.Context, text string, sents []pack.Range, a, b int, usage *llm.Usage) ([]proposition, error) {
	data := propData{}
	for i := a; i < b; i++ {
		data.Sentences = append(data.Sentences, propSentence{N: i - a + 1, Text: text[sents[i].Start:sents[i].End]})
	}
	var out []proposition
	ok := false
	for attempt := 0; attempt <= p.cfg.Retries && !ok; attempt++ {
		if attempt > 0 {
			usage.Retries++
		}
		req, err := p.prompt.Request(data)
		if err != nil {
			return nil, err
		}
		resp, err := p.client.Complete(ctx, req)
		if err != nil {
			if isContextLength(err) {
				break // keep the sentences as they are
			}
			return nil, err
		}
		usage.Merge(resp.Usage())
		var ans struct {
			Propositions []struct {
				Text    string `json:"text"`
				Sources []int  `json:"sources"`
			} `json:"propositions"`
		}
		if err := llm.ParseJSON(resp.Content, &ans); err != nil {
			data.Invalid, data.Reason = "x", err.Error()
			continue
		}
		out = out[:0]
		for _, pr := range ans.Propositions {
			t := strings.Join(strings.Fields(pr.Text), " ")
			if t == "" {
				continue
			}
			var src []int
			for _, n := range pr.Sources {
				if n >= 1 && n <= b-a {
					src = append(src, a+n-1)
				}
			}
			if len(src) == 0 {
				src = []int{a + bestSentence(t, data.Sentences)}
			}
			sort.Ints(src)
			out = append(out, proposition{text: t, sources: src})
		}
		ok = true
	}
	if !ok {
		usage.Fallbacks++
		out = nil
	}
	// Sentences no proposition cites are kept verbatim.
	cited := map[int]bool{}
	for _, pr := range out {
		for _, s := range pr.sources {
			cited[s] = true
		}
	}
	for i := a; i < b; i++ {
		if !cited[i] {
			out = append(out, proposition{text: text[sents[i].Start:sents[i].End], sources: []int{i}})
		}
	}
	for k := range out {
		out[k].order = k
	}
	sort.SliceStable(out, func(x, y int) bool {
		if out[x].sources[0] != out[y].sources[0] {
			return out[x].sources[0] < out[y].sources[0]
		}
		return out[x].order < out[y].order
	})
	return out, nil
}

// bestSentence returns the index of the sentence sharing the most words
// with t (lexical alignment of a proposition that cites no valid sentence).
func bestSentence(t string, sents []propSentence) int {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			m[w] = true
		}
		return m
	}
	pw := words(t)
	best, bestScore := 0, -1.0
	for i, s := range sents {
		sw := words(s.Text)
		inter := 0
		for w := range pw {
			if sw[w] {
				inter++
			}
		}
		union := len(pw) + len(sw) - inter
		score := 0.0
		if union > 0 {
			score = float64(inter) / float64(union)
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// pack puts propositions, in order, into chunks of at most Size tokens.
func (p *Propositions) pack(ctx context.Context, e *pack.Engine, sents []pack.Range, props []proposition, usage llm.Usage) ([]gochunk.Chunk, error) {
	// A proposition over the size is cut (at white space, then tokens).
	var fitted []proposition
	for _, pr := range props {
		if p.counter.Count(pr.text) <= p.cfg.Size {
			fitted = append(fitted, pr)
			continue
		}
		sub := &pack.Engine{Text: pr.text, Counter: p.counter, Limit: p.cfg.Size}
		sub.Init()
		parts, err := sub.Split(ctx, 0, len(pr.text), nil)
		if err != nil {
			return nil, err
		}
		for _, r := range parts {
			fitted = append(fitted, proposition{text: pr.text[r.Start:r.End], sources: pr.sources})
		}
	}
	conv := runeoff.New(e.Text)
	var chunks []gochunk.Chunk
	emit := func(group []proposition) {
		var texts []string
		srcSet := map[int]bool{}
		for _, pr := range group {
			texts = append(texts, pr.text)
			for _, s := range pr.sources {
				srcSet[s] = true
			}
		}
		var src []int
		for s := range srcSet {
			src = append(src, s)
		}
		sort.Ints(src)
		var spans []gochunk.Span
		for _, s := range src {
			r := sents[s]
			if n := len(spans); n > 0 && strings.TrimSpace(e.Text[spans[n-1].End:r.Start]) == "" {
				spans[n-1].End, spans[n-1].EndRune = r.End, conv.Rune(r.End)
				continue
			}
			spans = append(spans, gochunk.Span{Start: r.Start, End: r.End, StartRune: conv.Rune(r.Start), EndRune: conv.Rune(r.End)})
		}
		text := strings.Join(texts, "\n")
		chunks = append(chunks, gochunk.Chunk{Index: len(chunks), Text: text, Spans: spans, TokenCount: p.counter.Count(text),
			Stats: gochunk.Stats{LLM: &usage}, Metadata: map[string]any{"derived": true, "propositions": texts}})
	}
	start := 0
	for start < len(fitted) {
		end := start + 1
		for end < len(fitted) {
			parts := make([]string, 0, end-start+1)
			for _, pr := range fitted[start : end+1] {
				parts = append(parts, pr.text)
			}
			if p.counter.Count(strings.Join(parts, "\n")) > p.cfg.Size {
				break
			}
			end++
		}
		emit(fitted[start:end])
		start = end
	}
	sort.SliceStable(chunks, func(i, j int) bool { return chunks[i].Spans[0].Start < chunks[j].Spans[0].Start })
	for i := range chunks {
		chunks[i].Index = i
	}
	return chunks, nil
}
