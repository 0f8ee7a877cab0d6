package tokenize

import (
	"math"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk/internal/grow"
	"github.com/gochunk/gochunk/internal/swar"
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

	// table and cache map a segment to the byte length of each of its
	// tokens: table the short ones, cache (with cached, its size) those
	// that do not fit a slot. Neither takes a lock to read, so goroutines
	// tokenizing parts of one text do not wait on each other.
	table  *segTable
	cache  sync.Map // string -> []uint8
	cached atomic.Int64

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

// longTokens returns the length of each token of seg, a segment of over
// maxCachedSegment bytes, from the last long segment when it is seg. The
// caller must not change them.
func (t *TikToken) longTokens(seg string) []uint16 {
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
		return lens
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
	return lens
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
	return &TikToken{name: encoding, bpe: b, table: newSegTable()}, nil
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
	_, n, _ := t.walk(nil, text, false, math.MaxInt)
	return n
}

// AppendTokenEnds appends the end offset of every token of text. Tokens of
// byte-level BPE may end inside a multi-byte character.
func (t *TikToken) AppendTokenEnds(dst []int, text string) []int {
	dst, _, _ = t.walk(dst, text, true, math.MaxInt)
	return dst
}

// CountSegments implements SegmentCounter.
func (t *TikToken) CountSegments(text string, budget int) (end, n int) {
	_, n, end = t.walk(nil, text, false, budget)
	return end, n
}

// AppendSegmentTokenEnds implements SegmentCounter.
func (t *TikToken) AppendSegmentTokenEnds(dst []int, text string, budget int) ([]int, int) {
	dst, _, end := t.walk(dst, text, true, budget)
	return dst, end
}

// walk goes through the segments of text (see segmentEnd), found a block
// at a time by a cutScanner, and returns the number of their tokens and,
// if list, dst with the end of each token appended. It stops before the
// segment that would take the count past budget and returns where: len(text)
// when it went through all of it. The table's lookup is written out here:
// this loop runs once per word of a text.
func (t *TikToken) walk(dst []int, text string, list bool, budget int) ([]int, int, int) {
	n := 0
	it := newSegIter(text)
	slots := t.table.arr.Load().slots
	seed0, seed1 := t.table.seed[0], t.table.seed[1]
	for start := 0; start < len(text); {
		// segIter.next, written out: a call per segment costs more than
		// the rest of the loop.
		for it.m == 0 && it.base+2*cutBlock <= len(text) {
			it.base += cutBlock
			it.m = it.s.mask(it.base)
		}
		if !list && it.m != 0 {
			// Counting: the block's segments that the table holds in a
			// loop of their own; the others below.
			if start, it.m, n = countHits(text, slots, seed0, seed1, start, it.base, it.m, n, budget); it.m == 0 {
				continue
			}
		}
		var p int
		if it.m != 0 {
			p = it.base + bits.TrailingZeros64(it.m)
			it.m &= it.m - 1
		} else { // past the last full block
			p = segmentEnd(text, start)
		}
		if k := p - start; k <= inlineKey {
			// The key words of segKey, read in place (written out here:
			// a function for it is too large to be inlined); near the
			// text's end, from the words that end with the segment.
			var w0, w1 uint64
			switch {
			case start+inlineKey <= len(text):
				km := &keyMasks[k]
				w0 = swar.Load(text, start) & km[0]
				w1 = swar.Load(text, start+8) & km[1]
			case k > 8:
				w0, w1 = swar.Load(text, start), swar.Load(text, p-8)>>(8*(inlineKey-k))
			case p >= 8:
				w0 = swar.Load(text, p-8) >> (8 * (8 - k))
			default: // a text of less than eight bytes
				w0, w1 = segKey(text[start:p])
			}
			mask := uint64(len(slots) - 1)
			for h := segHash(w0, w1, k, seed0, seed1) & mask; ; h = (h + 1) & mask {
				slot := &slots[h]
				meta := slot.meta.Load()
				if meta == 0 {
					break
				}
				if slot.w0 == w0 && slot.w1 == w1 && int(meta&0xff) == k {
					nt := int(meta >> 8)
					if n+nt > budget {
						return dst, n, start
					}
					n += nt
					if list { // the first four ends without a branch on how many
						k := len(dst)
						if cap(dst)-k < inlineTokens {
							dst = grow.Slice(dst, max(inlineTokens, min(len(text)/4, budget-n)))
						}
						d := dst[k : k+inlineTokens]
						d[0] = start + int(slot.lens[0]) // unused lengths are 0
						d[1] = d[0] + int(slot.lens[1])
						d[2] = d[1] + int(slot.lens[2])
						d[3] = d[2] + int(slot.lens[3])
						for x := 4; x < nt; x++ {
							d[x] = d[x-1] + int(slot.lens[x])
						}
						dst = dst[:k+nt]
					}
					goto next
				}
			}
		}
		if budget < math.MaxInt { // counting only: check the segment first
			if (p-start)/maxTokenBytes > budget-n {
				return dst, n, start // more tokens than the budget, surely: not encoded
			}
			if m := t.segmentCount(text[start:p]); n+m > budget {
				return dst, n, start
			}
		}
		dst, n = t.addSlow(dst, n, text[start:p], start, list)
		slots = t.table.arr.Load().slots // it may have grown
	next:
		start = p
	}
	return dst, n, len(text)
}

// countHits adds to n the tokens of the segments of a block that the
// table's slots hold: those that end at the cuts m (bit k for position
// base+k), from the one that starts at start on. It stops before a
// segment that is not in the slots, that would take n past budget, or
// whose key cannot be read in place (near the text's end), and returns
// where, the cuts not taken and n. This is walk's loop without listing,
// small enough for its variables to stay in registers: where most
// segments are hits (prose), it is most of counting.
func countHits(text string, slots []segSlot, seed0, seed1 uint64, start, base int, m uint64, n, budget int) (int, uint64, int) {
	mask := uint64(len(slots) - 1)
	for ; m != 0; m &= m - 1 {
		p := base + bits.TrailingZeros64(m)
		k := p - start
		if k > inlineKey || start+inlineKey > len(text) {
			return start, m, n
		}
		km := &keyMasks[k]
		w0 := swar.Load(text, start) & km[0]
		w1 := swar.Load(text, start+8) & km[1]
		for h := segHash(w0, w1, k, seed0, seed1) & mask; ; h = (h + 1) & mask {
			slot := &slots[h]
			meta := slot.meta.Load()
			if meta == 0 {
				return start, m, n
			}
			if slot.w0 == w0 && slot.w1 == w1 && int(meta&0xff) == k {
				if n+int(meta>>8) > budget {
					return start, m, n
				}
				n += int(meta >> 8)
				break
			}
		}
		start = p
	}
	return start, m, n
}

// keyMasks[k] keeps the first k bytes of the two words read at a
// segment's start: its key words when it has k bytes (see segKey).
var keyMasks = func() (m [inlineKey + 1][2]uint64) {
	for k := range m {
		m[k][0] = ^uint64(0) >> (64 - 8*min(k, 8))
		m[k][1] = ^uint64(0) >> (64 - 8*max(k-8, 0))
	}
	return m
}()

// maxTokenBytes bounds the length of a token of any vocabulary (see
// vocab.rank).
const maxTokenBytes = 255

// segmentCount returns the number of tokens of a segment (cached).
func (t *TikToken) segmentCount(seg string) int {
	if len(seg) > maxCachedSegment {
		return len(t.longTokens(seg))
	}
	return len(t.segment(seg))
}

// addSlow is add for a segment that is long or not in the table.
func (t *TikToken) addSlow(dst []int, n int, seg string, off int, list bool) ([]int, int) {
	if len(seg) > maxCachedSegment {
		lens := t.longTokens(seg)
		if list {
			dst = grow.Slice(dst, len(lens)) // a megabytes-long segment: the array grows once, cleared where the collector can stop it
			for _, l := range lens {
				off += int(l)
				dst = append(dst, off)
			}
		}
		return dst, n + len(lens)
	}
	lens := t.segment(seg)
	if list {
		for _, l := range lens {
			off += int(l)
			dst = append(dst, off)
		}
	}
	return dst, n + len(lens)
}

// segment returns the token lengths of a short segment that the table
// does not hold, from the rest of the cache or by encoding it (and
// caching it).
func (t *TikToken) segment(seg string) []uint8 {
	if lens, ok := t.table.get(seg); ok {
		return lens // added since the caller looked
	}
	if v, ok := t.cache.Load(seg); ok {
		return v.([]uint8)
	}
	var lens []uint8
	t.bpe.tokens(seg, func(n int) { lens = append(lens, uint8(n)) })
	if fits(seg, len(lens)) {
		t.table.put(seg, lens)
		return lens
	}
	if t.cached.Add(1) > maxCacheEntries {
		t.cache.Clear()
		t.cached.Store(1)
	}
	t.cache.Store(strings.Clone(seg), lens) // a copy: do not pin the caller's text
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
		if c, p := text[i], text[i-1]; c|p < utf8.RuneSelf { // two ASCII characters: by their classes
			if i+8 <= len(text) {
				j, cut := asciiCut(text, i)
				if cut {
					return j
				}
				if j > i {
					i = j
					continue
				}
				// The eight bytes from i hold one other than ASCII: this
				// character by the table.
			}
			c, p := asciiClass[c], asciiClass[p]
			if c&(cSpace|cNewline) == cSpace && p&cSpace == 0 || p&cLetter != 0 && c&cNumber != 0 || p&cNumber != 0 && c&cLetter != 0 {
				return i
			}
			i++
			continue
		}
		cut, size := cutBefore(text, i)
		if cut {
			return i
		}
		i += size
	}
	return len(text)
}

// asciiCut finds Cut's first position from i, where text[i-1] is ASCII,
// eight ASCII bytes at a time: true and the position, or false and where
// it stopped (bytes other than ASCII, or fewer than eight left). The
// classes of each byte and of the one before it come as the high bits of
// a word: white space (and line breaks), letters, digits.
func asciiCut(text string, i int) (int, bool) {
	flag := func(on bool) uint64 {
		if on {
			return 0x80
		}
		return 0
	}
	pc := asciiClass[text[i-1]]
	prevSpace, prevLetter, prevDigit := flag(pc&cSpace != 0), flag(pc&cLetter != 0), flag(pc&cNumber != 0)
	for ; i+8 <= len(text); i += 8 {
		x := swar.Load(text, i)
		if x&swar.High != 0 {
			return i, false
		}
		space := spaceBytes(x)
		folded := x | 0x20*swar.Low // upper-case letters to lower case
		letter := swar.Below(folded, 'z'+1) &^ swar.Below(folded, 'a')
		digit := swar.Below(x, '9'+1) &^ swar.Below(x, '0')
		cut := spaceCuts(x, space, prevSpace) | digit&(letter<<8|prevLetter) | letter&(digit<<8|prevDigit)
		if cut != 0 {
			return i + bits.TrailingZeros64(cut)/8, true
		}
		prevSpace, prevLetter, prevDigit = space>>56, letter>>56, digit>>56
	}
	return i, false
}

// cutBefore is Cut's rule, by characters: whether Cut cuts before the
// character at i (i > 0), and that character's size.
func cutBefore(text string, i int) (bool, int) {
	r, size := utf8.DecodeRuneInString(text[i:])
	prev, _ := utf8.DecodeLastRuneInString(text[:i])
	return r != '\n' && r != '\r' && isRegexSpace(r) && !isRegexSpace(prev) ||
		unicode.IsLetter(prev) && unicode.IsNumber(r) || unicode.IsNumber(prev) && unicode.IsLetter(r), size
}

// forEachSegment calls fn with consecutive pieces of text whose
// concatenation is text, cut wherever a non-space character is followed by
// a space that is not a line break (see segmentEnd).
func forEachSegment(text string, fn func(string)) {
	it := newSegIter(text)
	for i := 0; i < len(text); {
		j := it.next(i)
		fn(text[i:j])
		i = j
	}
}

// segmentEnd returns the end of the segment of text starting at i: the
// first position after i of a space that is not a line break and follows
// a non-space character, or len(text). The pre-tokenizers of every
// tiktoken encoding always cut there (no pattern extends a token from a
// non-space character into a following space or tab), so encoding the
// segments one by one gives the same tokens as encoding the text.
func segmentEnd(text string, i int) int {
	// Eight bytes at a time while they are ASCII: the white space in them,
	// and the cuts (white space other than a line break after a byte that
	// is not white space), as the high bit of each byte.
	prevSpace := uint64(0x80) // the byte before i, as a cut's condition: none before the segment's start
	for ; i+8 <= len(text); i += 8 {
		x := swar.Load(text, i)
		if x&swar.High != 0 {
			break
		}
		sp := spaceBytes(x)
		cut := spaceCuts(x, sp, prevSpace)
		if cut != 0 {
			return i + bits.TrailingZeros64(cut)/8
		}
		prevSpace = sp >> 56
	}
	prevNonSpace := prevSpace == 0
	for i < len(text) {
		c := text[i]
		if wordByte[c] { // a run of ASCII other than white space, taken at once
			for i++; i < len(text) && wordByte[text[i]]; i++ {
			}
			prevNonSpace = true
			continue
		}
		if c < utf8.RuneSelf { // ASCII white space
			if prevNonSpace && c != '\n' && c != '\r' {
				return i
			}
			prevNonSpace = false
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			if prevNonSpace {
				return i
			}
			prevNonSpace = false
		} else {
			prevNonSpace = true
		}
		i += size
	}
	return i
}

// spaceCuts returns the segment cuts of x, eight ASCII bytes whose white
// space is space (spaceBytes), as the high bit of each byte: white space
// other than a line break after a byte that is not white space. prev is
// 0x80 when the byte before x is white space.
func spaceCuts(x, space, prev uint64) uint64 {
	return space &^ (swar.Zero(x^('\n'*swar.Low)) | swar.Zero(x^('\r'*swar.Low))) &^ (space<<8 | prev)
}

// spaceBytes returns the high bit of each byte of x, eight ASCII bytes,
// that is white space: a tab, line feed, vertical tab, form feed,
// carriage return (0x09 to 0x0D) or space.
func spaceBytes(x uint64) uint64 {
	return swar.Below(x, 0x0e)&^swar.Below(x, 0x09) | swar.Zero(x^(' '*swar.Low))
}

// wordByte holds the ASCII bytes other than white space.
var wordByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !asciiSpace[c]
	}
	return t
}()

// isRegexSpace reports whether r matches \s in the tiktoken patterns
// (regexp2's .NET semantics: the Unicode White_Space characters).
func isRegexSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}
