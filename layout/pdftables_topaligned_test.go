package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A borderless table whose cells are set at the top of their rows (Word's,
// and CSS's vertical-align: top): a description wraps onto two, three and
// four lines, at a paragraph's pitch, and the next row starts a little
// farther down (the cells' padding). The wrapped lines stood on bands of
// their own, rows of one cell that broke the run of rows; the table came
// out as loose lines.
func TestPDFTablesTopAligned(t *testing.T) {
	xs := []float64{72, 170, 360, 430}
	rows := [][]string{
		{"Item", "Description", "Amount", "Due"},
		{"Paint", "two coats of white|paint on the front door", "120", "2024-03-01"},
		{"Labour", "four hours", "200", "2024-03-04"},
		{"Tiles", "grey tiles laid in|the hall, the kitchen|and the two|bathrooms upstairs", "310", "2024-03-09"},
		{"Glass", "one pane", "370", "2024-03-12"},
		{"Locks", "new locks on the|back door", "95", "2024-03-15"},
	}
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 90, Size: 10, Text: "The estimate below lists the work done on the house in the spring."})
	y := 120.0
	for _, r := range rows {
		n := 1
		for c, text := range r {
			parts := strings.Split(text, "|")
			n = max(n, len(parts))
			for k, p := range parts {
				lines = append(lines, pdfgen.Line{X: xs[c], Y: y + 12*float64(k), Size: 10, Text: p})
			}
		}
		y += 12*float64(n) + 5 // the padding: 5 points more than the lines' pitch
	}
	lines = append(lines, pdfgen.Line{X: 72, Y: y + 20, Size: 10, Text: "Payment is due within thirty days of the date of this estimate."})
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := "| Item | Description | Amount | Due |\n| --- | --- | --- | --- |\n" +
		"| Paint | two coats of white paint on the front door | 120 | 2024-03-01 |\n" +
		"| Labour | four hours | 200 | 2024-03-04 |\n" +
		"| Tiles | grey tiles laid in the hall, the kitchen and the two bathrooms upstairs | 310 | 2024-03-09 |\n" +
		"| Glass | one pane | 370 | 2024-03-12 |\n| Locks | new locks on the back door | 95 | 2024-03-15 |"
	if got := tablesOf(els); !slices.Equal(got, []string{want}) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), want)
	}
	text, _ := Assemble(els)
	for _, p := range []string{"The estimate below lists the work done on the house in the spring.", "Payment is due within thirty days of the date of this estimate."} {
		if !strings.Contains(text, p) {
			t.Errorf("prose %q lost:\n%s", p, text)
		}
	}
}

// A paragraph set beside a table of short rows, at one pitch throughout:
// its lines between the table's rows are no wrapped cell's, so the
// paragraph stays prose and out of the table's cells.
func TestPDFTablesParagraphBesideStaysProse(t *testing.T) {
	para := []string{"The committee met on the first", "of the month and agreed that the", "figures beside this note are to", "be read with the accounts of", "the year before, which were", "restated in the spring after", "the audit was closed."}
	var lines []pdfgen.Line
	for k, p := range para {
		lines = append(lines, pdfgen.Line{X: 330, Y: 100 + 12*float64(k), Size: 10, Text: p})
	}
	rows := [][]string{{"Region", "Sales"}, {"North", "1,200"}, {"South", "980"}, {"East", "1,430"}}
	for i, r := range rows {
		lines = append(lines, pdfgen.Line{X: 72, Y: 100 + 24*float64(i), Size: 10, Text: r[0]}, pdfgen.Line{X: 200, Y: 100 + 24*float64(i), Size: 10, Text: r[1]})
	}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	for _, tb := range tablesOf(els) {
		for _, p := range para[1:] {
			if strings.Contains(tb, p) {
				t.Errorf("the paragraph's line %q is in a table:\n%s", p, tb)
			}
		}
	}
}
