// Package merges recovers the merges of a byte-level BPE vocabulary that
// lists only its tokens by rank, as tiktoken's do: for every token, the
// two tokens its last merge joined, and a lookup from a pair to the token
// its merge makes. With them, whether two tokens are a valid pair (BPE,
// run on their bytes alone, ends with those two tokens) takes a few
// lookups: the check the backtracking encoder makes at every token.
//
// The table can be computed from the vocabulary (Build, tens of
// milliseconds) or read from the file Encode writes (Decode, a few), which
// the tokenize package embeds beside each vocabulary.
package merges

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"

	"github.com/gochunk/gochunk/internal/grow"
)

// MaxRanks is the most ranks a table holds.
const MaxRanks = 1 << pairBits

// Table holds, for every token, the two tokens its last merge joined, and
// for every such pair the token. A byte, or a token no merge of its own
// bytes makes (one that never occurs in an encoding), is its own pair.
type Table struct {
	Split [][2]uint32
	pair  pairTable
}

// Made reports whether token id occurs in encodings: it is a byte
// (length one), or merging its bytes makes it.
func (t *Table) Made(id uint32, length int) bool {
	return length == 1 || length > 1 && t.Split[id] != [2]uint32{id, id}
}

// Build computes the table of a vocabulary of n ranks, in rank order: a
// token is the merge of the one split of its bytes into two earlier
// tokens, each made by merges, that is a valid pair (checked with the
// merges of lower rank, all in the table by then): the byte-pair encoding
// of its bytes with the merges below it. token returns a rank's bytes (""
// for a rank with no token) and rank a token's rank. n must be at most
// MaxRanks.
func Build(n int, token func(uint32) string, rank func(string) (uint32, bool)) *Table {
	t := &Table{Split: make([][2]uint32, n), pair: newPairTable(n)}
	for id := range uint32(n) {
		s := token(id)
		t.Split[id] = [2]uint32{id, id}
		for k := 1; k < len(s); k++ {
			l, ok := rank(s[:k])
			if !ok || l >= id || !t.Made(l, k) {
				continue
			}
			r, ok := rank(s[k:])
			if !ok || r >= id || !t.Made(r, len(s)-k) || !t.Valid(l, r) {
				continue
			}
			t.Split[id] = [2]uint32{l, r}
			t.pair.put(l, r, id)
			break
		}
	}
	return t
}

// Encode writes the table's splits as one little-endian file: for every
// rank, the ranks of its two tokens.
func Encode(t *Table) []byte {
	out := make([]byte, 8*len(t.Split))
	for id, s := range t.Split {
		binary.LittleEndian.PutUint32(out[8*id:], s[0])
		binary.LittleEndian.PutUint32(out[8*id+4:], s[1])
	}
	return out
}

// Decode reads a file Encode wrote for a vocabulary of n ranks, whose
// tokens token gives; false when the file does not fit the vocabulary:
// not n entries, or a split into tokens that are not both of lower rank
// or whose bytes do not make the token's.
func Decode(data string, n int, token func(uint32) string) (*Table, bool) {
	if len(data) != 8*n || n > MaxRanks {
		return nil, false
	}
	t := &Table{Split: make([][2]uint32, n), pair: newPairTable(n)}
	for id := range uint32(n) {
		l, r := le32(data[8*id:]), le32(data[8*id+4:])
		t.Split[id] = [2]uint32{l, r}
		if l == id && r == id {
			continue
		}
		if l >= id || r >= id {
			return nil, false
		}
		s, left := token(id), token(l)
		if left == "" || !strings.HasPrefix(s, left) || s[len(left):] != token(r) {
			return nil, false
		}
		t.pair.put(l, r, id)
	}
	return t, true
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Valid reports whether BPE, run on the bytes of tokens a and b alone,
// ends with a and b: walking down both tokens' merges from the boundary,
// no merge across it may come before the merges that made the two sides.
func (t *Table) Valid(a, b uint32) bool {
	limit := uint32(math.MaxUint32)
	for {
		if c, ok := t.pair.get(a, b); ok && c < limit {
			return false // this merge across the boundary comes first
		}
		if a > b { // a was merged later: undo it, keeping its right part
			limit = a
			if a = t.Split[a][1]; a == limit {
				limit = b + 1
				if b = t.Split[b][0]; b+1 == limit {
					return true
				}
			}
		} else { // b was merged later: keep its left part
			limit = b + 1
			if b = t.Split[b][0]; b+1 == limit {
				limit = a
				if a = t.Split[a][1]; a == limit {
					return true
				}
			}
		}
	}
}

// pairTable maps a pair of tokens to the token its merge makes, in one
// word a slot so that a lookup reads one place: open addressing over a
// power-of-two array of left<<37 | right<<19 | merged<<1 | 1 (ranks are
// under 2^18; 0 marks an empty slot).
type pairTable struct {
	slots []uint64
	mask  uint64
	// seen has a bit set for each pair in the table, by another part of
	// its hash: most pairs checked are not merges, and a miss here (a
	// 256 KiB array that stays in cache) saves a probe of the slots.
	seen []uint64
}

// seenBits is the number of bits of pairTable.seen.
const seenBits = 1 << 21

func seenBit(k uint64) uint64 { return (k * 0xC2B2AE3D27D4EB4F) >> (64 - 21) }

// pairBits is the width of a rank in a pairTable's slot.
const pairBits = 18

func newPairTable(n int) pairTable {
	size := 1 << bits.Len(uint(2*n))
	return pairTable{slots: grow.Touched[uint64](size), mask: uint64(size - 1), seen: grow.Touched[uint64](seenBits / 64)}
}

// pairKey is a pair's key as its slot holds it.
func pairKey(a, b uint32) uint64 { return uint64(a)<<(2*pairBits+1) | uint64(b)<<(pairBits+1) }

const pairKeyMask = ^uint64(1<<(pairBits+1) - 1)

func pairSlot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 24 }

func (p *pairTable) put(a, b, merged uint32) {
	k := pairKey(a, b)
	bit := seenBit(k)
	p.seen[bit/64] |= 1 << (bit % 64)
	for i := pairSlot(k) & p.mask; ; i = (i + 1) & p.mask {
		if p.slots[i] == 0 || p.slots[i]&pairKeyMask == k {
			p.slots[i] = k | uint64(merged)<<1 | 1
			return
		}
	}
}

func (p *pairTable) get(a, b uint32) (uint32, bool) {
	k := pairKey(a, b)
	if bit := seenBit(k); p.seen[bit/64]&(1<<(bit%64)) == 0 {
		return 0, false
	}
	for i := pairSlot(k) & p.mask; ; i = (i + 1) & p.mask {
		s := p.slots[i]
		if s == 0 {
			return 0, false
		}
		if s&pairKeyMask == k {
			return uint32(s>>1) & (1<<pairBits - 1), true
		}
	}
}
