// Package swar tests eight bytes of a string at once in a 64-bit word
// (SIMD within a register), for the scans on the hot paths: token
// segments, JSON strings.
package swar

// Low has the low bit of every byte set, High the high bit: a byte b
// repeated is b*Low, and tests return their answer as High's bits.
const (
	Low  = 0x0101010101010101
	High = 0x8080808080808080
)

// Load returns the eight bytes of s from i as a little-endian word (the
// compiler turns this into one load). The bytes are read from the slice
// s[i:i+8], whose length the compiler knows: one bounds check, where
// indexing s at i to i+7 costs one a byte (the compiler cannot drop them
// from a hint at s[i+7], as i+7 may overflow).
func Load(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Zero returns the high bit of each zero byte of x, exactly (no false
// positive after a zero byte): Zero(x ^ b*Low) marks the bytes equal to b.
func Zero(x uint64) uint64 {
	t := (x &^ High) + 0x7f*Low
	return ^(t | x | 0x7f*Low)
}

// Below returns the high bit of each byte of x under n (1 to 128); every
// byte of x must be ASCII (x&High == 0).
func Below(x uint64, n byte) uint64 {
	return ^(x + uint64(0x80-n)*Low) & High
}
