package layout

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pdfgen"
)

func extractElements(t *testing.T, path string) []gochunk.Element {
	t.Helper()
	els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: pdfiumEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	_, els = Assemble(els)
	return els
}

func tablesOf(els []gochunk.Element) []string {
	var out []string
	for _, e := range els {
		if e.Type == "table" {
			out = append(out, e.Text)
		}
	}
	return out
}

// A table drawn with rules and one without (Chromium's print of HTML
// tables) are table elements, written as pipe tables with their first row
// the header, cells in their columns; where their cells were a stream of
// words, partly out of order.
func TestPDFTables(t *testing.T) {
	els := extractElements(t, filepath.Join("testdata", "structure.pdf"))
	want := []string{
		"| Region | Q1 | Q2 | Change |\n| --- | --- | --- | --- |\n| North | 1,200 | 1,350 | +12.5% |\n| South | 980 | 1,010 | +3.1% |\n| East | 1,540 | 1,495 | -2.9% |\n| West | 720 | 810 | +12.5% |",
		"| Office | Manager | Staff |\n| --- | --- | --- |\n| Berlin | Anna Schmidt | 42 |\n| Lyon | Paul Martin | 17 |\n| Turin | Marco Rossi | 23 |",
	}
	got := tablesOf(els)
	if strings.Join(got, "\n\n") != strings.Join(want, "\n\n") {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
	// The text around them is as it was, in order.
	text, _ := Assemble(els)
	for _, s := range []string{"thousands of euros.\n\n| Region", "+12.5% |\n\n2. Staff", "without any borders.\n\n| Office", "Rossi | 23 |\n\n2.1 Training"} {
		if !strings.Contains(text, s) {
			t.Errorf("%q not in %q", s, text)
		}
	}
}

// Prose set in two columns, whose lines stand side by side across the
// gutter, is no table: neither Chromium's print of a justified
// two-column page nor a generated one with short paragraphs and numbers.
func TestPDFTwoColumnProseIsNoTable(t *testing.T) {
	if got := tablesOf(extractElements(t, filepath.Join("testdata", "prose.pdf"))); len(got) > 0 {
		t.Errorf("tables in prose: %q", got)
	}
	var paras []string
	for i := range 40 {
		paras = append(paras, paragraphs[i%len(paragraphs)]+" It costs 12 euros, 34 cents.")
	}
	if got := tablesOf(extractElements(t, writePDF(t, pdfgen.TwoColumn("Two Columns", paras, "Header")))); len(got) > 0 {
		t.Errorf("tables in prose: %q", got)
	}
}

// A list whose markers stand apart from their items is no table.
func TestPDFListIsNoTable(t *testing.T) {
	var lines []pdfgen.Line
	for i, s := range []string{"Flour and eggs", "A pinch of salt", "Water as needed", "Olive oil"} {
		y := 100 + 16*float64(i)
		lines = append(lines, pdfgen.Line{X: 72, Y: y, Size: 11, Text: "-"}, pdfgen.Line{X: 100, Y: y, Size: 11, Text: s})
	}
	if got := tablesOf(extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))); len(got) > 0 {
		t.Errorf("a list taken for a table: %q", got)
	}
}

// A table beside a column of prose is found, the prose left as its
// paragraphs.
func TestPDFTableBesideProse(t *testing.T) {
	var lines []pdfgen.Line
	prose := []string{"The figures on the right were", "measured over three days in the", "lab; each is the mean of five", "runs, rounded to one decimal."}
	rows := [][]string{{"Day", "Mean", "Max"}, {"Monday", "4.2", "5.0"}, {"Tuesday", "3.9", "4.4"}, {"Wednesday", "4.8", "6.1"}}
	for i := range 4 {
		y := 100 + 14*float64(i)
		lines = append(lines, pdfgen.Line{X: 50, Y: y, Size: 10, Text: prose[i]})
		for k, c := range rows[i] {
			lines = append(lines, pdfgen.Line{X: 330 + 80*float64(k), Y: y, Size: 10, Text: c})
		}
	}
	els := extractElements(t, writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: lines}}))
	want := "| Day | Mean | Max |\n| --- | --- | --- |\n| Monday | 4.2 | 5.0 |\n| Tuesday | 3.9 | 4.4 |\n| Wednesday | 4.8 | 6.1 |"
	if got := tablesOf(els); len(got) != 1 || got[0] != want {
		t.Errorf("tables %q, want %q", got, want)
	}
	if text, _ := Assemble(els); !strings.Contains(text, strings.Join(prose, " ")) {
		t.Errorf("the prose is not a paragraph of %q", text)
	}
}

// Whatever the lines, findTables loses no word and invents none: each
// line's words are in a table's cells or in the lines it leaves.
func TestFindTablesKeepsEveryWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"12", "3.5", "North", "total", "and", "the", "•", "1.", "Q1", "x"}
	found := 0
	for range 300 {
		var lines []pdfLine
		var all []string
		for i := range 2 + rng.IntN(12) {
			y := float64(i)*14 + float64(rng.IntN(3))
			x := 50 + float64(rng.IntN(200))
			l := pdfLine{y0: y, y1: y + 11, size: 11, x0: x}
			for range 1 + rng.IntN(6) {
				w := vocab[rng.IntN(len(vocab))]
				x += float64(rng.IntN(3)) * 8
				l.words = append(l.words, w)
				l.boxes = append(l.boxes, [2]float64{x, x + 6*float64(len(w))})
				x += 6*float64(len(w)) + 3
				all = append(all, w)
			}
			l.x1 = x
			lines = append(lines, l)
		}
		tables, rest := findTables(lines)
		found += len(tables)
		got := tableWords(tables, rest)
		slices.Sort(all)
		if !slices.Equal(all, got) {
			t.Fatalf("lines %v: words %q, want %q", lines, got, all)
		}
	}
	if found == 0 {
		t.Error("no table among the random lines: the test tests nothing")
	}
}

// tableWords returns, sorted, the words of the tables' cells and of the
// lines left out of them: a page's words, whatever tables were found.
func tableWords(tables []block, rest []pdfLine) []string {
	var words []string
	for _, b := range tables {
		for _, row := range b.table {
			for _, c := range row {
				words = append(words, strings.Fields(c)...)
			}
		}
	}
	for _, l := range rest {
		words = append(words, l.words...)
	}
	slices.Sort(words)
	return words
}
