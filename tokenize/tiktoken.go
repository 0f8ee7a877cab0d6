package tokenize

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TikToken counts tokens of an OpenAI tiktoken encoding (cl100k_base or
// o200k_base). The vocabularies and their lookup tables are embedded in
// the binary (2.2 and 4.5 MB), ready without building anything at
// start-up; nothing is downloaded.
//
// Counting is made fast by a cache: the text is cut where the encoding's
// pre-tokenizer always cuts (between a non-space character and a following
// space or tab), and the token count of each such word-sized segment is
// cached, so a word is encoded once however many times chunkers measure
// text around it. Counts are exact: they equal those of encoding the whole
// text at once (tests check this against the reference implementation).
type TikToken struct {
	name string
	bpe  *bpe

	// cache maps a segment to the byte length of each of its tokens.
	// Callers hold mu's read lock across many lookups (see lookup), so a
	// lookup is a plain map access; a new segment is added under the
	// write lock.
	mu    sync.RWMutex
	cache map[string][]uint16

	// long remembers the tokens of the last segment of over longSegment
	// bytes (a line of one repeated letter, a run of blank lines):
	// chunkers count such a text, then ask for its token ends, and each
	// encoding of it costs a pass over megabytes.
	longMu   sync.Mutex
	longSeg  string
	longLens []uint16

	// mid caches the tokens of segments longer than maxCachedSegment and
	// shorter than longSegment (indentation, rules of dashes, long words),
	// which chunkers count again each time a chunk around them is
	// measured; emptied when its keys pass maxMidBytes.
	mid      map[string][]uint16
	midBytes int
}

// maxMidBytes bounds the bytes of the segments mid holds.
const maxMidBytes = 4 << 20

// longSegment is the length from which a segment's tokens are remembered
// as the last long segment.
const longSegment = 64 << 10

// longTokens calls emit with the length of each token of seg, a segment of
// over maxCachedSegment bytes, from the last long segment when it is seg.
func (t *TikToken) longTokens(seg string, emit func(n int)) {
	if len(seg) < longSegment {
		t.longMu.Lock()
		lens, ok := t.mid[seg]
		t.longMu.Unlock()
		if !ok {
			t.bpe.tokens(seg, func(n int) { lens = append(lens, uint16(n)) })
			t.longMu.Lock()
			if t.midBytes+len(seg) > maxMidBytes || t.mid == nil {
				t.mid, t.midBytes = map[string][]uint16{}, 0
			}
			t.mid[strings.Clone(seg)] = lens
			t.midBytes += len(seg)
			t.longMu.Unlock()
		}
		for _, n := range lens {
			emit(int(n))
		}
		return
	}
	t.longMu.Lock()
	lens := t.longLens
	if t.longSeg != seg {
		lens = nil
	}
	t.longMu.Unlock()
	if lens == nil {
		lens = t.bpe.tokenLens(seg)
		t.longMu.Lock()
		t.longSeg, t.longLens = seg, lens // seg is the caller's text: not copied, it is kept only until the next long one
		t.longMu.Unlock()
	}
	for _, n := range lens {
		emit(int(n))
	}
}

// maxCachedSegment is the longest segment, in bytes, whose tokens are cached;
// maxCacheEntries bounds the cache, which is emptied when it is reached.
const (
	maxCachedSegment = 64
	maxCacheEntries  = 1 << 20
)

// NewTikToken returns a counter for encoding "cl100k_base" or "o200k_base".
func NewTikToken(encoding string) (*TikToken, error) {
	b, err := loadBPE(encoding)
	if err != nil {
		return nil, err
	}
	return &TikToken{name: encoding, bpe: b, cache: map[string][]uint16{}}, nil
}

// Encode returns the token ids of text, as tiktoken's encode (special
// tokens are text like any other).
func (t *TikToken) Encode(text string) []int {
	ends := t.AppendTokenEnds(nil, text)
	ids := make([]int, len(ends))
	prev := 0
	for i, e := range ends {
		r, _ := t.bpe.vocab.rank(text[prev:e])
		ids[i] = int(r)
		prev = e
	}
	return ids
}

// Decode returns the text of token ids (invalid UTF-8 where the ids cut a
// character, as tiktoken's decode).
func (t *TikToken) Decode(ids []int) (string, error) { return t.bpe.decode(ids) }

// Name returns the encoding's name.
func (t *TikToken) Name() string { return t.name }

// Count returns the number of tokens of text.
func (t *TikToken) Count(text string) int {
	n := 0
	l := lookups{t: t} // on the stack: a count allocates nothing for the cache
	t.mu.RLock()
	defer l.done()
	forEachSegment(text, func(seg string) {
		if len(seg) > maxCachedSegment {
			t.longTokens(seg, func(int) { n++ })
			return
		}
		n += len(l.segment(seg))
	})
	return n
}

// AppendTokenEnds appends the end offset of every token of text. Tokens of
// byte-level BPE may end inside a multi-byte character.
func (t *TikToken) AppendTokenEnds(dst []int, text string) []int {
	off := 0
	l := lookups{t: t} // on the stack: a count allocates nothing for the cache
	t.mu.RLock()
	defer l.done()
	forEachSegment(text, func(seg string) {
		if len(seg) > maxCachedSegment {
			t.longTokens(seg, func(n int) {
				off += n
				dst = append(dst, off)
			})
			return
		}
		for _, l := range l.segment(seg) {
			off += int(l)
			dst = append(dst, off)
		}
	})
	return dst
}

// lookups is a run of cache lookups under one read lock. Segments not in
// the cache are encoded and kept in local until the run adds them to the
// cache, every 4096 lookups and at its end, so that goroutines tokenizing
// new text do not wait on each other's write locks.
type lookups struct {
	t     *TikToken
	n     int
	local map[string][]uint16
}

// done ends the run.
func (l *lookups) done() {
	l.t.mu.RUnlock()
	l.flush()
}

// flush adds the local segments to the cache; the read lock is not held.
func (l *lookups) flush() {
	if len(l.local) == 0 {
		return
	}
	t := l.t
	t.mu.Lock()
	if len(t.cache)+len(l.local) > maxCacheEntries {
		t.cache = make(map[string][]uint16)
	}
	for k, v := range l.local {
		t.cache[k] = v
	}
	t.mu.Unlock()
	clear(l.local)
}

// segment returns the token lengths of a short segment, from the cache or
// by encoding it.
func (l *lookups) segment(seg string) []uint16 {
	t := l.t
	if l.n++; l.n%4096 == 0 {
		t.mu.RUnlock()
		l.flush()
		t.mu.RLock()
	}
	if lens, ok := t.cache[seg]; ok {
		return lens
	}
	if lens, ok := l.local[seg]; ok {
		return lens
	}
	var lens []uint16
	t.bpe.tokens(seg, func(n int) { lens = append(lens, uint16(n)) })
	if l.local == nil {
		l.local = map[string][]uint16{}
	}
	l.local[string([]byte(seg))] = lens // copy: do not pin the caller's text
	return lens
}

// InsidePiece reports whether s, wherever it occurs in a text, lies inside
// one piece of the encoding's pattern, which also matches s alone whole:
// s is letters only for cl100k_base, lower-case letters only for
// o200k_base (whose pattern splits where the case changes). The tokens of
// a text's piece that end inside such an s, cut at token ends, are then
// s's own encoding: a byte-pair encoding is a sequence of valid pairs,
// and so is any run of it (see mergeLong). A count of s is the number of
// those tokens, with no need to encode s again.
func (t *TikToken) InsidePiece(s string) bool {
	if s == "" {
		return false
	}
	lower := t.name == "o200k_base"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !('a' <= c && c <= 'z' || !lower && 'A' <= c && c <= 'Z') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if lower && !unicode.IsLower(r) || !unicode.IsLetter(r) {
			return false
		}
		i += size
	}
	return true
}

// Cut returns the first position at or after from where the tokens of the
// text before and after can be computed apart, or len(text): where
// forEachSegment cuts (white space other than a line break after a
// non-space character), and between a letter and a digit (\p{L} and
// \p{N}), which no pattern of a tiktoken encoding puts in one piece. The
// second rule keeps a long line without white space (a base64 blob, an
// identifier soup) from becoming one block that must be tokenized whole.
func (t *TikToken) Cut(text string, from int) int {
	for i := max(from, 1); i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		if r != '\n' && r != '\r' && isRegexSpace(r) && !isRegexSpace(prev) ||
			unicode.IsLetter(prev) && unicode.IsNumber(r) || unicode.IsNumber(prev) && unicode.IsLetter(r) {
			return i
		}
		i += size
	}
	return len(text)
}

// forEachSegment calls fn with consecutive pieces of text whose
// concatenation is text, cut wherever a non-space character is followed by
// a space that is not a line break. The pre-tokenizers of every tiktoken
// encoding always cut there (no pattern extends a token from a non-space
// character into a following space or tab), so encoding the pieces one by one
// gives the same tokens as encoding the text.
func forEachSegment(text string, fn func(string)) {
	start := 0
	prevNonSpace := false
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		size := 1
		if c < utf8.RuneSelf {
			r = rune(c)
		} else {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		space := isRegexSpace(r)
		if space && prevNonSpace && r != '\n' && r != '\r' && i > start {
			fn(text[start:i])
			start = i
		}
		prevNonSpace = !space
		i += size
	}
	if start < len(text) {
		fn(text[start:])
	}
}

// isRegexSpace reports whether r matches \s in the tiktoken patterns
// (regexp2's .NET semantics: the Unicode White_Space characters).
func isRegexSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}
