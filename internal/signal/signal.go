// Package signal holds the numeric kernels of the embedding-based
// chunkers: the Savitzky-Golay filter, percentiles, min-max normalisation
// and the other curve statistics.
package signal

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// SavGolCoeffs returns the Savitzky-Golay convolution coefficients of a
// window of odd length window, for a polynomial of order order, giving the
// deriv-th derivative at the window's centre (deriv 0 smooths). Coefficient
// j applies to the sample at offset j - window/2.
func SavGolCoeffs(window, order, deriv int) ([]float64, error) {
	if window < 1 || window%2 == 0 {
		return nil, fmt.Errorf("savitzky-golay window must be odd and positive, got %d", window)
	}
	if order < 0 || order >= window {
		return nil, fmt.Errorf("savitzky-golay order must be in [0, window), got %d for window %d", order, window)
	}
	if deriv < 0 || deriv > order {
		return nil, fmt.Errorf("savitzky-golay derivative %d is above the polynomial order %d", deriv, order)
	}
	half := window / 2
	// A is the Vandermonde matrix of the offsets; the filter is row deriv
	// of (AᵀA)⁻¹Aᵀ, times deriv!.
	a := mat.NewDense(window, order+1, nil)
	for i := range window {
		x := float64(i - half)
		for j := 0; j <= order; j++ {
			a.Set(i, j, math.Pow(x, float64(j)))
		}
	}
	var ata, inv mat.Dense
	ata.Mul(a.T(), a)
	if err := inv.Inverse(&ata); err != nil {
		return nil, fmt.Errorf("savitzky-golay: %w", err)
	}
	var proj mat.Dense
	proj.Mul(&inv, a.T())
	fact := 1.0
	for k := 2; k <= deriv; k++ {
		fact *= float64(k)
	}
	c := make([]float64, window)
	for i := range c {
		c[i] = fact * proj.At(deriv, i)
	}
	return c, nil
}

// SavGol filters data with SavGolCoeffs, mirroring the data at both ends
// (sample -k is sample k, sample n-1+k is sample n-1-k), so the output has
// the input's length. Data shorter than 2 samples is returned as zeros for
// derivatives and unchanged for smoothing.
func SavGol(data []float64, window, order, deriv int) ([]float64, error) {
	c, err := SavGolCoeffs(window, order, deriv)
	if err != nil {
		return nil, err
	}
	n := len(data)
	out := make([]float64, n)
	if n < 2 {
		if deriv == 0 {
			copy(out, data)
		}
		return out, nil
	}
	half := window / 2
	for i := range n {
		s := 0.0
		for j, cj := range c {
			idx := mirror(i-half+j, n)
			s += data[idx] * cj
		}
		out[i] = s
	}
	return out, nil
}

// mirror reflects an index into [0, n).
func mirror(i, n int) int {
	period := 2 * (n - 1)
	i %= period
	if i < 0 {
		i += period
	}
	if i >= n {
		i = period - i
	}
	return i
}

// Percentile returns the p-th percentile (p in [0, 100]) of xs with linear
// interpolation between closest ranks (NumPy's default).
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	p = max(0, min(100, p))
	idx := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(idx))
	hi := min(lo+1, len(s)-1)
	w := idx - float64(lo)
	return s[lo]*(1-w) + s[hi]*w
}

// MeanStd returns the mean and population standard deviation.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// MinMax rescales xs to [0, 1] in place. When every value is the same
// there is no scale; all become 1 (no NaN).
func MinMax(xs []float64) {
	if len(xs) == 0 {
		return
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi-lo < 1e-12 {
		for i := range xs {
			xs[i] = 1
		}
		return
	}
	for i, x := range xs {
		xs[i] = (x - lo) / (hi - lo)
	}
}

// Gradient returns the discrete gradient of xs as NumPy's gradient does:
// central differences inside, one-sided differences at the ends.
func Gradient(xs []float64) []float64 {
	n := len(xs)
	g := make([]float64, n)
	switch {
	case n < 2:
		return g
	case n == 2:
		g[0] = xs[1] - xs[0]
		g[1] = g[0]
		return g
	}
	g[0] = xs[1] - xs[0]
	g[n-1] = xs[n-1] - xs[n-2]
	for i := 1; i < n-1; i++ {
		g[i] = (xs[i+1] - xs[i-1]) / 2
	}
	return g
}
