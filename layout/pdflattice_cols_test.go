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
