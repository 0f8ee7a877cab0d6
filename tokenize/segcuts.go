package tokenize

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/gochunk/gochunk/internal/swar"
)

// cutScanner finds the segment cuts of a text (see segmentEnd) 64 bytes at
// a time, as the bits of a word: the cuts of ASCII text are computed eight
// bytes at a time without a branch per segment, so that a loop over the
// segments of prose does not mispredict the end of each one as
// segmentEnd's does. Other text is classified character by character.
type cutScanner struct {
	text string
	// pos is the next byte to classify, a character's start, and
	// prevSpace whether the character before it is white space (true at
	// the text's start, where there is no cut).
	pos       int
	prevSpace bool
	// swar leaves out asciiMasks (tests of the eight-byte path).
	swar bool
}

// cutBlock is the number of bytes whose cuts one call of mask returns.
const cutBlock = 64

// newCutScanner returns a scanner of the cuts of text from its start.
func newCutScanner(text string) cutScanner { return cutScanner{text: text, prevSpace: true} }

// mask returns the cuts in text[base:base+cutBlock] as the bits of a word,
// bit k for position base+k. The calls go through the text in order, from
// base 0 on by cutBlock, and base+cutBlock must be at most len(text).
func (s *cutScanner) mask(base int) uint64 {
	text := s.text
	if s.pos == base && hasMasks && !s.swar { // vector instructions: a byte class each
		space, white, high := asciiMasks(unsafe.StringData(text[base : base+cutBlock]))
		// A byte that is not ASCII is in neither mask: as part of a
		// character that is not white space, it makes no cut and is not
		// white space before one. Only a Unicode space needs the
		// character by character path.
		if high == 0 || !unicodeSpaceIn(text, base, high) {
			prev := uint64(0)
			if s.prevSpace {
				prev = 1
			}
			s.pos, s.prevSpace = base+cutBlock, white>>63 != 0
			return space &^ (white<<1 | prev)
		}
	}
	var m uint64
	if s.pos == base {
		prev := uint64(0) // the high bit of the byte before, if it is white space
		if s.prevSpace {
			prev = 0x80
		}
		w := 0
		for ; w < cutBlock; w += 8 {
			x := swar.Load(text, base+w)
			if x&swar.High != 0 { // not ASCII: the rest character by character
				break
			}
			sp := spaceBytes(x)
			cut := spaceCuts(x, sp, prev)
			// The high bit of byte k moves to bit k of the top byte, then
			// to bits w..w+7 of the mask.
			m |= (cut >> 7 * 0x0102040810204080 >> 56) << w
			prev = sp >> 56
		}
		s.pos, s.prevSpace = base+w, prev != 0
		if w == cutBlock {
			return m
		}
	}
	for end := base + cutBlock; s.pos < end; {
		c := text[s.pos]
		if c < utf8.RuneSelf {
			sp := asciiSpace[c]
			if sp && !s.prevSpace && c != '\n' && c != '\r' {
				m |= 1 << (s.pos - base)
			}
			s.prevSpace = sp
			s.pos++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[s.pos:])
		sp := unicode.IsSpace(r)
		if sp && !s.prevSpace {
			m |= 1 << (s.pos - base)
		}
		s.prevSpace = sp
		s.pos += size
	}
	return m
}

// unicodeSpaceIn reports whether a character that starts at one of the
// bytes of high (bit k for byte base+k) is white space other than ASCII.
// Those all start with 0xC2 (U+0085, U+00A0), 0xE1 (U+1680), 0xE2
// (U+2000 to U+205F) or 0xE3 (U+3000); other characters are not decoded.
func unicodeSpaceIn(text string, base int, high uint64) bool {
	for ; high != 0; high &= high - 1 {
		i := base + bits.TrailingZeros64(high)
		switch text[i] {
		case 0xC2, 0xE1, 0xE2, 0xE3:
			if r, _ := utf8.DecodeRuneInString(text[i:]); unicode.IsSpace(r) {
				return true
			}
		}
	}
	return false
}

// segIter goes through the segments of a text in order: its full blocks
// of cutBlock bytes by their masks, the rest by segmentEnd.
type segIter struct {
	s    cutScanner
	base int    // the block of m
	m    uint64 // the cuts of the block at base not yet returned
}

func newSegIter(text string) segIter {
	return segIter{s: newCutScanner(text), base: -cutBlock}
}

// next returns the end of the segment that starts at start, the previous
// call's result (0 first), which must be before the text's end.
func (it *segIter) next(start int) int {
	for it.m == 0 && it.base+2*cutBlock <= len(it.s.text) {
		it.base += cutBlock
		it.m = it.s.mask(it.base)
	}
	if it.m == 0 { // past the last full block
		return segmentEnd(it.s.text, start)
	}
	p := it.base + bits.TrailingZeros64(it.m)
	it.m &= it.m - 1
	return p
}
