package store

import "math"

// The coarse score of a code is an integer dot product: the unit query
// quantised to int16 (quantiseQuery) against the code's int8 components,
// scaled by both scales. On amd64 with AVX2 it runs 32 components at a
// time (ivf_dot_amd64.s); elsewhere, and for the components past the
// last multiple of 32, in Go (dotCodeGo).

// quantiseQuery returns the unit query q as int16 components with their
// scale (q[i] ≈ scale·out[i]), as fine as keeps every sum of products
// with int8 codes of len(q) components inside int32.
func quantiseQuery(q []float32) ([]int16, float32) {
	top := float32(0)
	for _, x := range q {
		top = max(top, x, -x)
	}
	out := make([]int16, len(q))
	if top == 0 || len(q) == 0 {
		return out, 0
	}
	limit := min(32767, (math.MaxInt32/127)/len(q))
	scale := top / float32(limit)
	for i, x := range q {
		out[i] = int16(max(-float64(limit), min(float64(limit), math.Round(float64(x/scale)))))
	}
	return out, scale
}

// dotCodeGo is q·c for the int16 query q and int8 code c (c at least as
// long), in four running sums.
func dotCodeGo(q []int16, c []byte) int32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 int32
	for len(q) >= 8 {
		qq, cc := q[:8:8], c[:8:8]
		s0 += int32(qq[0])*int32(int8(cc[0])) + int32(qq[4])*int32(int8(cc[4]))
		s1 += int32(qq[1])*int32(int8(cc[1])) + int32(qq[5])*int32(int8(cc[5]))
		s2 += int32(qq[2])*int32(int8(cc[2])) + int32(qq[6])*int32(int8(cc[6]))
		s3 += int32(qq[3])*int32(int8(cc[3])) + int32(qq[7])*int32(int8(cc[7]))
		q, c = q[8:], c[8:]
	}
	for i := range q {
		s0 += int32(q[i]) * int32(int8(c[i]))
	}
	return s0 + s1 + s2 + s3
}
