package split

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk/internal/swar"
)

// cohesion returns, for the end of each unit but the last, how alike the
// text is on its two sides: the TF-IDF cosine, in [0, 1], of the words of
// the units that reach window (in size units) before the end and of those
// that reach it after. Words are lowercased runs of letters and digits;
// a word's IDF is the log of the number of units over the number holding
// it. A topic that goes on across an end gives a high value, a shift of
// topic a low one, as in TextTiling. The windows slide over the units
// once, so the cost is linear in the text. Adaptive reads the values one
// at a time (newCohesion); this is for tests.
func cohesion(ctx context.Context, text string, units []unit, window int) ([]float64, error) {
	c, err := newCohesion(ctx, text, func() unitSource { return &sliceUnits{units: units} }, window)
	if c == nil || err != nil {
		return nil, err
	}
	out := make([]float64, len(units)-1)
	for i := range out {
		out[i] = c.next()
	}
	return out, nil
}

// unitSource hands out units in order; false after the last.
type unitSource interface {
	next() (unit, bool)
}

// sliceUnits is a unitSource of a slice.
type sliceUnits struct {
	units []unit
	i     int
}

func (s *sliceUnits) next() (unit, bool) {
	if s.i == len(s.units) {
		return unit{}, false
	}
	s.i++
	return s.units[s.i-1], true
}

// cohesionWindows slides cohesion's two windows over the units, an end at
// a time (next). It holds the IDF of each word and the words of the units
// in the windows only: keeping every unit's words took 2 bytes a word
// and 8 a unit (17 MB at 30 MB of mixed text), against 16 for the unit.
type cohesionWindows struct {
	text   string
	units  unitSource // the units from r on
	n      int        // the number of units
	window int
	table  wordTable
	// stats[id] is a word's IDF² and its counts in the left and the
	// right window (one place, read together as a unit moves). The left
	// window holds units [l, i], the right one [i+1, r). The counts, and
	// the dot product and squared norms of the windows' TF-IDF vectors,
	// are kept up to date as units come and go.
	stats             []wordStats
	dot, normL, normR float64
	i, l, r           int
	sizeL, sizeR      int
	words             wordWindow
}

// newCohesion reads the words of every unit once, for their IDF, and
// returns the windows before the first end; nil for fewer than two
// units, which have no end to score. units returns a new source of the
// units each time it is called (it is called twice).
func newCohesion(ctx context.Context, text string, units func() unitSource, window int) (*cohesionWindows, error) {
	c := &cohesionWindows{text: text, window: window}
	// IDF² of each word, from the units that hold it.
	var df, last []int32
	var ids []int32
	src := units()
	for u := 0; ; u++ {
		if u%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chunking cancelled: %w", err)
			}
		}
		p, ok := src.next()
		if !ok {
			c.n = u
			break
		}
		ids = c.table.appendWords(ids[:0], text[p.start:p.end])
		for _, id := range ids {
			if int(id) == len(df) {
				df, last = append(df, 0), append(last, -1)
			}
			if last[id] != int32(u) {
				last[id] = int32(u)
				df[id]++
			}
		}
	}
	if c.n < 2 {
		return nil, nil
	}
	c.stats = make([]wordStats, len(df))
	for id, d := range df {
		w := math.Log(float64(c.n) / float64(d))
		c.stats[id].idf2 = w * w
	}
	c.units = units()
	return c, nil
}

// wordStats is a word's IDF² and its counts in cohesion's two windows,
// read together as a unit moves.
type wordStats struct {
	idf2, left, right float64
}

// move adds unit u's words to the counts of the left window (toLeft) or
// of the right one (sign 1), or takes them away (-1), and updates the dot
// product and the window's squared norm.
func (c *cohesionWindows) move(u int, toLeft bool, sign float64) {
	dot, stats, twice := c.dot, c.stats, 2*sign // in registers, not read and written back a word at a time
	if toLeft {
		norm := c.normL
		for _, id := range c.words.of(u) {
			s := &stats[id]
			w := s.idf2
			dot += sign * w * s.right
			norm += w * (twice*s.left + 1)
			s.left += sign
		}
		c.normL = norm
	} else {
		norm := c.normR
		for _, id := range c.words.of(u) {
			s := &stats[id]
			w := s.idf2
			dot += sign * w * s.left
			norm += w * (twice*s.right + 1)
			s.right += sign
		}
		c.normR = norm
	}
	c.dot = dot
}

// take reads the next unit (r) into the windows' words.
func (c *cohesionWindows) take() {
	u, _ := c.units.next()
	c.words.add(&c.table, c.text, u)
}

// next returns the cohesion of the next end: after unit 0, then 1, up to
// the last but one.
func (c *cohesionWindows) next() float64 {
	i, n, w := c.i, c.n, &c.words
	c.i++
	if c.r > i { // unit i leaves the right window for the left one
		c.move(i, false, -1)
		c.sizeR -= w.size(i)
	} else {
		c.r = i + 1
		c.take()
	}
	c.move(i, true, 1)
	c.sizeL += w.size(i)
	for c.l < i && c.sizeL-w.size(c.l) >= c.window {
		c.move(c.l, true, -1)
		c.sizeL -= w.size(c.l)
		c.l++
		w.drop()
	}
	for c.r < n && (c.r == i+1 || c.sizeR < c.window) {
		c.take()
		c.move(c.r, false, 1)
		c.sizeR += w.size(c.r)
		c.r++
	}
	v := 0.0
	if c.normL > 0 && c.normR > 0 {
		v = min(max(c.dot/math.Sqrt(c.normL*c.normR), 0), 1)
	}
	return v
}

// wordWindow holds the word ids and sizes of a run of consecutive units,
// added at its end and dropped from its start: cohesion's windows.
type wordWindow struct {
	ids    []int32
	starts []int    // starts[k]: where the words of unit first+k-off start in ids; and, last, where the words end
	sizes  []uint32 // sizes[k]: the size of unit first+k-off
	off    int      // starts[:off] and sizes[:off] are of dropped units
	first  int      // the unit of starts[off]
}

// of returns the ids of unit u, which must be held.
func (w *wordWindow) of(u int) []int32 {
	k := w.off + u - w.first
	return w.ids[w.starts[k]:w.starts[k+1]]
}

// size returns the size of unit u, which must be held.
func (w *wordWindow) size(u int) int { return int(w.sizes[w.off+u-w.first]) }

// add appends the words of the unit after the last held.
func (w *wordWindow) add(t *wordTable, text string, u unit) {
	if len(w.starts) == 0 {
		w.starts = append(w.starts, 0)
	}
	w.ids = t.appendWords(w.ids, text[u.start:u.end])
	w.starts = append(w.starts, len(w.ids))
	w.sizes = append(w.sizes, u.size)
}

// drop forgets the first unit held, moving the others down when the
// dropped ones are the most.
func (w *wordWindow) drop() {
	w.off++
	w.first++
	if w.off < 256 || 2*w.off < len(w.starts) {
		return
	}
	base := w.starts[w.off]
	w.ids = w.ids[:copy(w.ids, w.ids[base:])]
	for k, s := range w.starts[w.off:] {
		w.starts[k] = s - base
	}
	w.starts = w.starts[:len(w.starts)-w.off]
	w.sizes = w.sizes[:copy(w.sizes, w.sizes[w.off:])]
	w.off = 0
}

// appendWords appends the ids of the words of s to dst, numbering new
// words in the order they come. A word is a run of letters and digits,
// told apart from others by the hash of its lowercased UTF-8 (wordHash).
// Cohesion reads every word of the text twice (for its IDF, and as its
// windows slide): this is its hottest loop. A word of ASCII is read eight
// bytes at a time, its end found without a branch a byte.
func (t *wordTable) appendWords(dst []int32, s string) []int32 {
	const low, high = swar.Low, swar.High
	for i := 0; i < len(s); {
		switch wordByte[s[i]] { // skip to the word
		case 0:
			i++
			continue
		case nonASCII:
			if r, size := utf8.DecodeRuneInString(s[i:]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += size
				continue
			}
		}
		start, h := i, uint64(wordSeed)
		for {
			var x uint64
			if i+8 <= len(s) {
				x = swar.Load(s, i)
			} else {
				for k := len(s) - 1; k >= i; k-- {
					x = x<<8 | uint64(s[k])
				}
			}
			// The high bit of each byte that is an ASCII letter or digit:
			// a byte a+0x1F of a lowercased is in [0x80, 0x99] for a
			// letter, a+0x50 in [0x80, 0x89] for a digit (no byte
			// borrows from the next).
			a := x &^ high
			l := (a | 0x20*low | high) - 0x61*low
			d := (a | high) - 0x30*low
			word := (l&^(l&^high+(0x80-26)*low) | d&^(d&^high+(0x80-10)*low)) & high &^ x
			n := uint(bits.TrailingZeros64(^word&high)) / 8 // the word's bytes here
			chunk := (x | 0x20*low) & (1<<(8*n) - 1)        // lowercased
			if n == 8 {
				h = wordMix(h, chunk)
				i += 8
				continue
			}
			if i += int(n); i < len(s) && s[i] >= utf8.RuneSelf {
				// A rune beyond ASCII: the word may go on.
				h, i = slowWord(s, start)
			} else {
				h = wordSum(h, chunk, i-start)
				i++ // past the ASCII byte that ended the word (a space, most often), or the end
			}
			break
		}
		var id int32
		if k := (h * 0x9E3779B97F4A7C15) >> 20 & uint64(len(t.keys)-1); len(t.keys) > 0 && t.keys[k] == h {
			id = t.ids[k] // most words are found where they are first looked for
		} else {
			id = t.id(h)
		}
		dst = append(dst, id)
	}
	return dst
}

// A word's hash: its lowercased UTF-8 in words of eight bytes (little
// endian, the last one padded with zeros), each mixed into the hash in
// turn (wordMix), and the last one with the word's length (wordSum). No
// word has a zero byte, so the padding and the length tell where it ends.
const wordSeed = 0x243F6A8885A308D3

func wordMix(h, chunk uint64) uint64 {
	h = (h ^ chunk) * 0x9E3779B97F4A7C15
	return h ^ h>>32
}

// wordSum returns the hash of a word of size bytes lowercased, chunk its
// last bytes (0 when it has a multiple of eight); never 0.
func wordSum(h, chunk uint64, size int) uint64 {
	h = (h^chunk)*0x9E3779B97F4A7C15 ^ uint64(size)
	h = (h ^ h>>29) * 0xBF58476D1CE4E5B9
	return max(h^h>>32, 1)
}

// slowWord returns the hash of the word at s[start:], of letters and
// digits beyond ASCII too, and the offset after it: a rune at a time.
func slowWord(s string, start int) (uint64, int) {
	h, chunk, size, i := uint64(wordSeed), uint64(0), 0, start
	add := func(b byte) { // the size-th byte of the lowercased word
		chunk |= uint64(b) << (8 * (size % 8))
		if size++; size%8 == 0 {
			h, chunk = wordMix(h, chunk), 0
		}
	}
	for i < len(s) {
		if c := wordByte[s[i]]; c != nonASCII {
			if c == 0 {
				break
			}
			add(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		var buf [utf8.UTFMax]byte
		for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			add(b)
		}
		i += size
	}
	return wordSum(h, chunk, size), i
}

// wordTable numbers word hashes in the order they come: an open-addressing
// hash table (linear probing, at most half full), faster than a map for
// the many lookups of a long text.
type wordTable struct {
	keys []uint64 // 0: empty
	ids  []int32
	n    int
}

// id returns the id of hash h, numbering it when it is new.
func (t *wordTable) id(h uint64) int32 {
	if len(t.keys) == 0 {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := (h * 0x9E3779B97F4A7C15) >> 20 & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case h:
			return t.ids[i]
		case 0:
			id := int32(t.n)
			t.keys[i], t.ids[i] = h, id
			if t.n++; 2*(t.n+1) > len(t.keys) {
				t.grow()
			}
			return id
		}
	}
}

func (t *wordTable) grow() {
	keys, ids := t.keys, t.ids
	size := max(2*len(keys), 1024)
	t.keys, t.ids = make([]uint64, size), make([]int32, size)
	mask := uint64(size - 1)
	for j, h := range keys {
		if h == 0 {
			continue
		}
		i := (h * 0x9E3779B97F4A7C15) >> 20 & mask
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.ids[i] = h, ids[j]
	}
}

// nonASCII marks in wordByte the bytes of runes beyond ASCII: the rune is
// decoded to tell whether it is a letter or a digit.
const nonASCII = 0x80

// wordByte maps the ASCII letters and digits to their lower case, the
// other ASCII bytes to 0, and the others to nonASCII.
var wordByte = func() (t [256]byte) {
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = nonASCII
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return
}()
