package gochunk_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
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

// Build any chunker by name from a JSON configuration, with exact tiktoken
// sizing, as the command line and the server do.
func ExampleRegistry() {
	counter, err := tokenize.New("cl100k_base")
	if err != nil {
		panic(err)
	}
	c, err := chunkers.New().New("sentence", []byte(`{"size": 16}`), gochunk.Env{Counter: counter})
	if err != nil {
		panic(err)
	}
	chunks, _ := c.Chunk(context.Background(), gochunk.Document{Text: "Dr. Smith arrived. The meeting began at 3.30 p.m. sharp! Everyone listened."})
	for _, ch := range chunks {
		fmt.Println(ch.TokenCount, ch.Text)
	}
	// Output:
	// 5 Dr. Smith arrived.
	// 13 The meeting began at 3.30 p.m. sharp!
	// 3 Everyone listened.
}
