package split

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/tokenize"
)

// Benchmarks use the corpus directory in $GOCHUNK_BENCH_CORPUS, else
// ../shared/eval/chroma when it exists, else generated prose. The corpus is
// repeated to the size each benchmark needs.
//
//	go test ./split -run '^$' -bench . -benchtime 3x
var corpusOnce = sync.OnceValue(func() string {
	dir := os.Getenv("GOCHUNK_BENCH_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "eval", "chroma")
	}
	var sb strings.Builder
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".md") || strings.HasSuffix(e.Name(), ".txt") {
				if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
					sb.Write(b)
					sb.WriteString("\n\n")
				}
			}
		}
	}
	if sb.Len() == 0 {
		return textgen.Prose(1<<20, 1)
	}
	return sb.String()
})

func benchText(n int) string {
	base := corpusOnce()
	var sb strings.Builder
	sb.Grow(n + len(base))
	for sb.Len() < n {
		sb.WriteString(base)
	}
	return sb.String()[:n]
}

func runBench(b *testing.B, c gochunk.Chunker, text string) {
	// Cut at a character boundary.
	for len(text) > 0 && text[len(text)-1]&0xC0 == 0x80 {
		text = text[:len(text)-1]
	}
	doc := gochunk.Document{Text: strings.ToValidUTF8(text, "")}
	b.SetBytes(int64(len(doc.Text)))
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Chunk(ctx, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunkers measures every chunker on 1 MB with character sizing
// (1000) and with exact cl100k sizing (512 tokens).
func BenchmarkChunkers(b *testing.B) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		b.Fatal(err)
	}
	text := benchText(1 << 20)
	for _, cfg := range []struct {
		counter tokenize.Counter
		size    int
	}{{tokenize.Runes{}, 1000}, {cl100k, 512}} {
		cs := build(b, cfg.counter, cfg.size, 0)
		for _, name := range []string{"token", "character", "recursive", "sentence", "semchunk", "adaptive", "markdown", "code"} {
			b.Run(fmt.Sprintf("%s/%s", name, cfg.counter.Name()), func(b *testing.B) { runBench(b, cs[name], text) })
		}
	}
}

// BenchmarkLinear runs each chunker at 1, 10 and 50 MB: MB/s stays flat
// when the cost is linear in the input.
func BenchmarkLinear(b *testing.B) {
	cs := build(b, tokenize.Runes{}, 1000, 100)
	for _, mb := range []int{1, 10, 50} {
		text := benchText(mb << 20)
		for _, name := range []string{"token", "character", "recursive", "sentence", "semchunk", "markdown", "code"} {
			b.Run(fmt.Sprintf("%s/%dMB", name, mb), func(b *testing.B) { runBench(b, cs[name], text) })
		}
	}
}

// BenchmarkNoDelimiter chunks a 50 MB line with no delimiter.
func BenchmarkNoDelimiter(b *testing.B) {
	text := strings.Repeat("abcdefghij", 5<<20)
	cs := build(b, tokenize.Runes{}, 1000, 0)
	for _, name := range []string{"recursive", "semchunk", "sentence", "adaptive", "token"} {
		b.Run(name, func(b *testing.B) { runBench(b, cs[name], text) })
	}
}

// BenchmarkExactTokens measures token and recursive at size 512 on 5 MB
// of the corpus, sized in runes and in cl100k_base tokens, one after the
// other: issue 37's in-process ratios are the cl100k_base figure over the
// runes one (go test ./split -run '^$' -bench ExactTokens -cpu 1).
func BenchmarkExactTokens(b *testing.B) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		b.Fatal(err)
	}
	text := benchText(5 << 20)
	for _, name := range []string{"token", "recursive"} {
		for _, counter := range []tokenize.Counter{tokenize.Runes{}, cl100k} {
			cs := build(b, counter, 512, 0)
			b.Run(fmt.Sprintf("%s/%s", name, counter.Name()), func(b *testing.B) { runBench(b, cs[name], text) })
		}
	}
}
