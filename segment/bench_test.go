package segment

import (
	"testing"

	"gochunk/internal/textgen"
)

func BenchmarkSentences(b *testing.B) {
	text := textgen.Prose(4<<20, 3)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Sentences(text)
	}
}
