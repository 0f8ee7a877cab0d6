package layout

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// oneRowGapsByRow is oneRowGaps as splitColumns worked it out before: for
// each row, projectionGaps over all the other rows' words (quadratic in
// the rows), less the gaps of all the rows and those of no width.
func oneRowGapsByRow(rows [][]colWord) []span {
	var all []span
	for _, in := range rows {
		for _, b := range in {
			all = append(all, span{b.x0, b.x1})
		}
	}
	everyRow := projectionGaps(all, 0)
	var out []span
	for skip := range rows {
		var rest []span
		for i, in := range rows {
			if i != skip {
				for _, b := range in {
					rest = append(rest, span{b.x0, b.x1})
				}
			}
		}
		for _, g := range projectionGaps(rest, 0) {
			if g.x1 > g.x0 && !slices.Contains(everyRow, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// The one sweep finds the strips one row crosses as the pass over all
// rows but one did, in the same order: on random rows of words on a
// coarse grid, so that words touch, overlap, share edges and have no
// width.
func TestSplitColumnsOneRowGaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		rows := make([][]colWord, 1+rng.IntN(8))
		for i := range rows {
			for range 1 + rng.IntN(4) {
				x0 := float64(rng.IntN(20))
				rows[i] = append(rows[i], colWord{x0, x0 + float64(rng.IntN(5)), "w"})
			}
		}
		got, want := oneRowGaps(rows), oneRowGapsByRow(rows)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d, rows %v:\ngot  %v\nwant %v", n, rows, got, want)
		}
	}
}

// tallTable is a table of n rows under a header: a column of labels set
// left and a column of figures set right 1.5 points from them (one column
// to the table's cell gap), the header's cell crossing the strip between
// them.
func tallTable(n int) []tableRow {
	cell := func(y float64, ws ...any) tableCell {
		c := tableCell{y0: y, y1: y + 10, size: 10, x0: ws[0].(float64), x1: ws[len(ws)-2].(float64)}
		for i := 0; i < len(ws); i += 3 {
			c.words = append(c.words, ws[i+2].(string))
			c.boxes = append(c.boxes, [2]float64{ws[i].(float64), ws[i+1].(float64)})
		}
		return c
	}
	rows := []tableRow{{y0: 100, y1: 110, cells: []tableCell{
		cell(100, 72.0, 120.0, "Account", 122.0, 150.0, "balances"),
		cell(100, 300.0, 330.0, "Notes"),
	}}}
	for i := range n {
		y := 114 + 14*float64(i)
		label := fmt.Sprintf("Item%d", i)
		fig := fmt.Sprintf("%d.00", 100+i%900)
		rows = append(rows, tableRow{y0: y, y1: y + 10, cells: []tableCell{
			cell(y, 72.0, 72.0+float64(3+i%4)*5.5, label, 150.0-float64(len(fig))*5.56, 150.0, fig),
			cell(y, 300.0, 320.0, "OK"),
		}})
	}
	return rows
}

// A tall table (two thousand rows, a spreadsheet printed as one page) is
// parted in one sweep: its labels and figures in two columns, the
// header's cell crossing the strip whole in the first. Passing over all
// rows but one for each row took minutes at this size.
func TestSplitColumnsTall(t *testing.T) {
	for _, n := range []int{5, 2000} {
		rows := tallTable(n)
		out, cols := splitColumns(rows, tableColumns(rows))
		if len(cols) != 3 {
			t.Fatalf("%d rows: columns %v, want 3", n, cols)
		}
		if c := out[0].cells; len(c) != 2 || !slices.Equal(c[0].words, []string{"Account", "balances"}) {
			t.Errorf("%d rows: header cells %v, want the header whole", n, c)
		}
		if c := out[n].cells; len(c) != 3 || c[1].words[0] != fmt.Sprintf("%d.00", 100+(n-1)%900) {
			t.Errorf("%d rows: last row's cells %v, want label, figure, note", n, c)
		}
	}
}

func BenchmarkSplitColumnsTall(b *testing.B) {
	rows := tallTable(2000)
	cols := tableColumns(rows)
	for b.Loop() {
		splitColumns(rows, cols)
	}
}
