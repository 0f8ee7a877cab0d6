package tokenize

import (
	"math/bits"
	"sync"

	"github.com/gochunk/gochunk/internal/grow"
	"github.com/gochunk/gochunk/tokenize/internal/merges"
)

// Long pieces are encoded in linear time by backtracking (the encoder of
// GitHub's bpe crate, written here for this vocabulary): at each position
// take the longest token the text starts with; keep it when it makes a
// valid pair with the token before (see merges.Table.Valid), else try the
// next shorter token that is a prefix of it; when none is left, the
// position is a dead end: the token before is taken back and its shorter
// prefixes tried. A sequence of tokens each making a valid pair with the
// next is the byte-pair encoding of its text, and this search finds the
// one the merges make, without a heap of candidate merges: no
// rank-ordered merging, and memory of a few bytes a byte.

// noToken marks a token with no shorter token as a prefix.
const noToken = ^uint32(0)

// prefixTable finds the longest token a text starts with: a trie of the
// tokens' bytes whose transitions are held in open-addressing tables of
// words (state<<8 | byte)<<36 | made<<21 | next<<1 | 1 (states under
// 2^20; 0 marks an empty slot), so that a step is one exact lookup. The
// state a token's bytes lead to is its rank plus one, the root is 0, and
// the states of prefixes that are no token come after the tokens': a step
// gives the token it ends on without another lookup. made is set when
// that token occurs in encodings. The tokens are in two tables by their
// first byte, each built on a core of its own; a walk takes the table of
// its text's first byte. For every token it also holds the longest token
// that is a proper prefix of it.
type prefixTable struct {
	half    [2]edgeTable
	first   [256]uint8  // the table of the tokens that start with each byte
	one     [256]uint32 // the token of each byte
	two     []uint32    // the state of every two bytes (byte<<8 | byte) with its made bit, 0 for none: the first steps, from an array
	shorter []uint32    // by token
	length  []uint8     // by token
}

// edgeTable holds the transitions of the tokens with some first bytes.
type edgeTable struct {
	edges []uint64
	mask  uint64
	used  int
	// seen has a bit set for each transition, by another part of its
	// hash (8 bits a slot): the longest match ends with a step that does
	// not exist, and a miss here (256 KiB for cl100k_base's halves, in
	// cache) saves a probe.
	seen  []uint64
	shift uint8 // 64 less the log of seen's bits
}

// trieBits is the width of a state in a transition, and madeBit the bit
// of a transition (and of prefixTable.two's states) set when the state it
// leads to is a token that occurs in encodings.
const (
	trieBits  = 20
	stateMask = 1<<trieBits - 1
	madeBit   = 1 << (trieBits + 1)
)

func edgeSlot(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> 28 }

func (t *edgeTable) seenBit(key uint64) uint64 { return (key * 0xC2B2AE3D27D4EB4F) >> t.shift }

// newEdgeTable returns a table for about states transitions, at most half
// full (it grows when there are more).
func newEdgeTable(states int) edgeTable {
	size := 1 << bits.Len(uint(2*states))
	return edgeTable{edges: grow.Touched[uint64](size), mask: uint64(size - 1), seen: grow.Touched[uint64](size / 8),
		shift: uint8(64 - bits.Len(uint(8*size-1)))}
}

// step returns the transition from state by byte c, shifted down by one
// (its next state and made bit), or 0 for none (the root is never a
// state's successor).
func (t *edgeTable) step(state uint32, c byte) uint32 {
	key := uint64(state)<<8 | uint64(c)
	if bit := t.seenBit(key); t.seen[bit/64]&(1<<(bit%64)) == 0 {
		return 0
	}
	for i := edgeSlot(key) & t.mask; ; i = (i + 1) & t.mask {
		e := t.edges[i]
		if e == 0 {
			return 0
		}
		if e>>36 == key {
			return uint32(e>>1) & (madeBit>>1 | stateMask)
		}
	}
}

// next returns the state after byte c from state, or 0 for none.
func (t *edgeTable) next(state uint32, c byte) uint32 {
	return t.step(state, c) & stateMask
}

// add sets the transition from state by c to next.
func (t *edgeTable) add(state uint32, c byte, next uint32) {
	if 2*(t.used+1) > len(t.edges) {
		old, used := t.edges, t.used
		*t = newEdgeTable(len(old)/2 + 1) // twice the slots
		t.used = used
		for _, e := range old {
			if e != 0 {
				t.insert(e)
			}
		}
	}
	t.insert((uint64(state)<<8|uint64(c))<<36 | uint64(next)<<1 | 1)
	t.used++
}

func (t *edgeTable) insert(e uint64) {
	bit := t.seenBit(e >> 36)
	t.seen[bit/64] |= 1 << (bit % 64)
	i := edgeSlot(e>>36) & t.mask
	for t.edges[i] != 0 {
		i = (i + 1) & t.mask
	}
	t.edges[i] = e
}

// prefixes builds the prefix table once, with the merge table it needs to
// know which tokens occur in encodings; false when the vocabulary has
// more states than a transition holds. The trie's two halves are built on
// two goroutines while a third reads the merge table (about 20 ms for
// cl100k_base and 50–60 ms for o200k_base, the first time a text has a
// long piece: BenchmarkBacktrackTables); the tokens are marked in it
// after.
func (b *bpe) prefixes() (*prefixTable, bool) {
	b.prefixOnce.Do(func() {
		tables := make(chan *merges.Table, 1)
		go func() { tables <- b.table() }()
		p, parent := b.trie()
		t := <-tables
		if p == nil {
			return
		}
		// A token that merging its own bytes does not make never occurs
		// in an encoding (table leaves it as its own pair): its state
		// spells no token.
		n := uint32(len(p.length))
		made := func(state uint32) bool {
			if state == 0 || state > n {
				return false
			}
			return t.Made(state-1, int(p.length[state-1]))
		}
		for h := range p.half {
			for i, e := range p.half[h].edges {
				if e != 0 && made(uint32(e>>1)&stateMask) {
					p.half[h].edges[i] |= madeBit
				}
			}
		}
		// The longest proper prefix of each token that does: the nearest
		// state above its own that spells one.
		for id := range n {
			p.shorter[id] = noToken
			for st := parent.of(id + 1); st != 0; st = parent.of(st) {
				if made(st) {
					p.shorter[id] = st - 1
					break
				}
			}
		}
		p.two = make([]uint32, 1<<16)
		for c := range 256 {
			h := &p.half[p.first[c]]
			if s1 := h.next(0, byte(c)); s1 != 0 {
				p.one[c] = s1 - 1
				for d := range 256 {
					p.two[c<<8|d] = h.step(s1, byte(d))
				}
			}
		}
		b.prefix = p
		b.backtracking.Store(true)
	})
	return b.prefix, b.prefix != nil
}

// parents holds the parent of each state while the trie is built: of the
// tokens' states (rank plus one) in one array that both halves write (each
// its own tokens), of the other states in one array a half, whose states
// are numbered n+1+half, n+3+half, and so on (n ranks).
type parents struct {
	n     uint32
	token []uint32
	other [2][]uint32
}

func (ps *parents) of(state uint32) uint32 {
	if state <= ps.n {
		return ps.token[state]
	}
	k := state - ps.n - 1
	return ps.other[k%2][k/2]
}

// trie returns the prefix table's trie of every token's bytes, with no
// token marked yet, and each state's parent; nil when the vocabulary has
// more states than a transition holds (or a byte is no token). The tokens
// are added shortest first, so that a token's state is made (as its rank
// plus one) before any longer token passes through it; the tokens of each
// half (by first byte, a byte splitting the tokens' bytes in two) on a
// goroutine of their own.
func (b *bpe) trie() (*prefixTable, *parents) {
	v := b.vocab
	n := v.ranks()
	total := 0
	var byLen [256]int
	var byFirst [256]int // the tokens' bytes, by their first byte
	for id := range n {
		s := v.token(uint32(id))
		total += len(s)
		byLen[len(s)]++
		if len(s) > 0 {
			byFirst[s[0]] += len(s)
		}
	}
	if n+1 > 1<<trieBits {
		return nil, nil
	}
	p := &prefixTable{shorter: make([]uint32, n), length: make([]uint8, n)}
	sum := 0
	for c, k := range byFirst {
		if sum >= total/2 {
			p.first[c] = 1
		}
		sum += k
	}
	// The ranks in order of length: byLen becomes where each length starts.
	start := 0
	for k, c := range byLen {
		byLen[k], start = start, start+c
	}
	order := make([]uint32, n)
	for id := range uint32(n) {
		k := len(v.token(id))
		p.length[id] = uint8(k)
		order[byLen[k]] = id
		byLen[k]++
	}
	parent := &parents{n: uint32(n), token: make([]uint32, n+1)}
	// A third of the tokens' bytes start a new state (cl100k_base: 217,000
	// of 650,000, o200k_base: 422,000 of 1.4 million): each half's table
	// is sized for half of that.
	var wg sync.WaitGroup
	var full [2]bool
	for h := range 2 {
		build := func() {
			t := newEdgeTable(total / 6)
			other := make([]uint32, 0, total/6)
			for _, id := range order {
				s := v.token(id)
				if len(s) == 0 || p.first[s[0]] != uint8(h) {
					continue // a rank the vocabulary skips, or the other half's
				}
				state := uint32(0)
				for k := range len(s) - 1 {
					next := t.next(state, s[k])
					if next == 0 {
						// A prefix that is no token (its token would have
						// been added before, being shorter).
						next = uint32(n+1+h) + 2*uint32(len(other))
						if next >= 1<<trieBits {
							full[h] = true
							return
						}
						other = append(other, state)
						t.add(state, s[k], next)
					}
					state = next
				}
				parent.token[id+1] = state
				if t.next(state, s[len(s)-1]) != 0 {
					continue // bytes an earlier rank has (none in tiktoken's vocabularies): the first rank stands, as in vocab.rank
				}
				t.add(state, s[len(s)-1], id+1)
			}
			p.half[h], parent.other[h] = t, other
		}
		if h == 0 {
			wg.Go(build)
		} else {
			build()
		}
	}
	wg.Wait()
	if full[0] || full[1] {
		return nil, nil
	}
	for c := range 256 {
		if p.half[p.first[c]].next(0, byte(c)) == 0 {
			return nil, nil // a byte with no token: longest would have nothing to give
		}
	}
	return p, parent
}

// longest returns the longest token that can occur in an encoding and
// that text starts with (every byte is one).
func (p *prefixTable) longest(text string) uint32 {
	best := p.one[text[0]]
	if len(text) == 1 {
		return best
	}
	e := p.two[uint32(text[0])<<8|uint32(text[1])]
	if e == 0 {
		return best
	}
	if e&(madeBit>>1) != 0 {
		best = e&stateMask - 1
	}
	t := &p.half[p.first[text[0]]]
	state := e & stateMask
	for k := 2; k < len(text); k++ {
		if e = t.step(state, text[k]); e == 0 {
			break
		}
		state = e & stateMask
		if e&(madeBit>>1) != 0 {
			best = state - 1
		}
	}
	return best
}

// rank returns the rank of tok, a token that occurs in encodings: its
// state less one. Most tokens of the texts backtracking is for are one or
// two bytes: one array lookup.
func (p *prefixTable) rank(tok string) uint32 {
	if len(tok) == 1 {
		return p.one[tok[0]]
	}
	state := p.two[uint32(tok[0])<<8|uint32(tok[1])] & stateMask
	t := &p.half[p.first[tok[0]]]
	for k := 2; k < len(tok); k++ {
		state = t.next(state, tok[k])
	}
	return state - 1
}

// backtrackLens returns the length of each token of piece, one pre-token,
// encoded by backtracking; false if the search failed, which a vocabulary
// made by merges does not allow.
func (b *bpe) backtrackLens(piece string) ([]uint16, bool) {
	if b.vocab.ranks() > merges.MaxRanks {
		return nil, false // more ranks than a merge table holds
	}
	p, ok := b.prefixes() // first: it builds the merge table beside the trie
	if !ok {
		return nil, false
	}
	t := b.table()
	dead := make([]uint64, len(piece)/64+1) // positions from which no encoding continues
	// The tokens so far are kept as their lengths, two bytes a token (the
	// result), and the last one's rank, found again from its bytes in the
	// trie when the search steps back (random lower-case letters make 0.54
	// tokens a byte with cl100k_base and 0.52 with o200k_base, of both
	// cases 0.66 and 0.61).
	lens := make([]uint16, 0, len(piece)/2+len(piece)/8+16)
	last := noToken
	pos := 0
	next := p.longest(piece)
	for pos < len(piece) {
		tok := next
		for {
			end := pos + int(p.length[tok])
			if dead[end/64]&(1<<(end%64)) == 0 && (last == noToken || t.Valid(last, tok)) {
				lens = append(lens, uint16(end-pos))
				last, pos = tok, end
				if pos < len(piece) {
					next = p.longest(piece[pos:])
				}
				break
			}
			if s := p.shorter[tok]; s != noToken {
				tok = s
				continue
			}
			// No token from pos continues the tokens before it.
			if last == noToken {
				return nil, false
			}
			dead[pos/64] |= 1 << (pos % 64)
			next = last
			lens = lens[:len(lens)-1]
			pos -= int(p.length[next])
			last = noToken
			if len(lens) > 0 {
				last = p.rank(piece[pos-int(lens[len(lens)-1]) : pos])
			}
			break
		}
	}
	return lens, true
}

// parallelPiece is the length from which a piece is encoded in parts on
// several cores, and minPart the shortest part.
const (
	parallelPiece = 1 << 20
	minPart       = 256 << 10
)

// backtrackParallel is backtrackLens with piece cut into parts encoded at
// once on up to cores goroutines. The encodings are then joined in turn:
// where the last token of one and the first of the next are not a valid
// pair, the text around the joint (a few tokens on either side, more if
// needed) is encoded again, and kept when its own two joints are valid
// pairs. Every neighbouring pair of the result is then valid, so it is the
// piece's encoding. Where the parts never agree near a joint, the piece
// is encoded whole.
func (b *bpe) backtrackParallel(piece string, cores int) ([]uint16, bool) {
	lens, joined, ok := b.encodeParts(piece, cores, minPart)
	if ok && !joined {
		return b.backtrackLens(piece)
	}
	return lens, ok
}

// encodeParts is backtrackParallel without its fall back, in parts of at
// least part bytes: joined is false where the parts could not be joined.
func (b *bpe) encodeParts(piece string, cores, part int) (lens []uint16, joined, ok bool) {
	parts := min(cores, len(piece)/part)
	if parts < 2 {
		lens, ok = b.backtrackLens(piece)
		return lens, true, ok
	}
	bounds := make([]int, parts+1)
	for k := range bounds {
		bounds[k] = k * len(piece) / parts
	}
	encoded := make([][]uint16, parts)
	done := make([]bool, parts)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { encoded[k], done[k] = b.backtrackLens(piece[bounds[k]:bounds[k+1]]) })
	}
	wg.Wait()
	for _, good := range done {
		if !good {
			return nil, false, false
		}
	}
	t := b.table()
	rank := func(from, to int) uint32 { r, _ := b.vocab.rank(piece[from:to]); return r }
	total := 0
	for _, e := range encoded {
		total += len(e)
	}
	out := make([]uint16, 0, total+1<<12)
	out = append(out, encoded[0]...)
	pos := bounds[1] // where out's text ends
	for k := 1; k < parts; k++ {
		next := encoded[k]
		joined = false
		for margin := 0; margin <= 1<<12 && !joined; margin = max(8, 4*margin) {
			keep := max(0, len(out)-margin) // out's tokens kept
			from := pos
			for _, n := range out[keep:] {
				from -= int(n)
			}
			take := min(len(next), margin) // next's tokens encoded again
			to := pos
			for _, n := range next[:take] {
				to += int(n)
			}
			var mid []uint16
			if to > from {
				var good bool
				if mid, good = b.backtrackLens(piece[from:to]); !good {
					return nil, false, false
				}
			}
			// The joints: out's last kept token before from, mid's first
			// (or next's first, when mid is empty) at from; mid's last
			// before to, next's first kept token at to.
			var first, last uint32
			if len(mid) > 0 {
				first, last = rank(from, from+int(mid[0])), rank(to-int(mid[len(mid)-1]), to)
			}
			if keep > 0 {
				if len(mid) == 0 {
					first = rank(to, to+int(next[take]))
				}
				if !t.Valid(rank(from-int(out[keep-1]), from), first) {
					continue
				}
			}
			if take < len(next) && len(mid) > 0 && !t.Valid(last, rank(to, to+int(next[take]))) {
				continue
			}
			out = append(append(out[:keep], mid...), next[take:]...)
			pos = bounds[k+1]
			joined = true
		}
		if !joined {
			// The parts' tokens never agree again near the joint (a run
			// of one repeated character, whose tokens depend on where the
			// run starts).
			return nil, false, true
		}
	}
	return out, true, true
}
