package swar

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstBytes compares every test with its byte-by-byte meaning on
// random words, and words of one or two interesting bytes.
func TestAgainstBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	interesting := []byte{0, 1, 0x08, 0x09, 0x0a, 0x0d, 0x0e, 0x1f, 0x20, 0x21, 0x22, 0x5c, 0x7f, 0x80, 0xff}
	for trial := range 200000 {
		var b [8]byte
		for i := range b {
			if trial%2 == 0 {
				b[i] = interesting[rng.IntN(len(interesting))]
			} else {
				b[i] = byte(rng.Uint32())
			}
		}
		s := string(b[:])
		x := Load(s, 0)
		for i := range 8 {
			if byte(x>>(8*i)) != b[i] {
				t.Fatalf("Load(%q) = %#x", s, x)
			}
		}
		v := interesting[rng.IntN(len(interesting))]
		n := byte(rng.IntN(128) + 1)
		ascii := x&High == 0
		for i := range 8 {
			bit := uint64(0x80) << (8 * i)
			if got := Zero(x^uint64(v)*Low)&bit != 0; got != (b[i] == v) {
				t.Fatalf("Zero(%q ^ %#x): byte %d is %v", s, v, i, got)
			}
			if ascii {
				if got := Below(x, n)&bit != 0; got != (b[i] < n) {
					t.Fatalf("Below(%q, %d): byte %d is %v", s, n, i, got)
				}
			}
		}
	}
}
