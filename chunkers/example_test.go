package chunkers_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/tokenize"
)

// Build any chunker by name from a JSON configuration, with exact tiktoken
// sizing, as the command line and the server do.
func ExampleRegistry() {
	counter, err := tokenize.New("cl100k_base")
	if err != nil {
		panic(err)
	}
	c, err := chunkers.New().New("sentence", []byte(`{"size": 16}`), chunkers.Env{Counter: counter})
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
