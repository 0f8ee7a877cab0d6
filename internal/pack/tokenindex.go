package pack

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/gochunk/gochunk/tokenize"
)

// tokenIndex holds where every token of a whole text ends, for a counter
// that is both a tokenize.Cutter and a tokenize.Encoder. The tokens of a
// range whose two ends are cut points of the pre-tokenizer are the text's
// own tokens between them, so their count is a difference of two
// positions in ends: a chunker that measures the same text many times
// (every level of the recursive splitter, every candidate merge) then
// tokenizes it once.
type tokenIndex struct {
	// The text is tokenized in blocks cut where the tokenizer allows:
	// starts[k] is where block k begins, first[k] how many tokens come
	// before it, and blocks[k] where each of its tokens ends.
	starts []int
	first  []int
	blocks []indexedBlock
}

// indexedBlock holds the increasing offsets just past each token of a block,
// relative to the block's start, two bytes a token: the low 16 bits of
// each in lo, and the high bits implied by the token's place. Token i's
// end is h<<16 + lo[i] for the h with seg[h] <= i < seg[h+1]: seg[h] is
// the first token ending at or past h<<16, and the last entry of seg is
// len(lo). (Four bytes a token, as uint32 offsets, were 30 MB of heap for
// 30 MB of text.)
type indexedBlock struct {
	lo  []uint16
	seg []int32
}

// newIndexedBlock packs the increasing ends, relative to the block's start,
// of a block's tokens.
func newIndexedBlock(ends []int) indexedBlock {
	b := indexedBlock{lo: make([]uint16, len(ends))}
	last := 0
	if len(ends) > 0 {
		last = ends[len(ends)-1]
	}
	b.seg = make([]int32, last>>16+2)
	h := 0
	for i, e := range ends {
		for h < e>>16 {
			h++
			b.seg[h] = int32(i)
		}
		b.lo[i] = uint16(e)
	}
	for h+1 < len(b.seg) {
		h++
		b.seg[h] = int32(len(ends))
	}
	return b
}

// end returns where token i ends, relative to the block's start.
func (b *indexedBlock) end(i int) int {
	h := 0
	for int(b.seg[h+1]) <= i {
		h++
	}
	return h<<16 + int(b.lo[i])
}

// search returns the first token ending at or after rel (relative to the
// block's start; len(lo) if none) and whether it ends at rel, searching
// from token hint outwards by doubling steps, then by bisection.
func (b *indexedBlock) search(rel, hint int) (int, bool) {
	h := rel >> 16
	if h+1 >= len(b.seg) {
		return len(b.lo), false
	}
	// The tokens ending in [h<<16, (h+1)<<16) are seg[h] to seg[h+1]; their
	// low bits increase. The first at or after rel lies in [lo, hi].
	lo, hi := int(b.seg[h]), int(b.seg[h+1])
	end, v := hi, uint16(rel)
	if hint >= lo && hint < hi {
		if b.lo[hint] < v {
			lo = hint + 1
			for step := 1; ; step *= 2 {
				if probe := lo + step - 1; probe >= hi {
					break
				} else if b.lo[probe] >= v {
					hi = probe
					break
				} else {
					lo = probe + 1
				}
			}
		} else {
			hi = hint
			for step := 1; ; step *= 2 {
				if probe := hi - step; probe < lo {
					break
				} else if b.lo[probe] < v {
					lo = probe + 1
					break
				} else {
					hi = probe
				}
			}
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.lo[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < end && b.lo[lo] == v
}

// Indexing starts once an engine has counted more than indexAfter times
// its text (so a chunker that counts each part once never pays for it),
// or at once when it splits most of its text; for texts of at least
// indexedTokens bytes and under 4 GiB.
const (
	indexAfter    = 1
	indexedTokens = 64 << 10
	indexBlock    = 1 << 18
	maxUncut      = 4 * indexBlock
)

// newTokenIndex tokenizes text in blocks cut where the tokenizer allows,
// on every core. It returns nil for a text with a run the tokenizer cannot
// cut of over maxUncut bytes (a line of random letters): no range inside
// such a run can be counted from the index, which would only cost memory.
func newTokenIndex(text string, c tokenize.Cutter, enc tokenize.Encoder) *tokenIndex {
	t := &tokenIndex{}
	for pos := 0; pos < len(text); {
		t.starts = append(t.starts, pos)
		next := c.Cut(text, min(len(text), pos+indexBlock))
		if next-pos > maxUncut {
			return nil
		}
		pos = next
	}
	t.blocks = make([]indexedBlock, len(t.starts))
	var mu sync.Mutex
	k := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(t.starts)) {
		wg.Go(func() {
			var scratch []int
			for {
				mu.Lock()
				i := k
				k++
				mu.Unlock()
				if i >= len(t.starts) {
					return
				}
				end := len(text)
				if i+1 < len(t.starts) {
					end = t.starts[i+1]
				}
				scratch = enc.AppendTokenEnds(scratch[:0], text[t.starts[i]:end])
				t.blocks[i] = newIndexedBlock(scratch)
			}
		})
	}
	wg.Wait()
	t.first = make([]int, len(t.blocks))
	for i := 1; i < len(t.blocks); i++ {
		t.first[i] = t.first[i-1] + len(t.blocks[i-1].lo)
	}
	return t
}

// at returns the number of tokens that end before x, and whether one ends
// at x.
func (t *tokenIndex) at(x int) (int, bool) {
	// Block k's tokens end in (starts[k], starts[k+1]]: the first token
	// ending at or after x is in the last block starting before x.
	k := sort.SearchInts(t.starts, x) - 1
	if k < 0 {
		return 0, false
	}
	i, found := t.blocks[k].search(x-t.starts[k], -1)
	return t.first[k] + i, found // i == len: past the text
}

// indexCursor is the block and the place in it where an engine's last
// lookup in its token index ended: an engine counts pieces in order, so
// the next lookup searches from there.
type indexCursor struct{ k, i int }

// seek is at, searching from c, which it moves to x.
func (t *tokenIndex) seek(c *indexCursor, x int) (int, bool) {
	k := c.k
	if k >= len(t.starts) || t.starts[k] >= x || k+1 < len(t.starts) && t.starts[k+1] < x {
		if k = sort.SearchInts(t.starts, x) - 1; k < 0 {
			return 0, false
		}
		c.k, c.i = k, 0
	}
	i, found := t.blocks[k].search(x-t.starts[k], c.i)
	c.i = i
	return t.first[k] + i, found // i == len: past the text
}

// endNear is end, read from the cursor's block when token i is in it.
func (t *tokenIndex) endNear(c *indexCursor, i int) int {
	if k := c.k; k < len(t.first) && i >= t.first[k] && i-t.first[k] < len(t.blocks[k].lo) {
		return t.starts[k] + t.blocks[k].end(i-t.first[k])
	}
	return t.end(i)
}

// end returns the offset just past token i.
func (t *tokenIndex) end(i int) int {
	k := sort.Search(len(t.first), func(j int) bool { return t.first[j] > i }) - 1
	return t.starts[k] + t.blocks[k].end(i-t.first[k])
}

// maxBackScan bounds how many token ends indexedCount walks back from a
// range's end to find a cut point before it counts the range directly.
const maxBackScan = 64

// indexedCount returns the count of Text[a:b] from the index: the partial
// segments at the two ends are counted, the whole ones between them read
// from the index. ok is false when the range holds no two cut points.
func (e *Engine) indexedCount(a, b int) (n int, ok bool) {
	t := e.index
	f := e.cutter.Cut(e.Text[:b], a)
	if f >= b {
		return 0, false
	}
	c := &e.cursor
	j, _ := t.seek(c, b+1) // the first end past b
	j--
	for steps := 0; j >= 0 && t.endNear(c, j) > f; steps++ {
		x := t.endNear(c, j)
		if steps == maxBackScan {
			return 0, false
		}
		if e.cutter.Cut(e.Text[:min(len(e.Text), x+utf8.UTFMax)], x) == x {
			break
		}
		j--
	}
	if j < 0 || t.endNear(c, j) <= f {
		return 0, false
	}
	l := t.endNear(c, j)
	i, found := t.seek(c, f)
	if !found {
		return 0, false
	}
	n = j - i
	if f > a {
		n += e.Counter.Count(e.Text[a:f])
	}
	if l < b {
		n += e.Counter.Count(e.Text[l:b])
	}
	return n, true
}

// useIndex reports whether counts of the engine's text should come from a
// token index, building it once the engine has counted enough.
func (e *Engine) useIndex(a, b int) bool {
	if e.index != nil {
		return true
	}
	if e.noIndex || len(e.Text) < indexedTokens || len(e.Text) > math.MaxUint32 {
		return false
	}
	e.counted += b - a
	if e.counted <= indexAfter*len(e.Text) {
		return false
	}
	c, ok := e.Counter.(tokenize.Cutter)
	enc, ok2 := e.Counter.(tokenize.Encoder)
	if !ok || !ok2 {
		e.noIndex = true
		return false
	}
	e.cutter = c
	e.index = newTokenIndex(e.Text, c, enc)
	e.noIndex = e.index == nil
	return e.index != nil
}
