package tokenize

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/gochunk/gochunk/internal/grow"
	"github.com/gochunk/gochunk/internal/swar"
)

// segTable is the part of the segment cache that holds short segments:
// an open-addressing table whose 32-byte slot holds a segment, as two
// words, and the length of each of its tokens, so that a lookup reads one
// cache line instead of a map's control word, key header, key bytes and
// value. Segments of prose ("the", " chunk,") nearly all fit; the others
// are kept in a map beside it.
//
// Readers take no lock: goroutines tokenizing different blocks of a text
// (and the merge reading counts meanwhile) never wait for one another.
// A slot is published by storing its meta word last, atomically, after
// its key and lengths; a table that grows or is emptied is replaced by a
// new array, published atomically, and readers of the old one go on with
// it. Writers hold mu.
type segTable struct {
	seed [2]uint64 // mixed into the hash, so that no input is known to collide
	arr  atomic.Pointer[segArray]
	mu   sync.Mutex
}

// segArray is one array of slots and how many are used (under mu).
type segArray struct {
	slots []segSlot
	used  int
}

// Inline limits: a segment of up to inlineKey bytes made of up to
// inlineTokens tokens has a slot.
const (
	inlineKey    = 16
	inlineTokens = 12
	// minSlots and maxSlots bound the table: it doubles when half full
	// and is emptied when half of maxSlots (16 MiB) is used.
	minSlots = 1 << 12
	maxSlots = 1 << 19
)

// segSlot holds a segment as the key words of segKey, and its tokens'
// lengths; meta is klen | ntok<<8, 0 for an empty slot, stored last.
type segSlot struct {
	w0, w1 uint64
	meta   atomic.Uint32
	lens   [inlineTokens]uint8
}

func newSegTable() *segTable {
	seed := maphash.MakeSeed()
	t := &segTable{seed: [2]uint64{maphash.String(seed, "0"), maphash.String(seed, "1")}}
	t.arr.Store(&segArray{slots: grow.Touched[segSlot](minSlots)})
	return t
}

// segKey returns the words that, with its length, identify s, a string of
// 1 to inlineKey bytes: its bytes, little-endian, padded with zeros.
func segKey(s string) (w0, w1 uint64) {
	var b [inlineKey]byte
	copy(b[:], s)
	buf := string(b[:]) // a copy on the stack, read as words
	return swar.Load(buf, 0), swar.Load(buf, 8)
}

// hash mixes a segment's key words and length.
func (t *segTable) hash(w0, w1 uint64, n int) uint64 {
	return segHash(w0, w1, n, t.seed[0], t.seed[1])
}

// segHash is hash with the table's seed as two words (the loops of walk
// hold them in registers).
func segHash(w0, w1 uint64, n int, seed0, seed1 uint64) uint64 {
	hi, lo := bits.Mul64(w0^seed0, w1^seed1^uint64(n)<<56)
	return hi ^ lo
}

// get returns the token lengths of seg and whether the table has it.
func (t *segTable) get(seg string) ([]uint8, bool) {
	if len(seg) == 0 || len(seg) > inlineKey {
		return nil, false
	}
	w0, w1 := segKey(seg)
	return t.getKey(w0, w1, len(seg))
}

// getKey is get of the segment of n bytes whose key words are w0, w1.
func (t *segTable) getKey(w0, w1 uint64, n int) ([]uint8, bool) {
	slots := t.arr.Load().slots
	mask := uint64(len(slots) - 1)
	for i := t.hash(w0, w1, n) & mask; ; i = (i + 1) & mask {
		s := &slots[i]
		m := s.meta.Load()
		if m == 0 {
			return nil, false
		}
		if s.w0 == w0 && s.w1 == w1 && int(m&0xff) == n {
			return s.lens[:m>>8], true
		}
	}
}

// fits reports whether a segment with these tokens has a slot.
func fits(seg string, tokens int) bool {
	return len(seg) > 0 && len(seg) <= inlineKey && tokens <= inlineTokens
}

// put adds seg (which must fit) with its token lengths, unless another
// goroutine did, growing the table or emptying it when it is full.
func (t *segTable) put(seg string, lens []uint8) {
	w0, w1 := segKey(seg)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.getKey(w0, w1, len(seg)); ok {
		return
	}
	a := t.arr.Load()
	if 2*(a.used+1) > len(a.slots) {
		size := len(a.slots)
		if size < maxSlots {
			size *= 2
		}
		// Touched: readers look the new array up before it is filled.
		next := &segArray{slots: grow.Touched[segSlot](size)}
		if size > len(a.slots) { // grown: the slots move over; else emptied
			for i := range a.slots {
				s := &a.slots[i]
				if m := s.meta.Load(); m != 0 {
					next.insert(t, s.w0, s.w1, m, s.lens[:m>>8])
				}
			}
		}
		t.arr.Store(next)
		a = next
	}
	a.insert(t, w0, w1, uint32(len(seg))|uint32(len(lens))<<8, lens)
}

// insert fills the first free slot from the key's hash on (under mu, in
// an array readers may be reading: meta is stored last).
func (a *segArray) insert(t *segTable, w0, w1 uint64, meta uint32, lens []uint8) {
	mask := uint64(len(a.slots) - 1)
	i := t.hash(w0, w1, int(meta&0xff)) & mask
	for a.slots[i].meta.Load() != 0 {
		i = (i + 1) & mask
	}
	s := &a.slots[i]
	s.w0, s.w1 = w0, w1
	copy(s.lens[:], lens)
	s.meta.Store(meta)
	a.used++
}
