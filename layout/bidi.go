package layout

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// Right-to-left text (Arabic, Hebrew, Persian, Urdu) comes out of a PDF in
// the order its glyphs are drawn, which is neither its reading order nor,
// after PDFium's own reordering, the order they stand on the line. A page
// holding such text has its lines built from where the characters stand
// (as pdftotext builds them), each line's characters then turned from the
// order they show in (left to right) to the order they are read in, by the
// levels of the Unicode bidirectional algorithm.

// hasRTL reports whether runs hold a right-to-left letter.
func hasRTL(runs []pdfRun) bool {
	for _, r := range runs {
		for _, c := range r.text {
			if c >= 0x0590 && isRTL(c) {
				return true
			}
		}
	}
	return false
}

func isRTL(c rune) bool {
	p, _ := bidi.LookupRune(c)
	cl := p.Class()
	return cl == bidi.R || cl == bidi.AL
}

// positionLines builds lines from where runs stand rather than from the
// order they come in: runs on one band (overlapping it by half their
// height), left to right, cut into lines at a gutter (2.5
// ems) and into words at a gap (0.2 em) or where the PDF writes a space
// between them; each line's text is put into reading order.
func positionLines(runs []pdfRun) []pdfLine {
	type char struct {
		pdfRun
		idx   int  // among the runs that are not spaces
		space bool // a space follows it in the PDF
	}
	var cs []char
	for _, r := range runs {
		if strings.TrimFunc(r.text, isPDFSpace) == "" {
			if len(cs) > 0 {
				cs[len(cs)-1].space = true
			}
			continue
		}
		if r.y1 <= r.y0 {
			continue
		}
		cs = append(cs, char{pdfRun: r, idx: len(cs)})
	}
	spaced := func(a, b char) bool { // a space between them in the PDF's order
		return a.idx+1 == b.idx && a.space || b.idx+1 == a.idx && b.space
	}
	mid := func(c char) float64 { return (c.y0 + c.y1) / 2 }
	sort.SliceStable(cs, func(i, j int) bool { return mid(cs[i]) < mid(cs[j]) })
	var lines []pdfLine
	for i := 0; i < len(cs); {
		// A glyph's box may be its ink (an alef is taller than a beh):
		// the band grows to hold the glyphs that overlap it by half.
		top, bottom := cs[i].y0, cs[i].y1
		j := i + 1
		for ; j < len(cs); j++ {
			c := cs[j]
			if math.Min(bottom, c.y1)-math.Max(top, c.y0) < 0.5*math.Min(bottom-top, c.y1-c.y0) {
				break
			}
			top, bottom = math.Min(top, c.y0), math.Max(bottom, c.y1)
		}
		band := cs[i:j]
		sort.SliceStable(band, func(a, b int) bool { return band[a].x0 < band[b].x0 })
		var cur pdfLine
		var words []string
		var word strings.Builder
		flushWord := func() {
			if word.Len() > 0 {
				words = append(words, word.String())
				word.Reset()
			}
		}
		flushLine := func() {
			flushWord()
			if len(words) > 0 {
				cur.words = strings.Fields(logicalOrder(strings.Join(words, " ")))
				if len(cur.words) > 0 {
					lines = append(lines, cur)
				}
			}
			cur, words = pdfLine{}, nil
		}
		for k, c := range band {
			if k > 0 {
				prev := band[k-1]
				em := math.Max(cur.size, c.size)
				gap := c.x0 - cur.x1
				switch {
				case gap > 2.5*em:
					flushLine()
				case gap > 0.2*em || spaced(prev, c):
					flushWord()
				}
			}
			if cur.size == 0 {
				cur.x0, cur.y0, cur.x1, cur.y1, cur.size = c.x0, c.y0, c.x1, c.y1, c.size
			} else {
				cur.x0, cur.y0 = math.Min(cur.x0, c.x0), math.Min(cur.y0, c.y0)
				cur.x1, cur.y1 = math.Max(cur.x1, c.x1), math.Max(cur.y1, c.y1)
				cur.size = math.Max(cur.size, c.size)
			}
			for _, r := range c.text {
				switch {
				case r == 2: // PDFium's mark for a hyphen that ends a line
					word.WriteByte('-')
				case unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF:
				default:
					word.WriteRune(r)
				}
			}
		}
		flushLine()
		i = j
	}
	return lines
}

// logicalOrder turns a line's text from the order it shows in, left to
// right, into the order it is read in. The line reads right to left when
// most of its letters do. Each character gets the level the Unicode
// bidirectional algorithm would give it (simplified to one paragraph
// level, no explicit embeddings): left-to-right letters even, right-to-left
// letters odd, numbers a level above a right-to-left letter before them,
// other characters their neighbours' level where both agree and the
// line's otherwise; the runs at each level are then reversed, lowest level
// first (the inverse of the algorithm's rule L2). Arabic presentation
// forms are written as the letters they show.
func logicalOrder(s string) string {
	rs := []rune(s)
	nl, nr := 0, 0
	cls := make([]bidi.Class, len(rs))
	for i, r := range rs {
		p, _ := bidi.LookupRune(r)
		cls[i] = p.Class()
		switch cls[i] {
		case bidi.L:
			nl++
		case bidi.R, bidi.AL:
			nr++
		}
	}
	if nr == 0 {
		return s
	}
	para := 0
	if nr > nl {
		para = 1
	}
	const unset = -1
	lv := make([]int, len(rs))
	strong := make([]int, len(rs)) // 0 left to right, 1 right to left, unset neutral
	for i := range rs {
		lv[i], strong[i] = unset, unset
		switch cls[i] {
		case bidi.L:
			strong[i] = 0
			lv[i] = para + para // 0, or 2 in a right-to-left line
		case bidi.R, bidi.AL:
			strong[i] = 1
			lv[i] = 1
		}
	}
	// Numbers: in a right-to-left line, or after a right-to-left letter
	// (looking left past neutrals), they read left to right inside it.
	last := para
	for i := range rs {
		switch {
		case strong[i] != unset:
			last = strong[i]
		case cls[i] == bidi.EN || cls[i] == bidi.AN:
			if last == 1 || cls[i] == bidi.AN {
				lv[i], strong[i] = 2, 1 // a right-to-left neighbour to neutrals
			} else {
				lv[i], strong[i] = para+para, 0
			}
		}
	}
	// Neutrals take the direction of their neighbours where both agree.
	for i := 0; i < len(rs); {
		if lv[i] != unset {
			i++
			continue
		}
		j := i
		for j < len(rs) && lv[j] == unset {
			j++
		}
		before, after := para, para
		if i > 0 {
			before = strong[i-1]
		}
		if j < len(rs) {
			after = strong[j]
		}
		l := para
		if before == after {
			l = before
			if l == 0 && para == 1 {
				l = 2
			}
		}
		for k := i; k < j; k++ {
			lv[k] = l
		}
		i = j
	}
	top := 0
	for _, l := range lv {
		top = max(top, l)
	}
	for level := 1; level <= top; level++ {
		for i := 0; i < len(rs); {
			if lv[i] < level {
				i++
				continue
			}
			j := i
			for j < len(rs) && lv[j] >= level {
				j++
			}
			for a, b := i, j-1; a < b; a, b = a+1, b-1 {
				rs[a], rs[b] = rs[b], rs[a]
				lv[a], lv[b] = lv[b], lv[a]
			}
			i = j
		}
	}
	var sb strings.Builder
	for _, r := range rs {
		if r >= 0xFB50 && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF {
			sb.WriteString(norm.NFKC.String(string(r)))
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
