package tokenize

import (
	"container/heap"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
)

// The pre-tokenizer patterns of OpenAI's tiktoken encodings, compiled here
// and wrapped in a group so that no matcher github.com/tiktoken-go/tokenizer
// generated for the bare patterns is used: its codec splits runs of white
// space around line breaks differently from the reference ("\n  \n" is one
// piece for tiktoken, two for it), which TestTikTokenMatchesJSTiktoken
// pins on 10,000 strings.
var bpePatterns = map[string]string{
	"cl100k_base": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	"o200k_base": `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// bpe is a tiktoken encoding: its pre-tokenizer and the merge rank of every
// token (its id), read from the vocabulary github.com/tiktoken-go/tokenizer
// compiles into the binary.
type bpe struct {
	split       *regexp2.Regexp
	ranks       map[string]uint
	reverseOnce sync.Once
	reverse     []string // id -> token bytes, for decode
	// word reports a text the pattern takes whole: an optional space and
	// ASCII letters in a shape its letter alternative matches entirely.
	word func(string) bool
}

var bpeCache sync.Map // encoding name -> *bpeOnce

type bpeOnce struct {
	once sync.Once
	bpe  *bpe
	err  error
}

// loadBPE returns the encoding, built once per process (the ranks are read
// back from the codec, one token at a time).
func loadBPE(name string, codec tokenizer.Codec) (*bpe, error) {
	v, _ := bpeCache.LoadOrStore(name, &bpeOnce{})
	o := v.(*bpeOnce)
	o.once.Do(func() {
		re, err := regexp2.Compile("(?:"+bpePatterns[name]+")", regexp2.None)
		if err != nil {
			o.err = fmt.Errorf("tiktoken %s pattern: %w", name, err)
			return
		}
		ranks := codecRanks(codec)
		if ranks == nil {
			// Read them back one token at a time (about 20 ms).
			ranks = make(map[string]uint, 200_000)
			for id, misses := 0, 0; misses < 1000; id++ {
				s, err := codec.Decode([]uint{uint(id)})
				if err != nil || s == "" {
					misses++
					continue
				}
				misses = 0
				if _, dup := ranks[s]; !dup {
					ranks[s] = uint(id)
				}
			}
		}
		o.bpe = &bpe{split: re, ranks: ranks, word: asciiWord}
		if name == "o200k_base" {
			o.bpe.word = asciiWordO200k
		}
	})
	return o.bpe, o.err
}

// codecRanks returns the vocabulary the codec holds (token bytes to rank,
// which is the token's id), read in place: github.com/tiktoken-go/tokenizer
// keeps it in an unexported field, and reading it back through Decode
// costs 20 ms a process. Nil when the field is not there as expected (a
// new version of the library); the caller then reads it back.
func codecRanks(codec tokenizer.Codec) map[string]uint {
	v := reflect.ValueOf(codec)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("vocabulary")
	if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key().Kind() != reflect.String || f.Type().Elem().Kind() != reflect.Uint {
		return nil
	}
	m := *(*map[string]uint)(unsafe.Pointer(f.UnsafeAddr()))
	if len(m) < 50_000 {
		return nil
	}
	return m
}

// tokens calls emit with the byte length of each token of text, as
// tiktoken encodes it: the pattern cuts text into pieces, and each piece is
// merged pair by pair, lowest rank first.
func (b *bpe) tokens(text string, emit func(n int)) {
	if b.word(text) {
		b.merge(text, emit) // one piece: no need to run the pattern
		return
	}
	at := 0
	for m, _ := b.split.FindStringMatch(text); m != nil; m, _ = b.split.FindNextMatch(m) {
		piece := m.String() // matches are consecutive: the pattern covers every character
		b.merge(piece, emit)
		at += len(piece)
	}
	if at < len(text) {
		b.merge(text[at:], emit)
	}
}

// merge emits the tokens of one piece.
func (b *bpe) merge(piece string, emit func(n int)) {
	if len(piece) == 0 {
		return
	}
	if _, ok := b.ranks[piece]; ok || len(piece) == 1 {
		emit(len(piece))
		return
	}
	// A list of parts, starting as bytes, and a heap of the merges of
	// neighbouring parts that exist in the vocabulary, lowest rank (then
	// leftmost) first; a merge whose parts changed since is skipped.
	n := len(piece)
	end := make([]int, n)  // end[i]: end of the part starting at i (-1: merged away)
	prev := make([]int, n) // prev[i]: start of the part before, -1 for none
	for i := range n {
		end[i], prev[i] = i+1, i-1
	}
	h := &pairHeap{}
	push := func(i int) {
		if i < 0 || end[i] >= n {
			return
		}
		j := end[i]
		if r, ok := b.ranks[piece[i:end[j]]]; ok {
			heap.Push(h, pair{rank: int(r), left: i, right: j, stop: end[j]})
		}
	}
	for i := 0; i+1 < n; i++ {
		push(i)
	}
	for h.Len() > 0 {
		p := heap.Pop(h).(pair)
		if end[p.left] != p.right || end[p.right] != p.stop {
			continue // a part changed: the merge is stale
		}
		end[p.left], end[p.right] = p.stop, -1
		if p.stop < n {
			prev[p.stop] = p.left
		}
		push(prev[p.left])
		push(p.left)
	}
	for i := 0; i < n; i = end[i] {
		emit(end[i] - i)
	}
}

// pair is a possible merge of the parts starting at left and right (which
// ends at stop).
type pair struct{ rank, left, right, stop int }

type pairHeap []pair

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].left < h[j].left
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pair)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
	b.reverseOnce.Do(func() {
		top := uint(0)
		for _, id := range b.ranks {
			top = max(top, id)
		}
		b.reverse = make([]string, top+1)
		for s, id := range b.ranks {
			b.reverse[id] = s
		}
	})
	var sb strings.Builder
	for _, id := range ids {
		if id < 0 || id >= len(b.reverse) || b.reverse[id] == "" {
			return "", fmt.Errorf("token id %d is not in the vocabulary", id)
		}
		sb.WriteString(b.reverse[id])
	}
	return sb.String(), nil
}
