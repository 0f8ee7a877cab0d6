package tokenize

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gochunk/gochunk/internal/grow"
	"github.com/gochunk/gochunk/tokenize/internal/merges"
)

// The pre-tokenizer patterns of OpenAI's tiktoken encodings (see
// pretoken.go, which matches them).
var bpePatterns = map[string]string{
	"cl100k_base": cl100kPattern,
	"o200k_base":  o200kPattern,
}

// bpe is a tiktoken encoding: its pre-tokenizer and the merge rank of every
// token (its id), from the vocabulary embedded in the binary.
type bpe struct {
	piece      pieceEnd // the pre-tokenizer
	vocab      *vocab
	splitsOnce sync.Once
	splits     *merges.Table // for long pieces, read on the first
	prefixOnce sync.Once
	prefix     *prefixTable // for long pieces, built on the first
	// backtracking is set once the tables of backtracking are built: from
	// then on pieces of minBacktrack bytes or more are encoded by it too
	// (a text of long pieces is counted piece by piece, each of them a
	// few kilobytes), which the first long piece would not pay for.
	backtracking atomic.Bool
	// word reports a text the pattern takes whole: an optional space and
	// ASCII letters in a shape its letter alternative matches entirely.
	word func(string) bool
	// scratch holds the buffers of merges of pieces of pooledPiece bytes
	// or more (a long word, a run of symbols, a piece merged whole when
	// backtracking fails), reused so that one merge after another does not
	// leave each one's arrays to the collector.
	scratch sync.Pool
}

// mergeScratch is the reusable memory of one mergeBelow.
type mergeScratch struct {
	end  []int32
	heap rankHeap
}

// pooledPiece is the length from which mergeBelow takes its buffers from
// the pool: shorter pieces allocate less than the pool costs.
const pooledPiece = 256

var bpeCache sync.Map // encoding name -> *bpeOnce

type bpeOnce struct {
	once sync.Once
	bpe  *bpe
	err  error
}

// loadBPE returns the encoding, built once per process from the
// vocabulary embedded in the binary.
func loadBPE(name string) (*bpe, error) {
	v, _ := bpeCache.LoadOrStore(name, &bpeOnce{})
	o := v.(*bpeOnce)
	o.once.Do(func() {
		pattern, ok := bpePatterns[name]
		if !ok {
			o.err = fmt.Errorf("%w %q: tiktoken encodings are cl100k_base and o200k_base", ErrUnknown, name)
			return
		}
		voc, err := loadVocab(name)
		if err != nil {
			o.err = err
			return
		}
		o.bpe = &bpe{piece: pretokenizers[pattern], vocab: voc, word: asciiWord}
		if name == "o200k_base" {
			o.bpe.word = asciiWordO200k
		}
	})
	return o.bpe, o.err
}

// tokens calls emit with the byte length of each token of text, as
// tiktoken encodes it: the pattern cuts text into pieces, and each piece is
// merged pair by pair, lowest rank first.
func (b *bpe) tokens(text string, emit func(n int)) {
	if b.word(text) {
		b.merge(text, emit) // one piece: no need to run the pattern
		return
	}
	for i := 0; i < len(text); {
		j := b.piece(text, i)
		b.merge(text[i:j], emit)
		i = j
	}
}

// merge emits the tokens of one piece.
func (b *bpe) merge(piece string, emit func(n int)) {
	if len(piece) == 0 {
		return
	}
	if _, ok := b.vocab.rank(piece); ok || len(piece) == 1 {
		emit(len(piece))
		return
	}
	if len(piece) >= longPiece || len(piece) >= minBacktrack && b.backtracking.Load() {
		b.mergeLong(piece, emit)
		return
	}
	b.mergeHeap(piece, emit)
}

// mergeHeap merges a piece (under 2 GiB: offsets are 32-bit): a list of parts, starting as
// bytes, and a heap of the possible merges of neighbouring parts, lowest
// rank (then leftmost) first. An entry is rank<<32 | start of its left
// part, 8 bytes, and the parts are one array of 32-bit offsets, so a long
// piece (a line of one repeated letter) costs about 12 bytes per byte, not
// the 100 of boxed heap entries. An entry whose parts changed since it was pushed
// is stale; it is recognised because the text its parts now make has
// another rank (a rank names one token, so the same rank at the same start
// is the same merge).
func (b *bpe) mergeHeap(piece string, emit func(n int)) {
	b.mergeBelow(piece, 1<<32, emit)
}

// mergeBelow is mergeHeap making only the merges of rank below limit.
func (b *bpe) mergeBelow(piece string, limit uint64, emit func(n int)) {
	n := len(piece)
	switch {
	case n <= 32: // a short piece's arrays, on the stack
		var end [32]int32
		var heap [32]uint64
		b.mergeIn(piece, limit, end[:n], heap[:0], emit)
	case n >= pooledPiece:
		sc, _ := b.scratch.Get().(*mergeScratch)
		if sc == nil {
			sc = &mergeScratch{}
		}
		end := grow.Slice(sc.end[:0], n)[:n]
		sc.heap = b.mergeIn(piece, limit, end, sc.heap[:0], emit)[:0]
		sc.end = end[:0]
		b.scratch.Put(sc)
	default:
		b.mergeIn(piece, limit, make([]int32, n), nil, emit)
	}
}

// mergeIn is mergeBelow with its arrays: end, of the piece's length, and
// h, an empty heap whose capacity it may use. It returns the heap's array.
func (b *bpe) mergeIn(piece string, limit uint64, end []int32, h rankHeap, emit func(n int)) rankHeap {
	n := int32(len(piece))
	for i := range n {
		end[i] = i + 1
	}
	// before returns the start of the part before the one at i, -1 for
	// none: the last position before i that starts a part (tokens are
	// short, so the scan is too).
	before := func(i int32) int32 {
		for i--; i >= 0 && end[i] < 0; i-- {
		}
		return i
	}
	// rankAt returns the rank of merging the part at i with the next one.
	rankAt := func(i int32) (uint64, bool) {
		if i < 0 || end[i] < 0 || end[i] >= n {
			return 0, false
		}
		r, ok := b.vocab.rank(piece[i:end[end[i]]])
		return uint64(r), ok && uint64(r) < limit
	}
	h = slices.Grow(h, int(n/2+1))
	for i := int32(0); i+1 < n; i++ {
		if r, ok := rankAt(i); ok {
			h = append(h, r<<32|uint64(i))
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		left := int32(top & (1<<32 - 1))
		if r, ok := rankAt(left); !ok || r != top>>32 {
			continue // stale: the parts at left changed
		}
		right := end[left]
		stop := end[right]
		end[left], end[right] = stop, -1
		for _, i := range [2]int32{before(left), left} {
			if r, ok := rankAt(i); ok {
				h.push(r<<32 | uint64(i))
			}
		}
	}
	for i := int32(0); i < n; i = end[i] {
		emit(int(end[i] - i))
	}
	return h
}

// rankHeap is a binary min-heap of rank<<32 | start entries.
type rankHeap []uint64

func (h rankHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *rankHeap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *rankHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h rankHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// asciiWord reports whether s is an optional space then ASCII letters,
// which cl100k_base's pattern matches whole ([^\r\n\p{L}\p{N}]?\p{L}+;
// the contractions before it need an apostrophe).
func asciiWord(s string) bool {
	if len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// asciiWordO200k reports whether s is an optional space then ASCII
// letters that o200k_base's pattern matches whole: upper case then lower
// case ([A-Z]*[a-z]+), or upper case only.
func asciiWordO200k(s string) bool {
	if !asciiWord(s) {
		return false
	}
	if s[0] == ' ' {
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	for j := i; j < len(s); j++ {
		if s[j] < 'a' || s[j] > 'z' {
			return false
		}
	}
	return true
}

// decode returns the bytes of the tokens ids, or an error naming an id
// the vocabulary does not have.
func (b *bpe) decode(ids []int) (string, error) {
	var sb strings.Builder
	for _, id := range ids {
		if id < 0 || id >= b.vocab.ranks() || b.vocab.token(uint32(id)) == "" {
			return "", fmt.Errorf("token id %d is not in the vocabulary", id)
		}
		sb.WriteString(b.vocab.token(uint32(id)))
	}
	return sb.String(), nil
}
