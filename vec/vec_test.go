package vec

import (
	"math"
	"testing"
)

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }

func TestVec(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5}
	b := []float32{5, 4, 3, 2, 1}
	if got := Dot(a, b); got != 35 {
		t.Errorf("Dot = %v", got)
	}
	if got := Norm([]float32{3, 4}); got != 5 {
		t.Errorf("Norm = %v", got)
	}
	if got := Cosine(a, a); !near(got, 1) {
		t.Errorf("Cosine(a,a) = %v", got)
	}
	if got := Cosine([]float32{1, 0}, []float32{0, 1}); got != 0 {
		t.Errorf("orthogonal = %v", got)
	}
	if got := Cosine([]float32{1, 0}, []float32{-2, 0}); !near(got, -1) {
		t.Errorf("opposite = %v", got)
	}
	if got := Cosine([]float32{0, 0}, a[:2]); got != 0 {
		t.Errorf("zero vector = %v", got)
	}
	v := Normalize([]float32{3, 4})
	if !near(v[0], 0.6) || !near(v[1], 0.8) {
		t.Errorf("Normalize = %v", v)
	}
	if z := Normalize([]float32{0, 0}); z[0] != 0 {
		t.Errorf("Normalize(0) = %v", z)
	}
	m := Mean(make([]float32, 2), []float32{1, 2}, []float32{3, 6})
	if m[0] != 2 || m[1] != 4 {
		t.Errorf("Mean = %v", m)
	}
	if Valid([]float32{1, float32(math.NaN())}) || !Valid(a) {
		t.Error("Valid")
	}
}

func TestCosineNoAlloc(t *testing.T) {
	a, b := make([]float32, 384), make([]float32, 384)
	for i := range a {
		a[i], b[i] = float32(i), float32(384-i)
	}
	if n := testing.AllocsPerRun(100, func() { Cosine(a, b) }); n != 0 {
		t.Errorf("Cosine allocates %v times", n)
	}
}

func BenchmarkCosine384(b *testing.B) {
	x, y := make([]float32, 384), make([]float32, 384)
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
	}
	for b.Loop() {
		Cosine(x, y)
	}
}

func TestValid(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, v := range [][]float32{{1, 2, float32(math.NaN())}, {inf}, {-inf, 0}, {0, 0, 0, 0, float32(math.NaN())}} {
		if Valid(v) {
			t.Errorf("Valid(%v) = true", v)
		}
	}
	for _, v := range [][]float32{{}, {0}, {math.MaxFloat32, -math.MaxFloat32, 1e-45}} {
		if !Valid(v) {
			t.Errorf("Valid(%v) = false", v)
		}
	}
	// Longer than the zero block, bad number in a later block.
	long := make([]float32, 3000)
	for i := range long {
		long[i] = float32(i) - 1500
	}
	if !Valid(long) {
		t.Error("a long finite vector is not valid")
	}
	long[2999] = inf
	if Valid(long) {
		t.Error("a long vector ending in +Inf is valid")
	}
}
