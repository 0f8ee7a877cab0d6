package mdtable

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// counter is a Counter with plain bounds.
type counter struct {
	table, cells, text  int64
	usedCells, usedText int64
}

func (c *counter) Cells(n int64) error {
	if c.usedCells += n; c.usedCells > c.cells {
		return fmt.Errorf("%w: cells", ErrTooLarge)
	}
	return nil
}

func (c *counter) Text(n int64) error {
	if c.usedText += n; c.usedText > c.text {
		return fmt.Errorf("%w: text", ErrTooLarge)
	}
	return nil
}

func (c *counter) TableCells() int64 { return c.table }

func roomy() *counter { return &counter{table: 1 << 20, cells: 1 << 20, text: 1 << 30} }

var officeStyle = Style{Delim: " --- |"}

func TestWrite(t *testing.T) {
	ref := func(r, c int) string { return fmt.Sprintf("R%dC%d", r, c) }
	for _, tc := range []struct {
		name  string
		cells [][3]any // row, col, text
		style Style
		want  string
	}{
		{"empty", nil, officeStyle, ""},
		{"dense", [][3]any{{0, 0, "a"}, {0, 1, "b"}, {1, 1, "d"}}, officeStyle, "| a | b |\n| --- | --- |\n|  | d |"},
		{"empty rows and columns left out", [][3]any{{5, 7, "a"}, {5, 9, "b"}, {900, 9, "c"}}, officeStyle, "| a | b |\n| --- | --- |\n|  | c |"},
		{"out of order, a later cell replacing an earlier one", [][3]any{{1, 0, "c"}, {0, 1, "b"}, {0, 0, "a"}, {0, 1, "B"}}, Style{Delim: "---|"}, "| a | B |\n|---|---|\n| c |  |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := roomy()
			tb := New(c)
			for _, x := range tc.cells {
				if err := tb.Add(x[0].(int), x[1].(int), x[2].(string)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := tb.Write(tc.style)
			if err != nil || got != tc.want {
				t.Errorf("got %q %v, want %q", got, err, tc.want)
			}
			if c.usedText < int64(len(got)) || c.usedText > int64(len(got))+1 {
				t.Errorf("counted %d bytes of text for %d", c.usedText, len(got))
			}
		})
	}
	// A diagonal of 3,000 cells (9 million padded) is written row by row,
	// with references where the style has them.
	for _, st := range []Style{officeStyle, {Delim: " --- |", Ref: ref}} {
		c := roomy()
		tb := New(c)
		for i := range 3000 {
			tb.Add(i, i, "x")
		}
		got, err := tb.Write(st)
		if err != nil {
			t.Fatal(err)
		}
		want := "| x |\n| --- |\n| x |"
		if st.Ref != nil {
			want = "| R0C0: x |\n| --- |\n| R1C1: x |"
		}
		if !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 3000 || c.usedCells != 3000 || c.usedText != int64(len(got))+1 {
			t.Errorf("%.60q: %d lines, %d cells, %d bytes counted", got, strings.Count(got, "\n")+1, c.usedCells, c.usedText)
		}
	}
}

// Cells are counted as they are added, padding when the table is
// written, text before it is built.
func TestBounds(t *testing.T) {
	c := &counter{table: 10, cells: 100, text: 1000}
	tb := New(c)
	var err error
	for i := 0; err == nil && i < 100; i++ {
		err = tb.Add(0, i, "x")
	}
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxTableCells") || tb.Cells() != 11 {
		t.Errorf("table: %v after %d cells", err, tb.Cells())
	}
	c = &counter{table: 1000, cells: 13, text: 1000}
	tb = New(c)
	for i := range 10 {
		tb.Add(i/2, i%2, "x")
	}
	if _, err := tb.Write(officeStyle); err != nil {
		t.Fatal(err)
	}
	tb = New(c)
	tb.Add(0, 0, "x")
	tb.Add(1, 1, "x")
	if _, err := tb.Write(officeStyle); err == nil || c.usedCells != 14 {
		t.Errorf("the document's cells: %v, %d counted", err, c.usedCells)
	}
	c = &counter{table: 1000, cells: 1000, text: 20}
	tb = New(c)
	tb.Add(0, 0, strings.Repeat("x", 30))
	if _, err := tb.Write(officeStyle); err == nil || !strings.Contains(err.Error(), "text") {
		t.Errorf("text: %v", err)
	}
	// A repeated row shares its cells and counts them.
	c = roomy()
	tb = New(c)
	tb.Add(0, 0, "a")
	tb.Add(0, 1, "b")
	row := tb.Row(0)
	for r := 1; r < 4; r++ {
		tb.AddRow(r, row)
	}
	if got, _ := tb.Write(officeStyle); got != "| a | b |\n| --- | --- |\n| a | b |\n| a | b |\n| a | b |" || tb.Cells() != 8 {
		t.Errorf("%q, %d cells", got, tb.Cells())
	}
}
