package segment_test

import (
	"fmt"

	"github.com/gochunk/gochunk/segment"
)

// Sentences keeps abbreviations, initials and decimals inside sentences
// and returns byte ranges that partition the text (a sentence keeps the
// space after it).
func ExampleSentences() {
	text := "Dr. J. R. Smith paid $3.50 for it, e.g. at 9 a.m. on Monday. Was it worth it? Yes!"
	for _, r := range segment.Sentences(text) {
		fmt.Printf("[%d:%d] %q\n", r.Start, r.End, text[r.Start:r.End])
	}
	// Output:
	// [0:61] "Dr. J. R. Smith paid $3.50 for it, e.g. at 9 a.m. on Monday. "
	// [61:78] "Was it worth it? "
	// [78:82] "Yes!"
}
