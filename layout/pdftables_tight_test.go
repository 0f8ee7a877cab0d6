package layout

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A borderless table set so tight that its columns of figures stand 1.5
// points apart (HTML printed with Chromium's default cell padding): each
// cell is a text object of its own, with no space between, so its
// characters ran on into one word across cells ("1,2341,050") and the
// columns were one. Now a gap between two letters on a line whose
// letters otherwise touch cuts the word for the table finders, and a
// column is parted where a strip of white runs down it with figures
// aligned beside it. The prose under it reads as before, and a word
// drawn in two pieces ("North-" and "East" a point apart) is one word in
// its cell.
func TestPDFTablesTight(t *testing.T) {
	// Helvetica at 10 points: digits 5.56 points wide, the comma 2.78,
	// so "1,234" is 25.02 points; columns set right, their widest cells
	// 1.5 points apart.
	const w = 25.02
	right := []float64{160, 160 + 1.5 + w, 160 + 2*(1.5+w)}
	rows := [][]string{
		{"Region", "Q1", "Q2", "Q3"},
		{"North-East", "1,234", "1,050", "2,210"},
		{"South", "1,350", "12", "1,105"},
		{"East", "1,540", "1,495", "1,999"},
		{"West", "1,720", "1,810", "3,020"},
	}
	digits := func(s string) float64 {
		n := 0.0
		for _, c := range s {
			switch c {
			case ',':
				n += 2.78
			case 'Q':
				n += 7.78
			default:
				n += 5.56
			}
		}
		return n
	}
	var lines []pdfgen.Line
	for r, row := range rows {
		y := 100 + 14*float64(r)
		if row[0] == "North-East" { // drawn in two pieces 1 point apart: one word
			lines = append(lines, pdfgen.Line{X: 72, Y: y, Size: 10, Text: "North-"}, pdfgen.Line{X: 72 + 27.78 + 1, Y: y, Size: 10, Text: "East"})
		} else {
			lines = append(lines, pdfgen.Line{X: 72, Y: y, Size: 10, Text: row[0]})
		}
		for c, cell := range row[1:] {
			lines = append(lines, pdfgen.Line{X: right[c] - digits(cell), Y: y, Size: 10, Text: cell})
		}
	}
	prose := []string{
		"The figures above are drawn from the quarterly reports of the four",
		"regional offices and were checked against the ledger by the auditors.",
	}
	for i, p := range prose {
		lines = append(lines, pdfgen.Line{X: 72, Y: 200 + 14*float64(i), Size: 10, Text: p})
	}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := []string{"| Region | Q1 | Q2 | Q3 |\n| --- | --- | --- | --- |\n| North-East | 1,234 | 1,050 | 2,210 |\n" +
		"| South | 1,350 | 12 | 1,105 |\n| East | 1,540 | 1,495 | 1,999 |\n| West | 1,720 | 1,810 | 3,020 |"}
	if got := tablesOf(els); !slices.Equal(got, want) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
	text, _ := Assemble(els)
	if !strings.Contains(text, strings.Join(prose, " ")) {
		t.Errorf("the prose under the table is not a paragraph:\n%s", text)
	}
}

// Words cut at their letters' gaps for the table finders read as before
// where they stay outside a table: splitCuts then joinCuts gives the
// lines back.
func TestSplitCutsJoined(t *testing.T) {
	l := pdfLine{x0: 10, x1: 90, y0: 0, y1: 10, size: 10,
		words: []string{"0.2%30,708", "and", "ab"},
		boxes: [][2]float64{{10, 50}, {53, 70}, {73, 90}},
		cuts:  []wordCut{{word: 0, at: 4, x1: 25, x0: 26.5}, {word: 2, at: 1, x1: 80, x0: 81}},
	}
	split := splitCuts([]pdfLine{l})
	if got := split[0].words; !slices.Equal(got, []string{"0.2%", "30,708", "and", "a", "b"}) {
		t.Fatalf("split: %q", got)
	}
	if got := split[0].glued; !slices.Equal(got, []bool{false, true, false, false, true}) {
		t.Fatalf("glued: %v", got)
	}
	back := joinCuts(split)[0]
	if !slices.Equal(back.words, l.words) || !slices.Equal(back.boxes, l.boxes) {
		t.Errorf("joined: %q %v, want %q %v", back.words, back.boxes, l.words, l.boxes)
	}
}

// A column of labels of two words and their values, set left (an
// invoice's customer block), is parted between labels and values only:
// the values line up along that strip; the strip after "Insured",
// "Claim", "Policy" has words lined up far from it, not beside it.
func TestSplitColumnsAlongStrip(t *testing.T) {
	cell := func(y float64, ws ...any) tableCell {
		c := tableCell{y0: y, y1: y + 10, size: 10, x0: math.Inf(1), x1: math.Inf(-1)}
		for i := 0; i < len(ws); i += 3 {
			x0, x1 := ws[i].(float64), ws[i+1].(float64)
			c.words = append(c.words, ws[i+2].(string))
			c.boxes = append(c.boxes, [2]float64{x0, x1})
			c.x0, c.x1 = math.Min(c.x0, x0), math.Max(c.x1, x1)
		}
		return c
	}
	var rows []tableRow
	for i, r := range [][]any{
		{77.2, 108.8, "Insured", 111.0, 134.6, "name", 157.9, 187.5, "Gabriel", 189.8, 207.0, "Diaz"},
		{77.2, 100.6, "Claim", 102.8, 107.9, "#", 157.9, 191.0, "SF-1008"},
		{77.2, 102.0, "Policy", 104.3, 109.3, "#", 157.9, 216.2, "POL-2022-555"},
		{77.2, 103.0, "Phone", 157.9, 181.0, "(425)", 183.0, 215.0, "111-1111"},
		{77.2, 101.0, "Email", 157.9, 240.0, "gabriel@contoso.com"},
	} {
		y := 100 + 14*float64(i)
		rows = append(rows, tableRow{y0: y, y1: y + 10, cells: []tableCell{cell(y, r...), cell(y, 300.0, 320.0, "Year", 370.0, 390.0, "2022")}})
	}
	out, cols := splitColumns(rows, tableColumns(rows))
	b, ok := makeTable(out, cols)
	if !ok {
		t.Fatal("no table")
	}
	want := [][]string{
		{"Insured name", "Gabriel Diaz", "Year 2022"},
		{"Claim #", "SF-1008", "Year 2022"},
		{"Policy #", "POL-2022-555", "Year 2022"},
		{"Phone", "(425) 111-1111", "Year 2022"},
		{"Email", "gabriel@contoso.com", "Year 2022"},
	}
	if !slices.EqualFunc(b.table, want, slices.Equal) {
		t.Errorf("grid:\n%q\nwant:\n%q", b.table, want)
	}
}

// A table whose label wraps onto two lines, its figures set in the middle
// of the row (Chromium's default for a table cell), half a line below the
// label's first line and half above its second: one row, the label's
// lines joined ("All-" and "Star" make "All-Star"). Before, the figures
// went with one of the label's lines and the other was left out of the
// table.
func TestPDFTablesMiddleAligned(t *testing.T) {
	const lh = 12 // line to line, a little more than Helvetica's box at 10 points
	var lines []pdfgen.Line
	y := 100.0
	row := func(label []string, cells ...string) {
		h := lh * float64(len(label))
		for i, l := range label {
			lines = append(lines, pdfgen.Line{X: 72, Y: y + lh*float64(i), Size: 10, Text: l})
		}
		mid := y + (h-lh)/2
		for c, s := range cells {
			lines = append(lines, pdfgen.Line{X: 200 + 60*float64(c), Y: mid, Size: 10, Text: s})
		}
		y += h + 4
	}
	row([]string{"Team"}, "Won", "Lost", "Points")
	row([]string{"Blue Jackets"}, "41", "32", "91")
	row([]string{"The 2013 All-", "Star team"}, "27", "44", "58")
	row([]string{"Red Wings"}, "38", "35", "85")
	row([]string{"Flyers"}, "44", "29", "96")
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := []string{"| Team | Won | Lost | Points |\n| --- | --- | --- | --- |\n| Blue Jackets | 41 | 32 | 91 |\n" +
		"| The 2013 All-Star team | 27 | 44 | 58 |\n| Red Wings | 38 | 35 | 85 |\n| Flyers | 44 | 29 | 96 |"}
	if got := tablesOf(els); !slices.Equal(got, want) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
}
