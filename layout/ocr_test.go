package layout

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/ocr"
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
	text, els := ocrImage(t, img)
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
	scan := ocrtest.ScanPDF(t, img)
	ctx := context.Background()
	e, err := NewPDFium(ctx, PDFiumOptions{Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := ExtractPDFReader(ctx, bytes.NewReader(scan), PDFOptions{Engine: e}); !errors.Is(err, ErrNoText) {
		t.Fatalf("the scan has a text layer? %v", err)
	}
	els, err := e.OCRPDF(ctx, scan, nil, OCROptions{Reader: ocrtest.Engine(t)})
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
	if _, err := e.OCRPDF(cctx, scan, nil, OCROptions{Reader: ocrtest.Engine(t)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// skewedPage is an ocr.Page of lines drawn upright at the boxes given
// (x0, y0, x1, y1 in pixels) and turned deg degrees clockwise about the
// page's centre, as the detector finds a skewed scan's lines: each line's
// quadrilateral turned, its upright box around that.
func skewedPage(w, h int, deg float64, lines []ocrtest.Text, boxes [][4]float64) *ocr.Page {
	p := &ocr.Page{Width: w, Height: h}
	a := deg * math.Pi / 180
	for i, b := range boxes {
		var q [4]ocr.Point
		box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for k, c := range [4][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}} {
			x, y := turnAbout(c[0], c[1], float64(w)/2, float64(h)/2, a)
			q[k] = ocr.Point{X: x, Y: y}
			box = [4]float64{math.Min(box[0], x), math.Min(box[1], y), math.Max(box[2], x), math.Max(box[3], y)}
		}
		p.Lines = append(p.Lines, ocr.Line{Text: lines[i].Text, Quad: q, Box: box, Confidence: 0.95})
	}
	// The detector's order: by the upright box's top.
	slices.SortStableFunc(p.Lines, func(a, b ocr.Line) int { return cmp.Compare(a.Box[1], b.Box[1]) })
	return p
}

// TestOCRSkewedLines: the lines of a page turned 1.8° (their upright
// boxes taller than their letters by the drift across the page), one of
// them cut by the detector in two pieces, are read as the paragraphs they
// are: the page's skew is measured from the lines, their boxes turned
// back before layout, the pieces joined, and the elements' boxes turned
// onto the page as read.
func TestOCRSkewedLines(t *testing.T) {
	paras := [][]string{
		{"The first paragraph runs across the whole page from margin to margin", "and its second line is as long as the first one was before", "it ends."},
		{"The second paragraph starts here and runs across the page as well", "with a line the detector cut in two pieces on the skewed scan", "and a short end."},
		{"A third paragraph closes the page with a line of its own."},
	}
	var texts []ocrtest.Text
	var boxes [][4]float64
	var want []string
	y := 300.0
	for _, p := range paras {
		for _, l := range p {
			w := 17 * float64(len(l))
			if strings.HasPrefix(l, "with a line") { // cut in two pieces a word space apart
				cut := strings.Index(l, " two ")
				texts = append(texts, ocrtest.Text{Text: l[:cut]}, ocrtest.Text{Text: l[cut+1:]})
				boxes = append(boxes, [4]float64{200, y, 200 + 17*float64(cut), y + 40}, [4]float64{200 + 17*float64(cut+1), y + 2, 200 + w, y + 40})
			} else {
				texts = append(texts, ocrtest.Text{Text: l})
				boxes = append(boxes, [4]float64{200, y, 200 + w, y + 40})
			}
			y += 50
		}
		y += 60
		want = append(want, strings.Join(p, " "))
	}
	for _, deg := range []float64{1.8, -1.5, 0} {
		pg := skewedPage(1700, 2200, deg, texts, boxes)
		if got := pageSkew(pg.Lines) * 180 / math.Pi; math.Abs(got-deg) > 0.05 {
			t.Errorf("turned %g°: skew measured %.3f°", deg, got)
		}
		text, els := Assemble(OCRElements([]OCRPage{{Number: 1, Page: pg, Unit: 1}}))
		if w := strings.Join(want, "\n\n"); text != w {
			t.Errorf("turned %g°:\n got %q\nwant %q", deg, text, w)
		}
		for _, e := range els {
			b := e.BBox
			// The element's box on the page as read holds its lines'
			// boxes: the first paragraph's first line starts at x 200
			// turned about the centre.
			if b[0] < 0 || b[1] < 0 || b[2] > 1700 || b[3] > 2200 || b[0] >= b[2] || b[1] >= b[3] {
				t.Errorf("turned %g°: %q: box %v outside the page", deg, e.Text, b)
			}
		}
		if len(els) > 0 {
			first := pg.Lines[0].Box
			if b := els[0].BBox; b[0] > first[0]+1 || b[1] > first[1]+1 || b[2] < first[2]-1 {
				t.Errorf("turned %g°: first element's box %v does not hold its first line's %v", deg, b, first)
			}
		}
	}
}

// TestOCRSkewedPage: a page of long lines scanned 1.5 to 2 degrees
// askew reads in order, each paragraph whole: the short last line of a
// paragraph is not set apart by the height the skew adds to the long
// lines' boxes, nor a piece of a line put into the next paragraph.
func TestOCRSkewedPage(t *testing.T) {
	paras := [][]string{
		{"Scanned reports are often fed into the scanner at a small angle, so that", "each line of text drifts down the page by a few pixels from its left end", "to its right."},
		{"The detector then finds boxes that are taller than their letters, and the", "layout must still read the paragraphs in the order they were written,", "one after the other."},
		{"A last paragraph of two lines closes the page and ends with a line that", "is shorter."},
	}
	var texts []ocrtest.Text
	var want []string
	y := 300.0
	for _, p := range paras {
		texts = append(texts, ocrtest.Lines(150, y, 30, p...)...)
		y += float64(len(p))*45 + 60
		want = append(want, strings.Join(p, " "))
	}
	page := ocrtest.Draw(t, 1700, 2200, texts...)
	for _, deg := range []float64{1.75, -1.5} {
		text, els := ocrImage(t, ocrtest.Rotate(page, deg))
		if c := ocrtest.CER(text, strings.Join(want, " ")); c > 0.02 {
			t.Errorf("turned %g°: CER %.3f:\n got %q\nwant %q", deg, c, text, strings.Join(want, "\n\n"))
		}
		var paras []string
		for _, e := range els {
			if !e.Excluded {
				paras = append(paras, e.Text)
			}
		}
		if len(paras) != len(want) {
			t.Errorf("turned %g°: %d paragraphs, want %d:\n%q", deg, len(paras), len(want), paras)
			continue
		}
		for i := range want {
			if c := ocrtest.CER(paras[i], want[i]); c > 0.03 {
				t.Errorf("turned %g°: paragraph %d CER %.3f: %q", deg, i+1, c, paras[i])
			}
		}
	}
}

// ocrImage reads img, as a PNG, with the test engine and returns the
// assembled text and elements.
func ocrImage(t *testing.T, img image.Image) (string, []gochunk.Element) {
	t.Helper()
	els, err := ExtractImages(context.Background(), ocrtest.PNG(t, img), OCROptions{Reader: ocrtest.Engine(t)})
	if err != nil {
		t.Fatal(err)
	}
	return Assemble(els)
}

// heldReader reads pages with an OCR engine and notes, for each page,
// the bytes the reservation of the context it is given holds while it
// reads (0 without one).
type heldReader struct {
	OCRReader
	held []int64
}

func (r *heldReader) Read(ctx context.Context, img image.Image) (*ocr.Page, error) {
	var n int64 // 0 without a reservation
	if res := budget.FromContext(ctx); res != nil {
		n = res.Size()
	}
	r.held = append(r.held, n)
	return r.OCRReader.Read(ctx, img)
}

// TestOCRPageBudget: each page read by OCR, an image's or a PDF's, is
// reserved (OCRPageMemory of its pixels, or OCROptions.PageMemory's) from
// the memory budget the context carries while it is read, and given back
// after; a budget too small for a page refuses it with budget.ErrTooLarge
// before it is read.
func TestOCRPageBudget(t *testing.T) {
	img := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, "A page read within the memory budget.")...)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pdf := ocrtest.ScanPDF(t, img)
	ctx := context.Background()
	e, err := NewPDFium(ctx, PDFiumOptions{Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	page := OCRPageMemory(1700 * 2200)
	if page < 536<<20 {
		t.Errorf("a 200-dpi page reserves %d bytes, less than the 535 MiB measured at most", page)
	}
	// Too small a budget: refused before the page is read.
	small := budget.New(512<<20, 4)
	for name, read := range map[string]func(context.Context, OCROptions) error{
		"image": func(ctx context.Context, o OCROptions) error {
			_, err := ExtractImages(ctx, buf.Bytes(), o)
			return err
		},
		"pdf": func(ctx context.Context, o OCROptions) error { _, err := e.OCRPDF(ctx, pdf, nil, o); return err },
	} {
		res, err := small.Take(ctx, 1<<20, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		r := &heldReader{OCRReader: refuseReader{t}}
		err = read(budget.NewContext(ctx, res), OCROptions{Reader: r})
		if !errors.Is(err, budget.ErrTooLarge) || !strings.Contains(err.Error(), "OCRPageMemory") {
			t.Errorf("%s, budget of 512 MiB: %v, want ErrTooLarge naming OCRPageMemory", name, err)
		}
		if res.Size() != 1<<20 || small.Reserved() != 1<<20 {
			t.Errorf("%s: %d bytes held after, want the 1 MiB taken", name, res.Size())
		}
		res.Release()
	}
	// A budget that holds it: the page is reserved while it is read.
	eng := ocrtest.Engine(t)
	big := budget.New(4<<30, 4)
	for name, read := range map[string]func(context.Context, OCROptions) ([]gochunk.Element, error){
		"image": func(ctx context.Context, o OCROptions) ([]gochunk.Element, error) {
			return ExtractImages(ctx, buf.Bytes(), o)
		},
		"pdf": func(ctx context.Context, o OCROptions) ([]gochunk.Element, error) { return e.OCRPDF(ctx, pdf, nil, o) },
	} {
		res, err := big.Take(ctx, 1<<20, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		r := &heldReader{OCRReader: eng}
		els, err := read(budget.NewContext(ctx, res), OCROptions{Reader: r})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(els) == 0 || !strings.Contains(els[0].Text, "memory budget") {
			t.Errorf("%s: read %+v", name, els)
		}
		if len(r.held) != 1 || r.held[0] < 1<<20+page {
			t.Errorf("%s: held %v while the page was read, want 1 MiB and %d", name, r.held, page)
		}
		if res.Size() != 1<<20 {
			t.Errorf("%s: %d bytes held after, want the 1 MiB taken", name, res.Size())
		}
		res.Release()
	}
	// A reader that holds less says so (OCROptions.PageMemory): the
	// small budget holds its page.
	res, err := small.Take(ctx, 1<<20, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	r := &heldReader{OCRReader: eng}
	if _, err := ExtractImages(budget.NewContext(ctx, res), buf.Bytes(), OCROptions{Reader: r, PageMemory: func(px int64) int64 { return 1 << 20 }}); err != nil {
		t.Fatal(err)
	}
	if len(r.held) != 1 || r.held[0] != 2<<20 {
		t.Errorf("PageMemory 1 MiB: held %v while the page was read, want 2 MiB", r.held)
	}
}

// refuseReader fails the test if a page reaches it.
type refuseReader struct{ t *testing.T }

func (r refuseReader) Read(context.Context, image.Image) (*ocr.Page, error) {
	r.t.Error("a page over the budget was read")
	return &ocr.Page{}, nil
}

// TestOCRPDFWeighsPages: OCRPDF weighs a PDF's pages as ExtractPDF and
// Render do: a page that draws forms nested past the bound is not drawn
// (nor read), a warning names it and its bound, and the others are read.
func TestOCRPDFWeighsPages(t *testing.T) {
	r := &heldReader{OCRReader: ocrtest.Engine(t)}
	var warns []string
	// Drawn at 30 dpi: the pages are read fast, their text or not.
	_, err := pdfiumEngine(t).OCRPDF(context.Background(), pdfgen.WithFormBombPage(5, 3, 20), nil,
		OCROptions{Reader: r, DPI: 30, Warn: func(s string) { warns = append(warns, s) }})
	if err != nil && !errors.Is(err, ErrNoText) {
		t.Fatal(err)
	}
	if len(r.held) != 4 {
		t.Errorf("%d pages read, want 4", len(r.held))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "page 3") || !strings.Contains(warns[0], "MaxFormDepth") {
		t.Errorf("warnings %q, want one naming page 3 and its bound", warns)
	}
}

// TestOCRImagesOnTextPages: a page with a text layer and a pasted scan
// of text gets the scan's text read by OCR, placed between the text above
// it and the caption below; a small image (a logo) is not read; a scanned
// page under its own invisible text (as ocrmypdf makes) is not read
// again, its text not doubled; a scanned page with a stamp of the text
// layer in its margin is read, the stamp once.
func TestOCRImagesOnTextPages(t *testing.T) {
	scanLines := []string{"The pasted scan holds two lines of text", "that only OCR can read from its pixels."}
	scan := ocrtest.Draw(t, 1000, 250, ocrtest.Lines(20, 80, 30, scanLines...)...)
	logo := ocrtest.Draw(t, 60, 60, ocrtest.Text{X: 5, Y: 40, Size: 30, Text: "Co"})
	var pageLines []string
	for i := range 20 {
		pageLines = append(pageLines, fmt.Sprintf("Line %d of a scanned page under its own invisible text layer.", i+1))
	}
	page := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, pageLines...)...)
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	pdf.SetFont("Helvetica", "", 12)
	image := func(name string, img image.Image, x, y, w, h float64) {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, &buf)
		pdf.ImageOptions(name, x, y, w, h, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
	pdf.AddPage()
	pdf.Text(72, 100, "A page with its own text layer, above a pasted scan.")
	image("scan", scan, 72, 150, 360, 90)
	pdf.Text(72, 270, "The caption under the scan is in the text layer.")
	image("logo", logo, 500, 60, 30, 30)
	pdf.AddPage()
	image("page", page, 0, 0, 612, 792)
	pdf.SetTextRenderingMode(3) // invisible, over the scan's lines
	pdf.SetFontSize(10.8)
	for i, l := range pageLines {
		pdf.Text(72, 108+float64(i)*16.2, l)
	}
	// A scanned page stamped with a number in its margin (the stamp is
	// the text layer's): the scan is read, the stamp not doubled.
	stamped := []string{"A scanned letter stamped with a number", "by the party that produced it."}
	pdf.SetTextRenderingMode(0)
	pdf.SetFontSize(9)
	pdf.AddPage()
	image("stamped", ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, stamped...)...), 0, 0, 612, 792)
	pdf.Text(480, 770, "ACME-000123")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := pdfiumEngine(t)
	els, err := ExtractPDFReader(ctx, bytes.NewReader(out.Bytes()), PDFOptions{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	r := &heldReader{OCRReader: ocrtest.Engine(t)}
	all, read, err := e.OCRImages(ctx, out.Bytes(), []int{1, 2, 3}, els, OCROptions{Reader: r})
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 2 || read[0] != 1 || read[1] != 3 {
		t.Errorf("OCR found text on pages %v, want [1 3]", read)
	}
	if len(r.held) != 2 {
		t.Errorf("%d images read, want 2 (the scans; not the logo nor the page under its text)", len(r.held))
	}
	text, all := Assemble(all)
	want := "A page with its own text layer, above a pasted scan.\n\n" + strings.Join(scanLines, " ") +
		"\n\nThe caption under the scan is in the text layer.\n\n" + strings.Join(pageLines, " ") +
		"\n\n" + strings.Join(stamped, " ") + "\n\nACME-000123"
	if c := ocrtest.CER(text, want); c > 0.02 {
		t.Errorf("CER %.3f:\n got %q\nwant %q", c, text, want)
	}
	if n := strings.Count(text, "000123"); n != 1 {
		t.Errorf("the stamp is in the text %d times, want once:\n%s", n, text)
	}
	for _, el := range all {
		if strings.Contains(el.Text, "pasted scan holds") {
			// The scan is at (72, 150) to (432, 240) points.
			if b := el.BBox; el.Page != 1 || b[0] < 72 || b[1] < 150 || b[2] > 432 || b[3] > 240 {
				t.Errorf("the scan's text: page %d, box %v, want within (72, 150, 432, 240)", el.Page, b)
			}
		}
	}
}

// TestOCRTurnedImage: a page scanned a quarter turn clockwise reads
// upright, in the same elements as the upright page; the elements' page
// is the image as given (2,200 × 1,700) and their boxes are on it.
func TestOCRTurnedImage(t *testing.T) {
	img, want := ocrPage(t)
	// Turned a quarter clockwise: (x, y) goes to (h-1-y, x).
	w, h := img.Rect.Dx(), img.Rect.Dy()
	turned := image.NewGray(image.Rect(0, 0, h, w))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			turned.Pix[x*turned.Stride+h-1-y] = img.Pix[y*img.Stride+x]
		}
	}
	text, els := ocrImage(t, turned)
	var like []elementLike
	for _, e := range els {
		like = append(like, elementLike{e.Type, e.Text, e.BBox, e.Excluded})
		if e.PageWidth != 2200 || e.PageHeight != 1700 {
			t.Errorf("%q: page of %gx%g, want the image's 2200x1700", e.Text, e.PageWidth, e.PageHeight)
		}
	}
	checkOCRElements(t, text, want, like, 2200, 1700)
	// The title, drawn upright from x 200 at y 200 to 275, runs down the
	// turned image's right side: x from 2200-275 to 2200-200.
	if len(els) > 0 {
		if b := els[0].BBox; b[0] < 2200-300 || b[2] > 2200-180 || b[1] > 260 {
			t.Errorf("title's box on the turned image %v, want x in [1900, 2020], y from about 200", b)
		}
	}
}

// TestOCRBlankImage: an image where OCR finds no text is ErrNoText, said
// in an image's words (not a PDF's "no text layer").
func TestOCRBlankImage(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, ocrtest.Draw(t, 400, 300)); err != nil {
		t.Fatal(err)
	}
	_, err := ExtractImages(context.Background(), buf.Bytes(), OCROptions{Reader: ocrtest.Engine(t)})
	if !errors.Is(err, ErrNoText) || strings.Contains(err.Error(), "no text layer") || !strings.Contains(err.Error(), "OCR found no text") {
		t.Errorf("a blank image: %v", err)
	}
}
