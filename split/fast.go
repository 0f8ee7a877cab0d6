package split

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/swar"
	"github.com/gochunk/gochunk/tokenize"
)

// FastConfig configures the Fast chunker. Its options are those of
// Chonkie's chunk library (npm @chonkiejs/chunk, PyPI chonkie-core).
type FastConfig struct {
	Size            int    `json:"size" range:"1,1073741824" doc:"window size in bytes (or runes with --tokenizer runes): a chunk ends at the last delimiter within it"`
	Delimiters      string `json:"delimiters" doc:"single-byte (ASCII) delimiters; the chunk ends after the last one in the window"`
	Pattern         string `json:"pattern" doc:"a delimiter of several bytes (such as ▁, SentencePiece's metaspace) used instead of delimiters"`
	Prefix          bool   `json:"prefix" doc:"the delimiter starts the next chunk instead of ending this one"`
	Consecutive     bool   `json:"consecutive" doc:"at a run of one delimiter repeated (or of the pattern), cut at the start of the run instead of inside it"`
	ForwardFallback bool   `json:"forward_fallback" doc:"when a window has no delimiter, extend the chunk to the next delimiter after it instead of cutting at the window's end (chunks may then exceed size)"`
}

// DefaultFastConfig returns the chunk library's defaults: windows of 4096
// bytes, delimiters newline, period and question mark.
func DefaultFastConfig() FastConfig { return FastConfig{Size: 4096, Delimiters: "\n.?"} }

// Fast is the chunker of Chonkie's chunk library: instead of reading every
// byte, it jumps Size bytes ahead and searches backwards for the last
// delimiter, so its cost grows with the number of chunks, not with the
// text. It is the chunker to pick for raw speed over structure (log
// pipelines, cutting under an embedding model's limit before a finer
// chunker): it knows no sentences, paragraphs or tokens.
//
// A window [pos, pos+Size) ends after its last delimiter (before it with
// Prefix); a delimiter at the window's very start does not count, nor does
// a run of the same delimiter byte (or of the pattern) that starts there,
// with Consecutive, where a cut goes to the start of the run. With no delimiter,
// the chunk ends at the window's end, or, with ForwardFallback, at the
// first delimiter after the window (the start of a run with Consecutive),
// or at the end of the text. The remainder, once it fits in a window, is
// the last chunk. Its boundaries are those of the library's chunk_offsets
// and chunk_offsets_pattern, except where the library would cut inside a
// UTF-8 character (a window with no delimiter): there a chunk ends at the
// character's start instead.
//
// Chunks are kept as they are, white space included; Chunk drops a chunk of
// white space only (Offsets keeps it, as the library does). Sizes count bytes
// (tokenize.Bytes, the default) or, with tokenize.Runes, code points.
type Fast struct {
	cfg   FastConfig
	runes bool
	delim [256]bool
	nd    int       // number of distinct delimiter bytes
	d0    byte      // the delimiter when there is one
	rep   [3]uint64 // each of up to three delimiters repeated in a word
	pat   []byte    // the pattern, when set
}

// NewFast returns a Fast chunker. The counter must be nil, bytes or runes.
func NewFast(cfg FastConfig, counter tokenize.Counter) (*Fast, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	f := &Fast{cfg: cfg}
	if counter != nil {
		switch counter.Name() {
		case "bytes":
		case "runes":
			f.runes = true
		default:
			return nil, fmt.Errorf("%w: the fast chunker measures windows in bytes or runes, not %q; use the bytes or runes tokenizer", gochunk.ErrConfig, counter.Name())
		}
	}
	if cfg.Size <= 0 {
		return nil, fmt.Errorf("%w: size must be positive, got %d", gochunk.ErrConfig, cfg.Size)
	}
	if !utf8.ValidString(cfg.Pattern) {
		return nil, fmt.Errorf("%w: pattern is not valid UTF-8", gochunk.ErrConfig)
	}
	for i := 0; i < len(cfg.Delimiters); i++ {
		c := cfg.Delimiters[i]
		if c >= utf8.RuneSelf {
			return nil, fmt.Errorf("%w: delimiters %q: delimiters are single ASCII bytes; give a multi-byte delimiter as pattern", gochunk.ErrConfig, cfg.Delimiters)
		}
		if !f.delim[c] {
			f.delim[c] = true
			if f.nd < len(f.rep) {
				f.rep[f.nd] = uint64(c) * swar.Low
			}
			f.nd++
			f.d0 = c
		}
	}
	for k := f.nd; k < len(f.rep) && f.nd > 0; k++ {
		f.rep[k] = f.rep[0]
	}
	if cfg.Pattern != "" {
		f.pat = []byte(cfg.Pattern)
	}
	return f, nil
}

// Offsets implements gochunk.Offsetter: the chunks' byte offsets, start
// and end of each in turn, without building the chunks, for callers that
// hold the text. It does not check that the text is valid UTF-8 (Chunk
// does): the offsets of invalid text fall at byte boundaries only.
func (f *Fast) Offsets(ctx context.Context, doc gochunk.Document) ([]int, error) {
	return f.offsets(ctx, doc.Text)
}

// Chunk implements gochunk.Chunker.
func (f *Fast) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	if err := gochunk.CheckDocument(doc); err != nil {
		return nil, err
	}
	offs, err := f.offsets(ctx, doc.Text)
	if err != nil {
		return nil, err
	}
	text := doc.Text
	chunks := make([]gochunk.Chunk, 0, len(offs)/2)
	spans := make([]gochunk.Span, len(offs)/2)
	r := 0 // rune offset of the previous chunk's end
	for k := 0; k < len(offs); k += 2 {
		s, e := offs[k], offs[k+1]
		n := tokenize.RuneCount(text[s:e])
		i := k / 2
		spans[i] = gochunk.Span{Start: s, End: e, StartRune: r, EndRune: r + n}
		r += n
		if pack.IsBlank(text[s:e]) {
			continue // white space only: no chunk, as every chunker
		}
		size := e - s
		if f.runes {
			size = n
		}
		chunks = append(chunks, gochunk.Chunk{Index: len(chunks), Text: text[s:e], Spans: spans[i : i+1 : i+1], TokenCount: size})
	}
	return chunks, nil
}

// offsets runs the library's algorithm over text.
func (f *Fast) offsets(ctx context.Context, text string) ([]int, error) {
	n := len(text)
	var out []int
	if n == 0 {
		return nil, nil
	}
	if !f.runes {
		out = make([]int, 0, 2*(n/f.cfg.Size+1))
	}
	for pos := 0; pos < n; {
		if len(out)%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		end, rest := f.windowEnd(text, pos)
		if rest {
			out = append(out, pos, n)
			break
		}
		split := -1
		if d := f.backward(text, pos, end); d >= 0 {
			split = f.cut(d)
		} else if f.cfg.ForwardFallback {
			if d := f.forward(text, pos, end); d < n {
				split = f.cut(d)
			} else {
				split = n
			}
		}
		if split < 0 {
			split = end
			// The library cuts here even inside a character; the contract
			// does not: end at the character's start.
			for split > pos && !utf8.RuneStart(text[split]) {
				split--
			}
			if split == pos {
				return nil, fmt.Errorf("%w: a window of %d bytes cannot hold the character at byte %d", gochunk.ErrTooSmall, f.cfg.Size, pos)
			}
		}
		out = append(out, pos, split)
		pos = split
	}
	return out, nil
}

// cut returns where a chunk ends at the delimiter (or pattern match) at d:
// before it with Prefix, after it otherwise.
func (f *Fast) cut(d int) int {
	if f.cfg.Prefix {
		return d
	}
	return d + f.width()
}

// windowEnd returns the end of the window starting at pos, and whether the
// rest of the text fits in it (then it is the last chunk).
func (f *Fast) windowEnd(text string, pos int) (int, bool) {
	if !f.runes {
		if len(text)-pos <= f.cfg.Size {
			return len(text), true
		}
		return pos + f.cfg.Size, false
	}
	// Size runes from pos: count rune starts.
	i, k := pos, 0
	for i < len(text) && k < f.cfg.Size {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRuneInString(text[i:])
			i += w
		}
		k++
	}
	return i, i == len(text)
}

// backward returns the delimiter (or pattern match) where the chunk
// starting at pos ends within the window [pos, end), or -1 when there is
// none after pos. With Consecutive it is the last one in the window that
// starts a run (is not preceded by the same delimiter byte, or by the
// pattern); a run that starts at pos leaves nothing to cut at.
func (f *Fast) backward(text string, pos, end int) int {
	for e := end; e > pos; {
		var p int
		if f.pat != nil {
			p = strings.LastIndex(text[pos:e], f.cfg.Pattern)
		} else {
			p = f.lastDelim(text[pos:e])
		}
		if p < 0 {
			return -1
		}
		p += pos
		if !f.cfg.Consecutive || !f.continuesRun(text, p) {
			if p > pos {
				return p
			}
			return -1
		}
		e = p // inside a run: look earlier
	}
	return -1
}

// forward returns the first delimiter (or pattern match) at or after end,
// the first that starts a run with Consecutive, searching past a run that
// starts at pos; len(text) when there is none.
func (f *Fast) forward(text string, pos, end int) int {
	from := end
	if f.cfg.Consecutive && f.startsAt(text, pos) {
		// Skip the run at pos: the pattern repeated, or pos's delimiter
		// byte repeated.
		run := pos + f.width()
		for run < len(text) && (f.pat != nil && f.startsAt(text, run) || f.pat == nil && text[run] == text[pos]) {
			run += f.width()
		}
		from = max(from, run)
	}
	for from < len(text) {
		var q int
		if f.pat != nil {
			q = strings.Index(text[from:], f.cfg.Pattern)
		} else {
			q = f.firstDelim(text[from:])
		}
		if q < 0 {
			break
		}
		q += from
		if !f.cfg.Consecutive || !f.continuesRun(text, q) {
			return q
		}
		from = q + 1
	}
	return len(text)
}

// width is the length of a delimiter: 1, or the pattern's.
func (f *Fast) width() int {
	if f.pat != nil {
		return len(f.pat)
	}
	return 1
}

// startsAt reports whether a delimiter (or the pattern) starts at i.
func (f *Fast) startsAt(text string, i int) bool {
	if f.pat != nil {
		return strings.HasPrefix(text[i:], f.cfg.Pattern)
	}
	return f.delim[text[i]]
}

// continuesRun reports whether the delimiter at q continues a run: the
// same byte precedes it, or, for a pattern, the pattern ends just before it.
func (f *Fast) continuesRun(text string, q int) bool {
	if f.pat != nil {
		l := len(f.pat)
		return q >= l && text[q-l:q] == f.cfg.Pattern
	}
	return q > 0 && text[q-1] == text[q]
}

// lastDelim returns the index of the last delimiter byte of w, or -1. Up
// to three delimiters are searched eight bytes at a time (SWAR: a word
// compared with each delimiter repeated, zero bytes found exactly); more
// with the lookup table, a byte at a time.
func (f *Fast) lastDelim(w string) int {
	if f.nd == 0 {
		return -1
	}
	if f.nd > 3 {
		for i := len(w) - 1; i >= 0; i-- {
			if f.delim[w[i]] {
				return i
			}
		}
		return -1
	}
	i := len(w)
	for ; i >= 8; i -= 8 {
		if m := f.matches(swar.Load(w, i-8)); m != 0 {
			return i - 8 + (63-bits.LeadingZeros64(m))/8
		}
	}
	for i--; i >= 0; i-- {
		if f.delim[w[i]] {
			return i
		}
	}
	return -1
}

// matches returns the high bit of every byte of x (eight bytes, the first
// in the lowest) that is one of the delimiters.
func (f *Fast) matches(x uint64) uint64 {
	// Unused entries of rep repeat the first delimiter.
	return swar.Zero(x^f.rep[0]) | swar.Zero(x^f.rep[1]) | swar.Zero(x^f.rep[2])
}

// firstDelim returns the index of the first delimiter byte of s, or -1.
func (f *Fast) firstDelim(s string) int {
	switch f.nd {
	case 0:
		return -1
	case 1:
		return strings.IndexByte(s, f.d0)
	}
	for i := 0; i < len(s); i++ {
		if f.delim[s[i]] {
			return i
		}
	}
	return -1
}
