package tokenize

import "math/bits"

// RuneCount returns the number of code points of s, which must be valid
// UTF-8 (on invalid input it counts the bytes that are not continuation
// bytes, which can differ from utf8.RuneCountInString). It reads eight
// bytes at a time: a code point starts at every byte that is not a
// continuation byte (10xxxxxx).
func RuneCount(s string) int {
	n := len(s)
	i := 0
	const hi = 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi == 0 {
			continue
		}
		n -= bits.OnesCount64(w & ^(w << 1) & hi)
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}
