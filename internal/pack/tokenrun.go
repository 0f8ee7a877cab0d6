package pack

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/grow"
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
	// counted is the piece that stands for tokens counted but not listed
	// (see splitTokensCounted), -1 for none; looked is set when the merge
	// looks at it or before it as a token would be looked at.
	counted int
	looked  bool
}

// reset empties r, its next piece to start at from.
func (r *tokenRun) reset(from int) {
	r.from, r.ends, r.cum = from, r.ends[:0], append(r.cum[:0], 0)
	r.counted, r.looked = -1, false
}

// truncate drops the pieces from k on.
func (r *tokenRun) truncate(k int) {
	r.ends, r.cum = r.ends[:k], r.cum[:k+1]
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
	r.counted = max(-1, r.counted-k)
}

// addTokens appends to r the pieces of [a, b), where r ends, from the ends
// of its tokens (relative to base): tokens that end inside a character or
// grapheme cluster join the next. The first piece already holds open
// tokens before the first of ends. With reopen, the piece that ends at b
// is not held to the limit: it ends inside a cluster, and the caller goes
// on with it (see listTokens).
func (e *Engine) addTokens(r *tokenRun, base, a, b int, ends []int, open int, reopen bool) error {
	limit := max(e.Limit, e.MaxUnit)
	r.ends, r.cum = grow.Slice(r.ends, len(ends)+1), grow.Slice(r.cum, len(ends)+1)
	start, n := a, open
	for _, end := range ends {
		n++
		end += base
		if end < b && !asciiBoundary(e.Text, end) && !clusterBoundary(e.Text, end) {
			continue // inside a character or grapheme cluster
		}
		if n > limit && !(reopen && end == b) {
			return e.tooSmall(start, n)
		}
		r.add(end, n)
		start, n = end, 0
	}
	if start < b {
		n = max(n, e.Count(start, b))
		if n > limit && !reopen {
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
	if err := e.addTokens(r, a, a, b, e.ends, 0, false); err != nil {
		return nil, err
	}
	e.trimBlank(r)
	return r, nil
}

// trimBlank joins the last piece of r to the one before when it is white
// space that makes no token.
func (e *Engine) trimBlank(r *tokenRun) {
	if k := r.len(); k > 1 && r.size(k-1) == 0 && IsBlank(e.Text[r.start(k-1):r.ends[k-1]]) {
		r.ends[k-2] = r.ends[k-1]
		r.truncate(k - 1)
	}
}

// mergeRun is Merge for the pieces of a run: touching pieces that are the
// tokens of their text. The last piece that fits is found by bisection of
// the running sizes, and the exact size of a run of pieces is the tokens of
// its whole segments, known, plus a count of the partial segments at its
// two ends (see runCount).
func (e *Engine) mergeRun(r *tokenRun, out []Range) []Range {
	n := r.len()
	span := func(i, k int) Range { return Range{r.start(i), r.ends[k]} }
	// A window's end, the pieces fit steps to and those its overlap
	// walks back over are tokens, never the counted piece or one before.
	look := func(k int) {
		if k <= r.counted {
			r.looked = true
		}
	}
	size := func(k int) int { look(k); return r.size(k) }
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
		look(j)
		if j > i {
			var scan runScan
			j = e.fit(i, j, func(k int) int {
				if k <= r.counted { // the window is merged again: no count
					r.looked = true
					return r.cum[k+1] - r.cum[i]
				}
				return e.runCount(r, i, k, &scan)
			}, span)
		}
		out = append(out, span(i, j))
		if j == n-1 {
			break
		}
		i = e.overlapStart(i, j, size, func(int) int { return 0 })
		look(i - 1) // the walk may have stopped at the window's first piece
	}
	return out
}

// runScan is what the counts of one window's bisection, all from the same
// piece, learnt of the text after it: where the first cut is, or how far
// there is none, and how far the text lies inside one piece. Each count
// then scans only what the ones before it did not: over a long line of
// letters, with no cut, every count scanned the window again.
type runScan struct {
	set    bool
	start  int // the pieces' start; the rest holds for it
	noCut  int // no cut in [start, noCut)
	cut    int // the first cut at or after start, or -1 while unknown
	inside int // [start, inside) lies inside one piece (start when unknown)
}

// runCount returns the exact size of pieces i..k of r: the segments of the
// text between its first and last cut are whole pieces whose tokens are
// known; the partial segments at the ends are counted. scan carries what
// the counts before, from the same piece i, learnt.
func (e *Engine) runCount(r *tokenRun, i, k int, scan *runScan) int {
	start, end := r.start(i), r.ends[k]
	if !scan.set || scan.start != start {
		*scan = runScan{set: true, start: start, noCut: start, cut: -1, inside: start}
	}
	// The scans are bounded (by end, and by the character at a piece's
	// start): over a long text without spaces an unbounded one would walk
	// to its end for every count. Whether a position is a cut depends
	// only on the text up to it (tokenize.Cutter), so a scan goes on where
	// the last one stopped.
	first := end
	switch {
	case scan.cut >= 0:
		first = min(scan.cut, end)
	case end > scan.noCut:
		if first = e.cutter.Cut(e.Text[:end], scan.noCut); first < end {
			scan.cut = first
		} else {
			scan.noCut = end
		}
	}
	if first >= end {
		if p, ok := e.Counter.(insidePiece); ok && e.inside(p, scan, end) {
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

// inside reports whether [scan.start, end), which ends where a piece does
// (at a character's end), lies inside one piece of the counter's pattern,
// checking only what scan does not know: two runs of letters that meet at
// a character's end are one.
func (e *Engine) inside(p insidePiece, scan *runScan, end int) bool {
	if end <= scan.inside {
		return true
	}
	if !p.InsidePiece(e.Text[scan.inside:end]) {
		return false
	}
	scan.inside = end
	return true
}

// Counted windows: from countedLimit tokens a window on, the token chunker
// lists the tokens of a window only near its end (countedMargin tokens
// before it, besides the overlap, and countedTail after) and counts those
// before as one piece, segment by segment. The exact fit rarely steps
// back more than a token or two from the sum of a window's pieces, so 8
// and 4 suffice: on 5 MB of prose at sizes 128 to 1024, one window in
// each text is merged again (32 and 16 listed an eighth of the tokens of
// a 512-token window, 12 % of the time of token at that size).
const (
	countedLimit  = 128
	countedMargin = 8
	countedTail   = 4
)

// countedMargin returns the tokens listed before a window's end besides
// the overlap: countedMargin, or what a test set.
func (e *Engine) countedMargin() int {
	if e.margin != nil {
		return *e.margin
	}
	return countedMargin
}

// errUncounted stops splitTokensCounted where the counter cannot cut the
// text within tokenBlock bytes (a long line of letters): splitTokens goes
// on by blocks from there.
var errUncounted = errors.New("no cut within a block")

// splitTokensCounted is splitTokens for a counter that counts whole
// segments without listing their tokens (tokenize.SegmentCounter): each
// window's run is the tokens carried over from the window before, one
// piece for the tokens counted, then the tokens listed near its end. The
// windows are those of merging all tokens listed, which the run's probes
// check: a window whose merge looks at the counted piece (its exact count
// was far below the sum of its tokens, its overlap reached back that far)
// is merged again with all its tokens listed. It returns the position
// from which splitTokens must go on by blocks, b when it did all of [a, b).
func (e *Engine) splitTokensCounted(ctx context.Context, sc tokenize.SegmentCounter, enc tokenize.Encoder, a, b int, out []Range) ([]Range, int, error) {
	r := &e.run
	r.reset(a)
	len0 := len(out)
	listed := e.Limit + countedTail
	for w := 0; ; w++ {
		if w%64 == 63 {
			if err := ctx.Err(); err != nil {
				return out, b, fmt.Errorf("chunking cancelled: %w", err)
			}
		}
		pos := r.start(r.len())
		if e.progress != nil {
			e.progress.Store(int64(pos))
		}
		// The counted piece starts where the tokens carried over end (a
		// piece end: runs are listed up to grapheme cluster boundaries)
		// and ends at a segment's end that is one too.
		// The first window lists all its tokens: the first cut of a run
		// must be a piece's start for its exact count (see runCount).
		if need := e.Limit - e.Overlap - e.countedMargin() - r.cum[r.len()]; need > 0 && pos < b && r.counted < 0 && r.len() > 0 {
			if q, n := sc.CountSegments(e.Text[pos:b], need); q > 0 && (pos+q == b || clusterBoundary(e.Text, pos+q)) {
				r.add(pos+q, n)
				r.counted = r.len() - 1
			}
		}
		if err := e.listTokens(r, sc, enc, listed, b); err != nil {
			return e.uncounted(err, out, len0, a, r.from, b)
		}
		r.looked = false
		ranges := e.mergeRun(r, e.blockOut[:0])
		if r.looked { // merged again, every token listed
			r.truncate(r.counted)
			r.counted, r.looked = -1, false
			if err := e.listTokens(r, sc, enc, listed, b); err != nil {
				return e.uncounted(err, out, len0, a, r.from, b)
			}
			ranges = e.mergeRun(r, ranges[:0])
		}
		e.blockOut = ranges[:0]
		if r.start(r.len()) == b {
			return append(out, ranges...), b, nil
		}
		if len(ranges) < 2 { // a window of more than listed tokens
			listed += e.Limit
			continue
		}
		listed = e.Limit + countedTail
		// The last range may go on past the run: its tokens are carried
		// over to the next.
		last := ranges[len(ranges)-1].Start
		out = append(out, ranges[:len(ranges)-1]...)
		i := r.len() - 1
		for i > 0 && r.start(i) > last {
			i--
		}
		r.keepFrom(i)
	}
}

// uncounted is what splitTokensCounted returns when listing a window's
// tokens failed with err: for a text the counter cannot cut, by blocks
// from the window on; for tokens joined past the limit (see
// clusterPieces), by blocks from a again, with out as it was there
// (len0); else the error.
func (e *Engine) uncounted(err error, out []Range, len0, a, window, b int) ([]Range, int, error) {
	switch {
	case errors.Is(err, errUncounted):
		return out, window, nil
	case errors.Is(err, gochunk.ErrTooSmall):
		return out[:len0], a, nil
	}
	return out, b, err
}

// listTokens appends to r the tokens of whole segments from its end on,
// until it holds want tokens and ends at a grapheme cluster boundary, or
// reaches b; errUncounted when the counter cannot cut the text within
// tokenBlock bytes from there.
func (e *Engine) listTokens(r *tokenRun, sc tokenize.SegmentCounter, enc tokenize.Encoder, want, b int) error {
	for {
		pos := r.start(r.len())
		if pos >= b {
			e.trimBlank(r)
			return nil
		}
		if r.cum[r.len()] >= want && clusterBoundary(e.Text, pos) {
			return nil
		}
		var q int
		e.ends, q = sc.AppendSegmentTokenEnds(e.ends[:0], e.Text[pos:b], max(0, want-r.cum[r.len()])+countedTail)
		if q == 0 { // a segment of more tokens: up to the next cut in it
			stop := min(b, pos+tokenBlock)
			if q = e.cutter.Cut(e.Text[:stop], pos+1) - pos; pos+q == stop && stop < b {
				return errUncounted
			}
			e.ends = enc.AppendTokenEnds(e.ends[:0], e.Text[pos:pos+q])
		}
		from, open := pos, 0
		if k := r.len() - 1; k > r.counted && !clusterBoundary(e.Text, pos) {
			// The last piece ends inside a grapheme cluster, where the
			// listing before stopped: it goes on with the new tokens.
			from, open = r.start(k), r.size(k)
			r.truncate(k)
		}
		end := pos + q
		if err := e.addTokens(r, pos, from, end, e.ends, open, end < b && !clusterBoundary(e.Text, end)); err != nil {
			return err
		}
	}
}
