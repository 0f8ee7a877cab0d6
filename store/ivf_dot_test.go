package store

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotCode: the coarse score (AVX2 where there is one, Go for the
// rest) equals the Go loop's exactly and the float product within the
// quantisation's error, for every length around the 32-component steps.
func TestDotCode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for dims := 1; dims <= 1100; dims += 1 + dims/16 {
		for range 20 {
			q := make([]float32, dims)
			v := make([]float32, dims)
			for i := range q {
				q[i] = float32(rng.NormFloat64())
				v[i] = float32(rng.NormFloat64())
			}
			q = unit(q)
			qc, qs := quantiseQuery(q)
			code, cs := quantise(nil, v)
			c := make([]byte, len(code))
			for i, x := range code {
				c[i] = byte(x)
			}
			got := dotCode(qc, c)
			if want := dotCodeGo(qc, c); got != want {
				t.Fatalf("%d dims: dotCode %d, the Go loop %d", dims, got, want)
			}
			exact := float64(dotFloat(q, unit(v)))
			if d := math.Abs(float64(float32(got)*qs*cs) - exact); d > 0.02 {
				t.Fatalf("%d dims: coarse score off by %.4f", dims, d)
			}
		}
	}
	// The extremes stay inside int32.
	for _, dims := range []int{384, 1024, 4096} {
		q := make([]float32, dims)
		c := make([]byte, dims)
		for i := range q {
			q[i], c[i] = 1, 0x81 // -127
		}
		qc, _ := quantiseQuery(unit(q))
		if got, want := int64(dotCode(qc, c)), -127*int64(qc[0])*int64(dims); got != want {
			t.Errorf("%d dims of extremes: %d, want %d", dims, got, want)
		}
	}
}

// TestDotFloat: the float product (FMA where there is one) agrees with
// the Go loop's within float32 rounding, at every length around the
// 16-component steps.
func TestDotFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for dims := 1; dims <= 600; dims++ {
		a := make([]float32, dims)
		b := make([]float32, dims+3)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		if got := float64(dotFloat(a, b)); math.Abs(got-want) > 1e-4*float64(dims) {
			t.Fatalf("%d dims: %g, want %g", dims, got, want)
		}
	}
}
