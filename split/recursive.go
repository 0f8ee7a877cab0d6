package split

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"regexp"
	"strings"
	"unicode"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/tokenize"
)

// Where a separator goes when text is cut at it.
const (
	KeepNone  = "none"  // dropped where two chunks meet (kept inside a chunk)
	KeepStart = "start" // kept at the start of the piece after it
	KeepEnd   = "end"   // kept at the end of the piece before it
)

// CharacterConfig configures the Character splitter.
type CharacterConfig struct {
	Size
	Separator       string `json:"separator" doc:"the separator to split on"`
	IsRegex         bool   `json:"is_separator_regex" doc:"treat the separator as a regular expression (RE2 syntax)"`
	KeepSeparator   string `json:"keep_separator" doc:"where separators go: none, start (of the next piece) or end (of the previous piece)"`
	StripWhitespace bool   `json:"strip_whitespace" doc:"trim white space from both ends of every chunk"`
}

// DefaultCharacterConfig returns LangChain's CharacterTextSplitter defaults,
// with a size of 1000 and no overlap.
func DefaultCharacterConfig() CharacterConfig {
	return CharacterConfig{Size: Size{Size: 1000}, Separator: "\n\n", KeepSeparator: KeepNone, StripWhitespace: true}
}

// Character is LangChain's CharacterTextSplitter: the text is cut at one
// separator and the pieces are merged greedily up to the size, with overlap.
// Unlike LangChain, a piece larger than the size is cut further (at white
// space, then at tokens) instead of being returned oversized, and a
// separator that is not white space is never dropped: with keep_separator
// "none" it stays at the end of the piece before it.
type Character struct {
	cfg     CharacterConfig
	counter tokenize.Counter
	level   pack.Level
}

// NewCharacter returns a Character splitter.
func NewCharacter(cfg CharacterConfig, counter tokenize.Counter) (*Character, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	lvl, err := separatorLevel(cfg.Separator, cfg.IsRegex, cfg.KeepSeparator)
	if err != nil {
		return nil, err
	}
	return &Character{cfg: cfg, counter: counterOr(counter), level: lvl}, nil
}

// Chunk implements gochunk.Chunker.
func (c *Character) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	var levels []pack.Level
	if c.level != nil {
		levels = []pack.Level{c.level}
	}
	return recursiveChunks(ctx, doc, c.counter, c.cfg.Size, levels, c.cfg.StripWhitespace)
}

// RecursiveConfig configures the Recursive splitter.
type RecursiveConfig struct {
	Size
	Separators      []string `json:"separators" doc:"separators from coarsest to finest; the empty string means single characters"`
	IsRegex         bool     `json:"is_separator_regex" doc:"treat separators as regular expressions (RE2 syntax)"`
	KeepSeparator   string   `json:"keep_separator" doc:"where separators go: none, start (of the next piece) or end (of the previous piece)"`
	StripWhitespace bool     `json:"strip_whitespace" doc:"trim white space from both ends of every chunk"`
	Language        string   `json:"language" doc:"use the separators preset of a language (markdown, go, python, js, ts, java, c, cpp, csharp, rust, ruby, php, kotlin, scala, swift, html, latex); overrides separators"`
}

// DefaultRecursiveConfig returns LangChain's RecursiveCharacterTextSplitter
// defaults (separators "\n\n", "\n", " ", "", separators kept at the start
// of the next piece), with a size of 1000 and no overlap.
func DefaultRecursiveConfig() RecursiveConfig {
	return RecursiveConfig{
		Size:            Size{Size: 1000},
		Separators:      []string{"\n\n", "\n", " ", ""},
		KeepSeparator:   KeepStart,
		StripWhitespace: true,
	}
}

// Recursive is LangChain's RecursiveCharacterTextSplitter: it cuts at the
// first separator of its list that occurs in the text, merges the pieces
// that fit up to the size with overlap, and cuts each piece that does not
// fit with the rest of the list. Pieces that still do not fit are cut at
// tokens, so no chunk is ever over the size.
type Recursive struct {
	cfg     RecursiveConfig
	counter tokenize.Counter
	levels  []pack.Level
	chars   bool // the separators end with "": cut at characters next
}

// NewRecursive returns a Recursive splitter.
func NewRecursive(cfg RecursiveConfig, counter tokenize.Counter) (*Recursive, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	seps, isRegex := cfg.Separators, cfg.IsRegex
	if cfg.Language != "" {
		p, err := LanguageSeparators(cfg.Language)
		if err != nil {
			return nil, err
		}
		seps, isRegex = p, true
	}
	r := &Recursive{cfg: cfg, counter: counterOr(counter)}
	for _, s := range seps {
		if s == "" {
			r.chars = true
		}
		lvl, err := separatorLevel(s, isRegex, cfg.KeepSeparator)
		if err != nil {
			return nil, err
		}
		if lvl != nil {
			r.levels = append(r.levels, lvl)
		}
	}
	return r, nil
}

// Chunk implements gochunk.Chunker.
func (r *Recursive) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	e := &pack.Engine{Counter: r.counter, Limit: r.cfg.Size.Size, Overlap: r.cfg.Overlap, Levels: r.levels, SkipWords: r.chars}
	return runEngine(ctx, doc, e, r.cfg.StripWhitespace)
}

// rangeChunker returns a function that chunks doc.Text[a:b] (the text is
// already checked), offsets in the whole text, with one engine for every
// range; chunk indexes are left for the caller.
func (r *Recursive) rangeChunker(doc gochunk.Document) func(ctx context.Context, a, b int) ([]gochunk.Chunk, error) {
	e := &pack.Engine{Text: doc.Text, Counter: r.counter, Limit: r.cfg.Size.Size, Overlap: r.cfg.Overlap, Levels: r.levels, SkipWords: r.chars}
	e.Init()
	return func(ctx context.Context, a, b int) ([]gochunk.Chunk, error) {
		ranges, err := e.Split(ctx, a, b, nil)
		if err != nil {
			return nil, err
		}
		return e.Build(ctx, ranges, r.cfg.StripWhitespace)
	}
}

// separatorLevel returns the level that cuts at sep; nil for the empty
// separator, which the engine's token level stands for.
func separatorLevel(sep string, isRegex bool, keep string) (pack.Level, error) {
	switch keep {
	case KeepNone, KeepStart, KeepEnd:
	case "":
		keep = KeepNone
	default:
		return nil, fmt.Errorf("%w: keep_separator %q: want none, start or end", gochunk.ErrConfig, keep)
	}
	if sep == "" {
		return nil, nil
	}
	var find func(s string) (int, int, bool) // first match in s
	if isRegex {
		re, err := regexp.Compile(sep)
		if err != nil {
			return nil, fmt.Errorf("%w: separator %q: %v", gochunk.ErrConfig, sep, err)
		}
		find = func(s string) (int, int, bool) {
			loc := re.FindStringIndex(s)
			if loc == nil || loc[0] == loc[1] {
				return 0, 0, false // an empty match cannot cut
			}
			return loc[0], loc[1], true
		}
	} else {
		find = func(s string) (int, int, bool) {
			i := strings.Index(s, sep)
			if i < 0 {
				return 0, 0, false
			}
			return i, i + len(sep), true
		}
	}
	return func(text string, a, b int, dst []pack.Piece) []pack.Piece {
		pos := a   // start of the current piece
		blank := 0 // pieces of white space alone just made, in a row
		add := func(p pack.Piece) {
			// A run of blank lines cut at every separator makes a piece of
			// white space per separator: past maxBlankPieces in a row they
			// are one piece, so the run costs bounded memory. (Chunks of
			// white space alone are dropped, so nothing is lost, and text
			// with a few blank lines in a row cuts as LangChain does.)
			if !allSpace(text[p.Start:p.End]) {
				blank = 0
			} else if blank++; blank > maxBlankPieces && dst[len(dst)-1].End == p.Start {
				dst[len(dst)-1].End = p.End
				return
			}
			dst = append(dst, p)
		}
		for i := a; i < b; {
			ls, le, ok := find(text[i:b])
			if !ok {
				break
			}
			ms, me := i+ls, i+le
			mode := keep
			if mode == KeepNone && !allSpace(text[ms:me]) {
				mode = KeepEnd // never drop text
			}
			switch mode {
			case KeepNone:
				if ms > pos {
					add(pack.Piece{Start: pos, End: ms})
				}
				pos = me
			case KeepStart:
				if ms > pos {
					add(pack.Piece{Start: pos, End: ms})
					pos = ms
				}
			case KeepEnd:
				if me > pos {
					add(pack.Piece{Start: pos, End: me})
				}
				pos = me
			}
			i = me
		}
		if b > pos {
			add(pack.Piece{Start: pos, End: b})
		}
		return dst
	}, nil
}

// maxBlankPieces is how many pieces of white space alone in a row a
// separator level makes before it joins the rest of the run into one.
const maxBlankPieces = 64

func allSpace(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
