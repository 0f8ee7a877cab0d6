//go:build amd64 && !purego

package store

import "golang.org/x/sys/cpu"

// hasAVX2 says whether dotCode runs on AVX2, hasFMA whether dotFloat
// does.
var (
	hasAVX2 = cpu.X86.HasAVX2
	hasFMA  = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

// dotInt8AVX2 is the dot product of the n int16 components at q and the
// n int8 components at c; n is a positive multiple of 32.
//
//go:noescape
func dotInt8AVX2(q *int16, c *byte, n int) int32

// dotCode is q·c for the int16 query q and int8 code c (c at least as
// long).
func dotCode(q []int16, c []byte) int32 {
	c = c[:len(q)]
	m := len(q) &^ 31
	if !hasAVX2 || m == 0 {
		return dotCodeGo(q, c)
	}
	return dotInt8AVX2(&q[0], &c[0], m) + dotCodeGo(q[m:], c[m:])
}

// dotFloatAVX2 is the dot product of the n components at a and at b; n
// is a positive multiple of 16.
//
//go:noescape
func dotFloatAVX2(a, b *float32, n int) float32

// dotFloat is a·b over a's length (b at least as long).
func dotFloat(a, b []float32) float32 {
	b = b[:len(a)]
	m := len(a) &^ 15
	if !hasFMA || m == 0 {
		return dotFloatGo(a, b)
	}
	return dotFloatAVX2(&a[0], &b[0], m) + dotFloatGo(a[m:], b[m:])
}
