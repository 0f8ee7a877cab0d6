package semantic

import (
	"context"
	"math"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/textgen"
)

// The block similarities do not depend on how many units are embedded at
// a time, for any batch a multiple of rebuildEvery: the sums start afresh
// at the same gaps. (streamBatch went from 4,096 to 1,024 for memory; the
// chunks must not change.)
func TestGapSimsAnyBatch(t *testing.T) {
	b, err := newBase("semantic", 512, Sentences{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.prepare(context.Background(), gochunk.Document{Text: textgen.Prose(1<<20, 9)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.units) < 3*4096 {
		t.Fatalf("%d units: too few for three batches of 4,096", len(p.units))
	}
	e := p.embedder()
	for _, k := range []int{1, 3, 300} {
		want, err := p.gapSimsBatched(context.Background(), e, k, 4096)
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{rebuildEvery, streamBatch, 3 * rebuildEvery} {
			got, err := p.gapSimsBatched(context.Background(), e, k, batch)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("k %d, batch %d: %d similarities, want %d", k, batch, len(got), len(want))
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("k %d, batch %d: gap %d similarity %v, want %v", k, batch, i, got[i], want[i])
				}
			}
		}
	}
}
