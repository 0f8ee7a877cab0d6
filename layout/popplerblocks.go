package layout

import (
	"math"
	"regexp"
	"strings"
)

// Poppler's pages get the structure PDFium's do: pdftotext -bbox-layout's
// words, each with its box, and its lines, each with its box (whose height
// is the font's ascent to descent, as PDFium's loose character boxes are),
// go through the same table finder and block builder as PDFium's lines
// (findTables, linesToBlocks), so that tables set by alignment, list items
// (a block each, nested by where their text starts) and headings by size
// come out of either engine. pdftotext's blocks are kept as it cuts them
// (its reading order), and only cut further: at a list item, and where
// the block builder sees two paragraphs. A block whose lines do not run
// top to bottom and left to right (turned text, which pdftotext has put
// in reading order) or that holds right-to-left text is kept whole, as
// pdftotext builds it, its right-to-left lines put in reading order.

// popplerBlock is a <block> of pdftotext's output: its box and its lines.
type popplerBlock struct {
	x0, y0, x1, y1 float64
	lines          []pdfLine
}

// upright reports whether b's lines run top to bottom, each one's words
// left to right, in a left-to-right script.
func (b *popplerBlock) upright() bool {
	for i, l := range b.lines {
		if rtlLine(l) {
			return false
		}
		if i > 0 && l.y0 < b.lines[i-1].y0 {
			return false
		}
		for k := 1; k < len(l.boxes); k++ {
			if l.boxes[k][0] < l.boxes[k-1][0] {
				return false
			}
		}
	}
	return true
}

// whole returns b as one block, as pdftotext builds it.
func (b *popplerBlock) whole() block {
	out := block{x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1}
	sum := 0.0
	for _, l := range b.lines {
		text := strings.Join(l.words, " ")
		if rtlLine(l) {
			// pdftotext -bbox-layout writes right-to-left text as it
			// shows, left to right (its text output reorders it).
			text = logicalOrder(text)
		}
		out.lines = append(out.lines, text)
		sum += l.size
	}
	out.lineHeight = sum / float64(max(len(b.lines), 1))
	return out
}

// popplerBlocks returns a page's blocks from pdftotext's: tables found by
// the alignment of their words, the other lines built into blocks within
// pdftotext's blocks.
func popplerBlocks(pbs []popplerBlock) []block {
	var out, tables []block
	var lines []pdfLine // of upright blocks
	var from []int      // each line's block
	for i := range pbs {
		if !pbs[i].upright() {
			continue
		}
		for _, l := range pbs[i].lines {
			lines = append(lines, l)
			from = append(from, i)
		}
	}
	// findTables keeps the order of the lines it leaves: those of a
	// block stay together.
	tables, rest := findTables(lines)
	k := 0 // lines[k] is the next line that might be in rest
	for i := range pbs {
		if !pbs[i].upright() {
			if len(pbs[i].lines) > 0 {
				out = append(out, pbs[i].whole())
			}
			continue
		}
		var own []pdfLine
		for ; k < len(lines) && from[k] == i; k++ {
			if len(rest) > 0 && sameLine(rest[0], lines[k]) {
				own = append(own, rest[0])
				rest = rest[1:]
			}
		}
		out = append(out, linesToBlocks(own)...)
	}
	return append(joinSectionNumbers(out), tables...)
}

// bareNumberRe matches a section number alone ("1", "2.3", "A.1").
var bareNumberRe = regexp.MustCompile(`^(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4}\.?$`)

// joinSectionNumbers puts a section number that pdftotext set in a block
// of its own (LaTeX sets a quad between "1" and "Introduction") back
// before the text it numbers: a block of one line, the number alone, and
// a block whose first line stands on its band within three of its sizes
// to its right.
func joinSectionNumbers(bs []block) []block {
	drop := map[int]bool{}
	for i, n := range bs {
		if len(n.lines) != 1 || n.table != nil || !bareNumberRe.MatchString(strings.TrimSpace(n.lines[0])) {
			continue
		}
		h := n.y1 - n.y0
		for j := range bs {
			b := &bs[j]
			if j == i || drop[j] || b.table != nil || len(b.lines) == 0 || b.x0 < n.x1 || b.x0 > n.x1+3*max(h, n.lineHeight) {
				continue
			}
			// The first line's band: the block's top and one line's height.
			top, bottom := b.y0, b.y0+b.lineHeight
			if math.Min(bottom, n.y1)-math.Max(top, n.y0) < 0.5*h {
				continue
			}
			b.lines[0] = strings.TrimSpace(n.lines[0]) + " " + b.lines[0]
			b.x0, b.y0, b.y1 = n.x0, math.Min(b.y0, n.y0), math.Max(b.y1, n.y1)
			drop[i] = true
			break
		}
	}
	if len(drop) == 0 {
		return bs
	}
	out := bs[:0]
	for i, b := range bs {
		if !drop[i] {
			out = append(out, b)
		}
	}
	return out
}

// sameLine reports whether a and b are the same line of the page.
func sameLine(a, b pdfLine) bool {
	return a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1 && len(a.words) == len(b.words)
}

// rtlLine reports whether l holds a right-to-left letter.
func rtlLine(l pdfLine) bool {
	for _, w := range l.words {
		for _, c := range w {
			if c >= 0x0590 && isRTL(c) {
				return true
			}
		}
	}
	return false
}
