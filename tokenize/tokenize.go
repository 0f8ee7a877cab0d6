// Package tokenize measures text in the units chunk sizes are given in:
// code points, words, UTF-8 bytes, tiktoken tokens (cl100k_base,
// o200k_base, embedded, no download) and Hugging Face WordPiece tokens read
// from a tokenizer.json file.
//
// Every Counter here is safe for concurrent use. Counters that can say where
// their tokens end implement Encoder, which chunkers use to cut an oversized
// piece of text at token boundaries.
package tokenize

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Counter measures the size of a text.
type Counter interface {
	// Count returns the number of units in text.
	Count(text string) int
	// Name is the counter's name, as accepted by New.
	Name() string
}

// Cutter is implemented by tokenizers that know where their
// pre-tokenizer always cuts text: for i = Cut(text, from), the tokens of
// text[:i] followed by those of text[i:] are the tokens of text, so parts
// cut there can be tokenized apart (on several cores).
type Cutter interface {
	// Cut returns the first such position at or after from, or len(text).
	// Whether a position is a cut depends only on the text up to and
	// including the character there, so a caller bounds the scan by
	// passing a prefix of the text.
	Cut(text string, from int) int
}

// SegmentCounter is a Counter whose text can be counted a run of segments
// at a time without listing its tokens: a chunker that needs token ends
// only near its cuts counts the rest of its windows this way.
type SegmentCounter interface {
	// CountSegments returns the end of the longest run of whole segments
	// at the start of text whose tokens number at most budget, and that
	// number. A segment is a piece the counter's pre-tokenizer always cuts
	// text around, so the run's tokens are those of the text there when
	// text starts at a cut (see Cutter): for a byte-level BPE, from one
	// space or tab that follows a non-space character to the next.
	CountSegments(text string, budget int) (end, n int)
	// AppendSegmentTokenEnds is AppendTokenEnds of the run of segments
	// CountSegments(text, budget) returns: dst with the ends of its
	// tokens appended, and its end.
	AppendSegmentTokenEnds(dst []int, text string, budget int) ([]int, int)
}

// Encoder is a Counter that also reports where its tokens end.
type Encoder interface {
	Counter
	// AppendTokenEnds appends to dst the byte offset just past each token
	// of text, in increasing order, and returns the extended slice. The last
	// offset is len(text) unless text ends in characters that produce no
	// token (such as whitespace for a word counter). Offsets may fall inside
	// a multi-byte character for byte-level tokenizers; callers that cut text
	// move such cuts to a character boundary.
	AppendTokenEnds(dst []int, text string) []int
}

// Additive is implemented by counters for which the count of a
// concatenation is the sum of the counts of its parts, at any character
// boundary. Chunkers use it to skip verifying merged sizes.
type Additive interface {
	Additive() bool
}

// IsAdditive reports whether c is additive.
func IsAdditive(c Counter) bool {
	a, ok := c.(Additive)
	return ok && a.Additive()
}

// ErrUnknown reports an unknown tokenizer name.
var ErrUnknown = errors.New("unknown tokenizer")

// New returns the counter with the given name: "runes", "words", "bytes",
// "cl100k_base", "o200k_base", or "hf:PATH" for a Hugging Face
// tokenizer.json file (or a directory holding one).
func New(name string) (Counter, error) {
	switch {
	case name == "" || name == "runes" || name == "characters" || name == "chars":
		return Runes{}, nil
	case name == "words":
		return Words{}, nil
	case name == "bytes":
		return Bytes{}, nil
	case name == "cl100k_base" || name == "o200k_base":
		return NewTikToken(name)
	case strings.HasPrefix(name, "hf:"):
		return LoadHF(strings.TrimPrefix(name, "hf:"))
	}
	return nil, fmt.Errorf("%w %q: want runes, words, bytes, cl100k_base, o200k_base or hf:PATH", ErrUnknown, name)
}

// Runes counts Unicode code points. It is the default unit.
type Runes struct{}

// Count returns the number of code points in text (see RuneCount).
func (Runes) Count(text string) int { return RuneCount(text) }

// Name returns "runes".
func (Runes) Name() string { return "runes" }

// Additive reports true.
func (Runes) Additive() bool { return true }

// AppendTokenEnds appends the end of every code point.
func (Runes) AppendTokenEnds(dst []int, text string) []int {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
		} else {
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
		}
		dst = append(dst, i)
	}
	return dst
}

// Bytes counts UTF-8 bytes.
type Bytes struct{}

// Count returns len(text).
func (Bytes) Count(text string) int { return len(text) }

// Name returns "bytes".
func (Bytes) Name() string { return "bytes" }

// Additive reports true.
func (Bytes) Additive() bool { return true }

// AppendTokenEnds appends every byte offset from 1 to len(text).
func (Bytes) AppendTokenEnds(dst []int, text string) []int {
	for i := 1; i <= len(text); i++ {
		dst = append(dst, i)
	}
	return dst
}

// Words counts maximal runs of non-space characters (what strings.Fields
// returns). A word token spans the word and the spaces after it.
type Words struct{}

// Count returns the number of words in text.
func (Words) Count(text string) int {
	n := 0
	inWord := false
	for i := 0; i < len(text); {
		c := text[i]
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// Name returns "words".
func (Words) Name() string { return "words" }

// AppendTokenEnds appends, for each word, the offset where the next word
// starts (the last word ends at len(text)).
func (Words) AppendTokenEnds(dst []int, text string) []int {
	inWord := false
	seen := false
	for i := 0; i < len(text); {
		c := text[i]
		start := i
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !inWord {
			if seen {
				dst = append(dst, start)
			}
			seen = true
		}
		inWord = !space
	}
	if seen {
		dst = append(dst, len(text))
	}
	return dst
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// Func adapts a counting function, such as a call into another tokenizer,
// to a Counter. Chunkers find cut points for a Func by binary search, so it
// should be fast and monotone (a longer text never counts less).
type Func struct {
	Fn    func(string) int
	Label string
}

// Count calls f.Fn.
func (f Func) Count(text string) int { return f.Fn(text) }

// Name returns f.Label, or "func".
func (f Func) Name() string {
	if f.Label == "" {
		return "func"
	}
	return f.Label
}

// OrRunes returns c, or Runes when c is nil: the size unit of a chunker
// given none.
func OrRunes(c Counter) Counter {
	if c == nil {
		return Runes{}
	}
	return c
}

// Decoder is a Counter that turns token ids back into text (tiktoken,
// Hugging Face WordPiece).
type Decoder interface {
	Counter
	Decode(ids []int) (string, error)
}
