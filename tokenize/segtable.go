package tokenize

import (
	"hash/maphash"
	"math/bits"

	"github.com/gochunk/gochunk/internal/swar"
)

// segTable is the part of the segment cache that holds short segments:
// an open-addressing table whose 32-byte slot holds a segment, as two
// words, and the length of each of its tokens, so that a lookup reads one
// cache line instead of a map's control word, key header, key bytes and
// value. Segments of prose ("the", " chunk,") nearly all fit; the others
// are kept in a map beside it.
type segTable struct {
	seed  [2]uint64 // mixed into the hash, so that no input is known to collide
	slots []segSlot
	used  int
}

// Inline limits: a segment of up to inlineKey bytes made of up to
// inlineTokens tokens has a slot.
const (
	inlineKey    = 16
	inlineTokens = 14
	// minSlots and maxSlots bound the table: it doubles when half full
	// and is emptied when half of maxSlots (16 MiB) is used.
	minSlots = 1 << 12
	maxSlots = 1 << 19
)

// segSlot holds a segment of klen bytes (0: the slot is empty) as the key
// words of segKey, and its tokens' lengths.
type segSlot struct {
	w0, w1 uint64
	klen   uint8
	ntok   uint8
	lens   [inlineTokens]uint8
}

func newSegTable() segTable {
	var seed maphash.Seed = maphash.MakeSeed()
	return segTable{
		seed:  [2]uint64{maphash.String(seed, "0"), maphash.String(seed, "1")},
		slots: make([]segSlot, minSlots),
	}
}

// segKey returns the words that, with its length, identify s, a string of
// 1 to inlineKey bytes: its bytes, little-endian, padded with zeros.
func segKey(s string) (w0, w1 uint64) {
	var b [inlineKey]byte
	copy(b[:], s)
	buf := string(b[:]) // a copy on the stack, read as words
	return swar.Load(buf, 0), swar.Load(buf, 8)
}

// textKey is segKey of text[i:i+n] (1 to inlineKey bytes) read in place:
// text must hold inlineKey bytes from i.
func textKey(text string, i, n int) (w0, w1 uint64) {
	return swar.Load(text, i) & keyMask[min(n, 8)], swar.Load(text, i+8) & keyMask[max(n-8, 0)]
}

// keyMask[k] keeps the low k bytes of a word.
var keyMask = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, ^uint64(0)}

// hash mixes a segment's key words and length.
func (t *segTable) hash(w0, w1 uint64, n int) uint64 {
	hi, lo := bits.Mul64(w0^t.seed[0], w1^t.seed[1]^uint64(n)<<56)
	return hi ^ lo
}

// get returns the token lengths of seg (1 to inlineKey bytes) and
// whether the table has it.
func (t *segTable) get(seg string) ([]uint8, bool) {
	w0, w1 := segKey(seg)
	return t.getKey(w0, w1, len(seg))
}

// getKey is get of the segment of n bytes whose key words are w0, w1.
func (t *segTable) getKey(w0, w1 uint64, n int) ([]uint8, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.hash(w0, w1, n) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.klen == 0 {
			return nil, false
		}
		if s.w0 == w0 && s.w1 == w1 && int(s.klen) == n {
			return s.lens[:s.ntok], true
		}
	}
}

// fits reports whether a segment with these tokens has a slot.
func fits(seg string, tokens int) bool {
	return len(seg) > 0 && len(seg) <= inlineKey && tokens <= inlineTokens
}

// put adds seg (which must fit and must not be in the table) with its
// token lengths, growing the table or emptying it when it is full.
func (t *segTable) put(seg string, lens []uint8) {
	if 2*(t.used+1) > len(t.slots) {
		if len(t.slots) < maxSlots {
			t.grow()
		} else {
			clear(t.slots)
			t.used = 0
		}
	}
	w0, w1 := segKey(seg)
	t.insert(segSlot{w0: w0, w1: w1, klen: uint8(len(seg)), ntok: uint8(len(lens))}, lens)
}

// insert puts s, with its lens, in the first free slot from its hash on.
func (t *segTable) insert(s segSlot, lens []uint8) {
	copy(s.lens[:], lens)
	mask := uint64(len(t.slots) - 1)
	i := t.hash(s.w0, s.w1, int(s.klen)) & mask
	for t.slots[i].klen != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
	t.used++
}

func (t *segTable) grow() {
	old := t.slots
	t.slots, t.used = make([]segSlot, 2*len(old)), 0
	for _, s := range old {
		if s.klen != 0 {
			t.insert(s, s.lens[:s.ntok])
		}
	}
}
