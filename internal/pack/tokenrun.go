package pack

import (
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/gochunk/gochunk/tokenize"
)

// tokenRun holds the token pieces of a run of text, for a counter that is
// a tokenize.Cutter, as two arrays instead of Piece structs: piece k is
// [start(k), ends[k]) and holds cum[k+1]-cum[k] tokens. A text has about
// as many pieces as tokens, and the merge reads only their ends and
// running sizes; writing a 32-byte Piece per token and summing them again
// cost a third of the time of chunking prose at exact token sizes.
type tokenRun struct {
	from int   // the first piece's start
	ends []int // each piece's end
	cum  []int // the tokens before each piece, and after the last
}

// reset empties r, its next piece to start at from.
func (r *tokenRun) reset(from int) {
	r.from, r.ends, r.cum = from, r.ends[:0], append(r.cum[:0], 0)
}

func (r *tokenRun) len() int { return len(r.ends) }

func (r *tokenRun) start(k int) int {
	if k == 0 {
		return r.from
	}
	return r.ends[k-1]
}

func (r *tokenRun) size(k int) int { return r.cum[k+1] - r.cum[k] }

// add appends a piece ending at end with n tokens.
func (r *tokenRun) add(end, n int) {
	r.ends = append(r.ends, end)
	r.cum = append(r.cum, r.cum[len(r.cum)-1]+n)
}

// keepFrom drops the pieces before k, in place.
func (r *tokenRun) keepFrom(k int) {
	r.from = r.start(k)
	base := r.cum[k]
	r.ends = r.ends[:copy(r.ends, r.ends[k:])]
	r.cum = r.cum[:copy(r.cum, r.cum[k:])]
	for x := range r.cum {
		r.cum[x] -= base
	}
}

// addTokens appends to r the pieces of [a, b), where r ends, from the ends
// of its tokens (relative to base): tokens that end inside a character or
// grapheme cluster join the next.
func (e *Engine) addTokens(r *tokenRun, base, a, b int, ends []int) error {
	limit := max(e.Limit, e.MaxUnit)
	r.ends, r.cum = slices.Grow(r.ends, len(ends)+1), slices.Grow(r.cum, len(ends)+1)
	start, n := a, 0
	for _, end := range ends {
		n++
		end += base
		if end < b && !asciiBoundary(e.Text, end) && !clusterBoundary(e.Text, end) {
			continue // inside a character or grapheme cluster
		}
		if n > limit {
			return e.tooSmall(start, n)
		}
		r.add(end, n)
		start, n = end, 0
	}
	if start < b {
		n = max(n, e.Count(start, b))
		if n > limit {
			return e.tooSmall(start, n)
		}
		r.add(b, n)
	}
	return nil
}

// unitRun returns the token pieces of [a, b) as a run: tokens, with those
// that end inside a character or grapheme cluster merged into the next.
func (e *Engine) unitRun(enc tokenize.Encoder, a, b int) (*tokenRun, error) {
	r := &e.run
	r.reset(a)
	e.ends = enc.AppendTokenEnds(e.ends[:0], e.Text[a:b])
	if err := e.addTokens(r, a, a, b, e.ends); err != nil {
		return nil, err
	}
	if k := r.len(); k > 1 && r.size(k-1) == 0 && IsBlank(e.Text[r.start(k-1):b]) {
		r.ends[k-2] = b // trailing space that makes no token
		r.ends, r.cum = r.ends[:k-1], r.cum[:k]
	}
	return r, nil
}

// mergeRun is Merge for the pieces of a run: touching pieces that are the
// tokens of their text. The last piece that fits is found by bisection of
// the running sizes, and the exact size of a run of pieces is the tokens of
// its whole segments, known, plus a count of the partial segments at its
// two ends (see runCount).
func (e *Engine) mergeRun(r *tokenRun, out []Range) []Range {
	n := r.len()
	span := func(i, k int) Range { return Range{r.start(i), r.ends[k]} }
	for i, w := 0, 0; i < n; w++ {
		if w%256 == 255 && e.cancelled() {
			return out // Split or Build reports the cancellation
		}
		end := min(n, i+e.Limit) // each piece holds a token
		j := i + sort.Search(end-i, func(x int) bool { return r.cum[i+x+1]-r.cum[i] > e.Limit }) - 1
		j = max(j, i)
		for total := r.cum[j+1] - r.cum[i]; j+1 < n && total+r.size(j+1) <= e.Limit; j++ {
			total += r.size(j + 1) // pieces of no token
		}
		if j > i {
			j = e.fit(i, j, func(k int) int { return e.runCount(r, i, k) }, span)
		}
		out = append(out, span(i, j))
		if j == n-1 {
			break
		}
		i = e.overlapStart(i, j, r.size, func(int) int { return 0 })
	}
	return out
}

// runCount returns the exact size of pieces i..k of r: the segments of the
// text between its first and last cut point are counted by their tokens,
// which are pieces.
func (e *Engine) runCount(r *tokenRun, i, k int) int {
	start, end := r.start(i), r.ends[k]
	// The scans are bounded (by end, and by the character at a piece's
	// start): over a long text without spaces an unbounded one would walk
	// to its end for every count.
	first := e.cutter.Cut(e.Text[:end], start)
	if first >= end {
		if p, ok := e.Counter.(insidePiece); ok && p.InsidePiece(e.Text[start:end]) {
			return r.cum[k+1] - r.cum[i] // the pieces' tokens are its own
		}
		return e.Count(start, end)
	}
	a := i + sort.Search(k-i+1, func(x int) bool { return r.start(i+x) >= first })
	if a > k || r.start(a) != first {
		return e.Count(start, end) // a cut inside a piece: count it all
	}
	m := k
	for m > a && e.cutter.Cut(e.Text[:min(len(e.Text), r.start(m)+utf8.UTFMax)], r.start(m)) != r.start(m) {
		m--
	}
	return e.Count(start, first) + r.cum[m] - r.cum[a] + e.Count(r.start(m), end)
}
