package ocrtest

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"testing"

	"github.com/go-pdf/fpdf"
)

// PNG returns img encoded as PNG.
func PNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ScanPDF returns a US Letter PDF (612 × 792 points) of a page an image,
// each a PNG over the whole page: scanned pages with no text layer.
func ScanPDF(t testing.TB, pages ...*image.Gray) []byte {
	t.Helper()
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	for i, p := range pages {
		pdf.AddPage()
		name := fmt.Sprintf("scan%d", i)
		pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(PNG(t, p)))
		pdf.ImageOptions(name, 0, 0, 612, 792, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// GreyPages returns n pages of w × h pixels, page k (1-based) filled with
// the grey 20k, so that a stub reader can tell the page's number from any
// of its pixels.
func GreyPages(n, w, h int) []*image.Gray {
	out := make([]*image.Gray, n)
	for k := range out {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = uint8(20 * (k + 1))
		}
		out[k] = g
	}
	return out
}
