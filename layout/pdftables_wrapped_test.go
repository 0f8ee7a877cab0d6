package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A borderless table as LibreOffice Writer exports one: rows set well
// apart (its cells' padding), a narrow column whose cells wrap onto two
// and three lines, each going on in lower case, and the other cells set
// in the middle of their row. The first and last lines of a cell of
// three lines stood on bands of their own, so no run of rows of two
// cells was long enough, and the wrapped column, its lines filling it
// and going on in lower case, was taken for prose beside a table. The
// prose above and below stays prose.
func TestPDFTablesWrappedRowsApart(t *testing.T) {
	xs := []float64{72, 150, 300, 360}
	type row struct {
		mid   float64 // the middle line's baseline
		cells []string
	}
	rows := []row{
		{120, []string{"Item", "Description", "Amount", "Share"}},
		{160, []string{"Paint", "two coats of white|paint on the front|door and its frame", "120", "12 %"}},
		{200, []string{"Labour", "four hours", "200", "20 %"}},
		{234, []string{"Tiles", "grey tiles laid in|the hall", "310", "31 %"}},
		{268, []string{"Glass", "one pane", "370", "37 %"}},
	}
	var lines []pdfgen.Line
	lines = append(lines, pdfgen.Line{X: 72, Y: 90, Size: 10, Text: "The estimate below lists the work done on the house in the spring."})
	for _, r := range rows {
		for c, text := range r.cells {
			parts := strings.Split(text, "|")
			top := r.mid - 6*float64(len(parts)-1) // lines 12 points apart, set in the middle
			for k, p := range parts {
				lines = append(lines, pdfgen.Line{X: xs[c], Y: top + 12*float64(k), Size: 10, Text: p})
			}
		}
	}
	lines = append(lines, pdfgen.Line{X: 72, Y: 310, Size: 10, Text: "Payment is due within thirty days of the date of this estimate."})
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := "| Item | Description | Amount | Share |\n| --- | --- | --- | --- |\n" +
		"| Paint | two coats of white paint on the front door and its frame | 120 | 12 % |\n" +
		"| Labour | four hours | 200 | 20 % |\n| Tiles | grey tiles laid in the hall | 310 | 31 % |\n| Glass | one pane | 370 | 37 % |"
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
