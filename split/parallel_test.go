package split

import (
	"context"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/tokenize"
)

// Texts of megabytes are split on several cores (the oversized pieces of
// the first level, and tiktoken blocks tokenized ahead); the chunks are
// those of one core.
func TestParallelSameChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: chunks 3 MB several times")
	}
	// Paragraphs of every size: most fit, some of tens of kilobytes (lines
	// only) must be split further.
	var parts []string
	for i := range 300 {
		p := textgen.Prose(1000+(i*7919)%40000, uint64(i))
		if i%3 == 0 {
			p = strings.ReplaceAll(p, "\n\n", "\n")
		}
		parts = append(parts, p)
	}
	text := strings.Join(parts, "\n\n")
	cl, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	build := map[string]func() (gochunk.Chunker, error){
		"recursive/runes": func() (gochunk.Chunker, error) {
			return NewRecursive(RecursiveConfig{Size: Size{Size: 700, Overlap: 50}, Separators: DefaultRecursiveConfig().Separators}, tokenize.Runes{})
		},
		"recursive/cl100k": func() (gochunk.Chunker, error) {
			return NewRecursive(RecursiveConfig{Size: Size{Size: 300}, Separators: DefaultRecursiveConfig().Separators}, cl)
		},
		"token/cl100k": func() (gochunk.Chunker, error) { return NewToken(TokenConfig{Size{Size: 256, Overlap: 32}}, cl) },
	}
	for name, b := range build {
		c, err := b()
		if err != nil {
			t.Fatal(err)
		}
		doc := gochunk.Document{Text: text}
		prev := runtime.GOMAXPROCS(1)
		one, err1 := c.Chunk(context.Background(), doc)
		runtime.GOMAXPROCS(2)
		two, err2 := c.Chunk(context.Background(), doc)
		runtime.GOMAXPROCS(prev)
		if err1 != nil || err2 != nil || len(one) < 100 || !reflect.DeepEqual(one, two) {
			t.Errorf("%s: %d chunks on one core, %d on two (%v, %v)", name, len(one), len(two), err1, err2)
		}
	}
}
