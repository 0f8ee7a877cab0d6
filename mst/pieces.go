package mst

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/segment"
)

// Segmenter values: how the MST chunker's pre-chunker cuts text.
const (
	// SegmentLines follows the seed's pre-chunker, Jina AI's rule-based
	// text segmenter: headings, list items and fenced code blocks are
	// pieces, runs of table rows up to MaxTableRows, and every other line
	// is a piece whole when it holds at most MaxLineChars characters, or
	// is cut into sentences otherwise.
	SegmentLines = "lines"
	// SegmentSentences cuts every paragraph into sentences.
	SegmentSentences = "sentences"
)

// The limits of Jina AI's segmenter that the lines mode keeps.
const (
	MaxLineChars = 800 // a standalone line up to this long is one piece
	MaxTableRows = 20  // table rows in one piece
)

// Pieces cuts e.Text into many short pieces for the MST chunker, as the
// reference's rule-based text segmenter does: every heading line, list
// item and fenced code block is a piece, runs of up to MaxTableRows table
// rows are a piece, and the lines of paragraphs are pieces whole up to
// MaxLineChars characters (mode SegmentLines) or cut into sentences
// (SegmentSentences, or a longer line); any piece over maxPiece tokens is
// cut further (at white space, then tokens). Pieces are in order and cover
// every non-space character once; Size holds each piece's token count.
func Pieces(ctx context.Context, e *pack.Engine, maxPiece int, mode string) ([]pack.Piece, error) {
	text := e.Text
	var out []pack.Piece
	add := func(a, b int) error {
		r := pack.Trim(text, pack.Range{Start: a, End: b})
		if r.End <= r.Start {
			return nil
		}
		if n := e.CountUpTo(r.Start, r.End, maxPiece); n <= maxPiece {
			out = append(out, pack.Piece{Start: r.Start, End: r.End, Size: n})
			return nil
		}
		sub := *e
		sub.Limit, sub.Overlap = maxPiece, 0
		parts, err := sub.Split(ctx, r.Start, r.End, nil)
		if err != nil {
			return err
		}
		for _, p := range parts {
			if p.End > p.Start {
				out = append(out, pack.Piece{Start: p.Start, End: p.End, Size: e.Count(p.Start, p.End)})
			}
		}
		return nil
	}
	lines := segment.Lines(text)
	para := -1 // start of the paragraph being collected (sentences mode)
	flushPara := func(end int) error {
		if para < 0 {
			return nil
		}
		for _, s := range segment.Sentences(text[para:end]) {
			if err := add(para+s.Start, para+s.End); err != nil {
				return err
			}
		}
		para = -1
		return nil
	}
	for i := 0; i < len(lines); i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ln := lines[i]
		t := strings.TrimSpace(text[ln.Start:ln.End])
		switch {
		case t == "":
			if err := flushPara(ln.Start); err != nil {
				return nil, err
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if err := flushPara(ln.Start); err != nil {
				return nil, err
			}
			fence := t[:3]
			j := i + 1
			for ; j < len(lines); j++ {
				if strings.HasPrefix(strings.TrimSpace(text[lines[j].Start:lines[j].End]), fence) {
					break
				}
			}
			end := len(text)
			if j < len(lines) {
				end = lines[j].End
			}
			if err := add(ln.Start, end); err != nil {
				return nil, err
			}
			i = j
		case strings.HasPrefix(t, "|"):
			if err := flushPara(ln.Start); err != nil {
				return nil, err
			}
			// A run of table rows, MaxTableRows at a time in lines mode.
			rows := 1
			if mode == SegmentLines {
				rows = MaxTableRows
			}
			j := i
			for j+1 < len(lines) && j+1-i < rows && strings.HasPrefix(strings.TrimSpace(text[lines[j+1].Start:lines[j+1].End]), "|") {
				j++
			}
			if err := add(ln.Start, lines[j].End); err != nil {
				return nil, err
			}
			i = j
		case isHeading(t) || isListItem(t):
			if err := flushPara(ln.Start); err != nil {
				return nil, err
			}
			if err := add(ln.Start, ln.End); err != nil {
				return nil, err
			}
		case mode == SegmentLines:
			if utf8.RuneCountInString(t) <= MaxLineChars {
				if err := add(ln.Start, ln.End); err != nil {
					return nil, err
				}
				continue
			}
			para = ln.Start
			if err := flushPara(ln.End); err != nil {
				return nil, err
			}
		default:
			if para < 0 {
				para = ln.Start
			}
		}
	}
	if err := flushPara(len(text)); err != nil {
		return nil, err
	}
	return out, nil
}

// keepHeadings cuts the piece after each heading in two where the two
// would not fit in one chunk of limit tokens together: a first part that
// fits beside the heading, and the rest. Packing then never has to leave a
// heading alone at the end of one chunk with its text in the next.
func keepHeadings(ctx context.Context, e *pack.Engine, pieces []pack.Piece, limit int) ([]pack.Piece, error) {
	out := make([]pack.Piece, 0, len(pieces))
	for i := 0; i < len(pieces); i++ {
		h := pieces[i]
		out = append(out, h)
		if i+1 == len(pieces) || !segment.HeadingLike(e.Text[h.Start:h.End]) {
			continue
		}
		next := pieces[i+1]
		over := e.Count(h.Start, next.End) - limit
		for room := next.Size - over; over > 0 && room >= 1; room -= over {
			sub := *e
			sub.Limit, sub.Overlap = room, 0
			parts, err := sub.Split(ctx, next.Start, next.End, nil)
			if err != nil {
				return nil, err
			}
			first := pack.Trim(e.Text, pack.Range{Start: parts[0].Start, End: parts[0].End})
			if over = e.Count(h.Start, first.End) - limit; over > 0 {
				continue
			}
			rest := pack.Trim(e.Text, pack.Range{Start: first.End, End: next.End})
			out = append(out, pack.Piece{Start: first.Start, End: first.End, Size: e.Count(first.Start, first.End)})
			if rest.End > rest.Start {
				out = append(out, pack.Piece{Start: rest.Start, End: rest.End, Size: e.Count(rest.Start, rest.End)})
			}
			i++
			break
		}
	}
	return out, nil
}

func isHeading(t string) bool {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n > 0 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

func isListItem(t string) bool {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+' || t[0] == '>') && (t[1] == ' ' || t[1] == '\t') {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
