// Package llmchunk holds the chunkers that ask a language model: the
// split-point chunker (Chroma's LLM semantic chunker, Chonkie's agentic
// chunker) and the proposition chunker of the semantic-chunking article.
// Both keep the contract of package gochunk: the model's answers are
// validated, retried with a corrective message, and replaced by the size
// rule when they stay invalid, so no answer can break a chunk's size or
// lose text.
package llmchunk

import (
	"context"
	"errors"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
)

// SplitConfig configures the Split chunker.
type SplitConfig struct {
	Size         int    `json:"size" range:"1,1073741824" doc:"hard maximum chunk size in tokens of the --tokenizer unit; a section the model proposes over it is cut by the size rule"`
	PieceSize    int    `json:"piece_size" range:"1,1073741824" doc:"size of the numbered pieces shown to the model (recursive split on paragraphs, lines, sentence ends, spaces)"`
	WindowTokens int    `json:"window_tokens" range:"1,1073741824" doc:"tokens of pieces shown to the model at once; the window slides to the last split"`
	Retries      int    `json:"retries" range:"0,100" doc:"corrective retries after an invalid answer, before the size rule decides the window"`
	Prompt       string `json:"prompt" doc:"version of the prompt template (llm/prompts)"`
}

// DefaultSplitConfig returns Chroma's settings: pieces of 50 tokens,
// windows of 800, and a size limit of 800.
func DefaultSplitConfig() SplitConfig {
	return SplitConfig{Size: 800, PieceSize: 50, WindowTokens: 800, Retries: 2, Prompt: "split_v1"}
}

// Split asks a model where to split: the text is cut into small numbered
// pieces, the model sees a window of them and names the pieces after which
// a new section begins; the answer must be increasing piece numbers inside
// the window, or the model is told what was wrong and asked again, and
// after Retries the window is split by the size rule. The window then
// slides to the last split. Chunks are unions of pieces, so offsets stay
// exact, and a section over the size is cut by the size rule. Each chunk's
// Stats.LLM holds the document's calls, tokens, latency, retries and
// fallbacks.
type Split struct {
	cfg     SplitConfig
	counter tokenize.Counter
	client  *llm.Client
	prompt  *llm.Prompt
	pieces  *split.Recursive
}

// NewSplit returns a Split chunker.
func NewSplit(cfg SplitConfig, counter tokenize.Counter, client *llm.Client) (*Split, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, fmt.Errorf("%w: the llm-split chunker: %w", gochunk.ErrConfig, llm.ErrNoModel)
	}
	if cfg.Size <= 0 || cfg.PieceSize <= 0 || cfg.WindowTokens <= 0 || cfg.Retries < 0 {
		return nil, fmt.Errorf("%w: size, piece_size and window_tokens must be positive, retries not negative", gochunk.ErrConfig)
	}
	cfg.PieceSize = min(cfg.PieceSize, cfg.Size)
	counter = tokenize.OrRunes(counter)
	p, err := llm.LoadPrompt(cfg.Prompt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", gochunk.ErrConfig, err)
	}
	rc := split.RecursiveConfig{Size: split.Size{Size: cfg.PieceSize}, Separators: []string{"\n\n", "\n", ".", "?", "!", " ", ""},
		KeepSeparator: split.KeepEnd, StripWhitespace: true}
	pieces, err := split.NewRecursive(rc, counter)
	if err != nil {
		return nil, err
	}
	return &Split{cfg: cfg, counter: counter, client: client, prompt: p, pieces: pieces}, nil
}

type splitPiece struct {
	N    int
	Text string
}

type splitData struct {
	First, Last, MaxSplit int
	NeedSplit             bool
	Pieces                []splitPiece
	Invalid, Reason       string
}

// Chunk implements gochunk.Chunker.
func (s *Split) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	if err := gochunk.CheckDocument(d); err != nil {
		return nil, err
	}
	pcs, err := s.pieces.Chunk(ctx, gochunk.Document{ID: d.ID, Text: d.Text})
	if err != nil || len(pcs) == 0 {
		return nil, gochunk.WrapDocument(d.ID, err)
	}
	e := &pack.Engine{Text: d.Text, Counter: s.counter, Limit: s.cfg.Size}
	e.Init()
	units := make([]pack.Piece, len(pcs))
	for i, p := range pcs {
		units[i] = pack.Piece{Start: p.Start(), End: p.End(), Size: p.TokenCount}
	}
	for i := 0; i+1 < len(units); i++ {
		units[i].Gap = e.Count(units[i].End, units[i+1].Start)
	}
	var usage llm.Usage
	starts := []int{0} // pieces (0-based) where chunks start
	window := s.cfg.WindowTokens
	for cur := 0; cur < len(units)-1; {
		end, tok := cur, 0 // window is pieces [cur, end)
		for end < len(units) && (end == cur || tok+units[end].Size <= window) {
			tok += units[end].Size
			end++
		}
		if end-cur < 2 && end < len(units) {
			end++
		}
		last := end == len(units)
		splits, err := s.ask(ctx, d.Text, units, cur, end, last, &usage)
		var ctxErr *contextLengthError
		if errors.As(err, &ctxErr) && window > 2*s.cfg.PieceSize {
			window /= 2 // the model's context is too small: show fewer pieces
			continue
		}
		if err != nil && !errors.As(err, &ctxErr) {
			return nil, gochunk.WrapDocument(d.ID, err)
		}
		if err != nil || splits == nil {
			// Invalid after the retries, or the context is too small: the
			// size rule decides this window.
			usage.Fallbacks++
			splits = sizeRule(e, units, cur, end)
		}
		for _, k := range splits { // k: split after piece k (0-based)
			if k+1 > starts[len(starts)-1] && k+1 < len(units) {
				starts = append(starts, k+1)
			}
		}
		next := end
		if len(splits) > 0 && !last {
			next = splits[len(splits)-1] + 1
		}
		if next <= cur {
			next = end
		}
		if last {
			break
		}
		cur = next
	}
	var ranges []pack.Range
	for k, st := range starts {
		en := len(units)
		if k+1 < len(starts) {
			en = starts[k+1]
		}
		ranges = e.Merge(units[st:en], ranges)
	}
	chunks, err := e.Build(ctx, ranges, true)
	if err != nil {
		return nil, gochunk.WrapDocument(d.ID, err)
	}
	for i := range chunks {
		chunks[i].Stats.LLM = &usage
	}
	return chunks, nil
}

// ask shows the model pieces [cur, end) and returns the pieces (0-based)
// after which to split, nil when no valid answer came within the retries.
func (s *Split) ask(ctx context.Context, text string, units []pack.Piece, cur, end int, last bool, usage *llm.Usage) ([]int, error) {
	data := splitData{First: cur + 1, Last: end, MaxSplit: end - 1, NeedSplit: !last}
	if last {
		data.MaxSplit = end - 1
	}
	for i := cur; i < end; i++ {
		data.Pieces = append(data.Pieces, splitPiece{N: i + 1, Text: text[units[i].Start:units[i].End]})
	}
	for attempt := 0; attempt <= s.cfg.Retries; attempt++ {
		if attempt > 0 {
			usage.Retries++
		}
		req, err := s.prompt.Request(data)
		if err != nil {
			return nil, err
		}
		resp, err := s.client.Complete(ctx, req)
		if err != nil {
			if isContextLength(err) {
				return nil, &contextLengthError{err}
			}
			return nil, err
		}
		usage.Merge(resp.Usage())
		var ans struct {
			SplitAfter []int `json:"split_after"`
		}
		reason := ""
		if err := llm.ParseJSON(resp.Content, &ans); err != nil {
			reason = err.Error()
		} else {
			reason = validSplits(ans.SplitAfter, cur+1, data.MaxSplit, !last)
		}
		if reason == "" {
			out := make([]int, len(ans.SplitAfter))
			for i, n := range ans.SplitAfter {
				out[i] = n - 1
			}
			return out, nil
		}
		data.Invalid, data.Reason = strings.TrimSpace(resp.Content), reason
		if len(data.Invalid) > 200 {
			data.Invalid = data.Invalid[:200] + "…"
		}
	}
	return nil, nil
}

// validSplits returns why numbers are not a valid answer, or "".
func validSplits(numbers []int, lo, hi int, need bool) string {
	if len(numbers) == 0 {
		if need {
			return "it named no piece; name at least one"
		}
		return ""
	}
	for i, n := range numbers {
		if n < lo || n > hi {
			return fmt.Sprintf("%d is not between %d and %d", n, lo, hi)
		}
		if i > 0 && n <= numbers[i-1] {
			return "the numbers are not strictly increasing"
		}
	}
	return ""
}

// sizeRule splits pieces [cur, end) greedily by the size limit and returns
// the pieces after which chunks end.
func sizeRule(e *pack.Engine, units []pack.Piece, cur, end int) []int {
	var out []int
	tok := 0
	for i := cur; i < end; i++ {
		if i > cur && tok+units[i-1].Gap+units[i].Size > e.Limit {
			out = append(out, i-1)
			tok = 0
		}
		tok += units[i].Size
		if i > cur {
			tok += units[i-1].Gap
		}
	}
	return out
}

type contextLengthError struct{ err error }

func (c *contextLengthError) Error() string { return c.err.Error() }
func (c *contextLengthError) Unwrap() error { return c.err }

// isContextLength recognises the servers' "prompt too long" errors.
func isContextLength(err error) bool {
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "context_length") || strings.Contains(m, "context length") || strings.Contains(m, "maximum context") ||
		strings.Contains(m, "too many tokens") || strings.Contains(m, "prompt is too long")
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }
