package split

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

// fuzzChunker checks the contract on random text, sizes and overlaps.
func fuzzChunker(f *testing.F, make func(sz Size, counter tokenize.Counter) (gochunk.Chunker, error)) {
	fuzzSizes(f, true, make)
}

// fuzzSizes is fuzzChunker, with overlaps only when overlap is set (a
// chunker without overlap is held to chunks that do not overlap).
func fuzzSizes(f *testing.F, overlap bool, make func(sz Size, counter tokenize.Counter) (gochunk.Chunker, error)) {
	for _, s := range []string{
		"Hello world. This is a test.\n\nNew paragraph here.",
		"# Title\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"func main() {\n\tprintln(1)\n}\n\n// c\nfunc x() {}\n",
		"日本語。中文！🎉🎉🎉 aaaa,bbbb;cccc",
		"   \n\t ",
	} {
		f.Add(s, uint8(10), uint8(3), false)
	}
	// A prepended mark before each space: no cl100k_base token of the
	// line ends between two grapheme clusters.
	f.Add("\u0600 \u0600 \u0600 \u0600 \u0600 \u0600 ", uint8(0), uint8(1), true)
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, size, ov uint8, tokens bool) {
		if !utf8.ValidString(text) {
			return
		}
		sz := Size{Size: int(size%64) + 4}
		if overlap {
			sz.Overlap = int(ov) % sz.Size
		}
		var counter tokenize.Counter = tokenize.Runes{}
		if tokens {
			counter = cl100k
		}
		c, err := make(sz, counter)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Chunk(context.Background(), gochunk.Document{Text: text}); errors.Is(err, gochunk.ErrTooSmall) {
			checkTooSmall(t, text, counter, sz.Size, err)
			return
		}
		_, repeats := c.(*Markdown) // only markdown repeats a table's header above its parts
		chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: sz.Size, Overlap: sz.Overlap > 0, RepeatedHeaders: repeats})
	})
}

// checkTooSmall fails unless err, the documented error for a limit under
// one character, is true of some grapheme cluster of text.
func checkTooSmall(t *testing.T, text string, counter tokenize.Counter, limit int, err error) {
	t.Helper()
	for g := uniseg.NewGraphemes(text); g.Next(); {
		if counter.Count(g.Str()) > limit {
			return
		}
	}
	t.Fatalf("Chunk(%.60q) at size %d: %v, but every character fits", text, limit, err)
}

func FuzzToken(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) { return NewToken(TokenConfig{sz}, c) })
}

// FuzzTokenLong holds the token chunker to the contract at the sizes where
// it counts most of a window without listing its tokens (see
// pack.splitTokensCounted): text repeated to several windows of 128 to 383
// cl100k_base tokens.
func FuzzTokenLong(f *testing.F) {
	for _, s := range []string{"The chunk, e\u0301 and 👩\u200d💻 42x1y2\r\n", "\u0600 a\u0301\u0302 🇫🇷🇫 — 'll\n\n  \t", "word "} {
		f.Add(s, uint8(0), uint8(0))
	}
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, size, ov uint8) {
		if !utf8.ValidString(s) || s == "" || len(s) > 2000 {
			return
		}
		text := strings.Repeat(s, 6000/len(s)+1)
		sz := Size{Size: 128 + int(size), Overlap: int(ov) % 64}
		c, err := NewToken(TokenConfig{sz}, cl100k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Chunk(context.Background(), gochunk.Document{Text: text}); errors.Is(err, gochunk.ErrTooSmall) {
			checkTooSmall(t, text, cl100k, sz.Size, err) // prepended marks can join a whole line
			return
		}
		chunktest.Check(t, c, text, chunktest.Options{Counter: cl100k, Limit: sz.Size, Overlap: sz.Overlap > 0})
	})
}

func FuzzCharacter(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		cfg := DefaultCharacterConfig()
		cfg.Size, cfg.Separator = sz, "."
		return NewCharacter(cfg, c)
	})
}

func FuzzRecursive(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		cfg := DefaultRecursiveConfig()
		cfg.Size = sz
		return NewRecursive(cfg, c)
	})
}

func FuzzRecursiveMarkdownPreset(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		cfg := DefaultRecursiveConfig()
		cfg.Size, cfg.Language = sz, "markdown"
		return NewRecursive(cfg, c)
	})
}

func FuzzSentence(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		cfg := DefaultSentenceConfig()
		cfg.Size = sz
		return NewSentence(cfg, c)
	})
}

func FuzzSemchunk(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) { return NewSemchunk(SemchunkConfig{sz}, c) })
}

func FuzzMarkdown(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		return NewMarkdown(MarkdownConfig{Size: sz, HeadingPath: true}, c)
	})
}

func FuzzCode(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		return NewCode(CodeConfig{Size: sz, Language: "go"}, c)
	})
}

func FuzzAdaptive(f *testing.F) {
	fuzzSizes(f, false, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		cfg := DefaultAdaptiveConfig()
		cfg.Size = sz.Size
		return NewAdaptive(cfg, c)
	})
}
