// Package vec holds the vector arithmetic embedding-based chunkers use:
// dot products, norms, normalisation and cosine similarity on float32
// vectors, without allocation.
package vec

import (
	"math"

	"gonum.org/v1/gonum/blas/blas32"
)

// Dot returns the dot product of a and b, which must have the same length.
// It uses gonum's assembly kernel (SSE on amd64).
func Dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return blas32.Dot(blas32.Vector{N: len(a), Inc: 1, Data: a}, blas32.Vector{N: len(a), Inc: 1, Data: b[:len(a)]})
}

// Norm returns the Euclidean norm of v.
func Norm(v []float32) float32 {
	return float32(math.Sqrt(float64(Dot(v, v))))
}

// Normalize scales v in place to unit length and returns it; a zero vector
// is left as it is.
func Normalize(v []float32) []float32 {
	n := Norm(v)
	if n == 0 || math.IsNaN(float64(n)) {
		return v
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Cosine returns the cosine similarity of a and b, in [-1, 1]; 0 when
// either is a zero vector.
func Cosine(a, b []float32) float32 {
	na, nb := Norm(a), Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	c := Dot(a, b) / (na * nb)
	return max(-1, min(1, c))
}

// Mean writes the mean of vs into dst (of their common length) and returns
// it; dst is zeroed when vs is empty.
func Mean(dst []float32, vs ...[]float32) []float32 {
	clear(dst)
	if len(vs) == 0 {
		return dst
	}
	for _, v := range vs {
		v = v[:len(dst)]
		for i, x := range v {
			dst[i] += x
		}
	}
	inv := 1 / float32(len(vs))
	for i := range dst {
		dst[i] *= inv
	}
	return dst
}

// zeros is never written: Valid's dot products read it.
var zeros [1024]float32

// Valid reports whether v holds only finite numbers: x*0 is 0 for every
// finite x and NaN for infinities and NaN, so the dot product with zeros,
// done by the SIMD kernel, tells.
func Valid(v []float32) bool {
	for len(v) > 0 {
		n := min(len(v), len(zeros))
		if Dot(v[:n], zeros[:n]) != 0 {
			return false
		}
		v = v[n:]
	}
	return true
}

// Add adds src to dst element-wise; src must be at least as long as dst.
// It uses gonum's assembly kernel (SSE on amd64).
func Add(dst, src []float32) {
	if len(dst) == 0 {
		return
	}
	blas32.Axpy(1, blas32.Vector{N: len(dst), Inc: 1, Data: src[:len(dst)]}, blas32.Vector{N: len(dst), Inc: 1, Data: dst})
}

// Sub subtracts src from dst element-wise; src must be at least as long as
// dst. It uses gonum's assembly kernel, as Add.
func Sub(dst, src []float32) {
	if len(dst) == 0 {
		return
	}
	blas32.Axpy(-1, blas32.Vector{N: len(dst), Inc: 1, Data: src[:len(dst)]}, blas32.Vector{N: len(dst), Inc: 1, Data: dst})
}
