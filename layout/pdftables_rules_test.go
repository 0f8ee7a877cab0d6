package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// rulesPage lays out rows of cells at the columns' left edges, a row
// every 16 points from y.
func rulesPage(y float64, xs []float64, rows [][]string) []pdfgen.Line {
	var out []pdfgen.Line
	for r, row := range rows {
		for c, text := range row {
			out = append(out, pdfgen.Line{X: xs[c], Y: y + 16*float64(r), Size: 10, Text: text})
		}
	}
	return out
}

// A table ruled only across (above, under its header, below) and one
// whose rows are told apart by shaded bands (filled rectangles, no
// lines) are tables, though their columns stand closer (7 points at 10
// points) than the stream finder's 0.9 em; prose between two rules is
// not. Before, the
// first two were paragraphs of cells run together, and the shaded bands
// were not read at all (a filled rectangle PDFium closes was no
// rectangle).
func TestPDFTablesBetweenRules(t *testing.T) {
	// Columns 7 points apart in every row (Helvetica's digits are all
	// 5.56 points wide at 10 points).
	xs := []float64{72, 117.5, 149.5, 182}
	booktabs := [][]string{
		{"Quarter", "Sales", "Costs", "Margin"},
		{"Q1 2024", "1,200", "1,050", "+12.5%"},
		{"Q2 2024", "1,350", "1,210", "+10.4%"},
		{"Q3 2024", "1,540", "1,495", "+2.90%"},
		{"Q4 2024", "1,720", "1,810", "-5.20%"},
	}
	lines := []pdfgen.Line{{X: 72, Y: 60, Size: 10, Text: "Sales by region, in units."}}
	lines = append(lines, rulesPage(90, xs, booktabs)...)
	rules := []pdfgen.Rect{
		{X: 70, Y: 78, W: 150, H: 0.8}, {X: 70, Y: 94, W: 150, H: 0.5}, {X: 70, Y: 158, W: 150, H: 0.8},
	}
	// Prose between two rules across the page.
	prose := []string{
		"The figures above are drawn from the quarterly reports of the four",
		"regional offices and were checked against the ledger by the auditors",
		"before they were published in the annual review of the company.",
	}
	for i, p := range prose {
		lines = append(lines, pdfgen.Line{X: 72, Y: 200 + 14*float64(i), Size: 10, Text: p})
	}
	rules = append(rules, pdfgen.Rect{X: 70, Y: 186, W: 400, H: 0.6}, pdfgen.Rect{X: 70, Y: 236, W: 400, H: 0.6})

	zebra := [][]string{
		{"Room", "Seats", "Desks"},
		{"Room 101", "1,200", "1,050"},
		{"Room 102", "1,350", "1,210"},
		{"Room 103", "1,540", "1,495"},
		{"Room 104", "1,720", "1,810"},
	}
	zlines := rulesPage(110, []float64{72, 125, 157.6}, zebra)
	var bands []pdfgen.Rect
	for r := 1; r < len(zebra); r += 2 {
		bands = append(bands, pdfgen.Rect{X: 70, Y: 110 + 16*float64(r) - 11, W: 120, H: 16})
	}
	zlines = append(zlines, pdfgen.Line{X: 72, Y: 80, Size: 10, Text: "Rooms and their furniture."})

	els := extractElements(t, writePDF(t, []pdfgen.Page{
		{Width: 612, Height: 792, Lines: lines, Rects: rules},
		{Width: 612, Height: 792, Lines: zlines, Rects: bands},
	}))
	want := []string{
		"| Quarter | Sales | Costs | Margin |\n| --- | --- | --- | --- |\n| Q1 2024 | 1,200 | 1,050 | +12.5% |\n" +
			"| Q2 2024 | 1,350 | 1,210 | +10.4% |\n| Q3 2024 | 1,540 | 1,495 | +2.90% |\n| Q4 2024 | 1,720 | 1,810 | -5.20% |",
		"| Room | Seats | Desks |\n| --- | --- | --- |\n| Room 101 | 1,200 | 1,050 |\n| Room 102 | 1,350 | 1,210 |\n" +
			"| Room 103 | 1,540 | 1,495 |\n| Room 104 | 1,720 | 1,810 |",
	}
	if got := tablesOf(els); !slices.Equal(got, want) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
	text, _ := Assemble(els)
	if !strings.Contains(text, strings.Join(prose, " ")) {
		t.Errorf("the prose between rules is not a paragraph:\n%s", text)
	}
}

// A frame of rules around a page (a running header and footer inside it)
// holding a two-column list is no table of four columns: the columns only
// the header and footer lines have text in are sparse.
func TestSparseColumn(t *testing.T) {
	word := func(x0, x1, y float64, s string) rword {
		return rword{x0: x0, x1: x1, y0: y, y1: y + 10, size: 10, text: s}
	}
	var bands []band
	bands = append(bands, band{y0: 0, y1: 10, words: []rword{word(72, 100, 0, "page"), word(200, 240, 0, "Terminal"), word(300, 350, 0, "Responses")}})
	for i := 1; i <= 8; i++ {
		y := float64(20 * i)
		bands = append(bands, band{y0: y, y1: y + 10, words: []rword{word(72, 90, y, "10"), word(110, 160, y, "Summary")}})
	}
	bands = append(bands, band{y0: 200, y1: 210, words: []rword{word(72, 100, 200, "Manual"), word(200, 240, 200, "Cat."), word(300, 350, 200, "2022")}})
	cols := bandColumns(bands, 4.5)
	if len(cols) != 4 {
		t.Fatalf("columns: %v", cols)
	}
	if !sparseColumn(bands, cols, 4.5) {
		t.Error("a column of the header and footer lines only is not sparse")
	}
	if sparseColumn(bands[1:9], bandColumns(bands[1:9], 4.5), 4.5) {
		t.Error("the list alone has a sparse column")
	}
}
