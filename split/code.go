package split

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"regexp"
	"slices"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/syntax"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// CodeConfig configures the Code chunker.
type CodeConfig struct {
	Size
	Language string `json:"language" doc:"the source language (go, python, js, ts, java, c, cpp, csharp, rust, ruby, php, kotlin, scala, swift, shell, lua); empty means detect it from the document's file name, and plain line structure when unknown"`
	Parser   string `json:"parser" doc:"how the code is cut: auto (on its tree-sitter syntax tree where the language has a grammar: python, go, js, ts, java, rust, c, cpp; else by definition patterns and lines), tree (the syntax tree, or an error), lines (definition patterns and lines)"`
}

// DefaultCodeConfig returns a size of 1000, no overlap, language
// detection and the syntax tree where there is one.
func DefaultCodeConfig() CodeConfig { return CodeConfig{Size: Size{Size: 1000}, Parser: "auto"} }

// Code chunks source code by its structure. On a tree-sitter syntax tree
// (the cgo build; Python, Go, JavaScript, TypeScript, Java, Rust, C, C++)
// it keeps whole nodes — functions, classes, methods, statements — when
// they fit, with the comments and attributes right above them, and splits
// a node too large at its children, recursively, so it never cuts inside a
// string literal or an identifier while a boundary between statements
// exists; each chunk's metadata names the definitions it holds
// ("definitions": ["function foo"]), the one it is part of ("within") and
// all those it is part of, outermost first ("enclosing": ["class Cart",
// "method Add"]).
// Without a tree it cuts before lines that start a definition (patterns
// per language, with the comment and annotation lines above), then at
// blank lines, then between lines. Below that, at white space and tokens.
// The language comes from the configuration or from the extension of the
// document's "source" metadata or ID; each chunk records it ("language")
// and how it was cut ("parser": tree-sitter or lines).
type Code struct {
	cfg     CodeConfig
	counter tokenize.Counter
	byLang  map[string][]pack.Level
}

// NewCode returns a Code chunker.
func NewCode(cfg CodeConfig, counter tokenize.Counter) (*Code, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Code{cfg: cfg, counter: counterOr(counter), byLang: map[string][]pack.Level{}}
	if cfg.Language != "" {
		if _, err := LanguageSeparators(cfg.Language); err != nil {
			return nil, err
		}
	}
	switch cfg.Parser {
	case "", "auto", "tree", "lines":
	default:
		return nil, fmt.Errorf("%w: code chunker: parser %q: want auto, tree or lines", gochunk.ErrConfig, cfg.Parser)
	}
	for name, l := range languages {
		top := regexp.MustCompile(`^(?:` + l.defs + `)`)
		nested := regexp.MustCompile(`^[ \t]+(?:` + l.defs + `)`)
		c.byLang[name] = []pack.Level{defLevel(top, l.comments), defLevel(nested, l.comments), blankLineLevel, lineLevel}
	}
	return c, nil
}

// Chunk implements gochunk.Chunker.
func (c *Code) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	lang := canonicalLanguage(c.cfg.Language)
	if lang == "" {
		for _, hint := range []any{doc.Metadata["language"], doc.Metadata["source"], doc.ID} {
			if s, ok := hint.(string); ok && s != "" {
				if _, known := languages[canonicalLanguage(s)]; known {
					lang = canonicalLanguage(s)
				} else {
					lang = LanguageForFile(s)
				}
				if lang != "" {
					break
				}
			}
		}
	}
	levels, ok := c.byLang[lang]
	if !ok {
		levels = []pack.Level{blankLineLevel, lineLevel}
	}
	var tree *syntax.Tree
	grammar := lang
	if src, _ := doc.Metadata["source"].(string); lang == "ts" && strings.HasSuffix(cmp.Or(src, doc.ID), ".tsx") {
		grammar = "tsx"
	}
	// The parser takes a copy of the text: not made where auto would fall
	// back to lines anyway (no grammar for the language, or no cgo).
	// (tsx is parsed where ts is.)
	if c.cfg.Parser != "lines" && doc.Text != "" && (c.cfg.Parser == "tree" || hasGrammar(lang)) {
		// Nodes under a quarter of the limit are kept whole (comments joined
		// to a node can make it larger than the limit, so not the limit).
		t, err := syntax.Parse(ctx, grammar, []byte(doc.Text), c.cfg.Size.Size/4)
		switch {
		case err == nil && (t.ErrorShare() <= 0.5 || c.cfg.Parser == "tree"):
			tree, levels = t, treeLevels(t)
		case err == nil:
			// Mostly syntax errors: not this language's code; lines serve better.
		case c.cfg.Parser == "tree" && errors.Is(err, syntax.ErrUnavailable):
			return nil, fmt.Errorf("%w: code chunker: parser tree: %w", gochunk.ErrConfig, err)
		case c.cfg.Parser == "tree":
			return nil, fmt.Errorf("%w: code chunker: parser tree: %v (languages with a grammar: %s)", gochunk.ErrConfig, err, strings.Join(syntax.Languages(), ", "))
		case ctx.Err() != nil:
			return nil, fmt.Errorf("chunking cancelled: %w", ctx.Err())
		}
	}
	chunks, err := recursiveChunks(ctx, doc, c.counter, c.cfg.Size, levels, true)
	if err != nil || lang == "" {
		return chunks, err
	}
	for i := range chunks {
		md := map[string]any{"language": lang, "parser": "lines"}
		if tree != nil && len(chunks[i].Spans) > 0 {
			md["parser"] = "tree-sitter"
			sp := chunks[i].Spans
			in, within := tree.Definitions(sp[0].Start, sp[len(sp)-1].End)
			if len(in) > 0 {
				names := make([]string, len(in))
				for k, d := range in {
					names[k] = d.String()
				}
				md["definitions"] = names
			}
			if within != nil {
				md["within"] = within.String()
				var path []string
				for _, d := range tree.Enclosing(sp[0].Start, sp[len(sp)-1].End) {
					path = append(path, d.String())
				}
				md["enclosing"] = path
			}
		}
		chunks[i].Metadata = md
	}
	return chunks, nil
}

// hasGrammar reports whether this build parses lang into a syntax tree.
func hasGrammar(lang string) bool {
	return lang != "" && slices.Contains(syntax.Languages(), lang)
}

// treeDepth bounds how many times a node too large is split at its
// children before lines take over.
const treeDepth = 48

// treeLevels cuts at the syntax tree's nodes, a level deeper each time a
// piece is too large, then between lines.
func treeLevels(t *syntax.Tree) []pack.Level {
	level := func(text string, a, b int, dst []pack.Piece) []pack.Piece {
		for _, s := range t.Cut(a, b, nil) { // no shared scratch: engines may run on several cores
			dst = append(dst, pack.Piece{Start: s[0], End: s[1]})
		}
		return dst
	}
	levels := make([]pack.Level, 0, treeDepth+1)
	for range treeDepth {
		levels = append(levels, level)
	}
	return append(levels, lineLevel)
}

// defLevel cuts before every line that matches def, moved up over the
// comment and annotation lines directly above it.
func defLevel(def *regexp.Regexp, comments []string) pack.Level {
	return func(text string, a, b int, dst []pack.Piece) []pack.Piece {
		pos := a
		var prevStarts []int // starts of the lines above, back to the last cut
		for ls := a; ls < b; {
			le := strings.IndexByte(text[ls:b], '\n')
			if le < 0 {
				le = b
			} else {
				le += ls + 1
			}
			if ls > pos && def.MatchString(text[ls:le]) {
				cut := ls
				for k := len(prevStarts) - 1; k >= 0; k-- {
					ps := prevStarts[k]
					if ps <= pos || !isCommentLine(text[ps:cut], comments) {
						break
					}
					cut = ps
				}
				if cut > pos {
					dst = append(dst, pack.Piece{Start: pos, End: cut})
					pos = cut
				}
				prevStarts = prevStarts[:0]
			}
			prevStarts = append(prevStarts, ls)
			ls = le
		}
		return append(dst, pack.Piece{Start: pos, End: b})
	}
}

func isCommentLine(line string, prefixes []string) bool {
	t := strings.TrimSpace(line)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	for _, p := range prefixes {
		if strings.HasPrefix(t, strings.TrimSpace(p)) {
			return true
		}
	}
	return false
}

// blankLineLevel cuts after every run of blank lines.
func blankLineLevel(text string, a, b int, dst []pack.Piece) []pack.Piece {
	for _, r := range segment.Paragraphs(text[a:b]) {
		dst = append(dst, pack.Piece{Start: a + r.Start, End: a + r.End})
	}
	return dst
}

// lineLevel cuts after every line.
func lineLevel(text string, a, b int, dst []pack.Piece) []pack.Piece {
	return pack.SplitLines(text, a, b, dst)
}
