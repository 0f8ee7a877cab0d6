package semantic

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/tokenize"
)

// BenchmarkLexical runs every chunker with the built-in lexical embedder
// at 1, 10 and 50 MB of generated prose: MB/s stays flat when the cost is
// linear.
//
//	go test ./semantic -run '^$' -bench Lexical -benchtime 1x -cpu 1
func BenchmarkLexical(b *testing.B) {
	for _, mb := range []int{1, 10, 50} {
		text := textgen.Prose(mb<<20, 7)
		for _, name := range []string{"semantic", "savgol", "hierarchical", "dp", "cluster"} {
			c := allChunkers(b, 512, tokenize.Runes{}, nil)[name]
			b.Run(fmt.Sprintf("%s/%dMB", name, mb), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					if _, err := c.Chunk(context.Background(), gochunk.Document{Text: text}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// timedEmbedder measures the time spent embedding.
type timedEmbedder struct {
	gochunk.Embedder
	spent time.Duration
}

func (t *timedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	defer func() { t.spent += time.Since(start) }()
	return t.Embedder.Embed(ctx, texts)
}

// staticModel builds a Model2Vec model of potion-base-8M's size from its
// real tokenizer (in ../shared) and a generated table, or skips.
func staticModel(b *testing.B) gochunk.Embedder {
	tokPath := filepath.Join("..", "..", "shared", "tokenizers", "potion-base-8M", "tokenizer.json")
	tok, err := tokenize.LoadHF(tokPath)
	if err != nil {
		b.Skipf("skipping: %v (the shared data is only present in the project's CI)", err)
	}
	dir := b.TempDir()
	rows, dim := tok.MaxID()+1, 256
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32((i*7919)%1000)/1000 - 0.5
	}
	if err := embed.WriteSafetensors(filepath.Join(dir, "model.safetensors"), map[string][]float32{"embeddings": table}, map[string][]int{"embeddings": {rows, dim}}); err != nil {
		b.Fatal(err)
	}
	data, _ := os.ReadFile(tokPath)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"normalize": true}`), 0o644)
	s, err := embed.LoadStatic(context.Background(), dir, embed.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkShareOfChunking reports, per chunker, the share of the total
// time that is not spent embedding, with a static (Model2Vec) model.
func BenchmarkShareOfChunking(b *testing.B) {
	text := textgen.Prose(2<<20, 9)
	model := staticModel(b)
	for _, name := range []string{"semantic", "savgol", "hierarchical", "dp", "cluster"} {
		b.Run(name, func(b *testing.B) {
			var total, embedding time.Duration
			for b.Loop() {
				te := &timedEmbedder{Embedder: model}
				c := allChunkers(b, 512, tokenize.Runes{}, te)[name]
				start := time.Now()
				if _, err := c.Chunk(context.Background(), gochunk.Document{Text: text}); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				embedding += te.spent
			}
			b.ReportMetric(100*float64(total-embedding)/float64(total), "%chunking")
		})
	}
}
