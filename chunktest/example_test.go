package chunktest_test

import (
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

// Verify reports the first broken promise of a list of chunks: here a
// chunk whose offsets do not hold its text. In a test, Check runs a
// chunker and every check at once.
func ExampleVerify() {
	text := "Hello world. Bye."
	chunks := []gochunk.Chunk{
		{Index: 0, Text: "Hello world.", TokenCount: 12, Spans: []gochunk.Span{{Start: 0, End: 12, StartRune: 0, EndRune: 12}}},
		{Index: 1, Text: "Bye!", TokenCount: 4, Spans: []gochunk.Span{{Start: 13, End: 17, StartRune: 13, EndRune: 17}}},
	}
	fmt.Println(chunktest.Verify(text, chunks, chunktest.Options{Counter: tokenize.Runes{}, Limit: 20}))
	// Output:
	// chunk 1 text "Bye!" is not its spans' text "Bye."
}
