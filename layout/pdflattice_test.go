package layout

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/internal/pdfgen"
)

// ruledPage is an HTML page of ruled tables (border-collapse borders, as
// most HTML and office tables are printed): one with a cell spanning two
// columns and one spanning two rows, and cells of several lines; one of
// prices whose descriptions wrap.
const ruledPage = `<html lang="en"><head><meta charset="utf-8"><style>
body{font-family:"DejaVu Sans",sans-serif;font-size:11pt;margin:2cm}
table{border-collapse:collapse;margin:1em 0} td,th{border:1px solid black;padding:4px 6px;vertical-align:top}
.narrow{width:9em}
</style></head><body>
<p>Contacts of the branch offices, by person.</p>
<table>
<tr><th>Name</th><th colspan="2">Contact</th><th>Notes</th></tr>
<tr><td rowspan="2">Alice Smith</td><td>Phone</td><td>555 0100</td><td class="narrow">Prefers calls in the morning before ten</td></tr>
<tr><td>Mail</td><td>alice@example.com</td><td class="narrow">Rarely</td></tr>
<tr><td>Bob Jones</td><td>Phone</td><td>555 0101</td><td class="narrow">None</td></tr>
</table>
<p>Prices of the parts, before tax.</p>
<table>
<tr><th>Part</th><th>Description</th><th>Price</th></tr>
<tr><td>A-100</td><td class="narrow">Steel bracket for the left side of the frame</td><td>12.50</td></tr>
<tr><td>B-220</td><td class="narrow">Rubber seal</td><td>3.10</td></tr>
<tr><td>C-310</td><td class="narrow">Hinge with two screws and a washer</td><td>7.95</td></tr>
</table>
<p>The end of the list.</p>
</body></html>`

// Ruled tables printed by Chromium are found from their rules: cells of
// several lines are one cell each, a cell spanning columns or rows holds
// its text in its first column and row with the others left empty, as
// the HTML reader writes the same table; text around them stays in
// order. Found by alignment alone, the wrapped cells made rows of their
// own and the spanned cell a row.
func TestPDFRuledTables(t *testing.T) {
	pdf := printPDF(t, t.TempDir(), "ruled", ruledPage)
	els := extractElements(t, pdf)
	want := []string{
		"| Name | Contact |  | Notes |\n| --- | --- | --- | --- |\n" +
			"| Alice Smith | Phone | 555 0100 | Prefers calls in the morning before ten |\n" +
			"|  | Mail | alice@example.com | Rarely |\n" +
			"| Bob Jones | Phone | 555 0101 | None |",
		"| Part | Description | Price |\n| --- | --- | --- |\n" +
			"| A-100 | Steel bracket for the left side of the frame | 12.50 |\n" +
			"| B-220 | Rubber seal | 3.10 |\n" +
			"| C-310 | Hinge with two screws and a washer | 7.95 |",
	}
	got := tablesOf(els)
	if strings.Join(got, "\n\n") != strings.Join(want, "\n\n") {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
	// The HTML reader gives the same tables the same shape (its
	// delimiter row is written "---|").
	hels, err := htmldoc.Elements(strings.NewReader(ruledPage))
	if err != nil {
		t.Fatal(err)
	}
	htables := tablesOf(hels)
	for i := range htables {
		htables[i] = strings.ReplaceAll(htables[i], "|---", "| ---")
		htables[i] = strings.ReplaceAll(htables[i], "---|", "--- |")
	}
	if !slices.Equal(htables, want) {
		t.Errorf("the HTML reader writes the tables otherwise:\n%s", strings.Join(htables, "\n\n"))
	}
	text, _ := Assemble(els)
	for _, s := range []string{"by person.\n\n| Name", "| None |\n\nPrices", "before tax.\n\n| Part", "| 7.95 |\n\nThe end"} {
		if !strings.Contains(text, s) {
			t.Errorf("%q not in %q", s, text)
		}
	}
}

// A table whose rules are thin filled rectangles (as Chromium, Word and
// many generators draw them), and one drawn as stroked cell outlines,
// are found with their cells in the right columns, a wrapped cell one
// cell; a box around a paragraph is no table.
func TestPDFRuledTableRects(t *testing.T) {
	cols := []float64{72, 180, 400, 500}
	rows := []float64{100, 120, 155, 175}
	cells := [][]string{
		{"Item", "Description", "Amount"},
		{"Paint", "Two coats of white|paint on the front door", "120"},
		{"Labour", "Four hours", "200"},
	}
	lines := []pdfgen.Line{{X: 72, Y: 80, Size: 11, Text: "Estimate of the work done."}}
	for r, row := range cells {
		for c, text := range row {
			for k, part := range strings.Split(text, "|") {
				lines = append(lines, pdfgen.Line{X: cols[c] + 4, Y: rows[r] + 14 + 13*float64(k), Size: 10, Text: part})
			}
		}
	}
	// A paragraph in a box, below.
	lines = append(lines, pdfgen.Line{X: 80, Y: 230, Size: 11, Text: "Payment is due within thirty days of the date"},
		pdfgen.Line{X: 80, Y: 244, Size: 11, Text: "of this estimate, by bank transfer only."})
	filled := []pdfgen.Rect{{X: 70, Y: 212, W: 400, H: 0.8}, {X: 70, Y: 252, W: 400, H: 0.8}, {X: 70, Y: 212, W: 0.8, H: 40.8}, {X: 469.2, Y: 212, W: 0.8, H: 40.8}}
	for _, y := range rows {
		filled = append(filled, pdfgen.Rect{X: cols[0], Y: y, W: cols[3] - cols[0], H: 0.75})
	}
	for _, x := range cols {
		filled = append(filled, pdfgen.Rect{X: x, Y: rows[0], W: 0.75, H: rows[3] - rows[0]})
	}
	var stroked []pdfgen.Rect
	for r := range 3 {
		for c := range 3 {
			stroked = append(stroked, pdfgen.Rect{X: cols[c], Y: rows[r], W: cols[c+1] - cols[c], H: rows[r+1] - rows[r], Stroke: true})
		}
	}
	want := "| Item | Description | Amount |\n| --- | --- | --- |\n" +
		"| Paint | Two coats of white paint on the front door | 120 |\n" +
		"| Labour | Four hours | 200 |"
	for name, rects := range map[string][]pdfgen.Rect{"filled": filled, "stroked": stroked} {
		t.Run(name, func(t *testing.T) {
			els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines, Rects: rects}}))
			if got := tablesOf(els); !slices.Equal(got, []string{want}) {
				t.Errorf("tables: %q\nwant: %q", got, want)
			}
			text, _ := Assemble(els)
			if !strings.Contains(text, "Payment is due within thirty days of the date of this estimate, by bank transfer only.") {
				t.Errorf("the boxed paragraph is not a paragraph: %q", text)
			}
		})
	}
}

// A grid's slots that no rule parts are one cell: spanning columns,
// rows, or both; rules snapped across and joined along.
func TestFindGridsMergedCells(t *testing.T) {
	// Three columns (0, 100, 200, 300) and three rows (0, 20, 40, 60):
	// the header's last two columns one cell, the first column's last two
	// rows one cell. Rules come in pieces, a little apart.
	h := []edge{{0, 0, 150}, {0.5, 149, 300}, {20, 0, 300}, {40.4, 100, 300}, {60, 0, 300}}
	v := []edge{{0, 0, 60}, {100, 0, 30}, {100.6, 29, 60}, {200, 20, 60}, {300, 0, 60}}
	gs := findGrids(pageRules{h: h, v: v})
	if len(gs) != 1 {
		t.Fatalf("%d grids, want 1", len(gs))
	}
	g := gs[0]
	if len(g.xs) != 4 || len(g.ys) != 4 {
		t.Fatalf("grid %v by %v, want 3 by 3 slots", g.xs, g.ys)
	}
	want := []int{0, 1, 1, 3, 4, 5, 6, 7, 8}
	want[6] = 3 // the first column's last two rows
	if !slices.Equal(g.cell, want) {
		t.Errorf("cells %v, want %v", g.cell, want)
	}
	// Rules that meet nothing make no grid: an underline, a lone box.
	if gs := findGrids(pageRules{h: []edge{{10, 0, 50}, {30, 0, 50}}, v: []edge{{80, 0, 40}}}); len(gs) != 0 {
		t.Errorf("grids of rules that do not meet: %d", len(gs))
	}
	if gs := findGrids(pageRules{h: []edge{{0, 0, 50}, {30, 0, 50}}, v: []edge{{0, 0, 30}, {50, 0, 30}}}); len(gs) != 0 {
		t.Errorf("a box is a grid")
	}
}

// Whatever the rules and the words, every word is kept once: in a table
// or in the lines left.
func TestLatticeKeepsEveryWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 50))
	for trial := range 300 {
		var lines []pdfLine
		var all []string
		for i := range 1 + rng.IntN(30) {
			y := float64(rng.IntN(400))
			x := float64(rng.IntN(300))
			l := pdfLine{x0: x, y0: y, y1: y + 10, size: 10}
			for k := range 1 + rng.IntN(6) {
				w := fmt.Sprintf("w%d.%d.%d", trial, i, k)
				l.words = append(l.words, w)
				l.boxes = append(l.boxes, [2]float64{x, x + 20})
				all = append(all, w)
				x += 22 + float64(rng.IntN(60))
			}
			l.x1 = x
			lines = append(lines, l)
		}
		var rules pageRules
		for range rng.IntN(12) {
			a, b := float64(rng.IntN(500)), float64(rng.IntN(500))
			rules.h = append(rules.h, edge{float64(rng.IntN(420)), min(a, b), max(a, b)})
		}
		for range rng.IntN(12) {
			a, b := float64(rng.IntN(420)), float64(rng.IntN(420))
			rules.v = append(rules.v, edge{float64(rng.IntN(500)), min(a, b), max(a, b)})
		}
		tables, rest := latticeTables(lines, rules)
		got := tableWords(tables, rest)
		slices.Sort(all)
		if !slices.Equal(got, all) {
			t.Fatalf("trial %d: words %v, want %v", trial, got, all)
		}
	}
}

// Rules crossing text (a frame drawn over a page, a figure's lines) and a
// ruled frame around parts of a page that hold columns of their own make
// no table.
func TestLatticeFramesAreNoTables(t *testing.T) {
	line := func(y float64, x float64, words ...string) pdfLine {
		l := pdfLine{x0: x, y0: y, y1: y + 10, size: 10}
		for _, w := range words {
			l.words = append(l.words, w)
			l.boxes = append(l.boxes, [2]float64{x, x + 6*float64(len(w))})
			x += 6*float64(len(w)) + 3
		}
		l.x1 = x
		return l
	}
	// A grid of two by two boxes whose rule at x=100 runs through the
	// words of its lines.
	rules := pageRules{h: []edge{{0, 0, 200}, {50, 0, 200}, {100, 0, 200}}, v: []edge{{0, 0, 100}, {100, 0, 100}, {200, 0, 100}}}
	var lines []pdfLine
	for i := range 8 {
		lines = append(lines, line(5+float64(i)*12, 5, "the", "words", "of", "a", "sentence", "run", "across"))
	}
	if tables, _ := latticeTables(lines, rules); len(tables) > 0 {
		t.Errorf("rules across words made a table: %q", tables[0].table)
	}
	// Boxes holding key/value columns (an invoice's parts).
	lines = lines[:0]
	for i := range 3 {
		y := 5 + float64(i)*12
		lines = append(lines, line(y, 5, "Name"), line(y, 60, "Gabriel"), line(y, 105, "Year"), line(y, 160, "2022"),
			line(y+50, 5, "Parts"), line(y+50, 60, "2,100"), line(y+50, 105, "Labor"), line(y+50, 160, "300"))
	}
	if tables, _ := latticeTables(lines, rules); len(tables) > 0 {
		t.Errorf("a frame of key/value columns made a table: %q", tables[0].table)
	}
}

// A table ruled only around its body and between its columns (rows set
// apart by their lines alone) has a row for each line of its cells.
func TestLatticeRowsWithoutRules(t *testing.T) {
	rules := pageRules{h: []edge{{0, 0, 300}, {20, 0, 300}, {80, 0, 300}}, v: []edge{{100, 0, 80}, {200, 0, 80}}}
	mk := func(y, x float64, w string) pdfLine {
		return pdfLine{x0: x, y0: y, x1: x + 30, y1: y + 10, size: 10, words: []string{w}, boxes: [][2]float64{{x, x + 30}}}
	}
	var lines []pdfLine
	for c, h := range []string{"Name", "Model", "Notes"} {
		lines = append(lines, mk(5, 5+100*float64(c), h))
	}
	for r, row := range [][]string{{"PubLayNet", "F", "Papers"}, {"PRImA", "M", "Magazines"}, {"Newspaper", "F", "Newspapers"}} {
		for c, w := range row {
			lines = append(lines, mk(25+15*float64(r), 5+100*float64(c), w))
		}
	}
	tables, rest := latticeTables(lines, rules)
	if len(tables) != 1 || len(rest) != 0 {
		t.Fatalf("%d tables, %d lines left", len(tables), len(rest))
	}
	want := "| Name | Model | Notes |\n| --- | --- | --- |\n| PubLayNet | F | Papers |\n| PRImA | M | Magazines |\n| Newspaper | F | Newspapers |"
	if got := tableText(tables[0].table); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A cell's lines are joined as a paragraph's are: a word broken by a
// hyphen at a line's end is one word; a word the PDF draws in two runs
// that touch is one word, an accent drawn beside its letter is not
// glued to it.
func TestCellText(t *testing.T) {
	ws := []cellWord{
		{y: 5, h: 10, x: 0, x1: 30, size: 10, text: "It"},
		{y: 5, h: 10, x: 33, x1: 60, size: 10, text: "sup-"},
		{y: 17, h: 10, x: 0, x1: 30, size: 10, text: "ports"},
		{y: 17, h: 10, x: 33, x1: 60, size: 10, text: "pressur"},
		{y: 17, h: 10, x: 60.5, x1: 66, size: 10, text: "e"},
		{y: 29, h: 10, x: 0, x1: 20, size: 10, text: "Pal"},
		{y: 29, h: 10, x: 20.2, x1: 24, size: 10, text: "˚"},
	}
	if got, want := cellText(ws), "It supports pressure Pal ˚"; got != want {
		t.Errorf("cellText = %q, want %q", got, want)
	}
}
