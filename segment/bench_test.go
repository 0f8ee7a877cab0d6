package segment

import (
	"testing"

	"github.com/gochunk/gochunk/internal/textgen"
)

func BenchmarkSentences(b *testing.B) {
	text := textgen.Prose(4<<20, 3)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Sentences(text)
	}
}
