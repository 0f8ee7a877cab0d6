package tokenize_test

import (
	"fmt"

	"github.com/gochunk/gochunk/tokenize"
)

// Count the same text in several units; tiktoken vocabularies are compiled
// in, so nothing is downloaded.
func ExampleNew() {
	text := "Chunkers cut text into pieces."
	for _, name := range []string{"runes", "words", "bytes", "cl100k_base"} {
		c, err := tokenize.New(name)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, c.Count(text))
	}
	// Output:
	// runes 30
	// words 5
	// bytes 30
	// cl100k_base 7
}
