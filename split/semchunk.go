package split

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/tokenize"
)

// SemchunkConfig configures the Semchunk splitter.
type SemchunkConfig struct {
	Size
}

// DefaultSemchunkConfig returns a size of 512 and no overlap.
func DefaultSemchunkConfig() SemchunkConfig { return SemchunkConfig{Size{Size: 512}} }

// nonSpaceSplitters are semchunk's semantically meaningful non-white-space
// splitters, most meaningful first: sentence terminators, clause
// separators, sentence interrupters, word joiners.
var nonSpaceSplitters = []string{
	".", "?", "!", "*", ";", ",", "(", ")", "[", "]", "“", "”", "‘", "’", "'", `"`, "`",
	":", "—", "…", "/", "\\", "–", "&", "-",
}

// Semchunk is semchunk's recursive splitter. It cuts text at the most
// meaningful splitter present: the longest run of line breaks, else of
// tabs, else of white space (preferring, when every run is a single
// character, the spaces that follow a sentence terminator or another
// meaningful punctuation mark), else a punctuation mark of the hierarchy
// above, else characters. Pieces are merged with an adaptive binary search
// that predicts how many fit from a running characters-per-token ratio and
// checks with the counter; pieces that are too large are split recursively.
// Punctuation splitters are put back at the end of the chunk before them
// when it fits. Overlap is stride-based: the text is chunked at
// min(overlap, size-overlap) and those sub-chunks are grouped into
// overlapping windows.
type Semchunk struct {
	cfg     SemchunkConfig
	counter tokenize.Counter
}

// NewSemchunk returns a Semchunk splitter.
func NewSemchunk(cfg SemchunkConfig, counter tokenize.Counter) (*Semchunk, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Semchunk{cfg: cfg, counter: counterOr(counter)}, nil
}

// Chunk implements gochunk.Chunker.
func (s *Semchunk) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	size, overlap := s.cfg.Size.Size, s.cfg.Overlap
	local := size
	if overlap > 0 {
		local = min(overlap, size-overlap)
	}
	e, err := startEngine(doc, &pack.Engine{Counter: s.counter, Limit: local, SkipWords: true, MaxUnit: size})
	if err != nil || doc.Text == "" {
		return nil, err
	}
	sc := &semchunker{e: e, limit: local}
	if err := sc.chunk(ctx, 0, len(doc.Text)); err != nil {
		return nil, err
	}
	ranges := sc.out[:0]
	for _, r := range sc.out {
		if t := pack.Trim(doc.Text, r); t.End > t.Start {
			ranges = append(ranges, t)
		}
	}
	e.Limit = size
	if overlap > 0 && len(ranges) > 0 {
		ranges = overlapWindows(e, ranges, size, size/local, (size-overlap)/local)
	}
	return e.Build(ctx, ranges, true)
}

// overlapWindows groups sub-chunks into windows of up to per sub-chunks,
// each starting stride sub-chunks after the previous one, as semchunk does.
// A window also stops before it would exceed size (the text between
// sub-chunks counts too), and the next window never starts past the end of
// the previous one, so nothing is skipped.
func overlapWindows(e *pack.Engine, subs []pack.Range, size, per, stride int) []pack.Range {
	var out []pack.Range
	n := len(subs)
	for a := 0; a < n; {
		b := min(a+per, n) - 1
		if e.Count(subs[a].Start, subs[b].End) > size {
			lo, hi := a, b-1 // the largest end that fits; subs[a] alone does
			for lo < hi {
				mid := (lo + hi + 1) / 2
				if e.Count(subs[a].Start, subs[mid].End) <= size {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			b = lo
		}
		out = append(out, pack.Range{Start: subs[a].Start, End: subs[b].End})
		if b == n-1 {
			break
		}
		a = min(a+stride, b+1)
	}
	return out
}

type semchunker struct {
	e     *pack.Engine
	limit int
	out   []pack.Range
}

func (sc *semchunker) count(a, b int) int { return sc.e.Count(a, b) }

func (sc *semchunker) chunk(ctx context.Context, a, b int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("chunking cancelled: %w", err)
	}
	text := sc.e.Text
	splitter, isSpace, splits := splitSemantic(text, a, b)
	if splits == nil {
		// No splitter at all: cut at tokens.
		var err error
		sc.out, err = sc.e.Split(ctx, a, b, sc.out)
		return err
	}
	for i := 0; i < len(splits); i++ {
		sp := splits[i]
		last := i
		if sc.count(sp.Start, sp.End) > sc.limit {
			if err := sc.chunk(ctx, sp.Start, sp.End); err != nil {
				return err
			}
		} else {
			end := sc.merge(splits, i)
			sc.out = append(sc.out, pack.Range{Start: sp.Start, End: splits[end-1].End})
			last = end - 1
			i = last
		}
		// Put a punctuation splitter back after the chunk before it.
		if !isSpace && last < len(splits)-1 && len(sc.out) > 0 {
			prev := &sc.out[len(sc.out)-1]
			sepEnd := splits[last].End + len(splitter)
			if sc.count(prev.Start, sepEnd) <= sc.limit {
				prev.End = sepEnd
			} else {
				sc.out = append(sc.out, pack.Range{Start: splits[last].End, End: sepEnd})
			}
		}
	}
	return nil
}

// merge finds how many splits from i on fit together, by semchunk's
// adaptive binary search, and returns the index after the last one.
func (sc *semchunker) merge(splits []pack.Range, i int) int {
	base := splits[i].Start
	cum := func(k int) int { // bytes from splits[i] to the start of split k
		if k >= len(splits) {
			return splits[len(splits)-1].End - base
		}
		return splits[k].Start - base
	}
	average := 0.2
	low, high := i, len(splits)+1
	target := float64(sc.limit) * average
	for low < high {
		// First k in [low, high) with cum(k) >= target.
		k := low + sort.Search(high-low, func(j int) bool { return float64(cum(low+j)) >= target })
		mid := min(k, high-1)
		tokens := 0
		if mid > i {
			tokens = sc.count(base, splits[mid-1].End)
		}
		if local := cum(mid); local > 0 && tokens > 0 {
			average = float64(local) / float64(tokens)
			target = float64(sc.limit) * average
		}
		if tokens > sc.limit {
			high = mid
		} else {
			low = mid + 1
		}
	}
	return max(low-1, i+1)
}

// splitSemantic cuts text[a:b] at its most meaningful splitter. It returns
// the splitter, whether it is white space, and the pieces between its
// occurrences (nil when there is nothing to split at).
func splitSemantic(text string, a, b int) (string, bool, []pack.Range) {
	s := text[a:b]
	if strings.ContainsAny(s, "\r\n") {
		return splitLongestRun(s, a, func(r rune) bool { return r == '\r' || r == '\n' })
	}
	if strings.Contains(s, "\t") {
		return splitLongestRun(s, a, func(r rune) bool { return r == '\t' })
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		sep, isSpace, splits := splitLongestRun(s, a, unicode.IsSpace)
		if utf8.RuneCountInString(sep) == 1 {
			// Prefer spaces after meaningful punctuation.
			for _, p := range nonSpaceSplitters {
				if rs := splitAfterPreceder(s, a, p); rs != nil {
					return " ", true, rs
				}
			}
		}
		return sep, isSpace, splits
	}
	for _, p := range nonSpaceSplitters {
		if strings.Contains(s, p) {
			return p, false, splitAt(s, a, p)
		}
	}
	return "", false, nil
}

// splitLongestRun cuts s at every occurrence of the longest run of
// characters for which in reports true.
func splitLongestRun(s string, base int, in func(rune) bool) (string, bool, []pack.Range) {
	best, bestLen := "", 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !in(r) {
				break
			}
			j += size
		}
		if n := utf8.RuneCountInString(s[i:j]); n > bestLen {
			best, bestLen = s[i:j], n
		}
		i = j
	}
	return best, true, splitAt(s, base, best)
}

// splitAt returns the ranges of the pieces of s between occurrences of
// sep, offset by base.
func splitAt(s string, base int, sep string) []pack.Range {
	var out []pack.Range
	pos := 0
	for {
		j := strings.Index(s[pos:], sep)
		if j < 0 {
			break
		}
		out = append(out, pack.Range{Start: base + pos, End: base + pos + j})
		pos += j + len(sep)
	}
	return append(out, pack.Range{Start: base + pos, End: base + len(s)})
}

// splitAfterPreceder cuts s at each single white-space character that
// follows p; nil when there is none.
func splitAfterPreceder(s string, base int, p string) []pack.Range {
	var out []pack.Range
	pos := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], p)
		if j < 0 {
			break
		}
		k := i + j + len(p)
		if k < len(s) {
			r, size := utf8.DecodeRuneInString(s[k:])
			if unicode.IsSpace(r) {
				out = append(out, pack.Range{Start: base + pos, End: base + k})
				pos = k + size
			}
		}
		i = k
	}
	if out == nil {
		return nil
	}
	return append(out, pack.Range{Start: base + pos, End: base + len(s)})
}
