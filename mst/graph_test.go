package mst

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/pack"
)

// The chunker's compact graph (8 bytes an edge, no endpoints) gives the
// threshold and the components that Edges, LambdaFor and Components give,
// ties in weight included (short pieces of few distinct words make many),
// over the batch boundaries of its streaming.
func TestGraphMatchesEdges(t *testing.T) {
	words := []string{"river", "valley", "glacier", "stone", "tax", "law", "court", "ship"}
	for _, n := range []int{1, 2, 3, 7, streamBatch + 9} {
		for _, thresh := range []int{2, 3, 6} {
			r := rand.New(rand.NewPCG(uint64(n), uint64(thresh)))
			texts := make([]string, n)
			pieces := make([]pack.Piece, n)
			lengths := make([]int, n)
			for i := range texts {
				texts[i] = words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
				pieces[i].Size = 1 + r.IntN(120)
				lengths[i] = pieces[i].Size
			}
			cfg := DefaultConfig()
			cfg.DistanceThresh = thresh
			c, err := New(cfg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			e := embed.ForDocument(c.embedder, texts)
			var text strings.Builder
			for i, t := range texts {
				text.WriteByte(' ')
				pieces[i].Start, pieces[i].End = text.Len(), text.Len()+len(t)
				text.WriteString(t)
			}
			g, err := c.streamGraph(context.Background(), e, text.String(), pieces)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := embed.Checked(context.Background(), e, texts)
			if err != nil {
				t.Fatal(err)
			}
			edges := cfg.Edges(vs, lengths)
			name := fmt.Sprintf("%d pieces, distance_threshold %d", n, thresh)
			if g.edges() != len(edges) {
				t.Fatalf("%s: %d edges, want %d", name, g.edges(), len(edges))
			}
			k := 0
			g.each(func(id int, w float64) {
				a := id / g.m
				if e := edges[k]; e.A != a || e.B != a+1+id%g.m || e.W != w {
					t.Fatalf("%s: edge %d is (%d, %d, %v), want %v", name, k, a, a+1+id%g.m, w, e)
				}
				k++
			})
			lambda := cfg.lambda(g)
			if want := cfg.LambdaFor(edges); lambda != want {
				t.Fatalf("%s: lambda %v, want %v", name, lambda, want)
			}
			got := g.components(lambda)
			want, _ := Components(n, edges, lambda)
			// The same partition: the same first piece of each piece's component.
			first := func(roots []int) []int {
				seen := map[int]int{}
				out := make([]int, len(roots))
				for i, r := range roots {
					if _, ok := seen[r]; !ok {
						seen[r] = i
					}
					out[i] = seen[r]
				}
				return out
			}
			fg, fw := first(got), first(want)
			for i := range fg {
				if fg[i] != fw[i] {
					t.Fatalf("%s: piece %d in the component of piece %d, want %d", name, i, fg[i], fw[i])
				}
			}
		}
	}
}
