package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A table ruled only down its columns inside a frame (HTML's
// rules="cols", as LibreOffice Writer exports it): its body is one slot
// of the grid, its rows the bands of its cells' lines, set 28 points
// apart. A cell starting in lower case ("n/a", "east coast") was taken
// for a line going on from the one above, so the whole body came out as
// one row; a line that far under the one above is a row of its own.
func TestPDFLatticeColumnRulesRows(t *testing.T) {
	cols := []float64{72, 200, 300, 400}
	top, head, bottom := 100.0, 124.0, 124.0+4*28
	cells := [][]string{
		{"Region", "Sales", "Growth"},
		{"North", "1,234", "+12.5 %"},
		{"east coast", "2,001", "n/a"},
		{"South", "310", "-1.5 %"},
		{"West", "88,120", "n/a"},
	}
	var lines []pdfgen.Line
	for r, row := range cells {
		y := top + 16
		if r > 0 {
			y = head + 18 + 28*float64(r-1)
		}
		for c, text := range row {
			lines = append(lines, pdfgen.Line{X: cols[c] + 5, Y: y, Size: 10, Text: text})
		}
	}
	lines = append(lines, pdfgen.Line{X: 72, Y: 300, Size: 10, Text: "The figures above are drawn from the quarterly reports of the offices."})
	rects := []pdfgen.Rect{{X: cols[0], Y: top, W: cols[3] - cols[0], H: bottom - top, Stroke: true}, {X: cols[0], Y: head, W: cols[3] - cols[0], H: 0.5}}
	for _, x := range cols[1:3] {
		rects = append(rects, pdfgen.Rect{X: x, Y: top, W: 0.5, H: bottom - top})
	}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines, Rects: rects}}))
	want := "| Region | Sales | Growth |\n| --- | --- | --- |\n| North | 1,234 | +12.5 % |\n| east coast | 2,001 | n/a |\n" +
		"| South | 310 | -1.5 % |\n| West | 88,120 | n/a |"
	if got := tablesOf(els); !slices.Equal(got, []string{want}) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), want)
	}
}

// A table ruled only between its columns (CSS td+td{border-left}), with
// no rule across: no grid, so it was left to the text's alignment, and
// its cells, half an em apart across the rules, ran into one another.
// The vertical rules now part a line's words into cells wherever one
// runs down past the line; the rows are the lines.
func TestPDFTablesColumnRulesOnly(t *testing.T) {
	rows := [][]string{
		{"Region", "Sales", "Change"},
		{"North-west", "1,234", "+12 %"},
		{"South", "2,001", "-2 %"},
		{"East", "310", "0 %"},
		{"West", "8,120", "+5 %"},
	}
	xs := []float64{72, 127, 160}
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 80, Size: 10, Text: "Sales by region in the first quarter, against the year before."})
	for r, row := range rows {
		for c, text := range row {
			lines = append(lines, pdfgen.Line{X: xs[c], Y: 110 + 16*float64(r), Size: 10, Text: text})
		}
	}
	lines = append(lines, pdfgen.Line{X: 72, Y: 220, Size: 10, Text: "The figures are in thousands of units sold to shops and to the trade."})
	rects := []pdfgen.Rect{{X: 124.5, Y: 98, W: 0.6, H: 80}, {X: 157.5, Y: 98, W: 0.6, H: 80}}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines, Rects: rects}}))
	want := "| Region | Sales | Change |\n| --- | --- | --- |\n| North-west | 1,234 | +12 % |\n| South | 2,001 | -2 % |\n" +
		"| East | 310 | 0 % |\n| West | 8,120 | +5 % |"
	if got := tablesOf(els); !slices.Equal(got, []string{want}) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), want)
	}
}
