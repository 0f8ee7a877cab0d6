package layout

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/gochunk/gochunk/internal/mdtable"
)

// Tables are found in a page's lines by the alignment of their text, as
// the "stream" mode of Camelot and pdfplumber's text strategy find them,
// so that a table drawn with rules and one without are found alike: the
// lines on one band make a row, cut into cells where their words stand
// apart by more than a cell gap; consecutive rows of two cells or more,
// close together, whose cells fall into the same columns (the union of
// the cells' extents across the rows, as each column's text edges line
// up) make a table of at least three rows. Prose is told from a table by
// its cells: a table's hold a few words each, prose lines many, and a
// list's markers are no column.

const (
	tableCellGap  = 0.9 // ems between the words of two cells
	tableRowGap   = 1.6 // line heights between two rows, at most
	tableEvenGap  = 3.0 // line heights between rows set evenly apart, at most
	tableMinRows  = 3
	tableMaxWords = 5.0 // mean words a cell, at most (prose: 7 to 12)
)

// tableBlock is a table found on a page: its cells by row and column.
type tableBlock struct {
	rows [][]string
}

// tableCell is a row's cell: words standing together on a band.
type tableCell struct {
	x0, x1, y0, y1, size float64
	words                []string
	boxes                [][2]float64 // its words' (x0, x1), where known
	line                 int          // the line it is in
	glued                bool         // its first word goes on the cell before it without a space (splitCuts)
	taken                bool         // a line of a cell taken into the row above or below it (absorbWrapped)
}

type tableRow struct {
	y0, y1 float64
	cells  []tableCell
}

// findTables takes the tables out of a page's lines: it returns them as
// blocks, and the lines that are not in one.
func findTables(lines []pdfLine) ([]block, []pdfLine) {
	return findTablesRuled(lines, nil)
}

// findTablesRuled is findTables on a page that draws vertical rules
// (columns), merged: a line's words on the two sides of a rule running
// down past it are in two cells, however close (a table ruled only
// between its columns, its rows read from its lines).
func findTablesRuled(lines []pdfLine, v []edge) ([]block, []pdfLine) {
	if len(lines) < tableMinRows {
		return nil, lines
	}
	f := tableFinder{segs: make([]int, len(lines)), used: make([]bool, len(lines))}
	rows := tableRows(lines, v)
	for _, r := range rows {
		for _, c := range r.cells {
			f.segs[c.line]++
		}
	}
	f.scan(rows)
	if len(f.out) == 0 {
		return nil, lines
	}
	rest := lines[:0:0]
	for k, l := range lines {
		if !f.used[k] {
			rest = append(rest, l)
		}
	}
	return f.out, rest
}

type tableFinder struct {
	segs []int  // cells by line
	used []bool // lines in a table
	out  []block
}

// scan finds the tables among rows: runs of rows of two cells or more,
// each close below the last. Where a run's column is prose (a column of
// text beside a table, or the columns of a page set in two), it is left
// out and the rest scanned again.
func (f *tableFinder) scan(rows []tableRow) {
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && len(rows[j].cells) >= 2 && (j == i || rowsClose(rows[j-1], rows[j]) || evenRows(rows, j)) {
			j++
		}
		if j-i < tableMinRows {
			i = max(j, i+1)
			continue
		}
		run := rows[i:j]
		cols := tableColumns(run)
		if prose := proseColumns(run, cols); prose != nil {
			kept := make([]tableRow, len(run))
			for k, r := range run {
				kept[k] = r
				kept[k].cells = nil
				for _, c := range r.cells {
					if !prose[columnOf(cols, c)] {
						kept[k].cells = append(kept[k].cells, c)
					}
				}
			}
			f.scan(kept)
		} else if b, ok := makeTable(splitColumns(run, cols)); ok && f.whole(run) {
			for _, r := range run {
				for _, c := range r.cells {
					f.used[c.line] = true
				}
			}
			f.out = append(f.out, b)
		}
		i = j
	}
}

// whole reports whether every line of rows has all its cells in them: a
// line is never split between a table and the text beside it.
func (f *tableFinder) whole(rows []tableRow) bool {
	n := map[int]int{}
	for _, r := range rows {
		for _, c := range r.cells {
			n[c.line]++
		}
	}
	for l, k := range n {
		if k != f.segs[l] {
			return false
		}
	}
	return true
}

// tableRows groups lines on one band into rows, top to bottom, each cut
// into cells left to right.
func tableRows(lines []pdfLine, v []edge) []tableRow {
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	mid := func(l pdfLine) float64 { return (l.y0 + l.y1) / 2 }
	sort.SliceStable(idx, func(a, b int) bool { return mid(lines[idx[a]]) < mid(lines[idx[b]]) })
	var rows []tableRow
	for _, k := range idx {
		l := lines[k]
		if n := len(rows); n > 0 {
			r := &rows[n-1]
			// Half a line's overlap exactly is a cell set in the middle
			// of its row beside a cell of two lines: one row.
			if ov := math.Min(r.y1, l.y1) - math.Max(r.y0, l.y0); ov >= 0.4*math.Min(r.y1-r.y0, l.y1-l.y0) {
				r.y0, r.y1 = math.Min(r.y0, l.y0), math.Max(r.y1, l.y1)
				r.cells = append(r.cells, lineCells(l, k, v)...)
				continue
			}
		}
		rows = append(rows, tableRow{y0: l.y0, y1: l.y1, cells: lineCells(l, k, v)})
	}
	for i := range rows {
		cs := rows[i].cells
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].x0 < cs[b].x0 })
	}
	return spanningCells(absorbWrapped(splitFigureBands(rows)))
}

// splitFigureBands parts a row that holds two bands of figures or more
// (two cells or more each, every cell a figure) beside cells alone on
// their bands, set between the first and the last: rows of figures under
// a label spanning them (rowspan), set in the middle, which overlaps each
// by half a line and so joined them into one row. The label goes in the
// first, as the HTML and office readers write it.
func splitFigureBands(rows []tableRow) []tableRow {
	var out []tableRow
	for _, r := range rows {
		parts := figureBands(r)
		if parts == nil {
			out = append(out, r)
			continue
		}
		out = append(out, parts...)
	}
	return out
}

func figureBands(r tableRow) []tableRow {
	if len(r.cells) < 5 {
		return nil
	}
	cs := slices.Clone(r.cells)
	mid := func(c tableCell) float64 { return (c.y0 + c.y1) / 2 }
	slices.SortStableFunc(cs, func(a, b tableCell) int { return cmp.Compare(mid(a), mid(b)) })
	var bands [][]tableCell
	for _, c := range cs {
		if n := len(bands); n > 0 && mid(c)-mid(bands[n-1][0]) < 0.3*(c.y1-c.y0) {
			bands[n-1] = append(bands[n-1], c)
			continue
		}
		bands = append(bands, []tableCell{c})
	}
	var figs []int
	var lone []tableCell
	for i, b := range bands {
		switch {
		case len(b) == 1:
			lone = append(lone, b[0])
		case !slices.ContainsFunc(b, func(c tableCell) bool { return !isFigure(c.words[0]) }):
			figs = append(figs, i)
		default:
			return nil
		}
	}
	if len(figs) < 2 || len(lone) == 0 {
		return nil
	}
	first, last := bands[figs[0]], bands[figs[len(figs)-1]]
	for _, c := range lone {
		if mid(c) <= mid(first[0]) || mid(c) >= mid(last[0]) {
			return nil
		}
	}
	var out []tableRow
	for k, i := range figs {
		row := tableRow{y0: math.Inf(1), y1: math.Inf(-1), cells: slices.Clone(bands[i])}
		if k == 0 {
			row.cells = append(row.cells, lone...)
		}
		for _, c := range bands[i] {
			row.y0, row.y1 = math.Min(row.y0, c.y0), math.Max(row.y1, c.y1)
		}
		sort.SliceStable(row.cells, func(a, b int) bool { return row.cells[a].x0 < row.cells[b].x0 })
		out = append(out, row)
	}
	return out
}

// spanningCells joins to the row above it a row of one cell set in the
// middle of the white between two rows of two cells or more, in a column
// neither has a line in: a cell spanning the two rows (rowspan), written
// in the upper one as the HTML and office readers write it. The rows of a
// table set well apart (LibreOffice Writer's) were parted by it.
func spanningCells(rows []tableRow) []tableRow {
	var out []tableRow
	for j := 0; j < len(rows); j++ {
		r := rows[j]
		if len(out) == 0 || j+1 >= len(rows) || len(r.cells) != 1 || len(out[len(out)-1].cells) < 2 || len(rows[j+1].cells) < 2 {
			out = append(out, r)
			continue
		}
		a, b, c := &out[len(out)-1], rows[j+1], r.cells[0]
		apart := func(cs []tableCell) bool {
			return !slices.ContainsFunc(cs, func(o tableCell) bool { return o.x0 < c.x1 && c.x0 < o.x1 || o.y1 > c.y0 && o.y0 < c.y1 })
		}
		mid := (c.y0 + c.y1) / 2
		between := ((a.y0+a.y1)/2 + (b.y0+b.y1)/2) / 2
		if !apart(a.cells) || !apart(b.cells) || math.Abs(mid-between) > 0.25*(c.y1-c.y0) {
			out = append(out, r)
			continue
		}
		a.y1 = math.Max(a.y1, c.y1)
		a.cells = append(slices.Clone(a.cells), c)
		sort.SliceStable(a.cells, func(x, y int) bool { return a.cells[x].x0 < a.cells[y].x0 })
	}
	return out
}

// absorbWrapped joins to a row of two cells or more the rows of one cell
// just above and below it that are lines of one of its cells: a cell of
// three lines or more set beside cells in the middle of the row
// (LibreOffice Writer's and Chromium's tables) leaves its first and last
// lines on bands of their own. Such a line stands as close to the row as
// a paragraph's lines stand (white of at most half a line), under one of
// the row's cells only, its left edge on that cell's, or its middle on
// the cell's middle (centred text).
func absorbWrapped(rows []tableRow) []tableRow {
	joins := func(m *tableRow, r tableRow, above bool) bool {
		if len(r.cells) != 1 || len(m.cells) < 2 {
			return false
		}
		c := r.cells[0]
		h := math.Min(c.y1-c.y0, m.y1-m.y0)
		white := c.y0 - m.y1
		if above {
			white = m.y0 - c.y1
		}
		if white < -0.6*h || white > 0.5*h {
			return false
		}
		// The line stays between the row's cells left and right of it
		// (it is in no other column).
		gap := 0.3 * c.size
		for _, mc := range m.cells {
			if mc.x1 <= c.x0 && mc.x1 > c.x0-gap || mc.x0 >= c.x1 && mc.x0 < c.x1+gap {
				return false
			}
		}
		// The row's cells under the line: lines of one cell (they
		// overlap one another), one of them lined up with it.
		var under []tableCell
		for _, mc := range m.cells {
			if mc.x0 < c.x1 && c.x0 < mc.x1 {
				for _, u := range under {
					if !(u.x0 < mc.x1 && mc.x0 < u.x1) {
						return false
					}
				}
				under = append(under, mc)
			}
		}
		if len(under) == 0 {
			// A line in a column the row has no line in: the first or
			// last of a cell of two lines, reaching into the row's band.
			return white < 0
		}
		for _, mc := range under {
			tol := 0.15 * math.Max(c.size, mc.size)
			if math.Abs(mc.x0-c.x0) <= tol || math.Abs((mc.x0+mc.x1)/2-(c.x0+c.x1)/2) <= tol {
				return true
			}
		}
		return false
	}
	take := func(m *tableRow, r tableRow) {
		m.y0, m.y1 = math.Min(m.y0, r.y0), math.Max(m.y1, r.y1)
		for _, c := range r.cells {
			c.taken = true
			m.cells = append(m.cells, c)
		}
		sort.SliceStable(m.cells, func(a, b int) bool { return m.cells[a].x0 < m.cells[b].x0 })
	}
	gone := make([]bool, len(rows))
	for i := range rows {
		if len(rows[i].cells) < 2 || gone[i] {
			continue
		}
		m := rows[i]
		m.cells = slices.Clone(m.cells)
		var took []int
		above, below := i-1, i+1 // the rows next to those taken
		for ; above >= 0 && !gone[above] && joins(&m, rows[above], true); above-- {
			take(&m, rows[above])
			took = append(took, above)
		}
		for ; below < len(rows) && joins(&m, rows[below], false); below++ {
			take(&m, rows[below])
			took = append(took, below)
		}
		// The lines taken are a cell's: the lines of their column in the
		// rows next to them stand apart from them, as rows do (a
		// paragraph set beside a table goes on at its lines' pitch).
		x0, x1 := math.Inf(1), math.Inf(-1)
		for _, k := range took {
			x0, x1 = math.Min(x0, rows[k].cells[0].x0), math.Max(x1, rows[k].cells[0].x1)
		}
		near := func(k int, up bool) bool {
			if k < 0 || k >= len(rows) || gone[k] {
				return false
			}
			for _, c := range rows[k].cells {
				white := c.y0 - m.y1
				if up {
					white = m.y0 - c.y1
				}
				if c.x0 < x1 && x0 < c.x1 && white < 0.5*(c.y1-c.y0) {
					return true
				}
			}
			return false
		}
		h := rows[i].y1 - rows[i].y0
		if len(took) == 0 {
			continue
		}
		if !topAligned(rows, i, m, took, gone, x0, x1) {
			if near(above, true) || near(below, false) {
				continue
			}
			// The row's own cells are set in the middle of the lines
			// taken (a row of one cell above or below a row, a header
			// over another, is a row of its own).
			if math.Abs((m.y0+m.y1)-(rows[i].y0+rows[i].y1))/2 > 0.25*h {
				continue
			}
		}
		rows[i] = m
		for _, k := range took {
			gone[k] = true
		}
	}
	out := rows[:0]
	for i, r := range rows {
		if !gone[i] {
			out = append(out, r)
		}
	}
	return out
}

// topAligned reports whether the lines took (rows of one cell, in one
// column between x0 and x1), all below row i, are the lines a cell of
// row i wraps onto in a table whose cells are set at the top of their
// rows (Word's and most producers' default): row i has a line in that
// column, the lines stand at a paragraph's pitch under it, and the rows
// next to row i and its lines stand farther off, by a fifth of a line or
// more (the cells' padding), so that the lines of a paragraph set beside
// a table, at one pitch throughout, are not a cell's.
func topAligned(rows []tableRow, i int, m tableRow, took []int, gone []bool, x0, x1 float64) bool {
	col := []tableCell{}
	for _, c := range rows[i].cells {
		if c.x0 < x1 && x0 < c.x1 {
			col = append(col, c)
		}
	}
	if len(col) != 1 {
		return false
	}
	for _, k := range took {
		if k < i {
			return false
		}
		col = append(col, rows[k].cells[0])
	}
	slices.SortFunc(col, func(a, b tableCell) int { return cmp.Compare(a.y0, b.y0) })
	inner := math.Inf(-1)
	for k := 1; k < len(col); k++ {
		inner = math.Max(inner, col[k].y0-col[k-1].y1)
	}
	h := rows[i].y1 - rows[i].y0
	need := inner + 0.2*h
	for k := i - 1; k >= 0; k-- {
		if !gone[k] {
			if m.y0-rows[k].y1 < need {
				return false
			}
			break
		}
	}
	for k := took[len(took)-1] + 1; k < len(rows); k++ {
		if !gone[k] {
			if rows[k].y0-m.y1 < need {
				return false
			}
			break
		}
	}
	return true
}

// lineCells cuts line k into cells where its words stand more than a
// cell gap apart, and where letters that otherwise touch stand apart
// (the cells of a table set without padding: splitCuts).
func lineCells(l pdfLine, k int, v []edge) []tableCell {
	if len(l.boxes) != len(l.words) {
		return []tableCell{{x0: l.x0, x1: l.x1, y0: l.y0, y1: l.y1, size: l.size, words: l.words, line: k}}
	}
	// ruled reports whether a vertical rule runs between x0 and x1 down
	// past the line.
	ruled := func(x0, x1 float64) bool {
		for _, e := range v {
			if e.pos > x0 && e.pos < x1 && e.lo <= l.y0 && e.hi >= l.y1 {
				return true
			}
		}
		return false
	}
	var out []tableCell
	for i, w := range l.words {
		b := l.boxes[i]
		if n := len(out); n > 0 && b[0]-out[n-1].x1 <= tableCellGap*l.size && !l.gluedAt(i) && !ruled(out[n-1].x1, b[0]) {
			out[n-1].words = append(out[n-1].words, w)
			out[n-1].boxes = append(out[n-1].boxes, b)
			out[n-1].x1 = math.Max(out[n-1].x1, b[1])
			continue
		}
		out = append(out, tableCell{x0: b[0], x1: b[1], y0: l.y0, y1: l.y1, size: l.size, words: []string{w}, boxes: [][2]float64{b}, line: k, glued: l.gluedAt(i)})
	}
	return out
}

// evenRows reports whether rows j-1 and j are a step of rows set evenly
// apart, wider than rowsClose allows (up to tableEvenGap line heights of
// white between them): the row before or after stands at the same pitch,
// and all are rows of two cells or more (LibreOffice Writer sets a
// borderless table's rows 2.7 ems apart).
func evenRows(rows []tableRow, j int) bool {
	if j < 1 || j >= len(rows) {
		return false
	}
	a, b := rows[j-1], rows[j]
	h := math.Max(a.y1-a.y0, b.y1-b.y0)
	if b.y0-a.y1 > tableEvenGap*h {
		return false
	}
	pitch := b.y0 - a.y0
	same := func(k int) bool { // rows k-1 and k stand at that pitch
		if k < 1 || k >= len(rows) || len(rows[k].cells) < 2 || len(rows[k-1].cells) < 2 {
			return false
		}
		return math.Abs(rows[k].y0-rows[k-1].y0-pitch) <= 0.15*h
	}
	return same(j-1) || same(j+1)
}

func rowsClose(a, b tableRow) bool {
	h := math.Max(a.y1-a.y0, b.y1-b.y0)
	return b.y0-a.y1 <= tableRowGap*h
}

// span is a column's extent.
type span struct{ x0, x1 float64 }

// tableColumns returns the columns of rows: their cells' extents merged
// where they overlap, left to right.
func tableColumns(rows []tableRow) []span {
	var spans []span
	for _, r := range rows {
		for _, c := range r.cells {
			spans = append(spans, span{c.x0, c.x1})
		}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].x0 < spans[b].x0 })
	var cols []span
	for _, s := range spans {
		if n := len(cols); n > 0 && s.x0 <= cols[n-1].x1 {
			cols[n-1].x1 = math.Max(cols[n-1].x1, s.x1)
			continue
		}
		cols = append(cols, s)
	}
	return cols
}

// splitColumns parts a table's columns where its cells' words leave a
// strip of white down the whole column that three rows or more have words
// on both sides of, aligned on one side of it (a column of figures set
// right, or of text set left): the columns of a table set so tight that
// its cells stand less than a cell gap apart. Where one row of four or
// more crosses the strip (a header spanning two columns), its cell stays
// whole, in the first. It returns the rows with their cells cut at the
// new columns' edges.
func splitColumns(rows []tableRow, cols []span) ([]tableRow, []span) {
	var strips []span // the new columns' edges
	for k, col := range cols {
		var ws [][]colWord // by row, the words in the column
		for _, r := range rows {
			var in []colWord
			for _, c := range r.cells {
				if columnOf(cols, c) == k && len(c.boxes) == len(c.words) {
					for j, b := range c.boxes {
						in = append(in, colWord{b[0], b[1], c.words[j]})
					}
				}
			}
			if len(in) > 0 {
				ws = append(ws, in)
			}
		}
		if len(ws) < tableMinRows {
			continue
		}
		size := rows[0].cells[0].size
		var all []span
		for _, in := range ws {
			for _, b := range in {
				all = append(all, span{b.x0, b.x1})
			}
		}
		for _, g := range projectionGaps(all, 0) {
			if g.x0 <= col.x0 || g.x1 >= col.x1 || g.x1-g.x0 < cutGap*size {
				continue
			}
			strips = appendStrip(strips, g, ws, size)
		}
		// One row crossing: the strips the other rows leave, row by row
		// and left to right.
		if len(ws) >= 4 && cutGap*size > 0 {
			for _, g := range oneRowGaps(ws) {
				if g.x0 <= col.x0 || g.x1 >= col.x1 || g.x1-g.x0 < cutGap*size || overlapsAny(strips, g) {
					continue
				}
				strips = appendStrip(strips, g, ws, size)
			}
		}
	}
	if len(strips) == 0 {
		return rows, cols
	}
	edges := make([]float64, len(strips))
	for i, g := range strips {
		edges[i] = (g.x0 + g.x1) / 2
	}
	sort.Float64s(edges)
	for {
		out, split := cutColumns(rows, cols, edges)
		// An edge beside a column no cell starts in (two strips a
		// header's word parts) goes.
		n := make([]int, len(split))
		for _, r := range out {
			for _, c := range r.cells {
				n[columnOf(split, c)]++
			}
		}
		empty := slices.Index(n, 0)
		if empty < 0 {
			if proseColumns(out, split) != nil {
				return rows, cols // a column of prose parted by chance
			}
			return out, split
		}
		k := slices.Index(edges, split[empty].x1)
		if k < 0 {
			k = slices.Index(edges, split[empty].x0)
		}
		if k < 0 {
			return rows, cols
		}
		edges = slices.Delete(edges, k, k+1)
	}
}

// oneRowGaps returns, for each row of rows in turn (each its words in one
// column), the gaps of positive width that the other rows' words leave
// and that the row's own words cover in part, left to right: the strips
// one row crosses. The gaps the other rows leave that no row's words
// cover are not returned (they are the gaps of all the rows). It is
// projectionGaps over all rows but one, for each row, in one sweep: the
// x axis is cut at the words' edges into points and the open intervals
// between them, and each piece counts the rows whose words cover it.
func oneRowGaps(rows [][]colWord) []span {
	var xs []float64
	for _, in := range rows {
		for _, b := range in {
			xs = append(xs, b.x0, b.x1)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	// Piece 2j is the point xs[j], piece 2j+1 the interval (xs[j], xs[j+1]).
	n := 2*len(xs) - 1
	count := make([]int, n+1) // rows covering a piece, as differences
	who := make([]int, n+1)   // the xor of their indices, as differences
	at := func(x float64) int { i, _ := slices.BinarySearch(xs, x); return 2 * i }
	var ss []span
	for r, in := range rows {
		// The row's words merged where they touch or overlap, so that a
		// row counts once on each piece.
		ss = ss[:0]
		for _, b := range in {
			ss = append(ss, span{b.x0, b.x1})
		}
		slices.SortFunc(ss, func(a, b span) int { return cmp.Compare(a.x0, b.x0) })
		for i := 0; i < len(ss); {
			lo, hi := ss[i].x0, ss[i].x1
			for i++; i < len(ss) && ss[i].x0 <= hi; i++ {
				hi = math.Max(hi, ss[i].x1)
			}
			a, b := at(lo), at(hi)
			if b < a {
				continue // a box of negative width covers nothing
			}
			count[a]++
			count[b+1]--
			who[a] ^= r
			who[b+1] ^= r
		}
	}
	for i := 1; i < n; i++ {
		count[i] += count[i-1]
		who[i] ^= who[i-1]
	}
	type gap struct {
		row int
		g   span
	}
	var gaps []gap
	for i := 0; i < n; i++ {
		if count[i] != 1 {
			continue
		}
		r := who[i]
		free := func(k int) bool { return count[k] == 0 || count[k] == 1 && who[k] == r }
		lo, hi := i, i
		for lo > 0 && free(lo-1) {
			lo--
		}
		for hi < n-1 && free(hi+1) {
			hi++
		}
		// Bounded by other rows' words on both sides, at points (a piece
		// next to an interval another row covers is that row's too).
		if lo > 0 && hi < n-1 {
			gaps = append(gaps, gap{r, span{xs[(lo-1)/2], xs[(hi+1)/2]}})
		}
		i = hi
	}
	slices.SortStableFunc(gaps, func(a, b gap) int { return cmp.Compare(a.row, b.row) })
	out := make([]span, len(gaps))
	for i, g := range gaps {
		out[i] = g.g
	}
	return out
}

// cutColumns cuts rows' cells and cols at edges.
func cutColumns(rows []tableRow, cols []span, edges []float64) ([]tableRow, []span) {
	out := make([]tableRow, len(rows))
	for i, r := range rows {
		out[i] = tableRow{y0: r.y0, y1: r.y1}
		for _, c := range r.cells {
			if len(c.boxes) != len(c.words) {
				out[i].cells = append(out[i].cells, c)
				continue
			}
			var cur *tableCell
			for j, w := range c.words {
				b := c.boxes[j]
				if cur != nil && !crossesEdge(edges, cur.x1, b[0]) {
					cur.words = append(cur.words, w)
					cur.boxes = append(cur.boxes, b)
					cur.x1 = math.Max(cur.x1, b[1])
					continue
				}
				out[i].cells = append(out[i].cells, tableCell{x0: b[0], x1: b[1], y0: c.y0, y1: c.y1, size: c.size, words: []string{w}, boxes: [][2]float64{b}, line: c.line, glued: c.glued && j == 0})
				cur = &out[i].cells[len(out[i].cells)-1]
			}
		}
	}
	var split []span
	for _, c := range cols {
		for _, e := range edges {
			if e > c.x0 && e < c.x1 {
				split = append(split, span{c.x0, e})
				c.x0 = e
			}
		}
		split = append(split, c)
	}
	return out, split
}

// colWord is a word in a table's column.
type colWord struct {
	x0, x1 float64
	text   string
}

// appendStrip adds strip g to strips where rows (each its words in one
// column) show it parts two columns: three rows or more, and half the
// rows, have words on both sides of it, and on one side their edges line
// up along it (within 0.05 em, two rows in three) or the words right of it are
// figures and those left of it not (a column of labels, set left, beside
// a column of figures, set right, two rows in three). The words on
// either side must not be the same in half the rows (a column whose
// cells start with "The"); a sign or a unit without letters may, left
// of it ("12.4 %").
func appendStrip(strips []span, g span, rows [][]colWord, size float64) []span {
	var lefts, rights []float64
	figures, same := 0, map[string]int{}
	for _, in := range rows {
		l, r := -1, -1
		crossed := false
		for i, b := range in {
			switch {
			case b.x1 <= g.x0:
				if l < 0 || b.x1 > in[l].x1 {
					l = i
				}
			case b.x0 >= g.x1:
				if r < 0 || b.x0 < in[r].x0 {
					r = i
				}
			default:
				crossed = true
			}
		}
		if crossed || l < 0 || r < 0 {
			continue
		}
		lefts, rights = append(lefts, in[l].x1), append(rights, in[r].x0)
		if strings.IndexFunc(in[l].text, unicode.IsLetter) >= 0 { // a unit ending the cells left of it ("12.4 %") may
			same["l"+in[l].text]++
		}
		same["r"+in[r].text]++
		if isFigure(in[r].text) && !isFigure(in[l].text) {
			figures++
		}
	}
	if len(lefts) < tableMinRows || 2*len(lefts) < len(rows) {
		return strips
	}
	if !lined(lefts, g.x0, 0.05*size) && !lined(rights, g.x1, 0.05*size) && 3*figures < 2*len(lefts) {
		return strips
	}
	for _, n := range same {
		if 2*n >= len(lefts) {
			return strips // the same word beside it in half the rows ("Transaction Code", "Transaction Amount")
		}
	}
	return append(strips, g)
}

// isFigure reports whether a word is a figure: a digit in its first two
// characters (12, $4.50, (1,200), -3%, €2m), or n/a or a dash alone.
func isFigure(w string) bool {
	switch w {
	case "n/a", "-", "–", "—":
		return true
	}
	for i, c := range []rune(w) {
		if i >= 2 {
			break
		}
		if unicode.IsDigit(c) {
			return true
		}
	}
	return false
}

// lined reports whether two in three of xs, and three or more, are
// within tol of at (the strip's edge on their side).
func lined(xs []float64, at, tol float64) bool {
	n := 0
	for _, x := range xs {
		if math.Abs(x-at) <= tol {
			n++
		}
	}
	return n >= tableMinRows && 3*n >= 2*len(xs)
}

// crossesEdge reports whether an edge stands between x1 and x0.
func crossesEdge(edges []float64, x1, x0 float64) bool {
	for _, e := range edges {
		if e > x1 && e < x0 {
			return true
		}
	}
	return false
}

func columnOf(cols []span, c tableCell) int {
	return min(sort.Search(len(cols), func(k int) bool { return cols[k].x1 >= c.x0 }), len(cols)-1)
}

// proseColumns returns which columns hold prose, or nil where none does: a
// column of lines that fill it (half of them as wide as the column, of
// several words; or of more than five words a line on average), or whose lines go on a sentence (starting in lower case).
func proseColumns(rows []tableRow, cols []span) []bool {
	full := make([]int, len(cols))
	lower := make([]int, len(cols))
	words := make([]int, len(cols))
	n := make([]int, len(cols))
	for _, r := range rows {
		for _, c := range r.cells {
			k := columnOf(cols, c)
			n[k]++
			words[k] += len(c.words)
			if c.x1-c.x0 >= 0.85*(cols[k].x1-cols[k].x0) && len(c.words) >= 3 {
				full[k]++
			}
			if first := firstRune(c.words[0]); unicode.IsLower(first) {
				lower[k]++
			}
		}
	}
	var prose []bool
	for k := range cols {
		if n[k] == 0 {
			continue
		}
		if wrappedCells(rows, cols, k) {
			// A column of cells wrapped onto lines of their own, set
			// apart as the rows are: its lines fill the column and go on
			// in lower case as a paragraph's do, and a cell may start in
			// lower case (a description); counted in words a line as
			// any column's.
			full[k], lower[k] = 0, 0
		}
		many := float64(words[k])/float64(n[k]) > tableMaxWords
		if many || float64(full[k]) >= 0.5*float64(n[k]) || n[k] >= 3 && float64(lower[k]) >= 0.3*float64(n[k]) {
			if prose == nil {
				prose = make([]bool, len(cols))
			}
			prose[k] = true
		}
	}
	return prose
}

// wrappedCells reports whether column k of rows reads as blocks of
// lines, each line standing less than half a line under the one before,
// with three blocks or more, each of three lines at most, and one of two
// or more: a table's cells wrapped in a narrow column, set apart as its
// rows are; or whether three rows or more have lines in it, one of them
// two to five (a cell's lines absorbWrapped took into its row).
func wrappedCells(rows []tableRow, cols []span, k int) bool {
	var cs []tableCell
	for _, r := range rows {
		for _, c := range r.cells {
			if columnOf(cols, c) == k {
				cs = append(cs, c)
			}
		}
	}
	// The rows hold a cell's lines taken into them (absorbWrapped): three
	// rows or more with lines in the column, one with two to five of which
	// one was taken.
	// The rows hold a cell's lines taken into them (absorbWrapped): three
	// rows or more with lines in the column, one with two to five of which
	// one was taken.
	inRows, most := 0, 0
	for _, r := range rows {
		var ls []tableCell          // the row's lines in the column, one cell a band
		for _, c := range r.cells { // a justified line may be cut into cells, an accent drawn on a line of its own
			mid := (c.y0 + c.y1) / 2
			if columnOf(cols, c) == k && !slices.ContainsFunc(ls, func(o tableCell) bool { return mid > o.y0 && mid < o.y1 }) {
				ls = append(ls, c)
			}
		}
		if len(ls) > 0 {
			inRows++
		}
		if slices.ContainsFunc(r.cells, func(c tableCell) bool { return c.taken && columnOf(cols, c) == k }) {
			most = max(most, len(ls)) // a cell's lines, not lines of two paragraphs set off one another
		}
	}
	if inRows >= 3 && most >= 2 && most <= 5 {
		return true
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].y0 < cs[b].y0 })
	blocks, longest, cur := 0, 0, 0
	for i, c := range cs {
		if i > 0 && c.y0-cs[i-1].y1 < 0.5*math.Min(c.y1-c.y0, cs[i-1].y1-cs[i-1].y0) {
			cur++
		} else {
			blocks++
			cur = 1
		}
		longest = max(longest, cur)
	}
	return blocks >= 3 && longest <= 3 && longest >= 2
}

// makeTable makes a table of rows whose cells fall into cols, or reports
// that they are no table.
func makeTable(rows []tableRow, cols []span) (block, bool) {
	if len(rows) == 0 {
		return block{}, false
	}
	if len(cols) < 2 {
		return block{}, false
	}
	grid := make([][]string, len(rows))
	cells, words, filled := 0, 0, 0
	markers := make([]int, len(cols)) // cells of a column that are list markers
	perCol := make([]int, len(cols))
	byCol := make([][]tableCell, len(cols))
	for i, r := range rows {
		grid[i] = make([]string, len(cols))
		for c := range byCol {
			byCol[c] = byCol[c][:0]
		}
		for _, s := range r.cells {
			c := columnOf(cols, s)
			if len(byCol[c]) == 0 && isListMarker(strings.Join(s.words, " ")) {
				markers[c]++
			}
			byCol[c] = append(byCol[c], s)
			cells++
			words += len(s.words)
		}
		for c, cs := range byCol {
			if len(cs) > 0 {
				grid[i][c] = cellsText(cs)
				perCol[c]++
			}
		}
		n := 0
		for _, t := range grid[i] {
			if t != "" {
				n++
			}
		}
		if n >= 2 {
			filled++
		}
	}
	// Prose and lists are no tables: cells of a few words, rows that fill
	// two columns or more, and no column of list markers.
	if float64(words)/float64(cells) > tableMaxWords || filled < tableMinRows {
		return block{}, false
	}
	for c := range cols {
		if perCol[c] > 0 && markers[c]*2 >= perCol[c] {
			return block{}, false
		}
	}
	em := 0.0
	for _, r := range rows {
		for _, s := range r.cells {
			em += s.size
		}
	}
	grid = headerOverColumn(grid, cols, em/float64(cells))
	b := block{x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1), table: grid}
	size := 0.0
	for _, r := range rows {
		for _, s := range r.cells {
			b.x0, b.x1 = math.Min(b.x0, s.x0), math.Max(b.x1, s.x1)
			size += s.size
		}
		b.y0, b.y1 = math.Min(b.y0, r.y0), math.Max(b.y1, r.y1)
		b.lines = append(b.lines, rowText(grid[len(b.lines)]))
	}
	b.lineHeight = size / float64(cells)
	return b, true
}

// headerOverColumn puts a header cell that is alone in its column (text
// set left over figures set right, or the reverse: their extents do not
// meet) over the column next to it whose header is empty and whose body
// is filled, where the two stand less than 2 ems apart; the header's
// column goes.
func headerOverColumn(grid [][]string, cols []span, em float64) [][]string {
	if len(grid) < 1+tableMinRows {
		return grid
	}
	filled := func(c int) int {
		n := 0
		for _, r := range grid[1:] {
			if r[c] != "" {
				n++
			}
		}
		return n
	}
	for c := 0; c < len(grid[0]); c++ {
		if grid[0][c] == "" || filled(c) > 0 {
			continue
		}
		best, gap := -1, math.Inf(1)
		for _, n := range []int{c - 1, c + 1} {
			if n < 0 || n >= len(grid[0]) || grid[0][n] != "" || 2*filled(n) < len(grid)-1 {
				continue
			}
			g := math.Max(cols[n].x0-cols[c].x1, cols[c].x0-cols[n].x1)
			if g < gap {
				best, gap = n, g
			}
		}
		if best < 0 || gap > 2*em {
			continue
		}
		grid[0][best] = grid[0][c]
		for i := range grid {
			grid[i] = slices.Delete(grid[i], c, c+1)
		}
		cols = slices.Delete(slices.Clone(cols), c, c+1)
		c--
	}
	return grid
}

// cellsText is the text of a row's cells that fall into one column: top
// to bottom (a cell's lines, where its text wraps), left to right on a
// line, a word cut at its letters' gap (splitCuts) joined again, the
// lines joined as a paragraph's are (a word broken by a hyphen at a
// line's end is joined).
func cellsText(cs []tableCell) string {
	if len(cs) == 1 {
		return strings.Join(cs[0].words, " ")
	}
	cs = slices.Clone(cs)
	mid := func(c tableCell) float64 { return (c.y0 + c.y1) / 2 }
	sort.SliceStable(cs, func(a, b int) bool { return mid(cs[a]) < mid(cs[b]) })
	var lines []string
	var sb strings.Builder
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && mid(cs[j])-mid(cs[i]) < 0.5*math.Min(cs[i].y1-cs[i].y0, cs[j].y1-cs[j].y0) {
			j++
		}
		line := cs[i:j]
		sort.SliceStable(line, func(a, b int) bool { return line[a].x0 < line[b].x0 })
		sb.Reset()
		for k, c := range line {
			if k > 0 && !c.glued && !figureGoesOn(sb.String(), c.words[0]) {
				sb.WriteByte(' ')
			}
			sb.WriteString(strings.Join(c.words, " "))
		}
		lines = append(lines, sb.String())
		i = j
	}
	return joinCellLines(lines)
}

// joinCellLines joins a cell's lines as a paragraph's (joinLines), and a
// figure broken after a hyphen (a date or a code wrapped in a narrow
// column: "2024-12-" over "01") without a space.
func joinCellLines(lines []string) string {
	out := lines[:0:0]
	for _, l := range lines {
		if n := len(out); n > 0 && figureGoesOn(out[n-1], l) {
			out[n-1] += l
			continue
		}
		out = append(out, l)
	}
	return joinLines(out, nil)
}

// figureGoesOn reports whether next goes on a without a space: a ends in
// a digit and a hyphen, next starts with a digit.
func figureGoesOn(a, next string) bool {
	t, ok := strings.CutSuffix(a, "-")
	return ok && t != "" && next != "" && unicode.IsDigit(lastRune(t)) && unicode.IsDigit(firstRune(next))
}

// labelColumn reports whether a grid of three columns or fewer is a
// form's or an invoice's labels and their values: a column most of whose
// cells (two or more) end in a colon. Tables between rules (ruleTables)
// are not such blocks; the stream finder keeps making them tables, as
// Docling does, their labels beside their values.
func labelColumn(grid [][]string) bool {
	if len(grid) == 0 || len(grid[0]) > 3 {
		return false
	}
	for c := range grid[0] {
		n, labels := 0, 0
		for _, r := range grid {
			if r[c] == "" {
				continue
			}
			n++
			if strings.HasSuffix(r[c], ":") {
				labels++
			}
		}
		if labels >= 2 && 2*labels >= n {
			return true
		}
	}
	return false
}

// rowText is a row's cells joined with spaces, for the page's headers
// and footers.
func rowText(cells []string) string {
	var parts []string
	for _, c := range cells {
		if c != "" {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, " ")
}

// isListMarker reports whether a cell is a list's marker alone: a bullet,
// a dash, a number or a letter with a period or parenthesis.
func isListMarker(s string) bool {
	r := []rune(s)
	if len(r) == 1 && !unicode.IsLetter(r[0]) && !unicode.IsDigit(r[0]) {
		return true // a bullet, a dash
	}
	if len(r) < 2 || len(r) > 4 || (r[len(r)-1] != '.' && r[len(r)-1] != ')') {
		return false
	}
	for _, c := range r[:len(r)-1] {
		if !unicode.IsDigit(c) && !unicode.IsLetter(c) {
			return false
		}
	}
	return len(r) == 2 || unicode.IsDigit(r[0])
}

// tableText writes a table's rows as a pipe table, its first row the
// header, as the HTML and office readers write theirs.
func tableText(rows [][]string) string {
	tb := mdtable.New(pdfTableCounter{})
	for i, r := range rows {
		var cells []mdtable.Cell
		for c, t := range r {
			if t != "" {
				cells = append(cells, mdtable.Cell{Col: c, Text: strings.ReplaceAll(t, "|", `\|`)})
			}
		}
		if len(cells) > 0 {
			tb.AddRow(i, cells)
		}
	}
	s, err := tb.Write(mdtable.Style{Delim: " --- |"})
	if err != nil { // not reached: the page's characters bound the table
		return strings.Join(rowsText(rows), "\n")
	}
	return s
}

func rowsText(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = rowText(r)
	}
	return out
}

// pdfTableCounter bounds nothing: a PDF table's cells are bounded by the
// page's characters (PDFOptions.MaxPageChars).
type pdfTableCounter struct{}

func (pdfTableCounter) Cells(int64) error { return nil }
func (pdfTableCounter) Text(int64) error  { return nil }
func (pdfTableCounter) TableCells() int64 { return math.MaxInt64 }
