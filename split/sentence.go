package split

import (
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

// Chunk implements gochunk.Chunker.
func (s *Sentence) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	e, err := start(doc, s.counter, s.cfg.Size, nil)
	if err != nil || doc.Text == "" {
		return nil, err
	}
	sentences := s.splitter.Split(doc.Text)
	pieces := make([]pack.Piece, 0, len(sentences))
	pending := -1 // start of a short sentence waiting for the next
	for _, r := range sentences {
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
		pieces = append(pieces, pack.Piece{Start: st, End: r.End})
	}
	if pending >= 0 {
		if len(pieces) > 0 {
			pieces[len(pieces)-1].End = len(doc.Text)
		} else {
			pieces = append(pieces, pack.Piece{Start: pending, End: len(doc.Text)})
		}
	}
	// Measure; cut sentences over the size into parts that fit (without
	// overlap: overlap is between chunks of whole sentences). The parts
	// replace their sentence in place, filled from the back, so a large
	// text needs no second slice of pieces.
	sentences = nil // let the collector have them
	parts := *e
	parts.Overlap = 0
	var cuts map[int][]pack.Range
	extra := 0
	for i, p := range pieces {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("chunking cancelled: %w", err)
		}
		pieces[i].Size = e.Count(p.Start, p.End)
		if pieces[i].Size <= s.cfg.Size.Size {
			continue
		}
		cut, err := parts.Split(ctx, p.Start, p.End, nil)
		if err != nil {
			return nil, err
		}
		if cuts == nil {
			cuts = make(map[int][]pack.Range)
		}
		cuts[i] = cut
		extra += len(cut) - 1
	}
	fitted := pieces
	if len(cuts) > 0 {
		n := len(pieces)
		fitted = slices.Grow(pieces, extra)[:n+extra]
		w := len(fitted) - 1
		for i := n - 1; i >= 0; i-- {
			cut, ok := cuts[i]
			if !ok {
				fitted[w] = fitted[i]
				w--
				continue
			}
			for k := len(cut) - 1; k >= 0; k-- {
				fitted[w] = pack.Piece{Start: cut[k].Start, End: cut[k].End, Size: e.Count(cut[k].Start, cut[k].End)}
				w--
			}
		}
	}
	ranges := e.Merge(fitted, nil)
	if s.cfg.MinSentences > 1 && s.cfg.Overlap == 0 {
		ranges = s.rebalance(e, fitted, ranges)
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
