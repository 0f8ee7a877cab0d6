package htmldoc

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// raggedTable is a table whose first row has n cells (spanning a thousand
// columns each, as written) and n rows of one cell (spanning 65,534 rows)
// after it.
func raggedTable(n int) string {
	var sb strings.Builder
	sb.WriteString("<table><tr>")
	for range n {
		sb.WriteString(`<td colspan=1000>h`)
	}
	for range n {
		sb.WriteString(`<tr><td rowspan=65534>c`)
	}
	sb.WriteString("</table>")
	return sb.String()
}

// A table is not padded to its widest row when that would make it mostly
// padding (before, n rows of one cell after a row of n cells made n²
// cells: 9 million here, 3.6 billion for a 2.4 MB page), and spans are not
// expanded.
func TestRaggedTable(t *testing.T) {
	const n = 3000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	els, err := Elements(strings.NewReader("<p>Before.</p>" + raggedTable(n) + "<p>After.</p>"))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 3 || els[1].Type != "table" || els[2].Text != "After." {
		t.Fatalf("%d elements", len(els))
	}
	tb := els[1].Text
	if len(tb) > 16*n+100 || !strings.HasPrefix(tb, "| h | h |") || !strings.HasSuffix(tb, "\n| c |") || strings.Count(tb, "\n") != n+1 {
		t.Errorf("%d bytes: %.40q ... %q", len(tb), tb, tb[max(len(tb)-20, 0):])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("%d MB allocated", alloc>>20)
	}
	// Rows and columns without text go; a small ragged table is padded.
	els, err = Elements(strings.NewReader(`<table><tr><td></td><td>a</td><td>b</td><td></td></tr><tr><td></td><td></td></tr><tr><td></td><td>c</td></tr></table>`))
	if err != nil || len(els) != 1 || els[0].Text != "| a | b |\n|---|---|\n| c |  |" {
		t.Errorf("%v %+v", err, els)
	}
}

// The bounds are options, and their errors name them.
func TestLimits(t *testing.T) {
	page := "<p>" + strings.Repeat("word ", 100) + "</p>" + raggedTable(40)
	for _, c := range []struct {
		lim  Limits
		want string
	}{
		{Limits{MaxTableCells: 50}, "MaxTableCells"},
		{Limits{MaxCells: 50}, "MaxCells"},
		{Limits{MaxText: 300}, "MaxText"},
		{Limits{TextRatio: 1, MinText: 10}, "TextRatio"},
	} {
		_, err := ElementsLimited(strings.NewReader(page), c.lim)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want the bound %s", c.lim, err, c.want)
		}
	}
	if _, err := ElementsLimited(strings.NewReader(page), Limits{}); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	// A shared budget counts the pages of one document together.
	b := NewBudget(Limits{MaxText: 1000}, 10)
	for i := range 3 {
		_, err := ElementsWithin(strings.NewReader("<p>"+strings.Repeat("x", 400)+"</p>"), b)
		if (err != nil) != (i == 2) {
			t.Errorf("page %d: %v", i+1, err)
		}
	}
	if text, _ := b.Used(); text < 1000 {
		t.Errorf("used %d", text)
	}
}

// BenchmarkWorstCaseHTML reads the ragged table of issue 48 (60,000
// cells a row and 60,000 rows of one, 3.6 billion cells when padded):
// go test ./htmldoc -run '^$' -bench WorstCaseHTML -benchmem
func BenchmarkWorstCaseHTML(b *testing.B) {
	page := "<p>Before the table.</p>" + raggedTable(60000) + "<p>After the table.</p>"
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := Elements(strings.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	}
}
