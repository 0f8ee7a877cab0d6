package semantic

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gochunk/gochunk/vec"
)

func TestDepthScores(t *testing.T) {
	tests := []struct {
		sims, want []float64
	}{
		{[]float64{0.8, 0.2, 0.6}, []float64{0, 1.0, 0}},
		// The climb continues over plateaus and rises, not over dips.
		{[]float64{0.9, 0.5, 0.5, 0.1, 0.7, 0.3, 0.8}, []float64{0, 0.4, 0.4, 1.4, 0, 0.9, 0}},
		{[]float64{0.5}, []float64{0}},
		{nil, []float64{}},
	}
	for _, tc := range tests {
		got := depthScores(tc.sims)
		if len(got) != len(tc.want) {
			t.Fatalf("%v: %v", tc.sims, got)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("%v: depth %v, want %v", tc.sims, got, tc.want)
				break
			}
		}
	}
	// Hearst's liberal cut-off (mean − σ/2) keeps every minimum here; a
	// strict one (mean + σ) only the deep one.
	sims := []float64{0.9, 0.8, 0.9, 0.1, 0.9, 0.85, 0.9}
	if cuts, _, _ := depthCuts(sims, 0.5); !slices.Equal(cuts, []int{1, 3, 5}) {
		t.Errorf("liberal cuts %v, want [1 3 5]", cuts)
	}
	if cuts, _, _ := depthCuts(sims, -1); !slices.Equal(cuts, []int{3}) {
		t.Errorf("strict cuts %v, want [3]", cuts)
	}
}

// The sliding sums agree with summing each block from scratch.
func TestBlockSimilarities(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vs := make([][]float32, 40)
	for i := range vs {
		vs[i] = make([]float32, 8)
		for d := range vs[i] {
			vs[i][d] = float32(r.NormFloat64())
		}
	}
	gaps := []int{0, 1, 5, 6, 20, 37, 38}
	for _, k := range []int{1, 3, 6} {
		got := blockSimilarities(vs, k, gaps)
		for g, i := range gaps {
			a, b := make([]float32, 8), make([]float32, 8)
			for j := max(0, i-k+1); j <= i; j++ {
				vec.Add(a, vs[j])
			}
			for j := i + 1; j <= min(len(vs)-1, i+k); j++ {
				vec.Add(b, vs[j])
			}
			if want := float64(vec.Cosine(a, b)); math.Abs(got[g]-want) > 1e-5 {
				t.Errorf("k=%d gap %d: %v, want %v", k, i, got[g], want)
			}
		}
	}
}
