package layout

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
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

// sectionNumberRe matches a section number alone: "1", "2.3", "4.", an
// appendix's "A.1" or "B.", never a capital letter alone (a drop cap, or
// a word's first letter set apart: "T" before "he quick").
var sectionNumberRe = regexp.MustCompile(`^(?:\d{1,2}(?:\.\d{1,2}){0,4}\.?|[A-Z](?:\.\d{1,2}){1,4}\.?|[A-Z]\.)$`)

// joinSectionNumbers puts a section number that pdftotext set in a block
// of its own (LaTeX sets a quad between "1" and "Introduction") back
// before the text it numbers: a block of one line, the number alone, and
// the nearest block to its right, within three of its sizes, whose first
// line is of the number's size, stands on the number's baseline and starts
// as a heading does (a letter not in lower case), so that a table's
// number cell before a cell of words, a drop cap or a number beside a
// line it does not stand on stays where it is.
func joinSectionNumbers(bs []block) []block {
	// Blocks by their top: a number's candidates are found by a binary
	// search, so a page of many numbers stays O(n log n).
	byTop := make([]int, len(bs))
	for i := range byTop {
		byTop[i] = i
	}
	slices.SortStableFunc(byTop, func(a, b int) int { return cmp.Compare(bs[a].y0, bs[b].y0) })
	drop := map[int]bool{}
	for i, n := range bs {
		if len(n.lines) != 1 || n.table != nil || !sectionNumberRe.MatchString(strings.TrimSpace(n.lines[0])) {
			continue
		}
		h := n.y1 - n.y0
		if h <= 0 {
			continue
		}
		// A candidate's first line is at most 1.4 times the number's
		// height, so its top is at most that far above the number's.
		lo, _ := slices.BinarySearchFunc(byTop, n.y0-1.4*h, func(j int, y float64) int { return cmp.Compare(bs[j].y0, y) })
		best := -1
		for _, j := range byTop[lo:] {
			b := &bs[j]
			if b.y0 > n.y1 {
				break
			}
			if j == i || drop[j] || b.table != nil || len(b.lines) == 0 || b.x0 < n.x1 || b.x0 > n.x1+3*max(h, n.lineHeight) {
				continue
			}
			if best >= 0 && b.x0 >= bs[best].x0 {
				continue
			}
			// The first line's band: the block's top and one line's
			// height (a line's size is its box's height), of about the
			// number's, its bottom on the number's.
			if b.lineHeight > 1.4*h || h > 1.4*b.lineHeight || math.Abs(b.y0+b.lineHeight-n.y1) > 0.3*h {
				continue
			}
			if !headingStart(b.lines[0]) {
				continue
			}
			best = j
		}
		if best < 0 {
			continue
		}
		b := &bs[best]
		b.lines[0] = strings.TrimSpace(n.lines[0]) + " " + b.lines[0]
		b.x0, b.y0, b.y1 = n.x0, math.Min(b.y0, n.y0), math.Max(b.y1, n.y1)
		drop[i] = true
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

// headingStart reports whether a line starts as a heading's text does:
// its first letter, after any opening quote or bracket, is not in lower
// case (a capital, or a letter of a script without case).
func headingStart(line string) bool {
	for _, r := range strings.TrimSpace(line) {
		switch {
		case unicode.IsLetter(r):
			return !unicode.IsLower(r)
		case strings.ContainsRune("\"'“‘«([", r):
			continue
		default:
			return false
		}
	}
	return false
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
