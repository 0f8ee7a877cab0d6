package split

import (
	"context"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/tokenize"
)

// Texts of megabytes are split on several cores (the oversized pieces of
// the first level; tiktoken blocks counted ahead of the counted windows,
// or tokenized ahead of the merge below countedLimit and from a line the
// tokenizer cannot cut); the chunks are those of one core. Each run has a
// counter of its own, so that the two-core run starts with an empty
// cache, as a process does.
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
	// A line of 600 kB of letters, which no tiktoken pattern cuts, in the
	// middle: the counted windows stop there and the blocks go on.
	rng := rand.New(rand.NewPCG(3, 4))
	letters := make([]byte, 600<<10)
	for i := range letters {
		letters[i] = byte('a' + rng.IntN(26))
	}
	lettered := text[:len(text)/2] + "\n" + string(letters) + "\n" + text[len(text)/2:]
	// The same line first: the counted windows do nothing, and the blocks
	// cut for the cores that count ahead are those tokenized ahead.
	letteredFirst := string(letters) + "\n" + text[:len(text)/3]
	cl100k := func() tokenize.Counter {
		cl, err := tokenize.New("cl100k_base")
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	build := map[string]func() (gochunk.Chunker, error){
		"recursive/runes": func() (gochunk.Chunker, error) {
			return NewRecursive(RecursiveConfig{Size: Size{Size: 700, Overlap: 50}, Separators: DefaultRecursiveConfig().Separators}, tokenize.Runes{})
		},
		"recursive/cl100k": func() (gochunk.Chunker, error) {
			return NewRecursive(RecursiveConfig{Size: Size{Size: 300}, Separators: DefaultRecursiveConfig().Separators}, cl100k())
		},
		"token/cl100k": func() (gochunk.Chunker, error) { return NewToken(TokenConfig{Size{Size: 256, Overlap: 32}}, cl100k()) },
		"token/cl100k/small": func() (gochunk.Chunker, error) {
			return NewToken(TokenConfig{Size{Size: 100, Overlap: 10}}, cl100k())
		},
	}
	for name, b := range build {
		for _, in := range []struct{ name, text string }{{"prose", text}, {"letters", lettered}, {"letters first", letteredFirst}} {
			if in.name != "prose" && !strings.HasPrefix(name, "token/") {
				continue
			}
			var chunks [2][]gochunk.Chunk
			var errs [2]error
			for k, procs := range []int{1, 2} {
				c, err := b()
				if err != nil {
					t.Fatal(err)
				}
				prev := runtime.GOMAXPROCS(procs)
				chunks[k], errs[k] = c.Chunk(context.Background(), gochunk.Document{Text: in.text})
				runtime.GOMAXPROCS(prev)
			}
			if errs[0] != nil || errs[1] != nil || len(chunks[0]) < 100 || !reflect.DeepEqual(chunks[0], chunks[1]) {
				t.Errorf("%s on %s: %d chunks on one core, %d on two (%v, %v)", name, in.name, len(chunks[0]), len(chunks[1]), errs[0], errs[1])
			}
		}
	}
}
