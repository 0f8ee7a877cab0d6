package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A date wrapped after a hyphen in a narrow column ("2024-12-" over
// "01") is one figure again; before, "2024-12- 01".
func TestCellsTextFigureAfterHyphen(t *testing.T) {
	cs := []tableCell{
		{x0: 100, x1: 140, y0: 10, y1: 22, size: 10, words: []string{"2024-12-"}},
		{x0: 128, x1: 140, y0: 22, y1: 34, size: 10, words: []string{"01"}},
	}
	if got := cellsText(cs); got != "2024-12-01" {
		t.Errorf("cellsText = %q, want 2024-12-01", got)
	}
	// Words broken at a hyphen stay as paragraphs join them.
	cs = []tableCell{
		{x0: 100, x1: 140, y0: 10, y1: 22, size: 10, words: []string{"North-"}},
		{x0: 100, x1: 130, y0: 22, y1: 34, size: 10, words: []string{"East"}},
	}
	if got := cellsText(cs); got != "North-East" {
		t.Errorf("cellsText = %q, want North-East", got)
	}
}

// A header set left over figures set right, in a column wider than both
// (border-spacing, no padding): the header's extent and the figures' do
// not meet, so the header stood in a column of its own and the figures
// in another with no header.
func TestPDFTablesHeaderOverFigures(t *testing.T) {
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 90, Size: 10, Text: "The counts below are taken from the survey of the spring."})
	lines = append(lines, pdfgen.Line{X: 72, Y: 120, Size: 10, Text: "Region"}, pdfgen.Line{X: 160, Y: 120, Size: 10, Text: "Count"}, pdfgen.Line{X: 260, Y: 120, Size: 10, Text: "Sales"})
	rows := [][2]string{{"North", "4"}, {"South", "19"}, {"East", "48"}, {"West", "7"}}
	for i, r := range rows {
		y := 134 + 14*float64(i)
		lines = append(lines, pdfgen.Line{X: 72, Y: y, Size: 10, Text: r[0]},
			pdfgen.Line{X: 212 - 5.56*float64(len(r[1])), Y: y, Size: 10, Text: r[1]}, // set right, ending at 212
			pdfgen.Line{X: 260, Y: y, Size: 10, Text: "$" + r[1] + "0.00"})
	}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := "| Region | Count | Sales |\n| --- | --- | --- |\n| North | 4 | $40.00 |\n| South | 19 | $190.00 |\n| East | 48 | $480.00 |\n| West | 7 | $70.00 |"
	if got := tablesOf(els); !slices.Equal(got, []string{want}) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), want)
	}
}

// A borderless table set well apart, as LibreOffice Writer exports one,
// with labels each spanning two rows (rowspan), set in the middle of the
// white between them: the label's row of one cell parted the rows, so no
// run of rows was long enough. The label goes in the upper row, as the
// HTML reader writes it.
func TestPDFTablesSpanningLabel(t *testing.T) {
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 70, Size: 10, Text: "The figures below are the regions' sales in the two years."})
	row := func(y float64, cells ...string) {
		for i, c := range cells {
			if c != "" {
				lines = append(lines, pdfgen.Line{X: []float64{72, 200, 260}[i], Y: y, Size: 10, Text: c})
			}
		}
	}
	row(100, "Group", "2023", "2024")
	figures := [][2]string{{"1.20", "3.40"}, {"2.10", "0.90"}, {"4.00", "4.50"}, {"0.70", "1.10"}, {"3.30", "2.80"}, {"1.90", "2.20"}}
	for i, f := range figures {
		row(130+30*float64(i), "", f[0], f[1])
	}
	for i, label := range []string{"North", "South", "East"} {
		row(145+60*float64(i), label)
	}
	lines = append(lines, pdfgen.Line{X: 72, Y: 340, Size: 10, Text: "The sales of the year before are restated."})
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := "| Group | 2023 | 2024 |\n| --- | --- | --- |\n| North | 1.20 | 3.40 |\n|  | 2.10 | 0.90 |\n" +
		"| South | 4.00 | 4.50 |\n|  | 0.70 | 1.10 |\n| East | 3.30 | 2.80 |\n|  | 1.90 | 2.20 |"
	if got := tablesOf(els); !slices.Equal(got, []string{want}) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), want)
	}
}

// Two columns of percentages set left, close together (LibreOffice
// Writer sizes columns to their content): the strip of white between them
// is a column's edge though every cell left of it ends in the same "%"
// (a header over both is wider than their cells).
func TestSplitColumnsUnitEnds(t *testing.T) {
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 90, Size: 10, Text: "Region"}, pdfgen.Line{X: 160, Y: 90, Size: 10, Text: "Change over the two years"})
	for i, r := range [][3]string{{"North", "-12.4 %", "-7.5 %"}, {"South", "+19.0 %", "+22.4 %"}, {"East", "+4.6 %", "-24.8 %"}, {"West", "+7.9 %", "+1.1 %"}} {
		y := 104 + 14*float64(i)
		lines = append(lines, pdfgen.Line{X: 72, Y: y, Size: 10, Text: r[0]}, pdfgen.Line{X: 160, Y: y, Size: 10, Text: r[1] + "  " + r[2]})
	}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	tables := tablesOf(els)
	if len(tables) != 1 || !strings.Contains(tables[0], "| North | -12.4 % | -7.5 % |") {
		t.Errorf("tables:\n%s\nwant North's two percentages in two columns", strings.Join(tables, "\n\n"))
	}
}

// Rows of figures set close together under labels each spanning two of
// them, set in the middle (rowspan, vertical-align: middle): a label
// overlaps both rows by half a line, which made the two rows one, their
// figures two to a cell ("11,55 37,89").
func TestPDFTablesFigureRowsUnderLabel(t *testing.T) {
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 70, Size: 10, Text: "The counts below are taken from the survey of the spring."})
	xs := []float64{72, 200, 260, 320}
	row := func(y float64, cells ...string) {
		for i, c := range cells {
			if c != "" {
				lines = append(lines, pdfgen.Line{X: xs[i], Y: y, Size: 10, Text: c})
			}
		}
	}
	row(100, "Group", "Count", "Share", "Sales")
	figures := [][3]string{{"11,55", "12,30", "7.3"}, {"37,89", "32,91", "11.1"}, {"4,25", "10,46", "4.0"}, {"8,02", "1,17", "2.6"}, {"6,64", "9,90", "5.5"}, {"2,31", "7,48", "0.8"}}
	for i, f := range figures {
		row(114+12*float64(i), "", f[0], f[1], f[2])
	}
	for i, label := range []string{"North", "South", "East"} {
		row(120+24*float64(i), label)
	}
	lines = append(lines, pdfgen.Line{X: 72, Y: 220, Size: 10, Text: "The sales of the year before are restated."})
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := "| Group | Count | Share | Sales |\n| --- | --- | --- | --- |\n| North | 11,55 | 12,30 | 7.3 |\n|  | 37,89 | 32,91 | 11.1 |\n" +
		"| South | 4,25 | 10,46 | 4.0 |\n|  | 8,02 | 1,17 | 2.6 |\n| East | 6,64 | 9,90 | 5.5 |\n|  | 2,31 | 7,48 | 0.8 |"
	if got := tablesOf(els); !slices.Equal(got, []string{want}) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), want)
	}
}
