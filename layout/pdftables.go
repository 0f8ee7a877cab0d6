package layout

import (
	"math"
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
	line                 int // the line it is in
}

type tableRow struct {
	y0, y1 float64
	cells  []tableCell
}

// findTables takes the tables out of a page's lines: it returns them as
// blocks, and the lines that are not in one.
func findTables(lines []pdfLine) ([]block, []pdfLine) {
	if len(lines) < tableMinRows {
		return nil, lines
	}
	f := tableFinder{segs: make([]int, len(lines)), used: make([]bool, len(lines))}
	rows := tableRows(lines)
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
		for j < len(rows) && len(rows[j].cells) >= 2 && (j == i || rowsClose(rows[j-1], rows[j])) {
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
		} else if b, ok := makeTable(run, cols); ok && f.whole(run) {
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
func tableRows(lines []pdfLine) []tableRow {
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
			if ov := math.Min(r.y1, l.y1) - math.Max(r.y0, l.y0); ov >= 0.5*math.Min(r.y1-r.y0, l.y1-l.y0) {
				r.y0, r.y1 = math.Min(r.y0, l.y0), math.Max(r.y1, l.y1)
				r.cells = append(r.cells, lineCells(l, k)...)
				continue
			}
		}
		rows = append(rows, tableRow{y0: l.y0, y1: l.y1, cells: lineCells(l, k)})
	}
	for i := range rows {
		cs := rows[i].cells
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].x0 < cs[b].x0 })
	}
	return rows
}

// lineCells cuts line k into cells where its words stand more than a
// cell gap apart.
func lineCells(l pdfLine, k int) []tableCell {
	if len(l.boxes) != len(l.words) {
		return []tableCell{{x0: l.x0, x1: l.x1, y0: l.y0, y1: l.y1, size: l.size, words: l.words, line: k}}
	}
	var out []tableCell
	for i, w := range l.words {
		b := l.boxes[i]
		if n := len(out); n > 0 && b[0]-out[n-1].x1 <= tableCellGap*l.size {
			out[n-1].words = append(out[n-1].words, w)
			out[n-1].x1 = math.Max(out[n-1].x1, b[1])
			continue
		}
		out = append(out, tableCell{x0: b[0], x1: b[1], y0: l.y0, y1: l.y1, size: l.size, words: []string{w}, line: k})
	}
	return out
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

// makeTable makes a table of rows whose cells fall into cols, or reports
// that they are no table.
func makeTable(rows []tableRow, cols []span) (block, bool) {
	if len(cols) < 2 {
		return block{}, false
	}
	grid := make([][]string, len(rows))
	cells, words, filled := 0, 0, 0
	markers := make([]int, len(cols)) // cells of a column that are list markers
	perCol := make([]int, len(cols))
	for i, r := range rows {
		grid[i] = make([]string, len(cols))
		for _, s := range r.cells {
			c := columnOf(cols, s)
			text := strings.Join(s.words, " ")
			if grid[i][c] != "" {
				grid[i][c] += " " + text
			} else {
				grid[i][c] = text
				perCol[c]++
				if isListMarker(text) {
					markers[c]++
				}
			}
			cells++
			words += len(s.words)
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
