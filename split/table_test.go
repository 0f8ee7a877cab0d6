package split

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

// A table larger than the size is cut by rows, every chunk after the first
// repeating the header (two spans: the header's and the rows'); one that
// fits stays whole; the text around is chunked as Recursive does.
func TestTable(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("Intro paragraph before the table.\n\n| name | score | note |\n|:---|---:|---|\n")
	for i := range 30 {
		fmt.Fprintf(&sb, "| row %d | %d | some note text |\n", i, i*7)
	}
	sb.WriteString("\nOutro text after it.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	text := sb.String()
	c, err := NewTable(TableConfig{Size{Size: 200}}, tokenize.Runes{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunktest.Check(t, c, text, chunktest.Options{Limit: 200, Overlap: true})
	header := "| name | score | note |\n|:---|---:|---|"
	rowsSeen, tables := 0, 0
	for k, ch := range chunks {
		if strings.Contains(ch.Text, "| row ") {
			tables++
			if !strings.HasPrefix(ch.Text, header+"\n") {
				t.Errorf("chunk %d does not start with the header: %.60q", k, ch.Text)
			}
			if tables > 1 && len(ch.Spans) != 2 {
				t.Errorf("chunk %d: %d spans, want the header's and the rows'", k, len(ch.Spans))
			}
			rowsSeen += strings.Count(ch.Text, "| row ")
		}
	}
	if tables < 3 || rowsSeen != 30 {
		t.Errorf("%d table chunks holding %d rows", tables, rowsSeen)
	}
	if !strings.HasPrefix(chunks[0].Text, "Intro") || chunks[len(chunks)-1].Text != "| a | b |\n|---|---|\n| 1 | 2 |" {
		t.Errorf("around the tables: %q ... %q", chunks[0].Text, chunks[len(chunks)-1].Text)
	}
}

func FuzzTable(f *testing.F) {
	f.Add("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\ntext", 12)
	f.Add("x\n|a|\n|---|\n|long row of text here|\n", 8)
	c := map[int]*Table{}
	f.Fuzz(func(t *testing.T, s string, size int) {
		if !utf8.ValidString(s) {
			return
		}
		size = 4 + abs(size)%60
		if c[size] == nil {
			c[size], _ = NewTable(TableConfig{Size{Size: size}}, tokenize.Runes{})
		}
		chunktest.Check(t, c[size], s, chunktest.Options{Limit: size, Overlap: true})
	})
}
