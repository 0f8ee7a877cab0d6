package layout

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/gochunk/gochunk/internal/ocrtest"
)

// A US Letter page at 200 dpi: a title across it, then two columns of
// two paragraphs each, and a page number at the foot.
var (
	ocrTitle = "Scanned Pages Read Upright by the OCR Stage"
	ocrLeft  = [][]string{
		{"Chunking splits a document into", "pieces that fit a model's window", "and keep exact offsets."},
		{"Scanned contracts and faxed forms", "exist only as images of pages."},
	}
	ocrRight = [][]string{
		{"The detector finds the lines, the", "recogniser reads each of them", "and the layout joins them."},
		{"Columns are read one after the", "other, top to bottom."},
	}
)

func ocrPage(t *testing.T) (*image.Gray, string) {
	var texts []ocrtest.Text
	texts = append(texts, ocrtest.Text{X: 200, Y: 260, Size: 60, Text: ocrTitle})
	want := []string{ocrTitle}
	col := func(x float64, paras [][]string) {
		y := 420.0
		for _, p := range paras {
			texts = append(texts, ocrtest.Lines(x, y, 30, p...)...)
			y += float64(len(p))*45 + 60
			want = append(want, strings.Join(p, " "))
		}
	}
	col(200, ocrLeft)
	col(920, ocrRight)
	// (A lone digit on a sparse page is missed by the detector: the
	// number is written as most scanned reports do.)
	texts = append(texts, ocrtest.Text{X: 780, Y: 2130, Size: 30, Text: "Page 7"})
	return ocrtest.Draw(t, 1700, 2200, texts...), strings.Join(want, "\n\n")
}

func checkOCRElements(t *testing.T, text string, want string, els []elementLike, w, h float64) {
	t.Helper()
	if c := ocrtest.CER(text, want); c > 0.02 {
		t.Errorf("CER %.3f:\n got %q\nwant %q", c, text, want)
	}
	if len(els) == 0 {
		t.Fatal("no elements")
	}
	if els[0].typ != "title" || !strings.Contains(els[0].text, "Scanned") {
		t.Errorf("first element %s %q, want the title", els[0].typ, els[0].text)
	}
	var footer bool
	for _, e := range els {
		if e.b[0] < 0 || e.b[1] < 0 || e.b[2] > w || e.b[3] > h || e.b[0] >= e.b[2] || e.b[1] >= e.b[3] {
			t.Errorf("%q: box %v outside the %gx%g page", e.text, e.b, w, h)
		}
		if e.excluded && strings.TrimSpace(e.text) == "Page 7" {
			footer = true
		}
	}
	if !footer {
		t.Errorf("the page number is not a footer: %+v", els)
	}
}

type elementLike struct {
	typ, text string
	b         [4]float64
	excluded  bool
}

func TestOCRImageElements(t *testing.T) {
	img, want := ocrPage(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	els, err := ExtractImages(context.Background(), buf.Bytes(), OCROptions{Reader: ocrtest.Engine(t)})
	if err != nil {
		t.Fatal(err)
	}
	text, els := Assemble(els)
	var like []elementLike
	for _, e := range els {
		like = append(like, elementLike{e.Type, e.Text, e.BBox, e.Excluded})
		if e.Page != 1 || e.PageWidth != 1700 || e.PageHeight != 2200 {
			t.Errorf("%q: page %d of %gx%g", e.Text, e.Page, e.PageWidth, e.PageHeight)
		}
	}
	checkOCRElements(t, text, want, like, 1700, 2200)
	if n := strings.Count(text, "\n\n"); n != 4 {
		t.Errorf("%d paragraph breaks, want 4 (title and four paragraphs):\n%s", n, text)
	}
	// Not an image.
	if _, err := ExtractImages(context.Background(), []byte("plain text"), OCROptions{Reader: ocrtest.Engine(t)}); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Errorf("not an image: %v", err)
	}
}

func TestOCRScannedPDF(t *testing.T) {
	img, want := ocrPage(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	// A PDF of the page image alone, US Letter (612 × 792 points).
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	pdf.AddPage()
	pdf.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	pdf.ImageOptions("scan", 0, 0, 612, 792, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := NewPDFium(ctx, PDFiumOptions{Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := ExtractPDFReader(ctx, bytes.NewReader(out.Bytes()), PDFOptions{Engine: e}); !errors.Is(err, ErrNoText) {
		t.Fatalf("the scan has a text layer? %v", err)
	}
	els, err := e.OCRPDF(ctx, out.Bytes(), nil, OCROptions{Reader: ocrtest.Engine(t)})
	if err != nil {
		t.Fatal(err)
	}
	text, els := Assemble(els)
	var like []elementLike
	for _, e := range els {
		like = append(like, elementLike{e.Type, e.Text, e.BBox, e.Excluded})
		if e.Page != 1 || e.PageWidth != 612 || e.PageHeight != 792 {
			t.Errorf("%q: page %d of %gx%g, want 612x792 points", e.Text, e.Page, e.PageWidth, e.PageHeight)
		}
	}
	checkOCRElements(t, text, want, like, 612, 792)
	// The title's box, in points: drawn at x=200 px of 200 dpi, 72 pt.
	if b := els[0].BBox; b[0] < 65 || b[0] > 75 {
		t.Errorf("title box %v: want x0 about 72 points", b)
	}
	// Cancelled between pages.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.OCRPDF(cctx, out.Bytes(), nil, OCROptions{Reader: ocrtest.Engine(t)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
