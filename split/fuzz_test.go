package split

import (
	"context"
	"errors"
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
			// The documented error for a limit under one character: it
			// must be true of some grapheme cluster of the text.
			for g := uniseg.NewGraphemes(text); g.Next(); {
				if counter.Count(g.Str()) > sz.Size {
					return
				}
			}
			t.Fatalf("Chunk(%.60q) at size %d: %v, but every character fits", text, sz.Size, err)
		}
		_, repeats := c.(*Markdown) // only markdown repeats a table's header above its parts
		chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: sz.Size, Overlap: sz.Overlap > 0, RepeatedHeaders: repeats})
	})
}

func FuzzToken(f *testing.F) {
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) { return NewToken(TokenConfig{sz}, c) })
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
