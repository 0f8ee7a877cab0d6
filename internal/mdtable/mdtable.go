// Package mdtable writes markdown pipe tables within a document's bounds.
// A table's cells are held sparse, by row and column, as the source holds
// them: rows and columns without text are left out, so a sheet's cells A1
// and XFD1048576 make a table of two rows and two columns, not of the
// sheet's grid. A table is padded into a grid only where the padding is a
// bounded share of its cells; a sparser one is written row by row without
// padding (its cells labelled, where the source names them). Cells are
// counted as they are added, and a table's text before it is written, so
// a bound is reported before the memory is spent.
package mdtable

import (
	"errors"
	"fmt"
	"slices"
)

// ErrTooLarge reports a document that expands beyond its reader's bounds.
var ErrTooLarge = errors.New("the document expands beyond the reader's bounds")

// Counter counts what a document's readers produce against its bounds:
// cells of its tables, bytes of its text. Each method returns an error
// (wrapping ErrTooLarge) when a bound is passed.
type Counter interface {
	// Cells counts n more cells of the document's tables.
	Cells(n int64) error
	// Text counts n more bytes of the document's text.
	Text(n int64) error
	// TableCells is the most cells one table may hold, padding included.
	TableCells() int64
}

// Cell is a cell's column and its text: one line, pipes escaped.
type Cell struct {
	Col  int
	Text string
}

type row struct {
	index int
	cells []Cell
}

// Table is a table being read.
type Table struct {
	c      Counter
	rows   []row
	cells  int64
	sorted bool // rows were added in order and each row's cells too
}

// New returns an empty table whose cells c counts.
func New(c Counter) *Table { return &Table{c: c, sorted: true} }

// Cells returns how many cells hold text.
func (t *Table) Cells() int64 { return t.cells }

func (t *Table) count(n int64) error {
	if t.cells += n; t.cells > t.c.TableCells() {
		return fmt.Errorf("%w: a table of more than %d cells (the reader limits' MaxTableCells)", ErrTooLarge, t.c.TableCells())
	}
	return t.c.Cells(n)
}

// Add adds a cell of text at row r and column col (both from 0); an empty
// text is not held.
func (t *Table) Add(r, col int, text string) error {
	if text == "" {
		return nil
	}
	r, col = max(r, 0), max(col, 0)
	if err := t.count(1); err != nil {
		return err
	}
	n := len(t.rows)
	if n == 0 || t.rows[n-1].index != r {
		if n > 0 && t.rows[n-1].index > r {
			t.sorted = false
		}
		t.rows = append(t.rows, row{index: r})
		n++
	}
	last := &t.rows[n-1]
	if k := len(last.cells); k > 0 && last.cells[k-1].Col >= col {
		t.sorted = false
	}
	last.cells = append(last.cells, Cell{col, text})
	return nil
}

// Row returns the cells held at row r when r is the last row added (to
// repeat it), else nil.
func (t *Table) Row(r int) []Cell {
	if n := len(t.rows); n > 0 && t.rows[n-1].index == r {
		return t.rows[n-1].cells
	}
	return nil
}

// AddRow adds a row r holding cells (shared, not copied: a repeated row
// costs its count, not its memory).
func (t *Table) AddRow(r int, cells []Cell) error {
	if len(cells) == 0 {
		return nil
	}
	r = max(r, 0)
	if err := t.count(int64(len(cells))); err != nil {
		return err
	}
	if n := len(t.rows); n > 0 && t.rows[n-1].index >= r {
		t.sorted = false
	}
	// Clipped: a cell added to this row later copies, never writes into
	// the rows it shares cells with.
	t.rows = append(t.rows, row{index: r, cells: slices.Clip(cells)})
	return nil
}

// Style is how a table is written.
type Style struct {
	// Delim is a delimiter row's cell after its "|": " --- |" or "---|".
	Delim string
	// Ref labels a cell of a table written without padding ("C7"), for
	// sources whose cells have names; nil writes the cells alone.
	Ref func(row, col int) string
}

// sparse is the share of padding a table may take: a table is padded
// into a grid when the grid holds at most this many times its cells
// (plus a small table's worth), else written row by row.
const (
	sparse     = 4
	smallTable = 4096
)

// Write returns the table as a pipe table, its first row the header, or
// "" when it holds no text. The padding and the text are counted before
// the text is built.
func (t *Table) Write(st Style) (string, error) {
	if t.cells == 0 {
		return "", nil
	}
	rows := t.rows
	if !t.sorted {
		rows = normalize(rows)
	}
	// The columns that hold text, in order: the others are left out.
	cols, present := columns(rows)
	height, width := int64(len(rows)), int64(cols.n)
	dense := height*width <= min(sparse*present+smallTable, t.c.TableCells())
	size := int64(0)
	if dense {
		if err := t.c.Cells(height*width - present); err != nil {
			return "", err
		}
		size = height*(2+3*width) + 2 + width*int64(len(st.Delim))
		for _, r := range rows {
			for _, c := range r.cells {
				size += int64(len(c.Text))
			}
		}
	} else {
		size = height*2 + 2 + int64(len(rows[0].cells)*len(st.Delim))
		for _, r := range rows {
			for _, c := range r.cells {
				size += 3 + int64(len(c.Text))
				if st.Ref != nil {
					size += int64(len(st.Ref(r.index, c.Col))) + 2
				}
			}
		}
	}
	if err := t.c.Text(size); err != nil {
		return "", err
	}
	buf := make([]byte, 0, size)
	for i, r := range rows {
		buf = append(buf, '|')
		if dense {
			at := 0
			for _, c := range r.cells {
				k := cols.index(c.Col)
				for ; at < k; at++ {
					buf = append(buf, "  |"...)
				}
				buf = append(buf, ' ')
				buf = append(buf, c.Text...)
				buf = append(buf, " |"...)
				at++
			}
			for ; at < int(width); at++ {
				buf = append(buf, "  |"...)
			}
		} else {
			for _, c := range r.cells {
				buf = append(buf, ' ')
				if st.Ref != nil {
					buf = append(buf, st.Ref(r.index, c.Col)...)
					buf = append(buf, ": "...)
				}
				buf = append(buf, c.Text...)
				buf = append(buf, " |"...)
			}
		}
		buf = append(buf, '\n')
		if i == 0 {
			n := int(width)
			if !dense {
				n = len(r.cells)
			}
			buf = append(buf, '|')
			for range n {
				buf = append(buf, st.Delim...)
			}
			buf = append(buf, '\n')
		}
	}
	return string(buf[:len(buf)-1]), nil
}

// colIndex maps the columns that hold text to their places in the
// table: by a table of the columns up to the last one when that is small
// (a sheet has 16,384), else by a search of the sorted columns.
type colIndex struct {
	n      int
	dense  []int32 // place by column, -1 for none
	sorted []int
}

func (c *colIndex) index(col int) int {
	if c.dense != nil {
		return int(c.dense[col])
	}
	k, _ := slices.BinarySearch(c.sorted, col)
	return k
}

// columns returns the index of the columns rows hold text in, and how
// many cells they hold.
func columns(rows []row) (*colIndex, int64) {
	last, present := 0, int64(0)
	for _, r := range rows {
		for _, c := range r.cells {
			last = max(last, c.Col)
		}
		present += int64(len(r.cells))
	}
	if int64(last) < 4*present+smallTable {
		dense := make([]int32, last+1)
		for _, r := range rows {
			for _, c := range r.cells {
				dense[c.Col] = 1
			}
		}
		n := 0
		for i, used := range dense {
			if used == 0 {
				dense[i] = -1
				continue
			}
			dense[i] = int32(n)
			n++
		}
		return &colIndex{n: n, dense: dense}, present
	}
	var sorted []int
	for _, r := range rows {
		for _, c := range r.cells {
			sorted = append(sorted, c.Col)
		}
	}
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	return &colIndex{n: len(sorted), sorted: sorted}, present
}

// normalize orders rows by index, merges rows of one index and orders
// each row's cells by column, a later cell of a column replacing an
// earlier one.
func normalize(rows []row) []row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b row) int { return a.index - b.index })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && merged[n-1].index == r.index {
			merged[n-1].cells = append(slices.Clip(merged[n-1].cells), r.cells...)
			continue
		}
		merged = append(merged, r)
	}
	for i := range merged {
		cells := slices.Clone(merged[i].cells)
		slices.SortStableFunc(cells, func(a, b Cell) int { return a.Col - b.Col })
		// The last of a column's cells wins.
		k := 0
		for j := range cells {
			if j+1 < len(cells) && cells[j+1].Col == cells[j].Col {
				continue
			}
			cells[k] = cells[j]
			k++
		}
		merged[i].cells = cells[:k]
	}
	return merged
}
