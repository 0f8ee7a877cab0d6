package ocrtest

import (
	"bytes"
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

// ScanPDF returns a one-page US Letter PDF (612 × 792 points) whose only
// content is img, as a PNG over the whole page: a scanned page with no
// text layer.
func ScanPDF(t testing.TB, img image.Image) []byte {
	t.Helper()
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	pdf.AddPage()
	pdf.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(PNG(t, img)))
	pdf.ImageOptions("scan", 0, 0, 612, 792, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
