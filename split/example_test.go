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
		fmt.Printf("%v %q\n", ch.Metadata["headings"], ch.Text)
	}
	// Output:
	// [Guide] "# Guide\n\nIntro text."
	// [Guide Install] "## Install\n\nRun the installer."
	// [Guide Use] "## Use\n\nCall the tool."
}
