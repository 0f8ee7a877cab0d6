// Package pdfgen writes small PDF files of positioned text, for tests and
// benchmarks of PDF input: pages of Helvetica text lines at given
// coordinates. It writes PDFs; it does not read them.
package pdfgen

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Line is one line of text; X and Y are in points from the page's top
// left corner (Y is the baseline).
type Line struct {
	X, Y, Size float64
	Text       string
}

// Page is a page of lines; a page with no lines has no text layer.
type Page struct {
	Width, Height float64
	Lines         []Line
}

// Write writes pages as a PDF to w. Text must be ASCII (Helvetica with the
// standard encoding).
func Write(w io.Writer, pages []Page) error {
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
		return len(offsets)
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	catalog := obj("<< /Type /Catalog /Pages 2 0 R >>")
	_ = catalog
	pagesObj := len(offsets) + 1
	// Reserve the pages object; fill it after the pages are known.
	offsets = append(offsets, 0)
	font := obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var kids []string
	for _, p := range pages {
		var content strings.Builder
		for _, l := range p.Lines {
			fmt.Fprintf(&content, "BT /F1 %.1f Tf %.2f %.2f Td (%s) Tj ET\n", l.Size, l.X, p.Height-l.Y, escape(l.Text))
		}
		stream := obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()))
		page := obj(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.0f %.0f] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>",
			pagesObj, p.Width, p.Height, font, stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	// The pages object, appended now, its offset recorded in its slot.
	offsets[pagesObj-1] = buf.Len()
	fmt.Fprintf(&buf, "%d 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", pagesObj, strings.Join(kids, " "), len(kids))
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	_, err := w.Write(buf.Bytes())
	return err
}

func escape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	return r.Replace(s)
}

// TwoColumn lays out paragraphs on US Letter pages in two columns, with a
// running header and a page number on every page; each paragraph is
// wrapped at about 45 characters a line. A full-width title opens the
// first page.
func TwoColumn(title string, paragraphs []string, header string) []Page {
	const w, h, left, right, colWidth, lineH, top, bottom = 612.0, 792.0, 50.0, 320.0, 240.0, 12.0, 90.0, 730.0
	var pages []Page
	page := Page{Width: w, Height: h}
	col, y := 0, top
	if title != "" {
		page.Lines = append(page.Lines, Line{X: 150, Y: 70, Size: 20, Text: title})
		y = 110
	}
	newPage := func() {
		n := len(pages) + 1
		page.Lines = append(page.Lines, Line{X: 50, Y: 30, Size: 9, Text: header}, Line{X: 300, Y: 770, Size: 9, Text: fmt.Sprintf("%d", n)})
		pages = append(pages, page)
		page = Page{Width: w, Height: h}
		col, y = 0, top
	}
	for _, p := range paragraphs {
		lines := wrap(p, 45)
		if y+lineH*float64(len(lines)) > bottom {
			if col == 0 {
				col, y = 1, top
				if len(pages) == 0 && title != "" {
					y = 110
				}
			} else {
				newPage()
			}
		}
		x := left
		if col == 1 {
			x = right
		}
		for _, l := range lines {
			page.Lines = append(page.Lines, Line{X: x, Y: y, Size: 10, Text: l})
			y += lineH
		}
		y += lineH // paragraph gap
	}
	newPage()
	return pages
}

func wrap(s string, width int) []string {
	var out []string
	var cur strings.Builder
	for _, w := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
