package split_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
)

// The markdown chunker keeps a heading with its text and records the
// heading path of every chunk.
func ExampleMarkdown() {
	text := "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n## Use\n\nCall the tool."
	cfg := split.DefaultMarkdownConfig()
	cfg.Size = split.Size{Size: 40}
	c, err := split.NewMarkdown(cfg, tokenize.Runes{})
	if err != nil {
		panic(err)
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		panic(err)
	}
	for _, ch := range chunks {
		fmt.Printf("%v %q\n", ch.Headings, ch.Text)
	}
	// Output:
	// [Guide] "# Guide\n\nIntro text."
	// [Guide Install] "## Install\n\nRun the installer."
	// [Guide Use] "## Use\n\nCall the tool."
}

// The adaptive chunker ends its chunks at paragraph breaks where it can:
// greedy packing would fill the first chunk with a sentence of the second
// paragraph.
func ExampleAdaptive() {
	text := "The cat sat on a mat. It purred all day. Then it slept well.\n\n" +
		"Markets fell sharply. Rates rose again. Bonds were bought."
	cfg := split.DefaultAdaptiveConfig()
	cfg.Size = 100
	c, err := split.NewAdaptive(cfg, tokenize.Runes{})
	if err != nil {
		panic(err)
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		panic(err)
	}
	for _, ch := range chunks {
		fmt.Printf("%d-%d %q\n", ch.Start(), ch.End(), ch.Text)
	}
	// Output:
	// 0-60 "The cat sat on a mat. It purred all day. Then it slept well."
	// 62-120 "Markets fell sharply. Rates rose again. Bonds were bought."
}
