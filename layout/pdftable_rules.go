package layout

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Tables ruled only across (booktabs: a rule above, one under the header
// and one below; or a rule under every row) and tables whose rows are
// told apart by shading (zebra stripes, whose filled rectangles' edges
// are read as rules) are found as the "stream" modes of Camelot and
// pdfplumber find a table between rules: horizontal rules of one width,
// stacked, give the table's extent and, where they part its rows, its
// rows; the words' alignment gives its columns (gaps in the words'
// horizontal projection that run down the whole table, a cell spanning
// columns allowed to cross one). Rules around prose (a page's horizontal
// rules, a shaded note) are told apart by their content: a line of prose
// across the region, cells of many words, a column of labels ending in a
// colon beside their values, a column of list markers.

const (
	// Rules of one stack end within this many points of each other.
	stackEndTol = 3.0
	// Rules shorter than this many points are no table's.
	stackMinLen = 40.0
	// Columns of a table between rules stand this many ems apart, at
	// least (word spaces are about a quarter of an em).
	stackColumnGap = 0.45
	// A line of this many words or more filling this much of a region's
	// width is prose, not a table's row.
	stackProseWords = 7
	stackProseWidth = 0.6
	// The mean words of a table's cell, at most.
	stackMaxWords = 6.0
)

// rword is a word of a page's lines, where it stands.
type rword struct {
	x0, x1, y0, y1, size float64
	text                 string
	line, idx            int  // its line and its index in it
	glued                bool // a piece of the word before it (splitCuts)
}

// band is words on one band of a region, left to right.
type band struct {
	y0, y1 float64
	words  []rword
}

// ruleTables takes the tables between horizontal rules out of a page's
// lines: it returns them as blocks and the lines less their words.
func ruleTables(lines []pdfLine, rules pageRules) ([]block, []pdfLine) {
	if len(rules.h)+len(rules.fills) < 2 || len(lines) == 0 {
		return nil, lines
	}
	var hs []edge
	for _, e := range mergeEdges(append(append([]edge(nil), rules.h...), rules.fills...)) {
		if e.hi-e.lo >= stackMinLen {
			hs = append(hs, e)
		}
	}
	if len(hs) < 2 {
		return nil, lines
	}
	var words []rword
	for k, l := range lines {
		if len(l.boxes) != len(l.words) {
			continue
		}
		for i, b := range l.boxes {
			words = append(words, rword{x0: b[0], x1: b[1], y0: l.y0, y1: l.y1, size: l.size, text: l.words[i], line: k, idx: i, glued: l.gluedAt(i)})
		}
	}
	used := make([]bool, len(words))
	var out []block
	for _, stack := range ruleStacks(hs) {
		for _, reg := range stackRegions(stack, words, used) {
			b, taken, ok := regionTable(reg, words, used)
			if !ok {
				continue
			}
			for _, w := range taken {
				used[w] = true
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, lines
	}
	return out, linesLess(lines, words, used)
}

// ruleStacks groups horizontal rules (sorted by position) into stacks of
// rules of one width, top to bottom.
func ruleStacks(hs []edge) [][]edge {
	var stacks [][]edge
	for _, e := range hs {
		placed := false
		for k := range stacks {
			last := stacks[k][len(stacks[k])-1]
			if math.Abs(last.lo-e.lo) <= stackEndTol && math.Abs(last.hi-e.hi) <= stackEndTol {
				stacks[k] = append(stacks[k], e)
				placed = true
				break
			}
		}
		if !placed {
			stacks = append(stacks, []edge{e})
		}
	}
	return stacks
}

// region is a part of a page between rules of a stack: its extent, and
// the rules' positions within it.
type region struct {
	x0, x1 float64
	ys     []float64
}

// stackRegions cuts a stack of rules where the text between two of them
// is prose or where they stand apart with nothing between: the runs of
// two rules or more left are regions that may hold a table.
func stackRegions(stack []edge, words []rword, used []bool) []region {
	if len(stack) < 2 {
		return nil
	}
	var out []region
	x0, x1 := stack[0].lo, stack[0].hi
	for _, e := range stack {
		x0, x1 = math.Min(x0, e.lo), math.Max(x1, e.hi)
	}
	cur := region{x0: x0, x1: x1, ys: []float64{stack[0].pos}}
	flush := func() {
		if len(cur.ys) >= 2 {
			out = append(out, cur)
		}
	}
	for i := 1; i < len(stack); i++ {
		a, b := stack[i-1].pos, stack[i].pos
		ws := wordsIn(words, used, x0, x1, a, b)
		if slabBreaks(words, ws, x1-x0, a, b) {
			flush()
			cur = region{x0: x0, x1: x1, ys: []float64{b}}
			continue
		}
		cur.ys = append(cur.ys, b)
	}
	flush()
	return out
}

// wordsIn returns the indexes of the words not yet used whose middles are
// between x0 and x1 across and y0 and y1 down.
func wordsIn(words []rword, used []bool, x0, x1, y0, y1 float64) []int {
	var out []int
	for k, w := range words {
		if used[k] {
			continue
		}
		xm, ym := (w.x0+w.x1)/2, (w.y0+w.y1)/2
		if xm >= x0-1 && xm <= x1+1 && ym > y0 && ym < y1 {
			out = append(out, k)
		}
	}
	return out
}

// slabBreaks reports whether the text between two rules of a stack, at
// a and b down, parts them: a line of prose across the region, a blank
// of two lines or more (between two tables, or rules standing apart with
// nothing between).
func slabBreaks(words []rword, ws []int, width, a, b float64) bool {
	if len(ws) == 0 {
		return b-a > 36
	}
	bands := makeBands(words, ws)
	size := medianSize(words, ws)
	last := a
	for _, bd := range bands {
		if bd.y0-last > 2.5*size || isProseBand(bd, width, stackColumnGap*size) {
			return true
		}
		last = bd.y1
	}
	return b-last > 2.5*size
}

// regionTable makes the table of a region's words, or reports that they
// are none; it returns the words it takes.
func regionTable(reg region, words []rword, used []bool) (block, []int, bool) {
	top, bottom := reg.ys[0], reg.ys[len(reg.ys)-1]
	idx := wordsIn(words, used, reg.x0, reg.x1, top, bottom)
	if len(idx) < 4 {
		return block{}, nil, false
	}
	bands := makeBands(words, idx)
	size := medianSize(words, idx)
	gap := stackColumnGap * size
	for _, b := range bands {
		if isProseBand(b, reg.x1-reg.x0, gap) {
			return block{}, nil, false
		}
	}
	cols := mergeLoneColumns(bands, bandColumns(bands, gap), gap)
	if len(cols) < 2 {
		return block{}, nil, false
	}
	// Rows right above the first rule or right below the last one (a
	// header over the first stripe, a last row left unshaded) are the
	// table's when their words fall into the region's columns.
	// extend returns the band of ext nearest the region when its cells
	// start in the region's columns, two columns or more filled.
	extend := func(ext []int, up bool) (band, bool) {
		if len(ext) == 0 {
			return band{}, false
		}
		bs := makeBands(words, ext)
		b := bs[0]
		if up {
			b = bs[len(bs)-1]
		}
		if isProseBand(b, reg.x1-reg.x0, gap) {
			return band{}, false
		}
		// A caption or a sentence under the table is no row: cells of
		// a few words, at most one starting in lower case.
		cells := bandCells(b, gap)
		lower := 0
		for _, c := range cells {
			for _, w := range b.words {
				if w.x0 == c.x0 && startsLower(w.text) {
					lower++
				}
			}
		}
		if lower >= 2 || len(b.words) > 3*len(cells) {
			return band{}, false
		}
		seen := map[int]bool{}
		for _, c := range bandCells(b, gap) {
			k := -1
			for j, s := range cols {
				if c.x0 >= s.x0-1 && c.x0 <= s.x1+1 {
					k = j
				}
			}
			if k < 0 || c.x1 > reg.x1+1 {
				return band{}, false
			}
			seen[k] = true
		}
		return b, len(seen) >= 2
	}
	for range 3 {
		top := reg.ys[0]
		b, ok := extend(wordsIn(words, used, reg.x0, reg.x1, top-2.2*size, top), true)
		if !ok {
			break
		}
		bands = append([]band{b}, bands...)
		reg.ys = append([]float64{b.y0 - 0.5}, reg.ys...)
	}
	for range 3 {
		bottom := reg.ys[len(reg.ys)-1]
		b, ok := extend(wordsIn(words, used, reg.x0, reg.x1, bottom, bottom+2.2*size), false)
		if !ok {
			break
		}
		bands = append(bands, b)
		reg.ys = append(reg.ys, b.y1+0.5)
	}
	if sparseColumn(bands, cols, gap) {
		return block{}, nil, false
	}
	rows := regionRows(bands, reg.ys, cols)
	grid := make([][]string, 0, len(rows))
	cells, nwords, filled := 0, 0, 0
	markers := make([]int, len(cols))
	perCol := make([]int, len(cols))
	for _, r := range rows {
		row := make([]string, len(cols))
		n := 0
		for c, ws := range r {
			if len(ws) == 0 {
				continue
			}
			row[c] = wordsText(ws)
			n++
			cells++
			nwords += len(ws)
			perCol[c]++
			if isListMarker(row[c]) {
				markers[c]++
			}
		}
		if n == 0 {
			continue
		}
		if n >= 2 {
			filled++
		}
		grid = append(grid, row)
	}
	if len(grid) < tableMinRows || filled < 2 || cells == 0 || float64(nwords)/float64(cells) > stackMaxWords {
		return block{}, nil, false
	}
	for c := range cols {
		if perCol[c] > 0 && markers[c]*2 >= perCol[c] {
			return block{}, nil, false // a list
		}
	}
	if labelColumn(grid) {
		return block{}, nil, false // labels and their values
	}
	var taken []int
	sum := 0.0
	b := block{x0: math.Inf(1), x1: math.Inf(-1), y0: math.Inf(1), y1: math.Inf(-1), table: grid}
	for _, bd := range bands {
		for _, w := range bd.words {
			taken = append(taken, wordIndex(words, w))
			b.x0, b.x1 = math.Min(b.x0, w.x0), math.Max(b.x1, w.x1)
			b.y0, b.y1 = math.Min(b.y0, w.y0), math.Max(b.y1, w.y1)
			sum += w.size
		}
	}
	for _, r := range grid {
		b.lines = append(b.lines, rowText(r))
	}
	b.lineHeight = sum / float64(len(taken))
	return b, taken, true
}

// wordIndex finds a word's index among words by its line and place.
func wordIndex(words []rword, w rword) int {
	k := sort.Search(len(words), func(i int) bool {
		return words[i].line > w.line || words[i].line == w.line && words[i].idx >= w.idx
	})
	return k
}

func medianSize(words []rword, idx []int) float64 {
	s := make([]float64, len(idx))
	for i, k := range idx {
		s[i] = words[k].size
	}
	sort.Float64s(s)
	return s[len(s)/2]
}

// makeBands groups words into bands, top to bottom, each left to right.
func makeBands(words []rword, idx []int) []band {
	ws := make([]rword, len(idx))
	for i, k := range idx {
		ws[i] = words[k]
	}
	mid := func(w rword) float64 { return (w.y0 + w.y1) / 2 }
	sort.SliceStable(ws, func(a, b int) bool { return mid(ws[a]) < mid(ws[b]) })
	var out []band
	for _, w := range ws {
		if n := len(out); n > 0 {
			b := &out[n-1]
			if ov := math.Min(b.y1, w.y1) - math.Max(b.y0, w.y0); ov >= 0.5*math.Min(b.y1-b.y0, w.y1-w.y0) {
				b.y0, b.y1 = math.Min(b.y0, w.y0), math.Max(b.y1, w.y1)
				b.words = append(b.words, w)
				continue
			}
		}
		out = append(out, band{y0: w.y0, y1: w.y1, words: []rword{w}})
	}
	for i := range out {
		ws := out[i].words
		sort.SliceStable(ws, func(a, b int) bool { return ws[a].x0 < ws[b].x0 })
	}
	return out
}

// bandCells cuts a band into cells where its words stand gap apart.
func bandCells(b band, gap float64) []span {
	var out []span
	for _, w := range b.words {
		if n := len(out); n > 0 && w.x0-out[n-1].x1 < gap {
			out[n-1].x1 = math.Max(out[n-1].x1, w.x1)
			continue
		}
		out = append(out, span{w.x0, w.x1})
	}
	return out
}

// isProseBand reports whether a band holds a line of prose: a cell of
// many words filling most of the region's width.
func isProseBand(b band, width, gap float64) bool {
	for _, c := range bandCells(b, gap) {
		n := 0
		for _, w := range b.words {
			if w.x0 >= c.x0 && w.x1 <= c.x1 {
				n++
			}
		}
		if n >= stackProseWords && c.x1-c.x0 >= stackProseWidth*width {
			return true
		}
	}
	return false
}

// bandColumns returns a region's columns: gaps of at least gap in its
// words' horizontal projection part them, and, where it has four bands or
// more, a gap all bands but one leave, that one band's cell spanning it
// whole (a header over two columns) or running into it from one side and
// leaving a third of it (a header wider than its column's values).
func bandColumns(bands []band, gap float64) []span {
	var all []span
	of := make([][]span, len(bands))
	for i, b := range bands {
		of[i] = bandCells(b, gap)
		all = append(all, of[i]...)
	}
	if len(all) == 0 {
		return nil
	}
	x0, x1 := math.Inf(1), math.Inf(-1)
	for _, c := range all {
		x0, x1 = math.Min(x0, c.x0), math.Max(x1, c.x1)
	}
	cuts := projectionGaps(all, gap)
	if len(bands) >= 4 {
		for i := range bands {
			var others []span
			for j, cs := range of {
				if j != i {
					others = append(others, cs...)
				}
			}
			for _, g := range projectionGaps(others, gap) {
				if g.x0 <= x0 || g.x1 >= x1 || overlapsAny(cuts, g) {
					continue
				}
				// The band's cells span the gap whole (a header over
				// two columns), or leave a sliver of it (a header
				// running into it).
				var over []span
				whole := false
				for _, c := range of[i] {
					if c.x0 <= g.x0 && c.x1 >= g.x1 {
						whole = true
					}
					if c.x0 < g.x1 && c.x1 > g.x0 {
						over = append(over, c)
					}
				}
				if whole {
					cuts = append(cuts, g)
					continue
				}
				if len(over) == 1 {
					c := over[0]
					if rest := (span{math.Max(g.x0, math.Min(c.x1, g.x1)), g.x1}); c.x0 <= g.x0 && rest.x1-rest.x0 >= gap/3 {
						cuts = append(cuts, rest)
					} else if rest := (span{g.x0, math.Min(g.x1, math.Max(c.x0, g.x0))}); c.x1 >= g.x1 && rest.x1-rest.x0 >= gap/3 {
						cuts = append(cuts, rest)
					}
				}
			}
		}
		sort.Slice(cuts, func(a, b int) bool { return cuts[a].x0 < cuts[b].x0 })
	}
	var cols []span
	start := x0
	for _, c := range cuts {
		cols = append(cols, span{start, c.x0})
		start = c.x1
	}
	return append(cols, span{start, x1})
}

// mergeLoneColumns joins a column only the header (bands among the first
// four, three bands or more below them) has cells in (a header left of the figures right-aligned under it, not
// over them) to the column beside it where those bands have none, or the
// nearer one where they have none in either.
func mergeLoneColumns(bands []band, cols []span, gap float64) []span {
	head := min(4, len(bands)-3) // the bands that may be the header's
	if head < 1 {
		return cols
	}
	for len(cols) > 2 {
		// The bands with a cell over each column, and starting in it.
		in := make([]map[int]bool, len(cols))
		starts := make([]map[int]bool, len(cols))
		for i := range in {
			in[i], starts[i] = map[int]bool{}, map[int]bool{}
		}
		for bi, b := range bands {
			for _, c := range bandCells(b, gap) {
				for j, s := range cols {
					if c.x0 < s.x1 && c.x1 > s.x0 {
						in[j][bi] = true
					}
					if c.x0 >= s.x0-1 && c.x0 <= s.x1 {
						starts[j][bi] = true
					}
				}
			}
		}
		merged := false
		for j := range cols {
			// Only the header's bands in the column.
			header := len(in[j]) > 0
			for bi := range in[j] {
				header = header && bi < head
			}
			if !header {
				continue
			}
			free := func(k int) bool {
				if k < 0 || k >= len(cols) {
					return false
				}
				for bi := range in[j] {
					if starts[k][bi] {
						return false
					}
				}
				return true
			}
			left, right := free(j-1), free(j+1)
			if left && right {
				left = cols[j].x0-cols[j-1].x1 < cols[j+1].x0-cols[j].x1
				right = !left
			}
			switch {
			case left:
				cols[j-1].x1 = cols[j].x1
				cols = slices.Delete(cols, j, j+1)
			case right:
				cols[j+1].x0 = cols[j].x0
				cols = slices.Delete(cols, j, j+1)
			default:
				continue
			}
			merged = true
			break
		}
		if !merged {
			break
		}
	}
	return cols
}

// sparseColumn reports whether a region of eight bands or more has a
// column only one or two bands have cells in: lines of the page (its
// running header and footer inside a frame of rules) beside a list, not a
// table's column.
func sparseColumn(bands []band, cols []span, gap float64) bool {
	if len(bands) < 8 {
		return false
	}
	for _, s := range cols {
		n := 0
		for _, b := range bands {
			for _, c := range bandCells(b, gap) {
				if c.x0 < s.x1 && c.x1 > s.x0 {
					n++
					break
				}
			}
		}
		if n <= 2 {
			return true
		}
	}
	return false
}

// projectionGaps returns the gaps of at least minW between spans, left
// to right.
func projectionGaps(ss []span, minW float64) []span {
	ss = append([]span(nil), ss...)
	sort.Slice(ss, func(a, b int) bool { return ss[a].x0 < ss[b].x0 })
	var out []span
	end := math.Inf(-1)
	for i, s := range ss {
		if i > 0 && s.x0-end >= minW {
			out = append(out, span{end, s.x0})
		}
		end = math.Max(end, s.x1)
	}
	return out
}

func overlapsAny(ss []span, g span) bool {
	for _, s := range ss {
		if s.x0 < g.x1 && s.x1 > g.x0 {
			return true
		}
	}
	return false
}

// regionRows puts a region's words into rows of cells. The words between
// two rules (a slab) are cut into rows where a band of white runs across
// the whole region: where those bands are of two heights, only the
// taller are between rows (the shorter are between a cell's lines, the
// rows' padding adding to the taller); where they are of one height, they
// are between rows when most parts hold two cells or more (a table ruled
// above and below its body), else between the lines of one row's cells.
func regionRows(bands []band, ys []float64, cols []span) [][][]rword {
	// A word is in the column it starts in (a cell spanning columns in
	// its first, as the HTML reader writes it).
	colOf := func(w rword) int {
		k := 0
		for j, s := range cols {
			if s.x0 <= w.x0+1 {
				k = j
			}
		}
		return k
	}
	slabs := map[int][]rword{}
	var order []int
	for _, b := range bands {
		k := sort.SearchFloat64s(ys, (b.y0+b.y1)/2)
		if _, ok := slabs[k]; !ok {
			order = append(order, k)
		}
		slabs[k] = append(slabs[k], b.words...)
	}
	sort.Ints(order)
	var rows [][][]rword
	for _, k := range order {
		for _, part := range slabRows(slabs[k], colOf) {
			row := make([][]rword, len(cols))
			for _, w := range part {
				c := colOf(w)
				row[c] = append(row[c], w)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// slabRows cuts a slab's words into rows (see regionRows).
func slabRows(ws []rword, colOf func(rword) int) [][]rword {
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].y0 < ws[b].y0 })
	var parts [][]rword
	var gaps []float64
	end := math.Inf(-1)
	for _, w := range ws {
		if n := len(parts); n > 0 && w.y0 <= end+0.3 {
			parts[n-1] = append(parts[n-1], w)
			end = math.Max(end, w.y1)
			continue
		}
		if len(parts) > 0 {
			gaps = append(gaps, w.y0-end)
		}
		parts = append(parts, []rword{w})
		end = w.y1
	}
	if len(parts) < 2 {
		// Rows set solid (their words' boxes touching): bands that each
		// start in the first column are rows.
		bands := makeBands(ws, seq(len(ws)))
		if len(bands) < 3 {
			return parts
		}
		out := make([][]rword, len(bands))
		for i, b := range bands {
			if colOf(b.words[0]) != 0 || len(b.words) < 2 || colOf(b.words[len(b.words)-1]) == 0 {
				return parts
			}
			out[i] = b.words
		}
		return out
	}
	lo, hi := slices.Min(gaps), slices.Max(gaps)
	cut := func(i int) bool { return gaps[i-1] > (lo+hi)/2 }
	if hi-lo < 1.2 {
		multi := 0
		for _, p := range parts {
			seen := map[int]bool{}
			for _, w := range p {
				seen[colOf(w)] = true
			}
			if len(seen) >= 2 {
				multi++
			}
		}
		rowsApart := 3*multi >= 2*len(parts)
		cut = func(int) bool { return rowsApart }
	}
	out := [][]rword{parts[0]}
	for i := 1; i < len(parts); i++ {
		if cut(i) {
			out = append(out, parts[i])
		} else {
			out[len(out)-1] = append(out[len(out)-1], parts[i]...)
		}
	}
	return out
}

// linesLess returns the lines less the words used.
func linesLess(lines []pdfLine, words []rword, used []bool) []pdfLine {
	drop := map[[2]int]bool{}
	for k, w := range words {
		if used[k] {
			drop[[2]int{w.line, w.idx}] = true
		}
	}
	var rest []pdfLine
	for k, l := range lines {
		var nl pdfLine
		dropped := false
		for i := range l.words {
			if drop[[2]int{k, i}] {
				dropped = true
				continue
			}
			b := l.boxes[i]
			if len(nl.words) == 0 {
				nl = pdfLine{x0: b[0], y0: l.y0, x1: b[1], y1: l.y1, size: l.size, styled: l.styled, bold: l.bold, italic: l.italic}
			}
			nl.x0, nl.x1 = math.Min(nl.x0, b[0]), math.Max(nl.x1, b[1])
			nl.addWord(l, i, i > 0 && !drop[[2]int{k, i - 1}])
		}
		switch {
		case !dropped:
			rest = append(rest, l)
		case len(nl.words) > 0:
			rest = append(rest, nl)
		}
	}
	return rest
}

// wordsText is a cell's words in reading order: by line, top to bottom,
// in the order the line has them (a line may hold words of a cell's two
// lines where the page sets cells' middles on one band), a line starting
// again where its words go back left; the lines joined as a paragraph's.
func wordsText(ws []rword) string {
	ws = append([]rword(nil), ws...)
	sort.SliceStable(ws, func(a, b int) bool {
		ya, yb := ws[a].y0+ws[a].y1, ws[b].y0+ws[b].y1
		if ws[a].line != ws[b].line && ya != yb {
			return ya < yb
		}
		if ws[a].line != ws[b].line {
			return ws[a].line < ws[b].line
		}
		return ws[a].idx < ws[b].idx
	})
	var lines []string
	var sb strings.Builder
	for i, w := range ws {
		if i > 0 {
			p := ws[i-1]
			gap := w.x0 - p.x1
			switch {
			case p.line != w.line || w.x0 < p.x0:
				lines = append(lines, sb.String())
				sb.Reset()
			case gap < 0.1*w.size && gap > -0.1*w.size && joins(p.text, w.text):
			case w.glued && p.idx == w.idx-1:
			default:
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(w.text)
	}
	lines = append(lines, sb.String())
	return joinCellLines(lines)
}
