package split

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"regexp"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/tokenize"
)

// TableConfig configures the Table chunker.
type TableConfig struct {
	Size
}

// DefaultTableConfig returns the Table chunker's defaults: chunks of at
// most 1000 (runes by default), no overlap.
func DefaultTableConfig() TableConfig { return TableConfig{Size{Size: 1000}} }

// Table chunks markdown tables (pipe tables: a header row, a delimiter row
// such as |---|:--:|, then rows; HTML tables read with --input html become
// those) by rows, and repeats the header in every chunk of a table so that
// each chunk can be read on its own. A table that fits stays whole; the
// text around tables is chunked as Recursive does.
//
// A chunk of a table after its first holds two spans, the header's (its
// two lines) and its rows'; its text is theirs joined by a line break,
// so it repeats the header's text. A table with a row that does not fit
// beside its header is chunked as Recursive chunks text, without repeated
// headers.
type Table struct {
	cfg       TableConfig
	counter   tokenize.Counter
	recursive *Recursive
}

// NewTable returns a Table chunker.
func NewTable(cfg TableConfig, counter tokenize.Counter) (*Table, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	rc := DefaultRecursiveConfig()
	rc.Size = cfg.Size
	r, err := NewRecursive(rc, counter)
	if err != nil {
		return nil, err
	}
	return &Table{cfg: cfg, counter: counterOr(counter), recursive: r}, nil
}

var tableDelimiter = regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)

// tableSpan is a table in the text: its header (header and delimiter
// lines) and its rows, each a line.
type tableSpan struct {
	header pack.Range
	rows   []pack.Range
}

// findTables returns the pipe tables of text in order.
func findTables(text string) []tableSpan {
	// Lines are read one at a time (a text of millions of lines holds no
	// list of them): line returns the line at at, without its line feed,
	// and where the next one starts.
	line := func(at int) (pack.Range, int) {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			return pack.Range{Start: at, End: len(text)}, len(text)
		}
		return pack.Range{Start: at, End: at + end}, at + end + 1
	}
	str := func(r pack.Range) string { return text[r.Start:r.End] }
	var out []tableSpan
	if len(text) == 0 {
		return out
	}
	prev, at := line(0)
	for at < len(text) {
		cur, next := line(at)
		if !strings.Contains(str(prev), "|") || !tableDelimiter.MatchString(str(cur)) {
			prev, at = cur, next
			continue
		}
		t := tableSpan{header: pack.Range{Start: prev.Start, End: cur.End}}
		at = next
		stopped := false
		for at < len(text) {
			row, n := line(at)
			if !strings.Contains(str(row), "|") || strings.TrimSpace(str(row)) == "" {
				prev, at, stopped = row, n, true // the line that ends the table may head the next
				break
			}
			t.rows = append(t.rows, row)
			at = n
		}
		out = append(out, t)
		if !stopped {
			break
		}
	}
	return out
}

// Chunk implements gochunk.Chunker.
func (t *Table) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	if err := gochunk.CheckDocument(doc); err != nil {
		return nil, err
	}
	text := doc.Text
	conv := runeoff.New(text)
	span := func(r pack.Range) gochunk.Span {
		return gochunk.Span{Start: r.Start, End: r.End, StartRune: conv.Rune(r.Start), EndRune: conv.Rune(r.End)}
	}
	var out []gochunk.Chunk
	// prose chunks text[a:b] as Recursive does, at its offsets.
	chunkRange := t.recursive.rangeChunker(doc)
	prose := func(a, b int) error {
		if strings.TrimSpace(text[a:b]) == "" {
			return nil
		}
		cs, err := chunkRange(ctx, a, b)
		out = append(out, cs...)
		return err
	}
	pos := 0
	for _, tb := range findTables(text) {
		if err := prose(pos, tb.header.Start); err != nil {
			return nil, err
		}
		end := tb.header.End
		if len(tb.rows) > 0 {
			end = tb.rows[len(tb.rows)-1].End
		}
		pos = end
		if t.counter.Count(text[tb.header.Start:end]) <= t.cfg.Size.Size {
			out = append(out, gochunk.Chunk{Text: text[tb.header.Start:end], Spans: []gochunk.Span{span(pack.Range{Start: tb.header.Start, End: end})}})
			continue
		}
		cs, ok, err := tableChunks(ctx, text, tb, t.counter, t.cfg.Size.Size, span)
		if err != nil {
			return nil, err
		}
		if !ok {
			if err := prose(tb.header.Start, end); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, cs...)
	}
	if err := prose(pos, len(text)); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Index = i
		if out[i].TokenCount == 0 {
			out[i].TokenCount = t.counter.Count(out[i].Text)
		}
	}
	return out, nil
}

// tableChunks cuts a table too large for one chunk into chunks of rows,
// each after the first repeating the header (a span of its own). It
// reports false when a row does not fit beside the header, and stops
// with ctx's error.
func tableChunks(ctx context.Context, text string, tb tableSpan, counter tokenize.Counter, limit int, span func(pack.Range) gochunk.Span) ([]gochunk.Chunk, bool, error) {
	head := text[tb.header.Start:tb.header.End]
	if len(tb.rows) == 0 {
		return nil, false, nil
	}
	for _, r := range tb.rows {
		if counter.Count(head+"\n"+text[r.Start:r.End]) > limit {
			return nil, false, nil // a row too large beside the header: no repeated header
		}
	}
	var out []gochunk.Chunk
	for i := 0; i < len(tb.rows); {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, fmt.Errorf("chunking cancelled: %w", err)
			}
		}
		// Rows i..j-1 with the header, as many as fit (at least one, which
		// fits: checked above); n is their size.
		j, n := i+1, counter.Count(head+"\n"+text[tb.rows[i].Start:tb.rows[i].End])
		for j < len(tb.rows) {
			m := counter.Count(head + "\n" + text[tb.rows[i].Start:tb.rows[j].End])
			if m > limit {
				break
			}
			j, n = j+1, m
		}
		rows := pack.Range{Start: tb.rows[i].Start, End: tb.rows[j-1].End}
		c := gochunk.Chunk{Text: head + "\n" + text[rows.Start:rows.End], Spans: []gochunk.Span{span(tb.header), span(rows)}, TokenCount: n}
		if i == 0 {
			// The first part is the table's own text, whatever ends its
			// header line ("\r\n" too).
			whole := pack.Range{Start: tb.header.Start, End: rows.End}
			c = gochunk.Chunk{Text: text[whole.Start:whole.End], Spans: []gochunk.Span{span(whole)}, TokenCount: n}
			if text[tb.header.End:tb.rows[0].Start] != "\n" {
				c.TokenCount = counter.Count(c.Text)
			}
		}
		out = append(out, c)
		i = j
	}
	return out, true, nil
}
