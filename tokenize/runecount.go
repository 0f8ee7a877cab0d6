package tokenize

import (
	"math/bits"

	"github.com/gochunk/gochunk/internal/swar"
)

// RuneCount returns the number of code points of s, which must be valid
// UTF-8 (on invalid input it counts the bytes that are not continuation
// bytes, which can differ from utf8.RuneCountInString). It reads eight
// bytes at a time: a code point starts at every byte that is not a
// continuation byte (10xxxxxx).
func RuneCount(s string) int {
	n := len(s)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := swar.Load(s, i)
		if w&swar.High == 0 {
			continue
		}
		n -= bits.OnesCount64(w & ^(w << 1) & swar.High)
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}
