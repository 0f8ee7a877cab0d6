package layout

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"math"
	"slices"
	"strings"

	"github.com/klippa-app/go-pdfium/requests"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/ocr"
)

// DefaultOCRDPI is the resolution PDF pages are drawn at for OCR: 200
// dots per inch, where 10-point text is about 28 pixels high, the size
// PP-OCR's recogniser reads best (it scales lines to 48 pixels).
const DefaultOCRDPI = 200

// OCRReader reads a page image: an *ocr.Engine.
type OCRReader interface {
	Read(ctx context.Context, img image.Image) (*ocr.Page, error)
}

// OCROptions configure reading images and PDF pages with OCR.
type OCROptions struct {
	// Reader reads the pages (an *ocr.Engine).
	Reader OCRReader
	// DPI is the resolution PDF pages are drawn at (DefaultOCRDPI); a page
	// that would be over MaxPixels is drawn at the resolution that fits.
	DPI int
	// MaxPixels bounds a page's pixels (ocr.DefaultMaxPixels).
	MaxPixels int64
	// Warn, when set, hears about pages left out.
	Warn func(string)
	// Progress, when set, hears each page read (done of total).
	Progress func(done, total int)
}

func (o OCROptions) withDefaults() OCROptions {
	if o.DPI <= 0 {
		o.DPI = DefaultOCRDPI
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = ocr.DefaultMaxPixels
	}
	return o
}

// OCRPage is a page read by OCR, for OCRElements: its number (1-based),
// what OCR found, and the page units of one pixel (72/dpi for a PDF page
// drawn at dpi, so that boxes are in points as a born-digital page's;
// 1 for an image, whose boxes are in its pixels).
type OCRPage struct {
	Number int
	Page   *ocr.Page
	Unit   float64
}

// ocrSize is a line's font size for the layout rules (a born-digital
// run's size is its loose box's height), from the height of the box the
// detector grew around it.
const ocrSize = 1.15

// ocrBlocks groups an OCR'd page's lines into blocks (paragraphs) as a
// PDF page's lines are grouped. Coordinates are in page units, in the
// upright page.
func ocrBlocks(p OCRPage) pageBlocks {
	u := p.Unit
	if u <= 0 {
		u = 1
	}
	pb := pageBlocks{page: p.Number, width: float64(p.Page.Width) * u, height: float64(p.Page.Height) * u}
	// A line's box is as tall as its letters reach (a line without
	// ascenders or descenders is shorter): heights within a third of the
	// page's median are the median, so that a paragraph's lines are of
	// one size and headings stand out.
	hs := make([]float64, len(p.Page.Lines))
	for i, l := range p.Page.Lines {
		hs[i] = l.Box[3] - l.Box[1]
	}
	slices.Sort(hs)
	median := 0.0
	if len(hs) > 0 {
		median = hs[len(hs)/2]
	}
	// Each piece the detector found is a line: it already joins words
	// at a word's spacing and parts at a gutter's or a table cell's, which
	// the band rule of a PDF's runs (2.5 em) would join across a narrow
	// gutter.
	lines := make([]pdfLine, 0, len(p.Page.Lines))
	for _, l := range p.Page.Lines {
		b := l.Box
		h := b[3] - b[1]
		if h > 0.66*median && h < 1.33*median {
			h = median
		}
		words := strings.Fields(l.Text)
		if len(words) == 0 {
			continue
		}
		lines = append(lines, pdfLine{x0: b[0] * u, y0: b[1] * u, x1: b[2] * u, y1: b[3] * u, size: ocrSize * h * u, words: words})
		pb.chars += len(l.Text)
	}
	pb.blocks = linesToBlocks(lines)
	return pb
}

// OCRElements turns OCR'd pages into elements as ExtractPDF does a
// PDF's text: lines, blocks, columns and reading order, headers and
// footers (repeated in the margins, or page numbers) excluded, titles,
// headings, list items and captions typed; boxes in page units on the
// page as given (a page OCR read turned, Page.Rotation, has its boxes
// turned back).
func OCRElements(pages []OCRPage) []gochunk.Element {
	pbs := make([]pageBlocks, len(pages))
	byNumber := map[int]OCRPage{}
	for i, p := range pages {
		pbs[i] = ocrBlocks(p)
		byNumber[p.Number] = p
	}
	els := order(pbs)
	for i := range els {
		p, ok := byNumber[els[i].Page]
		if !ok || p.Page.Rotation == 0 {
			continue
		}
		u := p.Unit
		if u <= 0 {
			u = 1
		}
		b := els[i].BBox
		s := p.Page.ToSource([4]float64{b[0] / u, b[1] / u, b[2] / u, b[3] / u})
		els[i].BBox = [4]float64{s[0] * u, s[1] * u, s[2] * u, s[3] * u}
		if p.Page.Rotation%180 != 0 {
			els[i].PageWidth, els[i].PageHeight = els[i].PageHeight, els[i].PageWidth
		}
	}
	return els
}

// ExtractImages reads an image file's pages (every page of a TIFF) with
// OCR and returns their elements (OCRElements), boxes in pixels. Each
// page's declared size is checked against MaxPixels before it is
// decoded; the context is checked between pages. A file that is not an
// image of a format read here is an error wrapping ocr.ErrImage; a
// document where OCR finds no text, ErrNoText.
func ExtractImages(ctx context.Context, data []byte, opt OCROptions) ([]gochunk.Element, error) {
	opt = opt.withDefaults()
	if opt.Reader == nil {
		return nil, errors.New("ocr: no OCR engine (give the OCR models: --ocr-model DIR)")
	}
	im, err := ocr.OpenImages(data, opt.MaxPixels)
	if err != nil {
		return nil, err
	}
	var pages []OCRPage
	for i := range im.Len() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		img, err := im.Page(i)
		if err != nil {
			return nil, err
		}
		p, err := opt.Reader.Read(ctx, img)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		pages = append(pages, OCRPage{Number: i + 1, Page: p, Unit: 1})
		if opt.Progress != nil {
			opt.Progress(i+1, im.Len())
		}
	}
	return ocrResult(pages)
}

func ocrResult(pages []OCRPage) ([]gochunk.Element, error) {
	els := OCRElements(pages)
	for _, e := range els {
		if strings.TrimSpace(e.Text) != "" {
			return els, nil
		}
	}
	return nil, fmt.Errorf("%w: OCR found no text on its %d page(s)", ErrNoText, len(pages))
}

// OCRPDF draws the PDF's pages with PDFium at opt.DPI (lower for a page
// that would be over opt.MaxPixels) and reads them with OCR, one page at a
// time; pages, when not nil, are the page numbers (1-based) to read, else
// all. Elements are as OCRElements makes them, boxes in points.
func (e *PDFium) OCRPDF(ctx context.Context, pdf []byte, pages []int, opt OCROptions) ([]gochunk.Element, error) {
	opt = opt.withDefaults()
	if opt.Reader == nil {
		return nil, errors.New("ocr: no OCR engine (give the OCR models: --ocr-model DIR)")
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.sem }()
	w, err := e.open(ctx, pdfSource{data: pdf})
	if err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	count, err := w.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: w.doc})
	if err != nil {
		return nil, fmt.Errorf("pdf: %w (PDFium: %v)", ErrCorrupt, err)
	}
	if pages == nil {
		for i := 1; i <= count.PageCount; i++ {
			pages = append(pages, i)
		}
	}
	var out []OCRPage
	for k, n := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if n < 1 || n > count.PageCount || w == nil {
			continue
		}
		img, dpi, err := drawForOCR(w, n-1, opt)
		if err != nil {
			if w.mem != nil && w.mem.refused.Load() {
				err = e.memoryError()
			}
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("page %d could not be drawn for OCR and is left out: %v", n, err))
			}
			// The instance may be left broken: the next page is drawn
			// by a new one.
			w.close()
			w, _ = e.open(ctx, pdfSource{data: pdf})
			continue
		}
		p, err := opt.Reader.Read(ctx, img)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		out = append(out, OCRPage{Number: n, Page: p, Unit: 72 / float64(dpi)})
		if opt.Progress != nil {
			opt.Progress(k+1, len(pages))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no page could be drawn for OCR", ErrNoText)
	}
	return ocrResult(out)
}

// drawForOCR draws page i at opt.DPI, or at the highest resolution that
// keeps it within opt.MaxPixels.
func drawForOCR(w *pdfiumWorker, i int, opt OCROptions) (image.Image, int, error) {
	size, err := w.inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: w.doc, Index: i})
	if err != nil {
		return nil, 0, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	dpi := opt.DPI
	pw, ph := float64(size.Size.Width)/72, float64(size.Size.Height)/72 // inches
	if px := pw * ph * float64(dpi) * float64(dpi); px > float64(opt.MaxPixels) {
		dpi = int(math.Sqrt(float64(opt.MaxPixels) / (pw * ph)))
		if dpi < 50 {
			return nil, 0, fmt.Errorf("the page is %.0f×%.0f inches: too large to draw within %d pixels at 50 dpi or more", pw, ph, opt.MaxPixels)
		}
	}
	r, err := w.inst.RenderPageInDPI(&requests.RenderPageInDPI{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: w.doc, Index: i}},
		DPI:  dpi,
	})
	if err != nil {
		return nil, 0, err
	}
	defer r.Cleanup()
	// The image's memory is PDFium's until Cleanup: it is copied.
	src := r.Result.RenderedImage
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	return img, dpi, nil
}
