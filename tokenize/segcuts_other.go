//go:build !amd64 || purego

package tokenize

// hasMasks is false: the cuts are found eight bytes at a time (see
// cutScanner.mask).
const hasMasks = false

func asciiMasks(*byte) (space, white, high uint64) { panic("unreachable") }
