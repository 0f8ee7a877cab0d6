package tokenize

import (
	"math"
	"runtime"

	"github.com/gochunk/gochunk/tokenize/internal/merges"
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

// table returns the merge table, read once from the file embedded beside
// the vocabulary, or built from the vocabulary when there is none or it
// does not fit (TestEmbeddedMerges checks the files).
func (b *bpe) table() *merges.Table {
	b.splitsOnce.Do(func() {
		n := b.vocab.ranks() // under merges.MaxRanks
		if t, ok := merges.Decode(b.vocab.merges, n, b.vocab.token); ok {
			b.splits = t
			return
		}
		b.splits = merges.Build(n, b.vocab.token, b.vocab.rank)
	})
	return b.splits
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
