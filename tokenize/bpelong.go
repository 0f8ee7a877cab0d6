package tokenize

import "math"

// Long pieces. A piece (one pre-token) of megabytes, such as a line of
// random letters or a run of blank lines, is merged window by window, and
// the result is the exact byte-pair encoding of the whole piece:
//
// A sequence of tokens is the BPE encoding of its text exactly when every
// two neighbouring tokens are a valid pair: when BPE, run on the two
// tokens' bytes alone, ends with those two tokens (the property GitHub's
// bpe crate builds its linear encoders on). Every pair inside the encoding
// of a window is valid, since it is an encoding. So windows are encoded
// one after the other, each keeping the tokens that end before its last
// margin bytes, and the pair where two windows meet is checked; when it is
// not valid the cut moves back a token and the next window starts there.
// Memory is that of one window's merge, and time linear in the piece.
const (
	longPiece    = 16 << 10 // from this length a piece is merged window by window
	mergeWindow  = 4 << 10  // the text merged at once
	mergeMargin  = 512      // the end of a window whose tokens are merged again with the next
	maxBacktrack = 64       // cuts tried back from a window's end before the whole piece is merged at once
)

// mergeTable holds what checking a pair of tokens needs: for every token,
// the two tokens its last merge joined (a byte, or a token no merge of its
// own bytes makes, is its own pair), and for every such pair the token.
type mergeTable struct {
	split [][2]uint32
	pair  map[uint64]uint32
}

// table builds, once, the merge table: each token's bytes are merged with
// the merges ranked below it, which leaves the two parts the token's own
// merge joins.
func (b *bpe) table() *mergeTable {
	b.splitsOnce.Do(func() {
		n := b.vocab.ranks()
		t := &mergeTable{split: make([][2]uint32, n), pair: make(map[uint64]uint32, n)}
		var parts []int
		for id := range n {
			s := b.vocab.token(uint32(id))
			t.split[id] = [2]uint32{uint32(id), uint32(id)}
			if len(s) < 2 {
				continue
			}
			parts = parts[:0]
			b.mergeBelow(s, uint64(id), func(n int) { parts = append(parts, n) })
			if len(parts) != 2 {
				continue // not made by merging its own bytes: never in an encoding
			}
			l, lok := b.vocab.rank(s[:parts[0]])
			r, rok := b.vocab.rank(s[parts[0]:])
			if !lok || !rok {
				continue
			}
			t.split[id] = [2]uint32{uint32(l), uint32(r)}
			t.pair[uint64(l)<<32|uint64(r)] = uint32(id)
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
		if c, ok := t.pair[uint64(a)<<32|uint64(b)]; ok && c < limit {
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

// mergeLong emits the tokens of a long piece, window by window (see the
// top of this file). The lengths are gathered first, two bytes a token,
// so that a failed check can still fall back to merging the whole piece.
func (b *bpe) mergeLong(piece string, emit func(n int)) {
	lens, ok := b.mergeWindows(piece, mergeWindow, mergeMargin)
	if !ok {
		// The heap's offsets are 32-bit: a piece of over 2 GiB whose
		// windows do not join (none seen) is merged a gibibyte at a time.
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

// tokenLens returns the token lengths of a long text: the windows' own
// list when the text is one long piece, so that its tokens are not
// listed twice.
func (b *bpe) tokenLens(text string) []uint16 {
	if len(text) >= longPiece && b.word(text) {
		if _, ok := b.vocab.rank(text); !ok {
			if lens, ok := b.mergeWindows(text, mergeWindow, mergeMargin); ok {
				return lens
			}
		}
	}
	lens := make([]uint16, 0, len(text)/3)
	b.tokens(text, func(n int) { lens = append(lens, uint16(n)) })
	return lens
}

// mergeWindows returns the token lengths of piece merged window by window,
// or false when no cut near some window's end gave a valid pair.
func (b *bpe) mergeWindows(piece string, window, margin int) ([]uint16, bool) {
	t := b.table()
	out := make([]uint16, 0, len(piece)/3)
	var win []int
	// encode merges the window at pos and returns how many of its tokens
	// to keep and their length: those that end before the margin, at
	// least one, or all of them at the piece's end.
	encode := func(pos int) (keep, length int) {
		end := min(len(piece), pos+window)
		win = win[:0]
		b.mergeHeap(piece[pos:end], func(n int) { win = append(win, n) })
		if end == len(piece) {
			return len(win), end - pos
		}
		for keep < len(win) && (keep == 0 || length+win[keep] <= end-pos-margin) {
			length += win[keep]
			keep++
		}
		return keep, length
	}
	pos, prev := 0, -1 // prev: the last token kept so far, -1 for none
	kept := 0          // tokens the last window kept: the cut moves back over them only
	for pos < len(piece) {
		keep, length := encode(pos)
		for back := 0; prev >= 0 && !t.valid(uint32(prev), b.rankOf(piece[pos:pos+win[0]])); back++ {
			// The pair where the windows meet is not one BPE makes: move
			// the cut back by the last token kept, and merge again from
			// there. Never past the window before's first token, so the
			// text always advances.
			if back == maxBacktrack || back >= kept-1 {
				return nil, false
			}
			pos -= int(out[len(out)-1])
			out = out[:len(out)-1]
			prev = -1
			if len(out) > 0 {
				prev = int(b.rankOf(piece[pos-int(out[len(out)-1]) : pos]))
			}
			keep, length = encode(pos)
		}
		for _, n := range win[:keep] {
			out = append(out, uint16(n))
		}
		kept = keep
		pos += length
		prev = int(b.rankOf(piece[pos-win[keep-1] : pos]))
	}
	return out, true
}

// rankOf returns the rank (the id) of a token's bytes.
func (b *bpe) rankOf(tok string) uint32 {
	r, _ := b.vocab.rank(tok)
	return r
}
