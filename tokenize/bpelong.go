package tokenize

import (
	"math"
	"math/bits"
	"runtime"
)

// Long pieces. A piece (one pre-token) of megabytes, such as a line of
// random letters or a run of blank lines, is encoded by backtracking (see
// backtrack.go), exactly and in linear time, with the merge table below:
//
// A sequence of tokens is the BPE encoding of its text exactly when every
// two neighbouring tokens are a valid pair: when BPE, run on the two
// tokens' bytes alone, ends with those two tokens (the property GitHub's
// bpe crate builds its linear encoders on).
const (
	longPiece    = 16 << 10 // from this length a piece is encoded by backtracking
	minBacktrack = 256      // and from this one once its tables are built
)

// mergeTable holds what checking a pair of tokens needs: for every token,
// the two tokens its last merge joined (a byte, or a token no merge of its
// own bytes makes, is its own pair), and for every such pair the token.
type mergeTable struct {
	split [][2]uint32
	pair  pairTable
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
	return pairTable{slots: make([]uint64, size), mask: uint64(size - 1), seen: make([]uint64, seenBits/64)}
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

// table builds, once, the merge table, in rank order: a token is the
// merge of the one split of its bytes into two earlier tokens, each made
// by merges, that is a valid pair (checked with the merges of lower
// rank, all in the table by then): the byte-pair encoding of its bytes
// with the merges below it. A token with no such split is never in an
// encoding and is its own pair. TestMergeTableMatchesMerging compares
// this with merging every token's bytes.
func (b *bpe) table() *mergeTable {
	b.splitsOnce.Do(func() {
		n := b.vocab.ranks() // under 1<<pairBits
		t := &mergeTable{split: make([][2]uint32, n), pair: newPairTable(n)}
		made := func(id uint32) bool { return t.split[id] != [2]uint32{id, id} || len(b.vocab.token(id)) == 1 }
		for id := range uint32(n) {
			s := b.vocab.token(id)
			t.split[id] = [2]uint32{id, id}
			for k := 1; k < len(s); k++ {
				l, ok := b.vocab.rank(s[:k])
				if !ok || l >= id || !made(l) {
					continue
				}
				r, ok := b.vocab.rank(s[k:])
				if !ok || r >= id || !made(r) || !t.valid(l, r) {
					continue
				}
				t.split[id] = [2]uint32{l, r}
				t.pair.put(l, r, id)
				break
			}
		}
		b.splits = t
	})
	return b.splits
}

// valid reports whether BPE, run on the bytes of tokens a and b alone,
// ends with a and b: walking down both tokens' merges from the boundary,
// no merge across it may come before the merges that made the two sides.
func (t *mergeTable) valid(a, b uint32) bool {
	limit := uint32(math.MaxUint32)
	for {
		if c, ok := t.pair.get(a, b); ok && c < limit {
			return false // this merge across the boundary comes first
		}
		if a > b { // a was merged later: undo it, keeping its right part
			limit = a
			if a = t.split[a][1]; a == limit {
				limit = b + 1
				if b = t.split[b][0]; b+1 == limit {
					return true
				}
			}
		} else { // b was merged later: keep its left part
			limit = b + 1
			if b = t.split[b][0]; b+1 == limit {
				limit = a
				if a = t.split[a][1]; a == limit {
					return true
				}
			}
		}
	}
}

// mergeLong emits the tokens of a long piece, by backtracking. The
// lengths are gathered first, two bytes a token, so that a failed search
// can still fall back to merging the whole piece.
func (b *bpe) mergeLong(piece string, emit func(n int)) {
	lens, ok := b.backtrackLong(piece)
	if !ok {
		// The heap's offsets are 32-bit: a piece of over 2 GiB (were the
		// search to fail, which no test has seen) is merged a gibibyte at
		// a time.
		for len(piece) > math.MaxInt32 {
			b.mergeHeap(piece[:1<<30], emit)
			piece = piece[1<<30:]
		}
		b.mergeHeap(piece, emit)
		return
	}
	for _, n := range lens {
		emit(int(n))
	}
}

// tokenLens returns the token lengths of a long text: the backtracking
// search's own list when the text is one long piece, so that its tokens
// are not listed twice.
func (b *bpe) tokenLens(text string) []uint16 {
	if len(text) >= longPiece && b.word(text) {
		if _, ok := b.vocab.rank(text); !ok {
			if lens, ok := b.backtrackLong(text); ok {
				return lens
			}
		}
	}
	lens := make([]uint16, 0, len(text)/3)
	b.tokens(text, func(n int) { lens = append(lens, uint16(n)) })
	return lens
}

// backtrackLong encodes a long piece by backtracking, in parts on every
// core when it is a megabyte or more.
func (b *bpe) backtrackLong(piece string) ([]uint16, bool) {
	if len(piece) >= parallelPiece && runtime.GOMAXPROCS(0) > 1 {
		return b.backtrackParallel(piece, runtime.GOMAXPROCS(0))
	}
	return b.backtrackLens(piece)
}
