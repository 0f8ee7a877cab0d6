// Package pdfgen writes small PDF files of positioned text, for tests and
// benchmarks of PDF input: pages of Helvetica text lines at given
// coordinates, written with the go-pdf/fpdf library.
package pdfgen

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-pdf/fpdf"
)

// Line is one line of text; X and Y are in points from the page's top
// left corner (Y is the baseline).
type Line struct {
	X, Y, Size float64
	Text       string
}

// Rect is a rectangle, X and Y its top left corner in points from the
// page's top left: filled (a thin one is how many PDFs draw a rule), or
// its outline stroked 0.5 points wide.
type Rect struct {
	X, Y, W, H float64
	Stroke     bool
}

// Page is a page of lines; a page with no lines has no text layer. Rects
// are drawn under the lines.
type Page struct {
	Width, Height float64
	Lines         []Line
	Rects         []Rect
}

// Write writes pages as a PDF to w, with go-pdf/fpdf. Text must be
// Latin-1 (Helvetica with fpdf's core font encoding).
func Write(w io.Writer, pages []Page) error {
	return write(w, pages, "")
}

// WriteEncrypted writes pages as a PDF that opens only with the user
// password (RC4 encryption, as fpdf does it).
func WriteEncrypted(w io.Writer, pages []Page, password string) error {
	return write(w, pages, password)
}

func write(w io.Writer, pages []Page, password string) error {
	if len(pages) == 0 {
		return fmt.Errorf("pdfgen: no pages")
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: pages[0].Width, Ht: pages[0].Height}})
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetCompression(false)
	if password != "" {
		pdf.SetProtection(0, password, password+"-owner")
	}
	for _, p := range pages {
		pdf.AddPageFormat("P", fpdf.SizeType{Wd: p.Width, Ht: p.Height})
		if len(p.Lines) == 0 {
			// An image-only page: a drawn box, no text layer.
			pdf.Rect(50, 50, p.Width-100, p.Height-100, "F")
		}
		for _, r := range p.Rects {
			style := "F"
			if r.Stroke {
				style = "D"
				pdf.SetLineWidth(0.5)
			}
			pdf.Rect(r.X, r.Y, r.W, r.H, style)
		}
		for _, l := range p.Lines {
			pdf.SetFont("Helvetica", "", l.Size)
			pdf.Text(l.X, l.Y, l.Text)
		}
	}
	return pdf.Output(w)
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

// WriteLandscape writes a page whose lines are drawn turned a quarter
// counter-clockwise and which the PDF shows turned by rotate degrees
// (/Rotate: 90 or 270), as LaTeX's and word processors' landscape pages
// are made: with 90 the text reads left to right on the displayed page,
// with 270 it reads upside down.
func WriteLandscape(w io.Writer, lines []string, rotate int) error {
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	pdf.SetCompression(false)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "", 12)
	for i, l := range lines {
		x, y := 100.0+16*float64(i), 700.0
		pdf.TransformBegin()
		pdf.TransformRotate(90, x, y)
		pdf.Text(x, y, l)
		pdf.TransformEnd()
	}
	var buf strings.Builder
	if err := pdf.Output(&buf); err != nil {
		return err
	}
	out := strings.Replace(buf.String(), "/Type /Page\n", fmt.Sprintf("/Type /Page\n/Rotate %d\n", rotate), 1)
	_, err := io.WriteString(w, out)
	return err
}
