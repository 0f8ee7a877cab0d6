package embed

import (
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

// oneEnd counts four bytes a token but gives one token end, at the text's
// end, as an encoder may for a piece it cannot cut.
type oneEnd struct{ tokenize.Bytes }

func (oneEnd) Count(text string) int { return (len(text) + 3) / 4 }

func (oneEnd) AppendTokenEnds(dst []int, text string) []int { return append(dst, len(text)) }

// TestSplitLongWithoutCut: a text over the limit with no token end inside
// it is sent whole (the server then refuses it by name) instead of being
// cut again and again into the same piece (on 5173dfb the recursion never
// ended: the goroutine's stack overflowed).
func TestSplitLongWithoutCut(t *testing.T) {
	o := &OpenAI{counter: oneEnd{}, limit: 4}
	text := "a text of forty bytes with no cut in it."
	got := o.splitLong(text)
	if len(got) != 1 || got[0] != text {
		t.Fatalf("splitLong = %q, want the text whole", got)
	}
}
