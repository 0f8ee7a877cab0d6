package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/params"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/tokenize"
)

// ContextConfig says what a chunk's embedded text carries besides the
// chunk: the text that is embedded and keyword-indexed (a record's
// embed_text), while the chunk's text and offsets stay exact.
type ContextConfig struct {
	// Mode is none (the default: a chunk is embedded as it is), headings
	// (the document's title and the chunk's heading path before it,
	// "Title > Section > Subsection\n\n"; for code, the file's path and
	// the definitions the chunk is part of, "cart.py > class Cart >
	// function add"), template (Template) or llm
	// (contextual retrieval: the chat model of Config.LLM writes one or
	// two sentences situating each chunk in its document, put before the
	// chunk; see LLMContextPrompt).
	Mode string `json:"mode,omitempty"`
	// Template, for mode template, is a Go text/template over
	// ContextFields, as pgai formats its embedded text: for example
	// "{{.Title}}\n{{.Path}}\n\n{{.Text}}". It must use .Text.
	Template string `json:"template,omitempty"`
	// DocumentTokens, for mode llm, is the most cl100k_base tokens of the
	// document sent with a chunk (0: 16,000): a longer document is sent
	// as the chunk's section, or the text around the chunk, cut to fit.
	DocumentTokens int `json:"document_tokens,omitempty" range:"0,2000000"`
	// Estimate, for mode llm, asks the model nothing: each result gets
	// the estimated cost (Result.ContextEstimate) and no embedded texts.
	Estimate bool `json:"estimate,omitempty"`
}

// LLMContextPrompt is the versioned prompt of context mode llm (in
// package llm's prompts): its name is part of every cached answer's key,
// so a new version asks again.
const LLMContextPrompt = "context_v1"

// ContextEstimate is what context mode llm will ask a model for: a
// request per chunk, the document (or its part) in each, first, so that
// servers with prompt caching (OpenAI's, automatic from 1,024 tokens)
// read the repeated part from their cache.
type ContextEstimate struct {
	Requests int `json:"requests"`
	// PromptTokens are all the requests' prompt tokens (in cl100k_base,
	// an estimate of the model's), and RepeatedTokens the part of them
	// that repeats a document already sent (what a prompt cache serves).
	PromptTokens   int `json:"prompt_tokens"`
	RepeatedTokens int `json:"repeated_tokens"`
	// CompletionTokens assumes answers of 60 tokens.
	CompletionTokens int `json:"completion_tokens"`
}

// Add adds o's counts to e's.
func (e *ContextEstimate) Add(o ContextEstimate) {
	e.Requests += o.Requests
	e.PromptTokens += o.PromptTokens
	e.RepeatedTokens += o.RepeatedTokens
	e.CompletionTokens += o.CompletionTokens
}

// ContextFields are what a context template can use.
type ContextFields struct {
	// Title is the document's "title" metadata, else its first top-level
	// markdown heading or title element, else its file name (for code,
	// its path).
	Title string
	// Headings is the chunk's heading path below the title (for code,
	// the definition the chunk is part of), and Path the title and
	// headings joined by " > ".
	Headings []string
	Path     string
	// Source is the document's id (a file name).
	Source string
	// Lines and Pages are the chunk's first and last line or page (zero
	// when the document has none).
	Lines, Pages [2]int
	// Metadata is the document's metadata.
	Metadata map[string]any
	// Text is the chunk's text.
	Text string
}

// contextStage builds chunks' embedded texts; nil for mode none.
type contextStage struct {
	mode string
	tmpl *contextTemplate
	// For mode llm: the model, the prompt, the tokenizer that sizes what
	// is sent, and the configuration.
	model  func() (*llm.Client, error)
	prompt *llm.Prompt
	tokens tokenize.Counter
	cfg    ContextConfig
}

func newContextStage(c ContextConfig, model func() (*llm.Client, error)) (*contextStage, error) {
	if err := params.Check(c); err != nil {
		return nil, fmt.Errorf("context: %w", err)
	}
	if c.Mode != "llm" && (c.DocumentTokens != 0 || c.Estimate) {
		return nil, configError("context.mode", c.Mode, "document_tokens and estimate are settings of context mode llm")
	}
	switch c.Mode {
	case "llm":
		if c.DocumentTokens == 0 {
			c.DocumentTokens = 16000
		}
		prompt, err := llm.LoadPrompt(LLMContextPrompt)
		if err != nil {
			return nil, err
		}
		tok, err := tokenize.New("cl100k_base")
		if err != nil {
			return nil, err
		}
		if !c.Estimate {
			if _, err := model(); err != nil {
				return nil, fmt.Errorf("context llm: %w", err)
			}
		}
		return &contextStage{mode: c.Mode, model: model, prompt: prompt, tokens: tok, cfg: c}, nil
	case "", "none":
		if c.Template != "" {
			return nil, configError("context.template", c.Template, "a template needs context mode template")
		}
		return nil, nil
	case "headings":
		return &contextStage{mode: c.Mode}, nil
	case "template":
		t, err := parseContextTemplate(c.Template)
		if err != nil {
			return nil, err
		}
		return &contextStage{mode: c.Mode, tmpl: t}, nil
	}
	return nil, configError("context.mode", c.Mode, "want none, headings, template or llm")
}

// embedTexts returns the embedded text of each chunk of doc.
func (s *contextStage) embedTexts(ctx context.Context, doc gochunk.Document, chunks []gochunk.Chunk, lines [][2]int, where []Where) ([]string, error) {
	if s.mode == "llm" {
		return nil, errors.New("context llm needs a context: use the pipeline's Chunk or Run") // not reached: see llmTexts
	}
	paths := headingPaths(doc, chunks)
	out := make([]string, len(chunks))
	var run *templateRun
	if s.mode == "template" {
		var err error
		if run, err = s.tmpl.start(ctx); err != nil {
			return nil, err
		}
	}
	for i, c := range chunks {
		f := paths[i]
		if s.mode == "headings" {
			if f.Path != "" {
				out[i] = f.Path + "\n\n" + c.Text
			}
			continue
		}
		f.Source, f.Metadata, f.Text = doc.ID, doc.Metadata, c.Text
		if i < len(lines) {
			f.Lines = lines[i]
		}
		if i < len(where) {
			f.Pages = where[i].Pages
		}
		t, err := run.execute(f)
		if err != nil {
			return nil, fmt.Errorf("context template on chunk %d: %w", i, err)
		}
		if t != c.Text {
			out[i] = t
		}
	}
	return out, nil
}

// headingPaths returns each chunk's title and heading path: the chunk's
// own (Chunk.Headings, the markdown chunker's, or "headings" metadata), else the headings
// above its start (markdown text, or a laid-out document's title and
// heading elements); for code chunks, the file's path and the definition
// the chunk is within.
func headingPaths(doc gochunk.Document, chunks []gochunk.Chunk) []ContextFields {
	title, _ := doc.Metadata["title"].(string)
	var heads []heading
	switch {
	case len(doc.Elements) > 0:
		heads = elementHeadings(doc.Elements)
	default:
		heads = textHeadings(doc.Text)
	}
	code := false
	for _, c := range chunks {
		if _, ok := c.Metadata["language"].(string); ok {
			code = true
			break
		}
	}
	if title == "" && !code {
		for _, h := range heads {
			if h.level == 1 {
				title = h.title
				break
			}
		}
	}
	if title == "" && doc.ID != "" && doc.ID != "-" {
		title = doc.ID
		if !code {
			title = strings.TrimSuffix(filepath.Base(doc.ID), filepath.Ext(doc.ID))
		}
	}
	out := make([]ContextFields, len(chunks))
	var stack []heading
	next := 0
	for i, c := range chunks {
		var path []string
		if len(c.Headings) > 0 {
			path = c.Headings
		} else if hs, ok := c.Metadata["headings"].([]string); ok {
			path = hs
		} else if enc, ok := c.Metadata["enclosing"].([]string); ok && len(enc) > 0 {
			path = enc
		} else if within, ok := c.Metadata["within"].(string); ok {
			path = []string{within}
		} else if len(c.Spans) > 0 && !code {
			// The headings at or before the chunk's start, as a stack.
			// Chunks come in order of their start (a multi-span chunk by
			// its first span); one that starts before the last is given
			// the stack as it stands.
			for next < len(heads) && heads[next].at <= c.Spans[0].Start {
				h := heads[next]
				for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
					stack = stack[:len(stack)-1]
				}
				stack = append(stack, h)
				next++
			}
			for _, h := range stack {
				path = append(path, h.title)
			}
		}
		if len(path) > 0 && path[0] == title {
			path = path[1:]
		}
		parts := append([]string{title}, path...)
		if parts[0] == "" {
			parts = parts[1:]
		}
		out[i] = ContextFields{Title: title, Headings: path, Path: strings.Join(parts, " > ")}
	}
	return out
}

type heading struct {
	at, level int
	title     string
}

// elementHeadings returns the title and heading elements of a laid-out
// document at their offsets: a title is level 1, a heading level 2.
func elementHeadings(els []gochunk.Element) []heading {
	var out []heading
	for _, el := range els {
		if el.Excluded {
			continue
		}
		level := 0
		switch el.Type {
		case "title":
			level = 1
		case "heading":
			level = 2
		default:
			continue
		}
		if t := strings.Join(strings.Fields(el.Text), " "); t != "" {
			out = append(out, heading{at: el.Start, level: level, title: t})
		}
	}
	return out
}

// textHeadings finds the heading lines of a text: markdown's "# Title"
// (outside fenced code blocks) and MediaWiki's "== Title ==" (also as
// WikiText corpora write it, "= = Title = =").
func textHeadings(text string) []heading {
	var out []heading
	fenced := false
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text) - at
		}
		line := strings.TrimRight(text[at:at+end], "\r")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fenced = !fenced
		case !fenced && len(line)-len(trimmed) < 4 && strings.HasPrefix(trimmed, "#"):
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			rest := trimmed[level:]
			if level <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				if title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#")); title != "" {
					out = append(out, heading{at: at, level: level, title: title})
				}
			}
		case !fenced && strings.HasPrefix(trimmed, "="):
			if level, title := wikiHeading(trimmed); level > 0 {
				out = append(out, heading{at: at, level: level, title: title})
			}
		}
		at += end + 1
	}
	return out
}

// fitContext returns the embedded text et of a chunk whose text is text,
// with its context (what et holds besides text) shortened so that it
// counts at most limit tokens, and whether it was: the context before the
// chunk loses its start and the context after it its end, the chunk is
// never cut (a chunk over the limit alone is embedded without context).
func fitContext(et, text string, counter tokenize.Counter, limit int) (string, bool) {
	if counter.Count(et) <= limit {
		return et, false
	}
	at := strings.Index(et, text)
	if at < 0 || counter.Count(text) >= limit {
		return text, true
	}
	before, after := et[:at], et[at+len(text):]
	// The longest context kept, in bytes of each side, by bisection: the
	// count grows with what is kept.
	fits := func(keep int) bool {
		b := before[len(before)-min(keep, len(before)):]
		a := after[:min(keep, len(after))]
		return counter.Count(b+text+a) <= limit
	}
	lo, hi := 0, max(len(before), len(after))
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	b := before[len(before)-min(lo, len(before)):]
	a := after[:min(lo, len(after))]
	b = strings.ToValidUTF8(b, "")
	a = strings.ToValidUTF8(a, "")
	return b + text + a, true
}

// wikiHeading reads a MediaWiki heading line, "== Title ==" or "= = Title
// = =": as many equals signs (spaces between them allowed) on both sides
// of a title, up to 6; level 0 when line is not one.
func wikiHeading(line string) (level int, title string) {
	line = strings.TrimSpace(line)
	run := func(s string, fromEnd bool) (n, width int) {
		for width < len(s) {
			i := width
			if fromEnd {
				i = len(s) - 1 - width
			}
			switch s[i] {
			case '=':
				n++
			case ' ':
			default:
				return n, width
			}
			width++
		}
		return n, width
	}
	open, ow := run(line, false)
	closing, cw := run(line, true)
	if open == 0 || open != closing || open > 6 || ow+cw >= len(line) {
		return 0, ""
	}
	title = strings.TrimSpace(line[ow : len(line)-cw])
	if title == "" || strings.ContainsAny(title, "=\n") {
		return 0, ""
	}
	return open, title
}

// sent returns the text of doc sent to the model with chunk c: the whole
// document when it fits in DocumentTokens, else the chunk's section when
// that fits, else the text around the chunk, as much as fits. partial
// tells whether it is less than the document.
func (s *contextStage) sent(text string, whole bool, c gochunk.Chunk) (string, bool) {
	if whole {
		return text, false
	}
	start, end := c.Start(), c.End()
	if a, b := Section(text, start); a <= start && b >= end && s.tokens.Count(text[a:b]) <= s.cfg.DocumentTokens {
		return text[a:b], true
	}
	around := func(r int) (int, int) {
		a, b := max(start-r, 0), min(end+r, len(text))
		for a > 0 && !utf8.RuneStart(text[a]) {
			a++
		}
		for b < len(text) && !utf8.RuneStart(text[b]) {
			b--
		}
		return a, b
	}
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if a, b := around(mid); s.tokens.Count(text[a:b]) <= s.cfg.DocumentTokens {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	a, b := around(lo)
	return text[a:b], true
}

// llmTexts asks the model for each chunk's context (mode llm) and returns
// the embedded texts, context then chunk, and the model's usage; with
// Estimate, it asks nothing and returns the estimate.
func (s *contextStage) llmTexts(ctx context.Context, doc gochunk.Document, chunks []gochunk.Chunk) ([]string, gochunk.LLMUsage, ContextEstimate, error) {
	var usage gochunk.LLMUsage
	var est ContextEstimate
	whole := s.tokens.Count(doc.Text) <= s.cfg.DocumentTokens
	if s.cfg.Estimate {
		overhead := s.tokens.Count(s.prompt.Name) + 120 // the instructions around the document and passage
		prev := ""
		for _, c := range chunks {
			docText, _ := s.sent(doc.Text, whole, c)
			n := s.tokens.Count(docText)
			est.Requests++
			est.PromptTokens += n + s.tokens.Count(c.Text) + overhead
			if docText == prev {
				est.RepeatedTokens += n
			}
			est.CompletionTokens += 60
			prev = docText
		}
		return nil, usage, est, nil
	}
	model, err := s.model()
	if err != nil {
		return nil, usage, est, err
	}
	out := make([]string, len(chunks))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32) // the client bounds the requests in flight
	for i, c := range chunks {
		g.Go(func() error {
			docText, partial := s.sent(doc.Text, whole, c)
			req, err := s.prompt.Request(map[string]any{"Document": docText, "Partial": partial, "Passage": c.Text})
			if err != nil {
				return err
			}
			resp, err := model.Complete(gctx, req)
			if err != nil {
				return fmt.Errorf("context of chunk %d: %w", i, err)
			}
			var ans struct {
				Context string `json:"context"`
			}
			if err := llm.ParseJSON(resp.Content, &ans); err != nil {
				return fmt.Errorf("context of chunk %d: the model's answer is not {\"context\": ...}: %w", i, err)
			}
			if t := strings.TrimSpace(ans.Context); t != "" {
				out[i] = t + "\n\n" + c.Text
			}
			mu.Lock()
			usage.Merge(resp.Usage())
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, usage, est, err
	}
	return out, usage, est, nil
}
