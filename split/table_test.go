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
	chunks := chunktest.Check(t, c, text, chunktest.Options{Limit: 200, RepeatedHeaders: true})
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
		chunktest.Check(t, c[size], s, chunktest.Options{Limit: size, RepeatedHeaders: true})
	})
}

// Inside markdown a table too large for one chunk is cut by rows with its
// header repeated, as the table chunker does; the text and headings
// around it are chunked as markdown, and a table in fenced code is code.
func TestMarkdownTables(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("# Scores\n\nThe scores of the season.\n\n| name | score |\n|---|---:|\n")
	for i := range 40 {
		fmt.Fprintf(&sb, "| player %d | %d |\n", i, i*3)
	}
	sb.WriteString("\n## Notes\n\n```\n| not | a table |\n|---|---|\n| 1 | 2 |\n```\n\nThe end.\n")
	text := sb.String()
	c, err := NewMarkdown(MarkdownConfig{Size: Size{Size: 150}, HeadingPath: true}, tokenize.Runes{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunktest.Check(t, c, text, chunktest.Options{Limit: 150, RepeatedHeaders: true})
	parts, rows := 0, 0
	for k, ch := range chunks {
		if !strings.Contains(ch.Text, "| player ") {
			continue
		}
		parts++
		rows += strings.Count(ch.Text, "| player ")
		if !strings.HasPrefix(ch.Text, "| name | score |\n|---|---:|\n") {
			t.Errorf("chunk %d does not start with the header: %.50q", k, ch.Text)
		}
		if h := ch.Headings; len(h) != 1 || h[0] != "Scores" {
			t.Errorf("chunk %d headings %v", k, ch.Headings)
		}
	}
	if parts < 3 || rows != 40 {
		t.Errorf("%d table parts holding %d rows", parts, rows)
	}
	for _, ch := range chunks {
		if strings.Contains(ch.Text, "| not | a table |") && len(ch.Spans) != 1 {
			t.Errorf("a table in fenced code was cut as a table: %q", ch.Text)
		}
	}
}
