package signal

import (
	"math"
	"testing"
)

func closeAll(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", name, got, want)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("%s: %v, want %v", name, got, want)
		}
	}
}

// Known coefficients (Savitzky & Golay 1964; scipy.signal.savgol_coeffs
// with use="dot").
func TestSavGolCoeffs(t *testing.T) {
	tests := []struct {
		window, order, deriv int
		want                 []float64
	}{
		{5, 2, 0, []float64{-3.0 / 35, 12.0 / 35, 17.0 / 35, 12.0 / 35, -3.0 / 35}},
		{7, 2, 0, []float64{-2.0 / 21, 3.0 / 21, 6.0 / 21, 7.0 / 21, 6.0 / 21, 3.0 / 21, -2.0 / 21}},
		{5, 2, 1, []float64{-2.0 / 10, -1.0 / 10, 0, 1.0 / 10, 2.0 / 10}},
		{5, 3, 1, []float64{1.0 / 12, -8.0 / 12, 0, 8.0 / 12, -1.0 / 12}},
		{5, 2, 2, []float64{2.0 / 7, -1.0 / 7, -2.0 / 7, -1.0 / 7, 2.0 / 7}},
		{5, 3, 2, []float64{2.0 / 7, -1.0 / 7, -2.0 / 7, -1.0 / 7, 2.0 / 7}},
	}
	for _, tc := range tests {
		got, err := SavGolCoeffs(tc.window, tc.order, tc.deriv)
		if err != nil {
			t.Fatal(err)
		}
		closeAll(t, "coeffs", got, tc.want)
	}
	for _, bad := range [][3]int{{4, 2, 0}, {5, 5, 0}, {5, 2, 3}, {0, 0, 0}} {
		if _, err := SavGolCoeffs(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("SavGolCoeffs%v: no error", bad)
		}
	}
}

// A polynomial of the filter's order passes through unchanged, and its
// derivatives come out exactly, away from the ends.
func TestSavGolPolynomial(t *testing.T) {
	n := 20
	data := make([]float64, n)
	for i := range data {
		x := float64(i)
		data[i] = 0.5*x*x - 3*x + 2
	}
	smooth, _ := SavGol(data, 7, 2, 0)
	d1, _ := SavGol(data, 7, 2, 1)
	d2, _ := SavGol(data, 7, 2, 2)
	for i := 3; i < n-3; i++ {
		x := float64(i)
		if math.Abs(smooth[i]-data[i]) > 1e-9 || math.Abs(d1[i]-(x-3)) > 1e-9 || math.Abs(d2[i]-1) > 1e-9 {
			t.Fatalf("at %d: %v %v %v", i, smooth[i], d1[i], d2[i])
		}
	}
	// Mirror boundary: a constant signal has zero derivatives everywhere.
	c := []float64{4, 4, 4}
	d, _ := SavGol(c, 5, 3, 1)
	closeAll(t, "constant", d, []float64{0, 0, 0})
}

func TestStats(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	if Percentile(xs, 50) != 3 || Percentile(xs, 95) != 4.8 || Percentile(xs, 0) != 1 || Percentile(xs, 100) != 5 {
		t.Error("Percentile")
	}
	if m, s := MeanStd(xs); m != 3 || math.Abs(s-math.Sqrt(2)) > 1e-12 {
		t.Errorf("MeanStd %v %v", m, s)
	}
	ys := []float64{2, 4, 6}
	MinMax(ys)
	closeAll(t, "minmax", ys, []float64{0, 0.5, 1})
	flat := []float64{3, 3}
	MinMax(flat)
	closeAll(t, "flat minmax", flat, []float64{1, 1})
	closeAll(t, "gradient", Gradient([]float64{1, 2, 4, 7}), []float64{1, 1.5, 2.5, 3})
	if mirror(-1, 5) != 1 || mirror(5, 5) != 3 || mirror(-9, 5) != 1 {
		t.Error("mirror")
	}
}
