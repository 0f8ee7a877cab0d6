package pipeline

import (
	"slices"
	"sort"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/record"
)

// Where is where a chunk of a laid-out document lies: its first and last
// page and the boxes of the elements it overlaps (see record.Record).
type Where struct {
	Pages [2]int
	Boxes []record.Box
}

// locate returns where each chunk of doc lies: with layout elements that
// have pages, the chunk's pages and the boxes of the elements it overlaps;
// else its first and last line. It costs one pass over the text or the
// elements.
func locate(doc gochunk.Document, chunks []gochunk.Chunk) (lines [][2]int, pages []Where) {
	// Elements place the text on pages when they have pages: a PDF's,
	// slides, sheets, even one; those of a document without pages (HTML,
	// Word, EPUB, e-mail) have page 0.
	for _, el := range doc.Elements {
		if el.Page > 0 {
			pages = make([]Where, len(chunks))
			locatePages(doc.Elements, chunks, pages)
			return nil, pages
		}
	}
	lines = make([][2]int, len(chunks))
	// The chunks' first and last bytes in order of offset: as they come
	// when no chunk starts before the one before it ends (most chunkers),
	// else sorted.
	at := func(c gochunk.Chunk) (start, last int, ok bool) {
		if len(c.Spans) == 0 {
			return 0, 0, false
		}
		start, end := c.Spans[0].Start, c.Spans[len(c.Spans)-1].End
		return start, max(start, end-1), true // the line of the chunk's last byte
	}
	ordered, prev := true, 0
	for _, c := range chunks {
		if start, last, ok := at(c); ok {
			ordered = ordered && start >= prev
			prev = last
		}
	}
	line, pos := 1, 0
	lineAt := func(i int) int {
		if i > pos {
			line += strings.Count(doc.Text[pos:min(i, len(doc.Text))], "\n")
			pos = i
		}
		return line
	}
	if ordered {
		for k, c := range chunks {
			if start, last, ok := at(c); ok {
				lines[k] = [2]int{lineAt(start), lineAt(last)}
			}
		}
		return lines, nil
	}
	type mark struct{ at, chunk, side int }
	marks := make([]mark, 0, 2*len(chunks))
	for k, c := range chunks {
		if start, last, ok := at(c); ok {
			marks = append(marks, mark{start, k, 0}, mark{last, k, 1})
		}
	}
	slices.SortFunc(marks, func(a, b mark) int { return a.at - b.at })
	for _, m := range marks {
		lines[m.chunk][m.side] = lineAt(m.at)
	}
	return lines, nil
}

// locatePages fills in the pages and boxes of chunks from the elements
// their spans overlap.
func locatePages(els []gochunk.Element, chunks []gochunk.Chunk, out []Where) {
	// Elements in the text, in order of offset (Assemble's order).
	var in []gochunk.Element
	for _, el := range els {
		if !el.Excluded && el.End > el.Start && el.Page > 0 {
			in = append(in, el)
		}
	}
	slices.SortFunc(in, func(a, b gochunk.Element) int { return a.Start - b.Start })
	for i, c := range chunks {
		w := &out[i]
		for _, sp := range c.Spans {
			// The first element that ends after the span's start.
			k := sort.Search(len(in), func(k int) bool { return in[k].End > sp.Start })
			for ; k < len(in) && in[k].Start < sp.End; k++ {
				el := in[k]
				if n := len(w.Boxes); el.BBox != [4]float64{} && (n == 0 || w.Boxes[n-1].Page != el.Page || w.Boxes[n-1].BBox != el.BBox) {
					w.Boxes = append(w.Boxes, record.Box{Page: el.Page, BBox: el.BBox})
				}
				if w.Pages[0] == 0 || el.Page < w.Pages[0] {
					w.Pages[0] = el.Page
				}
				w.Pages[1] = max(w.Pages[1], el.Page)
			}
		}
	}
}
