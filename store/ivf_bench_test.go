package store

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkVectorSearch searches a store of 20,000 generated vectors
// (sparse, as the lexical embedder's; dense, as a model's) by its index
// and by the exact scan.
func BenchmarkVectorSearch(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		dims int
		gen  func(rng *rand.Rand, n int) [][]float32
	}{
		{"sparse", 1024, func(rng *rand.Rand, n int) [][]float32 { return sparseVectors(rng, n, 1024, false) }},
		{"dense", 384, func(rng *rand.Rand, n int) [][]float32 { return clustered(rng, n, 384) }},
	} {
		rng := rand.New(rand.NewPCG(15, 15))
		s, _ := openTemp(b, c.dims)
		fill(b, s, "d", c.gen(rng, 20000))
		queries := c.gen(rng, 64)
		for _, exact := range []bool{false, true} {
			name := c.name + "/index"
			if exact {
				name = c.name + "/exact"
			}
			b.Run(name, func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := s.Search(ctx, Query{Vector: queries[i%len(queries)], K: 10, Mode: Vector, Exact: exact}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
