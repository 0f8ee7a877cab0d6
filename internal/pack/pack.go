// Package pack holds the machinery every rule-based chunker shares: cutting
// a range of text at a hierarchy of split levels, greedily merging pieces up
// to a size limit with overlap, and turning byte ranges into chunks that
// keep the contract of package gochunk (exact offsets, hard size limit,
// nothing lost).
package pack

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// Range is the byte range Text[Start:End].
type Range struct{ Start, End int }

// Piece is a range with its size in tokens, and the size of the separator
// between it and the next piece (0 when they touch).
type Piece struct {
	Start, End int
	Size       int
	Gap        int
}

// Level cuts the range [a, b) of text into pieces, appending them to dst
// in order. Pieces must lie inside [a, b), in order and not overlap; the
// text between two pieces is a separator that is kept when both pieces end
// up in one chunk. A level that finds nothing to cut returns one piece (or
// none), and the engine moves on to the next level.
type Level func(text string, a, b int, dst []Piece) []Piece

// Engine splits text with a list of levels, from coarse to fine, and then
// by words and tokens, so that every resulting range fits the limit.
type Engine struct {
	Text    string
	Counter tokenize.Counter
	Limit   int
	Overlap int
	// Levels are tried in order; the engine adds the word and token levels
	// after them.
	Levels []Level
	// SkipWords leaves out the word level: pieces that no level splits are
	// cut at tokens directly.
	SkipWords bool
	// MaxUnit, when larger than Limit, lets a single indivisible unit (a
	// character, or the tokens of one character) of up to MaxUnit tokens
	// stand alone as a piece over Limit instead of being an error.
	MaxUnit int
	// KeepWithNext, when set, tells PackGroups which items (by index)
	// must not end a chunk when the item after them in their group
	// follows them in the text: a heading is packed with the paragraph it
	// heads, not left at the end of the chunk before it.
	KeepWithNext func(item int) bool

	// ctx is the context of the Split or Build under way: Merge, which
	// takes none, stops early when it is cancelled, and they return its
	// error.
	ctx context.Context

	ready    bool
	runes    bool // Counter is tokenize.Runes: count without an interface call
	additive bool
	levels   []Level
	scratch  [][2][]Piece // per level: the level's pieces and the good ones
	ends     []int
	units    []Piece // scratch for unitPieces
	blockOut []Range // scratch for splitTokens
	// runeIndex counts code points of long ranges in constant time when
	// the counter is runes (built on the first such count).
	runeIndex *runeoff.Index
	// measured keeps the exact sizes Merge measured of the ranges it
	// returned (counters that are not additive), so Build need not count
	// them again.
	measured map[Range]int
	run      tokenRun // the token pieces of splitTokens, for a tokenize.Cutter
	margin   *int     // countedMargin for tests, nil for the constant
	// progress is where splitTokensCounted's windows have reached, for
	// warmAhead's workers; nil when none run.
	progress   *atomic.Int64
	unitStarts []int // scratch of splitAdditive
	// conv converts byte offsets to rune offsets across calls of Build and
	// PackGroups, so that building a document's chunks call by call does
	// not count its text again from the start each time.
	conv   *runeoff.Converter
	cutter tokenize.Cutter
	// index, once built, gives the counts of long ranges of Text (see
	// tokenIndex); counted is how many bytes were counted before it, and
	// noIndex says the counter cannot have one.
	index   *tokenIndex
	cursor  indexCursor // where the last lookup in index ended
	counted int
	noIndex bool
}

// converter returns the engine's offset converter.
func (e *Engine) converter() *runeoff.Converter {
	if e.conv == nil {
		e.conv = runeoff.New(e.Text)
	}
	return e.conv
}

// indexedText is the length of text from which rune counts use an index.
const indexedText = 4096

// Init prepares the engine; call it after setting the fields.
func (e *Engine) Init() {
	e.additive = tokenize.IsAdditive(e.Counter)
	_, e.runes = e.Counter.(tokenize.Runes)
	e.levels = append([]Level(nil), e.Levels...)
	if !e.SkipWords {
		e.levels = append(e.levels, SplitWhitespace)
	}
	e.scratch = make([][2][]Piece, len(e.levels))
	e.ready = true
}

// maxTokenBytes bounds the mean length of a token in bytes for CountUpTo:
// a range longer than limit×maxTokenBytes is taken to be over the limit
// without counting it. Real text averages 3 to 5 bytes a token; only a
// range of long repeated runs could average more, and such a range is then
// cut finer than it had to be, never over the limit.
const maxTokenBytes = 64

// CountUpTo measures Text[a:b] when it may be within limit; a range too
// long to be counts as limit+1 without being measured, so that a huge
// range (a 20 MB line with no white space) is not tokenised whole only to
// learn that it must be cut, and a long paragraph is not counted again at
// every separator level.
func (e *Engine) CountUpTo(a, b, limit int) int {
	switch {
	case e.runes && b-a > 4*limit:
		return limit + 1 // a code point is at most 4 bytes
	case !e.additive && !e.runes && b-a > limit*maxTokenBytes:
		return limit + 1
	}
	return e.Count(a, b)
}

// Count measures Text[a:b].
func (e *Engine) Count(a, b int) int {
	if e.runes {
		if len(e.Text) < indexedText {
			return tokenize.RuneCount(e.Text[a:b])
		}
		if e.runeIndex == nil {
			e.runeIndex = runeoff.NewIndex(e.Text)
		}
		return e.runeIndex.Count(a, b)
	}
	if b-a >= minIndexedRange && e.useIndex(a, b) {
		if n, ok := e.indexedCount(a, b); ok {
			return n
		}
	}
	return e.Counter.Count(e.Text[a:b])
}

// minIndexedRange is the shortest range counted from the token index: a
// shorter one costs less to count than to look up (from the engine's
// cursor, which the last lookup left nearby: pieces are counted in order).
const minIndexedRange = 128

// Split cuts [a, b) into ranges of at most Limit tokens each, appending them
// to out.
func (e *Engine) Split(ctx context.Context, a, b int, out []Range) ([]Range, error) {
	if !e.ready {
		e.Init()
	}
	prev := e.ctx
	e.ctx = ctx
	defer func() { e.ctx = prev }()
	if !e.additive && e.index == nil && len(e.levels) > 0 && b-a >= indexedTokens && 2*(b-a) >= len(e.Text) {
		// Splitting most of the text measures all of it, level after
		// level: index its tokens before the first count. (Without levels
		// the text goes to token runs, which read its tokens as they go
		// and count little: an index of the whole text built for a few
		// counts cost a tokenization of it and two bytes a token.)
		e.counted = max(e.counted, indexAfter*len(e.Text))
	}
	var err error
	if b-a >= parallelBytes && runtime.GOMAXPROCS(0) > 1 {
		out, err = e.splitParallel(ctx, a, b, out)
	} else {
		out, err = e.split(ctx, a, b, 0, out)
	}
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("chunking cancelled: %w", ctx.Err())
	}
	return out, err
}

// cancelled reports whether the context of the work under way is done.
func (e *Engine) cancelled() bool { return e.ctx != nil && e.ctx.Err() != nil }

func (e *Engine) split(ctx context.Context, a, b, level int, out []Range) ([]Range, error) {
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("chunking cancelled: %w", err)
	}
	pieces, level := e.cut(a, b, level)
	if level >= len(e.levels) {
		return e.splitTokens(ctx, a, b, out)
	}
	// Deeper levels use their own scratch, so pieces stays valid while
	// oversized pieces are split recursively.
	good := e.scratch[level][1][:0]
	defer func() { e.scratch[level][1] = good[:0] }()
	var err error
	for i, p := range pieces {
		e.size(pieces, i)
		p = pieces[i]
		if p.Size <= e.Limit {
			good = append(good, p)
			continue
		}
		out = e.Merge(good, out)
		good = good[:0]
		if out, err = e.split(ctx, p.Start, p.End, level+1, out); err != nil {
			return out, err
		}
	}
	return e.Merge(good, out), nil
}

// cut returns the pieces of [a, b) at the first level from level on that
// cuts it, and that level (len(e.levels) when none does).
func (e *Engine) cut(a, b, level int) ([]Piece, int) {
	var pieces []Piece
	for ; level < len(e.levels); level++ {
		pieces = e.levels[level](e.Text, a, b, e.scratch[level][0][:0])
		e.scratch[level][0] = pieces[:0]
		if len(pieces) > 1 {
			break
		}
		if len(pieces) == 1 && (pieces[0].Start != a || pieces[0].End != b) {
			break // the level trimmed separators: still progress
		}
	}
	return pieces, level
}

// size measures piece i and its separator to the next piece.
func (e *Engine) size(pieces []Piece, i int) {
	p := &pieces[i]
	p.Size = e.CountUpTo(p.Start, p.End, e.Limit)
	if i+1 < len(pieces) && pieces[i+1].Start > p.End {
		p.Gap = e.Count(p.End, pieces[i+1].Start)
	}
}

// parallelBytes is the size of text from which Split shares the work of
// its oversized pieces among the cores.
const parallelBytes = 1 << 20

// splitParallel is split at the first level for a large text: the pieces
// that fit are merged here, in order, while the oversized ones, which the
// merge does not cross (each ends the run of pieces before it), are split
// on every core by engines of their own. The ranges are those of split.
func (e *Engine) splitParallel(ctx context.Context, a, b int, out []Range) ([]Range, error) {
	pieces, level := e.cut(a, b, 0)
	if level >= len(e.levels) {
		return e.splitTokens(ctx, a, b, out)
	}
	type part struct {
		good []Piece // pieces that fit, merged in order
		big  Range   // else an oversized piece
		out  []Range
		err  error
	}
	var parts []*part
	start := 0
	for i := range pieces {
		e.size(pieces, i)
		if pieces[i].Size > e.Limit {
			parts = append(parts, &part{good: pieces[start:i]}, &part{big: Range{pieces[i].Start, pieces[i].End}})
			start = i + 1
		}
	}
	parts = append(parts, &part{good: pieces[start:]})
	if e.runes && e.runeIndex == nil {
		e.runeIndex = runeoff.NewIndex(e.Text) // shared by the workers
	}
	if len(parts) > 1 && e.index == nil && !e.noIndex && !e.additive {
		// The workers measure the oversized pieces again and again: index
		// the text's tokens now, once, for all of them.
		e.counted = max(e.counted, indexAfter*len(e.Text))
		e.useIndex(0, 1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := make([]*Engine, runtime.GOMAXPROCS(0))
	for k := range workers {
		w := &Engine{Text: e.Text, Counter: e.Counter, Limit: e.Limit, Overlap: e.Overlap, Levels: e.Levels,
			SkipWords: e.SkipWords, MaxUnit: e.MaxUnit, runeIndex: e.runeIndex,
			index: e.index, cutter: e.cutter, noIndex: e.index == nil} // one index, built here or never
		w.Init()
		workers[k] = w
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(parts); i = int(next.Add(1)) - 1 {
				if p := parts[i]; p.good == nil {
					p.out, p.err = w.split(ctx, p.big.Start, p.big.End, level+1, nil)
				} else {
					p.out = w.Merge(p.good, nil)
				}
			}
		})
	}
	wg.Wait()
	for _, w := range workers {
		for r, n := range w.measured {
			e.Measure(r, n)
		}
	}
	for _, p := range parts {
		if p.err != nil {
			return out, p.err
		}
		out = append(out, p.out...)
	}
	return out, nil
}

// tokenBlock is how many bytes of text splitTokens turns into token pieces
// at a time, so that memory stays bounded on huge inputs.
const tokenBlock = 1 << 18

// splitTokens cuts [a, b) at token boundaries (moved to character
// boundaries), or at characters for counters that cannot report tokens.
func (e *Engine) splitTokens(ctx context.Context, a, b int, out []Range) ([]Range, error) {
	if e.additive {
		return e.splitAdditive(ctx, a, b, out)
	}
	c, isCutter := e.Counter.(tokenize.Cutter)
	parallel := isCutter && b-a >= parallelBytes && runtime.GOMAXPROCS(0) > 1
	// On several cores the blocks of [a, b) are cut once: by warmAhead's
	// workers, and used again by splitTokensAhead when the counted windows
	// did none of the range (a line the counter cannot cut at its start).
	from := a
	var blocks func() []int
	if parallel {
		blocks = sync.OnceValue(func() []int { return blockCuts(c, e.Text, from, b) })
	}
	enc, isEncoder := e.Counter.(tokenize.Encoder)
	if isCutter && isEncoder && e.Limit-e.Overlap >= countedLimit {
		if sc, ok := e.Counter.(tokenize.SegmentCounter); ok {
			e.cutter = c
			var wait func()
			if parallel {
				wait = e.warmAhead(ctx, blocks)
			}
			var err error
			out, a, err = e.splitTokensCounted(ctx, sc, enc, a, b, out)
			if wait != nil {
				e.progress.Store(int64(b)) // every block left is behind the merge
				wait()
			}
			if err != nil || a == b {
				return out, err
			}
		}
	}
	if parallel {
		cuts := blocks
		if a != from {
			cuts = func() []int { return blockCuts(c, e.Text, a, b) }
		}
		e.cutter = c // the merge of splitTokensAhead counts with it
		return e.splitTokensAhead(ctx, cuts(), out)
	}
	return e.splitTokensBlocks(ctx, a, b, out)
}

// warmAhead counts the blocks that blocks returns (their starts, and the
// range's end) ahead of splitTokensCounted on the other cores, so that
// the segments it meets are in the counter's cache: encoding the words it
// has not seen is most of the work on a new text, and the windows
// themselves are found on one core. A block the merge has reached
// (e.progress) is left to it, and so is a block of more than
// 2*tokenBlock bytes, which the counter could not cut (a line of
// letters: splitTokensAhead encodes it on every core). The counts change
// nothing but the cache, so the windows are the same. The blocks are cut
// by the workers, so that the merge starts at once. The workers stop when
// ctx is cancelled and when the merge moves e.progress to the range's end
// (each after the block it is counting); the returned function waits for
// them and clears e.progress.
func (e *Engine) warmAhead(ctx context.Context, blocks func() []int) (wait func()) {
	var next atomic.Int64
	next.Store(1)                // the merge counts the first block itself
	e.progress = &atomic.Int64{} // 0: before every block but the first
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) - 1 {
		wg.Go(func() {
			cuts := blocks()
			for k := int(next.Add(1)) - 1; k < len(cuts)-1 && ctx.Err() == nil; k = int(next.Add(1)) - 1 {
				if cuts[k+1] <= int(e.progress.Load()) || cuts[k+1]-cuts[k] > 2*tokenBlock {
					continue
				}
				e.Counter.Count(e.Text[cuts[k]:cuts[k+1]])
			}
		})
	}
	return func() {
		wg.Wait()
		e.progress = nil
	}
}

// blockCuts returns the starts of the blocks of about tokenBlock bytes
// that [a, b) is cut into where c cuts, and b.
func blockCuts(c tokenize.Cutter, text string, a, b int) []int {
	var cuts []int
	for pos := a; pos < b; {
		end := min(b, a+c.Cut(text[a:b], pos-a+tokenBlock))
		cuts = append(cuts, pos)
		pos = end
	}
	return append(cuts, b)
}

// splitTokensBlocks is splitTokens a block of tokenBlock bytes at a time,
// on one core.
func (e *Engine) splitTokensBlocks(ctx context.Context, a, b int, out []Range) ([]Range, error) {
	enc, isEncoder := e.Counter.(tokenize.Encoder)
	blk := tokenBlock
	for pos := a; pos < b; {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("chunking cancelled: %w", err)
		}
		end := b
		if b-pos > blk {
			end = cutNear(e.Text, pos+blk, b)
		}
		var ranges []Range
		var r *tokenRun
		var err error
		if c, ok := e.Counter.(tokenize.Cutter); ok && isEncoder {
			e.cutter = c
			if r, err = e.unitRun(enc, pos, end); err != nil && !errors.Is(err, gochunk.ErrTooSmall) {
				return out, err
			}
		}
		if r != nil && err == nil {
			ranges = e.mergeRun(r, e.blockOut[:0])
		} else {
			var pieces []Piece
			if err != nil { // tokens joined past the limit
				pieces, err = e.clusterPieces(e.units[:0], pos, end)
			} else {
				pieces, err = e.unitPieces(pos, end)
			}
			if err != nil {
				return out, err
			}
			ranges = e.Merge(pieces, e.blockOut[:0])
			e.units = pieces[:0]
		}
		e.blockOut = ranges[:0]
		if end == b {
			return append(out, ranges...), nil
		}
		if len(ranges) < 2 {
			blk *= 2 // a chunk is larger than the block
			continue
		}
		// The block's last range may continue past it: redo it with the
		// next block.
		out = append(out, ranges[:len(ranges)-1]...)
		pos = ranges[len(ranges)-1].Start
	}
	return out, nil
}

// splitTokensAhead is splitTokens for a large range, cut into blocks
// where the tokenizer may cut it (cuts: the blocks' starts and the
// range's end, from blockCuts): the blocks are tokenized on the other
// cores ahead of the merge, which carries the pieces of each block's last
// range over to the next block. The ranges are those of merging the
// tokens of the whole range at once.
func (e *Engine) splitTokensAhead(ctx context.Context, cuts []int, out []Range) ([]Range, error) {
	enc := e.Counter.(tokenize.Encoder)
	a, b := cuts[0], cuts[len(cuts)-1]
	blocks := len(cuts) - 1
	done := make([]chan []int, blocks)
	for k := range done {
		done[k] = make(chan []int, 1)
	}
	inFlight := 2 * runtime.GOMAXPROCS(0)
	ahead := make(chan struct{}, inFlight)
	// The token ends of a block go back to free once its pieces are made,
	// and the pieces live in one run that keeps only those of the last
	// range between blocks, so a long text reuses a few blocks' worth of
	// memory instead of leaving every block's behind for the collector.
	free := make(chan []int, inFlight+1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for k := range blocks {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			var buf []int
			select {
			case buf = <-free:
			default:
			}
			go func() {
				text := e.Text[cuts[k]:cuts[k+1]]
				if buf == nil {
					// Room for a block of prose; a block the tokenizer
					// could not cut (one long piece) grows it as needed.
					buf = make([]int, 0, min(len(text), 2*tokenBlock)/3)
				}
				done[k] <- enc.AppendTokenEnds(buf[:0], text)
			}()
		}
	}()
	r := &e.run
	r.reset(a)
	len0 := len(out)
	for k := range blocks {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("chunking cancelled: %w", err)
		}
		ends := <-done[k]
		<-ahead
		// A block the tokenizer could not cut (one pre-token of megabytes,
		// a line of random letters) is turned into pieces and merged
		// subBlockTokens tokens at a time, so its pieces never all exist
		// at once; the pieces are its tokens, so merging them part by part
		// with the carry is exact.
		from, rest := cuts[k], ends
		for {
			take := len(rest)
			if take > subBlockTokens {
				take = subBlockTokens
				for take < len(rest) && !clusterBoundary(e.Text, cuts[k]+rest[take-1]) {
					take++
				}
			}
			to := cuts[k+1]
			if take < len(rest) {
				to = cuts[k] + rest[take-1]
			}
			final := k == blocks-1 && take == len(rest)
			if err := e.addTokens(r, cuts[k], from, to, rest[:take], 0, false); err != nil {
				if errors.Is(err, gochunk.ErrTooSmall) { // tokens joined past the limit: by blocks
					return e.splitTokensBlocks(ctx, a, b, out[:len0])
				}
				return out, err
			}
			ranges := e.mergeRun(r, nil)
			if final {
				return append(out, ranges...), nil
			}
			last := ranges[len(ranges)-1].Start
			out = append(out, ranges[:len(ranges)-1]...)
			i := r.len() - 1
			for i > 0 && r.start(i) > last {
				i--
			}
			r.keepFrom(i) // the pieces of the last range, merged again with the next
			from, rest = to, rest[take:]
			if len(rest) == 0 {
				break
			}
		}
		select {
		case free <- ends:
		default:
		}
	}
	return out, nil
}

// subBlockTokens is how many tokens of one block splitTokensAhead turns
// into pieces and merges at a time.
const subBlockTokens = 1 << 16

// cutNear returns a character boundary at or after i (and at most b),
// preferably just after white space.
func cutNear(text string, i, b int) int {
	for j := i; j < b && j < i+1024; j++ {
		if text[j] == ' ' || text[j] == '\n' {
			return j + 1
		}
	}
	for i < b && !utf8.RuneStart(text[i]) {
		i++
	}
	return i
}

// unitPieces returns the token pieces of [a, b): tokens, with those that end
// inside a character merged into the next, or characters for counters that
// cannot report tokens.
func (e *Engine) unitPieces(a, b int) ([]Piece, error) {
	pieces := e.units[:0]
	defer func() { e.units = pieces[:0] }()
	if enc, ok := e.Counter.(tokenize.Encoder); ok {
		r, err := e.unitRun(enc, a, b)
		if errors.Is(err, gochunk.ErrTooSmall) {
			return e.clusterPieces(pieces, a, b) // see clusterPieces
		}
		if err != nil {
			return nil, err
		}
		for k := range r.len() {
			pieces = append(pieces, Piece{Start: r.start(k), End: r.ends[k], Size: r.size(k)})
		}
		return pieces, nil
	}
	return e.clusterPieces(pieces, a, b)
}

// clusterPieces appends to dst the grapheme clusters of [a, b) as pieces,
// each counted alone, and the code points of a cluster over the limit.
// Merge then measures what it packs exactly. These are the units of
// counters that cannot report tokens, and of text whose tokens never end
// between two clusters for longer than the limit (a prepended mark before
// each space joins every token of a line), where a cut falls inside a
// token.
func (e *Engine) clusterPieces(dst []Piece, a, b int) ([]Piece, error) {
	limit := max(e.Limit, e.MaxUnit)
	for i := a; i < b; {
		size := min(cluster(e.Text, i), b-i)
		if n := e.Count(i, i+size); n <= limit || size == 1 {
			dst = append(dst, Piece{Start: i, End: i + size, Size: n})
		} else { // a cluster over the limit: its code points, all at once
			for j := i; j < i+size; {
				_, k := utf8.DecodeRuneInString(e.Text[j : i+size])
				dst = append(dst, Piece{Start: j, End: j + k, Size: e.Count(j, j+k)})
				j += k
			}
		}
		i += size
	}
	for _, p := range dst {
		if p.Size > limit {
			return nil, e.tooSmall(p.Start, p.Size)
		}
	}
	return dst, nil
}

func (e *Engine) tooSmall(at, size int) error {
	r, _ := utf8.DecodeRuneInString(e.Text[at:])
	return fmt.Errorf("%w: %q at byte %d is %d tokens, the limit is %d", gochunk.ErrTooSmall, r, at, size, e.Limit)
}

// splitAdditive cuts [a, b) into windows of characters for additive
// counters, with the same overlap rule as Merge, without building pieces.
func (e *Engine) splitAdditive(ctx context.Context, a, b int, out []Range) ([]Range, error) {
	_, isBytes := e.Counter.(tokenize.Bytes)
	_, isRunes := e.Counter.(tokenize.Runes)
	// The units are grapheme clusters (a character with its combining
	// marks, an emoji sequence), and the code points of a cluster that is
	// alone over the limit.
	unit := func(i int) (size, n int) { // byte length and token count of the unit at i
		size = min(cluster(e.Text, i), b-i)
		switch {
		case size == 1 && (isRunes || isBytes):
			return 1, 1
		case isBytes:
			n = size
		case isRunes:
			n = tokenize.RuneCount(e.Text[i : i+size])
		default:
			n = e.Count(i, i+size)
		}
		if n > e.Limit && size > 1 {
			if _, r := utf8.DecodeRuneInString(e.Text[i:]); r < size {
				return r, e.Count(i, i+r)
			}
		}
		return size, n
	}
	for i, iter := a, 0; i < b; iter++ {
		if iter%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return out, fmt.Errorf("chunking cancelled: %w", err)
			}
		}
		j, total := i, 0
		starts := e.unitStarts[:0] // the units of this range, for the overlap
		for j < b {
			if isRunes || isBytes {
				// A run of ASCII characters is that many units of one
				// token each: taken whole, not unit by unit.
				if k := asciiUnits(e.Text, j, b, e.Limit-total); k > 0 {
					if e.Overlap > 0 {
						for p := j; p < j+k; p++ {
							starts = append(starts, p)
						}
					}
					total += k
					j += k
					continue
				}
			}
			size, n := unit(j)
			starts = append(starts, j)
			if total+n > e.Limit {
				if j == i && n <= e.MaxUnit {
					j += size // one character over the limit, allowed alone
				}
				break
			}
			total += n
			j += size
		}
		if j == i {
			_, n := unit(i)
			return out, e.tooSmall(i, n)
		}
		out = append(out, Range{i, j})
		if j >= b {
			break
		}
		next := j
		if e.Overlap > 0 {
			_, nn := unit(j)
			room := e.Limit - nn
			t := 0
			// Whole units back from the end, never the range's first.
			u := len(starts) - 1
			if starts[u] >= j {
				u-- // the unit that did not fit
			}
			for ; u > 0; u-- {
				_, n := unit(starts[u])
				if t+n > e.Overlap || t+n > room {
					break
				}
				t += n
				next = starts[u]
			}
		}
		e.unitStarts = starts[:0]
		i = next
	}
	return out, nil
}

// asciiUnits returns how many of the bytes from i on, at most limit and
// before b, are grapheme clusters of one ASCII byte each: an ASCII byte
// followed by an ASCII byte (a following non-ASCII byte may be a
// combining mark of its cluster), and not a carriage return before a line
// feed (one cluster of two).
//
// It is kept out of line: inlined into splitAdditive, its byte loop ran at
// a speed that moved with the code around it (token in runes on 5 MB, one
// core: 9.6 ms, then 12.0 ms after an unrelated change to this file, 9.6
// again out of line).
//
//go:noinline
func asciiUnits(text string, i, b, limit int) int {
	end := min(b, i+limit)
	k := i
	for k < end {
		c := text[k]
		if c >= utf8.RuneSelf {
			break
		}
		if k+1 < len(text) {
			if next := text[k+1]; next >= utf8.RuneSelf || c == '\r' && next == '\n' {
				break
			}
		}
		k++
	}
	return k - i
}

// Merge packs consecutive pieces greedily into ranges of at most Limit
// tokens (pieces that do not touch must carry the size of the separator
// between them in Gap), with LangChain's overlap rule: the next range starts with the
// longest run of trailing pieces of the previous one that is at most Overlap
// tokens and leaves room for the next piece. Each piece must fit the limit.
// The size of a merged range is estimated as the sum of its pieces and
// separators, and checked exactly for counters that are not additive.
func (e *Engine) Merge(pieces []Piece, out []Range) []Range {
	n := len(pieces)
	gap := func(j int) int { return pieces[j].Gap } // separator between pieces j and j+1
	size := func(j int) int { return pieces[j].Size }
	span := func(i, k int) Range { return Range{pieces[i].Start, pieces[k].End} }
	for i, k := 0, 0; i < n; k++ {
		if k%256 == 255 && e.cancelled() {
			return out // Split or Build reports the cancellation
		}
		total := pieces[i].Size
		j := i
		for j+1 < n {
			add := gap(j) + pieces[j+1].Size
			if total+add > e.Limit {
				break
			}
			total += add
			j++
		}
		if !e.additive && j > i {
			j = e.fit(i, j, func(k int) int { return e.Count(pieces[i].Start, pieces[k].End) }, span)
		}
		out = append(out, span(i, j))
		if j == n-1 {
			break
		}
		i = e.overlapStart(i, j, size, gap)
	}
	return out
}

// overlapStart returns the piece the window after pieces i..j starts at:
// j+1, or the earliest piece after i from which the pieces up to j hold at
// most Overlap tokens (separators included) and leave room for piece j+1.
func (e *Engine) overlapStart(i, j int, size, gap func(k int) int) int {
	next := j + 1
	if e.Overlap <= 0 {
		return next
	}
	room := e.Limit - gap(j) - size(j+1)
	t := 0
	for k := j; k > i; k-- {
		add := size(k)
		if k < j {
			add += gap(k)
		}
		if t+add > e.Overlap || t+add > room {
			break
		}
		t += add
		next = k
	}
	return next
}

// fit returns the last piece k in [i, j] such that pieces i..k fit the
// limit when counted exactly by count(k) (the estimate of i..j is within
// it), and records the size of their span. Counts grow with k, and a piece
// holds at least one token, so a range n tokens over the limit drops at
// least n pieces: the search steps down by the excess, then up while the
// next piece fits, counting a few times where a bisection would count
// log2(j-i) times.
func (e *Engine) fit(i, j int, count func(k int) int, span func(i, k int) Range) int {
	n := count(j)
	hi := j // the last piece that may fit
	for n > e.Limit && j > i {
		hi = j - 1
		j = max(i, j-(n-e.Limit))
		n = count(j)
	}
	for j < hi {
		m := count(j + 1)
		if m > e.Limit {
			break
		}
		j, n = j+1, m
	}
	if n <= e.Limit {
		e.Measure(span(i, j), n)
	}
	return j
}

// insidePiece is a counter that knows when a text lies inside one piece of
// its pre-tokenizer, whose tokens are then those of the whole text there
// (tokenize.TikToken).
type insidePiece interface{ InsidePiece(string) bool }

// Size returns the size of the range r: the one Merge or Measure recorded
// for it when there is one (a range Merge returned is not counted again),
// else its count.
func (e *Engine) Size(r Range) int {
	if n, ok := e.measured[r]; ok {
		return n
	}
	return e.Count(r.Start, r.End)
}

// Measure records the exact size n of the range r, which Build then uses
// instead of counting r again (Merge records the ranges it returns).
func (e *Engine) Measure(r Range, n int) {
	if e.measured == nil {
		e.measured = map[Range]int{}
	}
	e.measured[r] = n
}

// SplitSentences is a Level that cuts at sentence boundaries.
func SplitSentences(text string, a, b int, dst []Piece) []Piece {
	for _, r := range segment.Sentences(text[a:b]) {
		dst = append(dst, Piece{Start: a + r.Start, End: a + r.End})
	}
	return dst
}

// SplitParagraphs is a Level that cuts at blank lines.
func SplitParagraphs(text string, a, b int, dst []Piece) []Piece {
	for _, r := range segment.Paragraphs(text[a:b]) {
		dst = append(dst, Piece{Start: a + r.Start, End: a + r.End})
	}
	return dst
}

// SplitLines is a Level that cuts at line breaks.
func SplitLines(text string, a, b int, dst []Piece) []Piece {
	for _, r := range segment.Lines(text[a:b]) {
		dst = append(dst, Piece{Start: a + r.Start, End: a + r.End})
	}
	return dst
}

// SplitWhitespace is the word level: pieces are the runs of non-space text,
// the spaces between them are separators.
func SplitWhitespace(text string, a, b int, dst []Piece) []Piece {
	start := -1
	for i := a; i < b; {
		var space bool
		size := 1
		if c := text[i]; c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			space = unicode.IsSpace(r)
		}
		if space {
			if start >= 0 {
				dst = append(dst, Piece{Start: start, End: i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, Piece{Start: start, End: b})
	}
	return dst
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// IsBlank reports whether s holds only white space.
func IsBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// Trim returns r without leading and trailing white space.
func Trim(text string, r Range) Range {
	for r.Start < r.End {
		c, size := rune(text[r.Start]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(text[r.Start:r.End])
		}
		if !unicode.IsSpace(c) {
			break
		}
		r.Start += size
	}
	for r.End > r.Start {
		c, size := rune(text[r.End-1]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeLastRuneInString(text[r.Start:r.End])
		}
		if !unicode.IsSpace(c) {
			break
		}
		r.End -= size
	}
	return r
}

// Build turns ranges of e.Text into chunks: each range is trimmed of white
// space when trim is set, dropped when nothing but white space is left,
// measured exactly, and cut again if it is over the limit (which only a
// counter whose count grows when text is trimmed could cause). Chunks get
// their byte and rune offsets, token counts and indexes.
func (e *Engine) Build(ctx context.Context, ranges []Range, trim bool) ([]gochunk.Chunk, error) {
	if !e.ready {
		e.Init()
	}
	runeAt := e.converter().Rune
	if e.runes && len(e.Text) >= indexedText {
		if e.runeIndex == nil {
			e.runeIndex = runeoff.NewIndex(e.Text)
		}
		runeAt = e.runeIndex.Rune
	}
	chunks := make([]gochunk.Chunk, 0, len(ranges))
	spans := make([]gochunk.Span, 0, len(ranges)) // one allocation for every chunk's span
	for k, r := range ranges {
		if k%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("chunking cancelled: %w", ctx.Err())
		}
		if trim {
			r = Trim(e.Text, r)
		}
		if r.End <= r.Start || IsBlank(e.Text[r.Start:r.End]) {
			continue
		}
		text := e.Text[r.Start:r.End]
		startRune, endRune := runeAt(r.Start), runeAt(r.End)
		n, ok := endRune-startRune, e.runes
		if !ok {
			n, ok = e.measured[r]
		}
		if !ok {
			n = e.Count(r.Start, r.End)
		}
		if n > e.Limit {
			sub, err := e.splitTokens(ctx, r.Start, r.End, nil)
			if err != nil {
				return nil, err
			}
			more, err := e.Build(ctx, sub, trim)
			if err != nil {
				return nil, err
			}
			for _, c := range more {
				c.Index = len(chunks)
				chunks = append(chunks, c)
			}
			continue
		}
		spans = append(spans, gochunk.Span{Start: r.Start, End: r.End, StartRune: startRune, EndRune: endRune})
		chunks = append(chunks, gochunk.Chunk{
			Index:      len(chunks),
			Text:       text,
			Spans:      spans[len(spans)-1 : len(spans) : len(spans)],
			TokenCount: n,
		})
	}
	return chunks, nil
}
