package semantic_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/semantic"
	"github.com/gochunk/gochunk/tokenize"
)

// Split where the topic changes: with a nil embedder the built-in lexical
// one is used, so this runs offline. The breakpoint is the largest drop in
// similarity between neighbouring sentences.
func ExampleBreakpoint() {
	text := strings.Join([]string{
		"Glaciers carve valleys as the ice moves.", "The ice of a glacier flows slowly downhill.", "A glacier leaves moraines of rock behind.",
		"Compilers parse source code into trees.", "A compiler checks the types of the code.", "The compiler then emits machine code.",
	}, " ")
	cfg := semantic.DefaultBreakpointConfig()
	cfg.NumberChunks = 2
	cfg.BufferSize = 0 // compare sentences alone, not with their neighbours
	c, err := semantic.NewBreakpoint(cfg, tokenize.Words{}, nil)
	if err != nil {
		panic(err)
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		panic(err)
	}
	for _, ch := range chunks {
		fmt.Println(ch.Text)
	}
	// Output:
	// Glaciers carve valleys as the ice moves. The ice of a glacier flows slowly downhill. A glacier leaves moraines of rock behind.
	// Compilers parse source code into trees. A compiler checks the types of the code. The compiler then emits machine code.
}
