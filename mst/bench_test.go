package mst

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/textgen"
)

// BenchmarkClustering measures the clustering step alone (edges, lambda,
// Kruskal, components) on random 128-dimensional vectors; pieces/min is
// the target's unit.
//
//	go test ./mst -run '^$' -bench Clustering -benchtime 1x -cpu 1
func BenchmarkClustering(b *testing.B) {
	cfg := DefaultConfig()
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		r := rand.New(rand.NewPCG(1, 2))
		vs := make([][]float32, n)
		backing := make([]float32, n*128)
		lengths := make([]int, n)
		for i := range vs {
			vs[i] = backing[i*128 : (i+1)*128]
			for k := range vs[i] {
				vs[i][k] = r.Float32() - 0.5
			}
			lengths[i] = 5 + r.IntN(120)
		}
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for b.Loop() {
				edges := cfg.Edges(vs, lengths)
				Components(n, edges, cfg.LambdaFor(edges))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Minutes(), "pieces/min")
		})
	}
}

// BenchmarkDocument chunks a document of about 100 000 pieces end to end
// with the lexical embedder.
func BenchmarkDocument(b *testing.B) {
	text := textgen.Prose(6<<20, 5)
	c, _ := New(DefaultConfig(), nil, nil)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			b.Fatal(err)
		}
		if len(chunks) == 0 || strings.TrimSpace(chunks[0].Text) == "" {
			b.Fatal("no chunks")
		}
	}
}
