package layout

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pdfRun is a run of text in one font on one line, with its box (top-left
// coordinates) and its font's size.
type pdfRun struct {
	text           string
	x0, y0, x1, y1 float64
	size           float64
	style          uint8 // its font's (styleKnown, styleBold, styleItalic); 0 unknown
}

// pdfLine is a line of words with its box and its largest font size;
// boxes, where set, are its words' (x0, x1), for finding tables.
type pdfLine struct {
	x0, y0, x1, y1 float64
	size           float64
	words          []string
	boxes          [][2]float64
	styled, bold   int // characters of known style, and of them bold
	italic         int
	// cuts are the places inside its words where two letters stand a
	// little apart on a line whose letters otherwise touch (cells of a
	// tight table drawn without a space between them, "0.2%30,708"):
	// the table finders take them as word boundaries (splitCuts).
	cuts []wordCut
	// glued, where set, tells the words that go on the word before them
	// without a space: pieces of one word cut at its cuts.
	glued []bool
}

// wordCut is a place inside a line's word where its letters stand apart.
type wordCut struct {
	word, at int     // the word's index, and the byte of its text the cut is before
	x1, x0   float64 // the left piece's right edge and the right piece's left edge
}

// groupBlocks groups a page's runs, in the engine's order, into lines and
// the lines into blocks, as Poppler's -bbox-layout does.
// A page with right-to-left text has its lines built from where its
// characters stand (positionLines).
// Tables are taken out of the lines first (findTables).
func groupBlocks(runs []pdfRun) []block {
	if hasRTL(runs) {
		return linesToBlocks(positionLines(runs))
	}
	tables, rest := findTables(splitCuts(groupLines(runs)))
	return append(linesToBlocks(joinCuts(rest)), tables...)
}

// groupLines joins runs into lines while the next run is beside the last
// one (on the same band, not back to the left nor past a gutter), and cuts
// the lines' text into words at white space and at gaps without one.
func groupLines(runs []pdfRun) []pdfLine {
	var lines []pdfLine
	var cur pdfLine
	var word strings.Builder
	lastX1 := 0.0
	wx0, wx1 := math.Inf(1), math.Inf(-1) // the word's extent
	gap := -1.0                           // the gap in ems that started the word; -1 for a space
	var gaps []float64                    // the line's words'
	var cuts []wordCut                    // the line's letters standing apart
	letters, loose := 0, 0                // gaps between letters of a word on the line, and of them not touching
	flushWord := func() {
		if word.Len() > 0 {
			cur.words = append(cur.words, word.String())
			cur.boxes = append(cur.boxes, [2]float64{wx0, wx1})
			gaps = append(gaps, gap)
			word.Reset()
		}
		wx0, wx1, gap = math.Inf(1), math.Inf(-1), -1
	}
	flushLine := func() {
		flushWord()
		if len(cur.words) > 0 {
			n := len(cur.words)
			joinLetterSpaced(&cur, gaps)
			// Cuts count where the line's other letters touch: letters
			// set apart all along a line (spaced out to justify it) or
			// a line whose words were joined are cut nowhere.
			if len(cuts) > 0 && len(cur.words) == n && loose-len(cuts) <= letters/20 {
				cur.cuts = append([]wordCut(nil), cuts...)
			}
			lines = append(lines, cur)
		}
		cur, gaps, cuts, letters, loose = pdfLine{}, gaps[:0], cuts[:0], 0, 0
	}
	for _, r := range runs {
		if strings.TrimFunc(r.text, isPDFSpace) == "" {
			flushWord()
			continue
		}
		if cur.size > 0 {
			h := math.Min(cur.y1-cur.y0, r.y1-r.y0)
			ov := math.Min(r.y1, cur.y1) - math.Max(r.y0, cur.y0)
			em := math.Max(cur.size, r.size)
			switch {
			case ov < 0.4*h, r.x0 < lastX1-em, r.x0 > lastX1+2.5*em:
				flushLine()
			case r.x0 > lastX1+0.3*em:
				flushWord() // a gap the PDF spaces by position
				gap = (r.x0 - lastX1) / em
			case word.Len() > 0:
				letters++
				// Not between two lower-case letters: a ligature's box
				// ("offi ces") leaves such gaps; cells start otherwise.
				if r.x0 > lastX1+cutGap*em && !(unicode.IsLower(lastRune(word.String())) && unicode.IsLower(firstRune(r.text))) {
					cuts = append(cuts, wordCut{word: len(cur.words), at: word.Len(), x1: lastX1, x0: r.x0})
				}
				if r.x0 > lastX1+0.03*em {
					loose++
				}
			}
		}
		if cur.size == 0 {
			cur.x0, cur.y0, cur.x1, cur.y1, cur.size = r.x0, r.y0, r.x1, r.y1, r.size
		} else {
			cur.x0, cur.y0 = math.Min(cur.x0, r.x0), math.Min(cur.y0, r.y0)
			cur.x1, cur.y1 = math.Max(cur.x1, r.x1), math.Max(cur.y1, r.y1)
			cur.size = math.Max(cur.size, r.size)
		}
		lastX1 = r.x1
		wx0, wx1 = math.Min(wx0, r.x0), math.Max(wx1, r.x1)
		countStyle(&cur, r.style)
		for _, c := range r.text {
			switch {
			case isPDFSpace(c):
				flushWord()
			case c == 2: // PDFium's mark for a hyphen that ends a line
				word.WriteByte('-')
			case unmappedGlyph(c) && word.Len() == 0 && len(cur.words) == 0:
				// A glyph of no Unicode value alone before a line's
				// text: LaTeX's \bullet (cmsy10, U+0088), a list's
				// bullet, written as bulletText writes it.
				word.WriteString("•")
			case unicode.IsControl(c) || c == 0xFFFE || c == 0xFFFF:
			default:
				word.WriteRune(c)
			}
		}
	}
	flushLine()
	return lines
}

// cutGap is the gap, in ems, between two letters of a word that cuts it
// for the table finders, on a line whose letters otherwise touch: cells
// of a table set without padding stand 0.1 to 0.3 em apart (Chromium's
// default 1 px each side), letters of a word less than 0.05 em.
const cutGap = 0.08

// splitCuts returns lines with their words cut at their cuts, each piece
// after the first of a word marked glued; lines without cuts are as
// they were.
func splitCuts(lines []pdfLine) []pdfLine {
	var out []pdfLine
	for k, l := range lines {
		if len(l.cuts) == 0 {
			if out != nil {
				out = append(out, l)
			}
			continue
		}
		if out == nil {
			out = append(make([]pdfLine, 0, len(lines)), lines[:k]...)
		}
		nl := l
		nl.cuts = nil
		nl.words = make([]string, 0, len(l.words)+len(l.cuts))
		nl.boxes = make([][2]float64, 0, len(l.words)+len(l.cuts))
		nl.glued = make([]bool, 0, len(l.words)+len(l.cuts))
		c := 0
		for i, w := range l.words {
			from, x0 := 0, l.boxes[i][0]
			for ; c < len(l.cuts) && l.cuts[c].word == i; c++ {
				cut := l.cuts[c]
				nl.words = append(nl.words, w[from:cut.at])
				nl.boxes = append(nl.boxes, [2]float64{x0, cut.x1})
				nl.glued = append(nl.glued, from > 0)
				from, x0 = cut.at, cut.x0
			}
			nl.words = append(nl.words, w[from:])
			nl.boxes = append(nl.boxes, [2]float64{x0, l.boxes[i][1]})
			nl.glued = append(nl.glued, from > 0)
		}
		out = append(out, nl)
	}
	if out == nil {
		return lines
	}
	return out
}

// addWord appends word i of l to nl, glued to the word before it where
// it is in l and prevKept says that word is kept.
func (nl *pdfLine) addWord(l pdfLine, i int, prevKept bool) {
	nl.words = append(nl.words, l.words[i])
	nl.boxes = append(nl.boxes, l.boxes[i])
	if l.glued != nil {
		nl.glued = append(nl.glued, prevKept && l.glued[i] && len(nl.words) > 1)
	}
}

// gluedAt reports whether word i of l goes on the word before it.
func (l *pdfLine) gluedAt(i int) bool { return i < len(l.glued) && l.glued[i] }

// joinCuts joins the pieces splitCuts made of a word again, where they
// are still beside each other: the lines left outside tables read as
// they would have without cuts.
func joinCuts(lines []pdfLine) []pdfLine {
	for k := range lines {
		l := &lines[k]
		if l.glued == nil {
			continue
		}
		words := make([]string, 0, len(l.words))
		boxes := make([][2]float64, 0, len(l.words))
		for i, w := range l.words {
			if n := len(words); n > 0 && l.glued[i] {
				words[n-1] += w
				boxes[n-1][1] = l.boxes[i][1]
				continue
			}
			words, boxes = append(words, w), append(boxes, l.boxes[i])
		}
		l.words, l.boxes, l.glued = words, boxes, nil
	}
	return lines
}

// joinLetterSpaced joins the letters of letter-spaced words ("S U M M A
// R Y"), which their gaps cut into words of a letter each: on a line with
// a run of three such letters, a run of two letters or more (a
// punctuation mark may end it), each cut from the last by a gap within
// 0.15 em of the narrowest such gap on the line, is a word.
// Numbers and symbols standing apart ("1 @ $9.99") are not joined.
func joinLetterSpaced(l *pdfLine, gaps []float64) {
	letter := func(k int) bool {
		r, n := utf8.DecodeRuneInString(l.words[k])
		return n == len(l.words[k]) && unicode.IsLetter(r)
	}
	mark := func(k int) bool {
		r, n := utf8.DecodeRuneInString(l.words[k])
		return n == len(l.words[k]) && unicode.IsPunct(r)
	}
	narrowest := math.Inf(1)
	for k := 1; k < len(l.words); k++ {
		if gaps[k] >= 0 && letter(k-1) && letter(k) {
			narrowest = math.Min(narrowest, gaps[k])
		}
	}
	if math.IsInf(narrowest, 1) {
		return
	}
	joined := func(k int) bool { // word k goes on a letter-spaced word
		return gaps[k] >= 0 && gaps[k] < narrowest+0.15 && letter(k-1) && (letter(k) || mark(k))
	}
	// Three letters so spaced show the line is; then two make a word.
	spaced := false
	for k, run := 1, 1; k < len(l.words) && !spaced; k++ {
		if run = run*b2i(joined(k)) + 1; run >= 3 {
			spaced = true
		}
	}
	if !spaced {
		return
	}
	words := make([]string, 0, len(l.words))
	boxes := make([][2]float64, 0, len(l.words))
	for k := 0; k < len(l.words); {
		j := k + 1
		for j < len(l.words) && joined(j) {
			j++
		}
		if j-k >= 2 {
			w := strings.Join(l.words[k:j], "")
			words, boxes = append(words, w), append(boxes, [2]float64{l.boxes[k][0], l.boxes[j-1][1]})
		} else {
			words, boxes = append(words, l.words[k:j]...), append(boxes, l.boxes[k:j]...)
		}
		k = j
	}
	l.words, l.boxes = words, boxes
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isPDFSpace(r rune) bool { return r == 0 || unicode.IsSpace(r) }

// linesToBlocks joins each line to the block whose last line is just above
// it (bottoms at most 1.6 of its loose height apart, which is about 1.8
// of its font size; overlapping it horizontally; of about its size), else
// starts a block: paragraphs, column by column, whatever order
// the PDF writes its lines in.
func linesToBlocks(lines []pdfLine) []block {
	type building struct {
		b     block
		last  pdfLine
		sizes float64
	}
	var bs []*building
	for _, l := range lines {
		var best *building
		bestGap := math.Inf(1)
		// Only recent blocks are candidates: a page of thousands of lines
		// stays linear.
		for _, b := range bs[max(0, len(bs)-32):] {
			L := b.last
			if l.size > 1.25*L.size || L.size > 1.25*l.size {
				continue
			}
			em := math.Max(l.size, L.size)
			gap := l.y1 - L.y1
			if gap < 0.5*em || gap > 1.6*em {
				continue
			}
			if math.Min(l.x1, L.x1)-math.Max(l.x0, L.x0) <= 0 {
				continue
			}
			if gap < bestGap {
				best, bestGap = b, gap
			}
		}
		text := strings.Join(l.words, " ")
		item := startsItemLine(l)
		if item || best != nil && breaksBlock(best.b, best.last, l) {
			best = nil // a list item starts a block, and so does a change of look (breaksBlock)
		}
		if best == nil {
			b := block{x0: l.x0, y0: l.y0, x1: l.x1, y1: l.y1, lines: []string{text}, bold: lineBold(l), italic: lineItalic(l)}
			if item && len(l.boxes) > 1 {
				b.textX = l.boxes[1][0]
			}
			bs = append(bs, &building{b: b, last: l, sizes: l.size})
			continue
		}
		b := &best.b
		b.x0, b.y0 = math.Min(b.x0, l.x0), math.Min(b.y0, l.y0)
		b.x1, b.y1 = math.Max(b.x1, l.x1), math.Max(b.y1, l.y1)
		b.lines = append(b.lines, text)
		b.italic = b.italic && lineItalic(l)
		best.last = l
		best.sizes += l.size
	}
	out := make([]block, len(bs))
	for i, b := range bs {
		out[i] = b.b
		out[i].lineHeight = b.sizes / float64(len(b.b.lines))
	}
	return out
}
