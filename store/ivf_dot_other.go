//go:build !amd64 || purego

package store

// dotCode is q·c for the int16 query q and int8 code c (c at least as
// long).
func dotCode(q []int16, c []byte) int32 {
	return dotCodeGo(q, c)
}

// dotFloat is a·b over a's length (b at least as long).
func dotFloat(a, b []float32) float32 {
	return dotFloatGo(a, b)
}
