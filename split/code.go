package split

import (
	"context"
	"regexp"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// CodeConfig configures the Code chunker.
type CodeConfig struct {
	Size
	Language string `json:"language" doc:"the source language (go, python, js, ts, java, c, cpp, csharp, rust, ruby, php, kotlin, scala, swift, shell, lua); empty means detect it from the document's file name, and plain line structure when unknown"`
}

// DefaultCodeConfig returns a size of 1000, no overlap, and language
// detection.
func DefaultCodeConfig() CodeConfig { return CodeConfig{Size: Size{Size: 1000}} }

// Code chunks source code by its structure: it cuts before top-level
// definitions (functions, types, classes, with the comments, decorators and
// attributes just above them), then before indented definitions (methods),
// then at blank lines, then between lines, then at white space and tokens.
// Whole definitions stay together when they fit. The language comes from
// the configuration or from the extension of the document's "source"
// metadata or ID; each chunk records it under "language".
type Code struct {
	cfg     CodeConfig
	counter tokenize.Counter
	byLang  map[string][]pack.Level
}

// NewCode returns a Code chunker.
func NewCode(cfg CodeConfig, counter tokenize.Counter) (*Code, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Code{cfg: cfg, counter: counterOr(counter), byLang: map[string][]pack.Level{}}
	if cfg.Language != "" {
		if _, err := LanguageSeparators(cfg.Language); err != nil {
			return nil, err
		}
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
	chunks, err := recursiveChunks(ctx, doc, c.counter, c.cfg.Size, levels, true)
	if err != nil || lang == "" {
		return chunks, err
	}
	for i := range chunks {
		chunks[i].Metadata = map[string]any{"language": lang}
	}
	return chunks, nil
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
