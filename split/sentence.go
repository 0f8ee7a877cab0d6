package split

import (
	"cmp"
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"slices"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// SentenceConfig configures the Sentence chunker.
type SentenceConfig struct {
	Size
	MinSentences    int      `json:"min_sentences_per_chunk" range:"1,1073741824" doc:"fewest sentences per chunk, as long as they fit in the size (the size limit wins)"`
	MinCharacters   int      `json:"min_characters_per_sentence" range:"0,1073741824" doc:"a sentence shorter than this (in characters) is joined to the next one"`
	Delimiters      []string `json:"delimiters" doc:"cut after these strings instead of using the sentence rules (Chonkie: \". \", \"! \", \"? \", \"\\n\")"`
	Abbreviations   []string `json:"abbreviations" doc:"words after which a period does not end a sentence; empty means the built-in list"`
	KeepLines       bool     `json:"keep_lines" doc:"do not end sentences at single line breaks"`
	StripWhitespace bool     `json:"strip_whitespace" doc:"trim white space from both ends of every chunk"`
}

// DefaultSentenceConfig returns Chonkie's SentenceChunker defaults, with a
// size of 512.
func DefaultSentenceConfig() SentenceConfig {
	return SentenceConfig{Size: Size{Size: 512}, MinSentences: 1, MinCharacters: 12, StripWhitespace: true}
}

// Sentence packs whole sentences into chunks (Chonkie's SentenceChunker):
// sentences shorter than MinCharacters join the next one, then consecutive
// sentences are merged while they fit, and the next chunk starts with as
// many trailing sentences of the previous one as fit in Overlap. A sentence
// larger than the size is cut at white space, then at tokens.
type Sentence struct {
	cfg      SentenceConfig
	counter  tokenize.Counter
	splitter segment.SentenceSplitter
}

// NewSentence returns a Sentence chunker.
func NewSentence(cfg SentenceConfig, counter tokenize.Counter) (*Sentence, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.MinSentences < 1 {
		return nil, fmt.Errorf("%w: min_sentences_per_chunk must be at least 1, got %d", gochunk.ErrConfig, cfg.MinSentences)
	}
	if cfg.MinCharacters < 0 {
		return nil, fmt.Errorf("%w: min_characters_per_sentence must not be negative, got %d", gochunk.ErrConfig, cfg.MinCharacters)
	}
	s := &Sentence{cfg: cfg, counter: counterOr(counter)}
	s.splitter = segment.SentenceSplitter{Delimiters: cfg.Delimiters, KeepLines: cfg.KeepLines}
	if len(cfg.Abbreviations) > 0 {
		s.splitter.Abbreviations = cfg.Abbreviations
	}
	return s, nil
}

// mergeWindow is how many pieces the sentence chunker holds before it
// packs them: packing is greedy, so every range but the last is final and
// only the pieces from the last one's start are kept, not the text's
// every sentence (32 bytes each: 16 MB for 30 MB of mixed text).
const mergeWindow = 4096

// Chunk implements gochunk.Chunker.
func (s *Sentence) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	e, err := start(doc, s.counter, s.cfg.Size, nil)
	if err != nil || doc.Text == "" {
		return nil, err
	}
	// Sentences are measured as they come; one over the size is cut into
	// parts that fit, without overlap (overlap is between chunks of whole
	// sentences). Rebalancing moves sentences between chunks, so it needs
	// them all; otherwise they are packed a window at a time.
	keepAll := s.cfg.MinSentences > 1 && s.cfg.Overlap == 0
	parts := *e
	parts.Overlap = 0
	var pieces []pack.Piece
	var ranges []pack.Range
	next := mergeWindow // pack when this many pieces wait
	pack1 := func(start, end int) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("chunking cancelled: %w", err)
		}
		if n := e.Count(start, end); n <= s.cfg.Size.Size {
			pieces = append(pieces, pack.Piece{Start: start, End: end, Size: n})
		} else {
			cut, err := parts.Split(ctx, start, end, nil)
			if err != nil {
				return err
			}
			for _, c := range cut {
				pieces = append(pieces, pack.Piece{Start: c.Start, End: c.End, Size: e.Count(c.Start, c.End)})
			}
		}
		if keepAll || len(pieces) < next {
			return nil
		}
		ranges = e.Merge(pieces, ranges)
		if err := ctx.Err(); err != nil { // Merge stops early when cancelled
			return fmt.Errorf("chunking cancelled: %w", err)
		}
		// The last range ends at the window's end only because the window
		// does: pack again from its first piece with the pieces after.
		last := ranges[len(ranges)-1]
		ranges = ranges[:len(ranges)-1]
		k, _ := slices.BinarySearchFunc(pieces, last.Start, func(p pack.Piece, at int) int { return cmp.Compare(p.Start, at) })
		pieces = append(pieces[:0], pieces[k:]...)
		// A range of more than half a window (a large size over short
		// sentences) doubles the window, so packing stays linear.
		next = max(mergeWindow, 2*len(pieces))
		return nil
	}
	// A sentence shorter than min_characters_per_sentence joins the next
	// (the last one, the one before), so each is packed once the next is
	// known. The splitter's ranges partition the text: a sentence starts
	// where the one before ends.
	held, pending := pack.Range{Start: -1}, -1
	for r := range s.splitter.All(doc.Text) {
		st := r.Start
		if pending >= 0 {
			st = pending
		}
		t := pack.Trim(doc.Text, pack.Range{Start: st, End: r.End})
		if utf8.RuneCountInString(doc.Text[t.Start:t.End]) < s.cfg.MinCharacters {
			pending = st
			continue
		}
		pending = -1
		if held.Start >= 0 {
			if err := pack1(held.Start, held.End); err != nil {
				return nil, err
			}
		}
		held = pack.Range{Start: st, End: r.End}
	}
	switch {
	case pending >= 0 && held.Start >= 0:
		held.End = len(doc.Text)
	case pending >= 0:
		held = pack.Range{Start: pending, End: len(doc.Text)}
	}
	if held.Start >= 0 {
		if err := pack1(held.Start, held.End); err != nil {
			return nil, err
		}
	}
	ranges = e.Merge(pieces, ranges)
	if keepAll {
		ranges = s.rebalance(e, pieces, ranges)
	}
	return e.Build(ctx, ranges, s.cfg.StripWhitespace)
}

// rebalance gives a chunk that packing left with fewer than
// min_sentences_per_chunk sentences (the last one, or one after a long
// sentence) sentences from the end of the chunk before it, as long as that
// one keeps at least as many and the chunk stays within the size.
func (s *Sentence) rebalance(e *pack.Engine, pieces []pack.Piece, ranges []pack.Range) []pack.Range {
	m := s.cfg.MinSentences
	// first[k] is the index of range k's first piece.
	first := make([]int, len(ranges)+1)
	p := 0
	for k, r := range ranges {
		for p < len(pieces) && pieces[p].Start < r.Start {
			p++
		}
		first[k] = p
	}
	first[len(ranges)] = len(pieces)
	for k := 1; k < len(ranges); k++ {
		for first[k+1]-first[k] < m && first[k]-first[k-1] > m {
			moved := first[k] - 1
			if e.Count(pieces[moved].Start, ranges[k].End) > s.cfg.Size.Size {
				break
			}
			first[k] = moved
			ranges[k].Start = pieces[moved].Start
			ranges[k-1].End = pieces[moved-1].End
		}
	}
	return ranges
}
