package gochunk_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
)

// Chunk a document with LangChain-style recursive splitting, sizes in code
// points.
func Example() {
	cfg := split.DefaultRecursiveConfig()
	cfg.Size.Size = 40
	c, err := split.NewRecursive(cfg, tokenize.Runes{})
	if err != nil {
		panic(err)
	}
	doc := gochunk.Document{Text: "Chunkers cut text.\n\nEvery chunk knows where it came from, to the byte."}
	chunks, err := c.Chunk(context.Background(), doc)
	if err != nil {
		panic(err)
	}
	for _, ch := range chunks {
		fmt.Printf("%d [%d:%d] %q\n", ch.Index, ch.Start(), ch.End(), ch.Text)
	}
	// Output:
	// 0 [0:18] "Chunkers cut text."
	// 1 [20:57] "Every chunk knows where it came from,"
	// 2 [58:70] "to the byte."
}
