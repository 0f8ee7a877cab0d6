package layout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/requests"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/budget"
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

// ConcurrentOCRReader is an OCRReader that reads several pages at once:
// its Read may be called by that many goroutines together (a vision
// model's reader, whose pages are requests to a server: its client's
// requests in flight). OCRPDF and ExtractImages draw (or decode) up to
// Concurrency pages ahead and read them together, each page's memory
// reserved while it is held; the elements are those of reading the pages
// one at a time, in page order.
type ConcurrentOCRReader interface {
	OCRReader
	// Concurrency is the pages read at once; less than 2 means one at a
	// time.
	Concurrency() int
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
	// PageMemory is what reading a page of that many pixels holds, for
	// the memory budget the context carries (see OCRPDF); nil means
	// OCRPageMemory, the PP-OCR models' (a reader that sends pages away,
	// as a vision model's does, holds much less).
	PageMemory func(pixels int64) int64
}

func (o OCROptions) withDefaults() OCROptions {
	if o.DPI <= 0 {
		o.DPI = DefaultOCRDPI
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = ocr.DefaultMaxPixels
	}
	if o.PageMemory == nil {
		o.PageMemory = OCRPageMemory
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
// upright page turned by the page's skew (see deskew): the second result
// is that skew, in radians, for the blocks' boxes to be turned back.
func ocrBlocks(p OCRPage) (pageBlocks, float64) {
	u := p.Unit
	if u <= 0 {
		u = 1
	}
	pb := pageBlocks{page: p.Number, width: float64(p.Page.Width) * u, height: float64(p.Page.Height) * u}
	skew := pageSkew(p.Page.Lines)
	boxes := deskew(p.Page, skew)
	// A line's box is as tall as its letters reach (a line without
	// ascenders or descenders is shorter): heights within a third of the
	// page's median are the median, so that a paragraph's lines are of
	// one size and headings stand out.
	hs := make([]float64, 0, len(boxes))
	for _, b := range boxes {
		hs = append(hs, b.box[3]-b.box[1])
	}
	slices.Sort(hs)
	median := 0.0
	if len(hs) > 0 {
		median = hs[len(hs)/2]
	}
	// Each piece the detector found is a line: it already joins words
	// at a word's spacing and parts at a gutter's or a table cell's, which
	// the band rule of a PDF's runs (2.5 em) would join across a narrow
	// gutter. Pieces of one line the detector cut apart (on a skewed
	// page, where a line's letters drift across its band) are joined
	// first (joinPieces).
	lines := make([]pdfLine, 0, len(boxes))
	for _, l := range joinPieces(boxes) {
		b := l.box
		h := b[3] - b[1]
		if h > 0.66*median && h < 1.33*median {
			h = median
		}
		if len(l.words) == 0 {
			continue
		}
		lines = append(lines, pdfLine{x0: b[0] * u, y0: b[1] * u, x1: b[2] * u, y1: b[3] * u, size: ocrSize * h * u, words: l.words})
		pb.chars += l.chars
	}
	pb.blocks = linesToBlocks(lines)
	return pb, skew
}

// ocrLine is a line OCR read, its box in the deskewed page's pixels.
type ocrLine struct {
	box   [4]float64
	words []string
	chars int
}

// Skew bounds: a page turned less than minSkew is read as it is; one
// whose lines run at more than maxSkew is not a skewed scan (the lines'
// slopes are those of rotated text, or noise) and is read as it is.
const (
	minSkew = 0.1 * math.Pi / 180
	maxSkew = 10 * math.Pi / 180
)

// pageSkew estimates how far a page's text is turned clockwise, in
// radians: the median slope of its lines' top and bottom edges, over the
// lines at least four times as long as they are tall (a short line's
// edges say little of its slope). It is 0 when fewer than three lines
// can tell, or the slope is within minSkew or past maxSkew.
func pageSkew(lines []ocr.Line) float64 {
	var angles []float64
	for _, l := range lines {
		q := l.Quad
		dx, dy := q[1].X-q[0].X, q[1].Y-q[0].Y
		h := math.Hypot(q[3].X-q[0].X, q[3].Y-q[0].Y)
		if dx <= 0 || h <= 0 || math.Hypot(dx, dy) < 4*h {
			continue
		}
		top := math.Atan2(dy, dx)
		bottom := math.Atan2(q[2].Y-q[3].Y, q[2].X-q[3].X)
		angles = append(angles, (top+bottom)/2)
	}
	if len(angles) < 3 {
		return 0
	}
	slices.Sort(angles)
	a := angles[len(angles)/2]
	if math.Abs(a) < minSkew || math.Abs(a) > maxSkew {
		return 0
	}
	return a
}

// turnAbout turns (x, y) by angle radians (clockwise on the page, y
// down) about (cx, cy).
func turnAbout(x, y, cx, cy, angle float64) (float64, float64) {
	s, c := math.Sincos(angle)
	dx, dy := x-cx, y-cy
	return cx + dx*c - dy*s, cy + dx*s + dy*c
}

// deskew returns the page's lines with their boxes in the page turned
// back by skew about its centre: the upright box of each line's
// quadrilateral turned, so that a line's box is as tall as its letters
// and not its drift across the page.
func deskew(p *ocr.Page, skew float64) []ocrLine {
	cx, cy := float64(p.Width)/2, float64(p.Height)/2
	out := make([]ocrLine, 0, len(p.Lines))
	for _, l := range p.Lines {
		words := strings.Fields(l.Text)
		if len(words) == 0 {
			continue
		}
		b := l.Box
		if skew != 0 && l.Quad != [4]ocr.Point{} {
			b = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			for _, q := range l.Quad {
				x, y := turnAbout(q.X, q.Y, cx, cy, -skew)
				b = [4]float64{math.Min(b[0], x), math.Min(b[1], y), math.Max(b[2], x), math.Max(b[3], y)}
			}
		}
		out = append(out, ocrLine{box: b, words: words, chars: len(l.Text)})
	}
	return out
}

// skewBack turns an upright box of the deskewed page (in page units)
// back onto the page as read, and returns the upright box around it,
// within the page.
func skewBack(b [4]float64, skew, w, h float64) [4]float64 {
	if skew == 0 {
		return b
	}
	out := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, c := range [4][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}} {
		x, y := turnAbout(c[0], c[1], w/2, h/2, skew)
		out = [4]float64{math.Min(out[0], x), math.Min(out[1], y), math.Max(out[2], x), math.Max(out[3], y)}
	}
	return [4]float64{max(0, out[0]), max(0, out[1]), min(w, out[2]), min(h, out[3])}
}

// Pieces of one line: two lines are one when they share most of a band
// (their vertical overlap is over pieceOverlap of the lower's height),
// their heights are within pieceHeight of each other, and the gap from
// the first's end to the second's start is under pieceGap of their
// height (a word space is a third of one; the ocr package cuts a line
// at a gap of twice its letters' height, a gutter or a table's cell, which
// this keeps apart).
const (
	pieceOverlap = 0.5
	pieceHeight  = 1.5
	pieceGap     = 1.0
)

// joinPieces joins the pieces of one line the detector found apart, as
// they read left to right, and returns the lines top to bottom (then left
// to right among lines whose tops are within half a line's height), as
// the ocr package orders them, in the deskewed page.
func joinPieces(lines []ocrLine) []ocrLine {
	// Pieces to the right of a line, nearest first: sorted by x within
	// the line's band, checked among the few lines about its height.
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(lines[a].box[0], lines[b].box[0])
	})
	joined := make([]bool, len(lines))
	next := make([]int, len(lines)) // the piece that continues a line, +1
	for _, i := range idx {
		if joined[i] {
			continue
		}
		// Follow the line right, piece by piece.
		for cur := i; ; {
			a := lines[cur].box
			best, bestGap := -1, math.Inf(1)
			for _, j := range idx {
				if j == cur || joined[j] || j == i {
					continue
				}
				b := lines[j].box
				ha, hb := a[3]-a[1], b[3]-b[1]
				if ha <= 0 || hb <= 0 || ha > pieceHeight*hb || hb > pieceHeight*ha {
					continue
				}
				overlap := math.Min(a[3], b[3]) - math.Max(a[1], b[1])
				if overlap <= pieceOverlap*math.Min(ha, hb) {
					continue
				}
				gap := b[0] - a[2]
				if gap < -0.5*math.Min(ha, hb) || gap > pieceGap*math.Max(ha, hb) || b[2] <= a[2] {
					continue
				}
				if gap < bestGap {
					best, bestGap = j, gap
				}
			}
			if best < 0 {
				break
			}
			joined[best] = true
			next[cur] = best + 1
			cur = best
		}
	}
	out := make([]ocrLine, 0, len(lines))
	for i, l := range lines {
		if joined[i] {
			continue
		}
		for j := next[i] - 1; j >= 0; j = next[j] - 1 {
			p := lines[j]
			l.box = [4]float64{math.Min(l.box[0], p.box[0]), math.Min(l.box[1], p.box[1]), math.Max(l.box[2], p.box[2]), math.Max(l.box[3], p.box[3])}
			l.words = append(slices.Clip(l.words), p.words...)
			l.chars += 1 + p.chars
		}
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b ocrLine) int { return cmp.Compare(a.box[1], b.box[1]) })
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			a, b := &out[j-1], &out[j]
			h := math.Min(a.box[3]-a.box[1], b.box[3]-b.box[1])
			if math.Abs(b.box[1]-a.box[1]) >= h/2 || b.box[0] >= a.box[0] {
				break
			}
			*a, *b = *b, *a
		}
	}
	return out
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
	skews := map[int]float64{}
	for i, p := range pages {
		pbs[i], skews[p.Number] = ocrBlocks(p)
		byNumber[p.Number] = p
	}
	els := order(pbs)
	for i := range els {
		p, ok := byNumber[els[i].Page]
		if !ok {
			continue
		}
		if s := skews[p.Number]; s != 0 {
			els[i].BBox = skewBack(els[i].BBox, s, els[i].PageWidth, els[i].PageHeight)
		}
		if p.Page.Rotation == 0 {
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
// decoded; the context is checked between pages. A reader that reads
// several pages at once (ConcurrentOCRReader) is given that many,
// decoded ahead. A file that is not an image of a format read here is an
// error wrapping ocr.ErrImage; a document where OCR finds no text,
// ErrNoText.
func ExtractImages(ctx context.Context, data []byte, opt OCROptions) ([]gochunk.Element, error) {
	opt = opt.withDefaults()
	if opt.Reader == nil {
		return nil, errors.New("ocr: no OCR engine (give the OCR models: --ocr-model DIR)")
	}
	im, err := ocr.OpenImages(data, opt.MaxPixels)
	if err != nil {
		return nil, err
	}
	q := newPageQueue(ctx, opt, im.Len())
	err = func() error {
		for i := range im.Len() {
			if err := q.take(); err != nil {
				return err
			}
			img, err := im.Page(i)
			if err != nil {
				q.give()
				return err
			}
			// The page, decoded (its size checked against MaxPixels
			// before), and its reading are reserved before it is read.
			b := img.Bounds()
			release, err := q.reserve(opt.PageMemory(int64(b.Dx()) * int64(b.Dy())))
			if err != nil {
				q.give()
				return fmt.Errorf("page %d: %w", i+1, err)
			}
			q.start(i+1, img, 1, release)
		}
		return nil
	}()
	pages, qerr := q.wait(err)
	switch {
	case qerr != nil:
		return nil, qerr
	case err != nil:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return ocrResult(pages)
}

// pageQueue reads pages with OCR, up to the reader's Concurrency
// (ConcurrentOCRReader) at once, and keeps what it read in the order the
// pages were started. Its user takes a slot (take) before it draws or
// decodes a page, reserves the page's memory (reserve), and starts its
// reading (start), which gives both back when the page is read; a page
// that is not started gives its slot back (give). wait waits for the
// pages started and returns them, or the error of the first page (in
// order) that failed: a page that fails stops the pages after it.
type pageQueue struct {
	ctx    context.Context // ends when a page fails
	cancel context.CancelFunc
	parent context.Context
	reader OCRReader
	slots  chan struct{}
	wg     sync.WaitGroup

	progress    func(done, total int)
	total, done int

	mu    sync.Mutex
	pages []queuedPage
}

// queuedPage is a page a pageQueue started, and how its reading ended.
type queuedPage struct {
	OCRPage
	err error
}

func newPageQueue(ctx context.Context, opt OCROptions, total int) *pageQueue {
	n := 1
	if c, ok := opt.Reader.(ConcurrentOCRReader); ok {
		n = max(1, c.Concurrency())
	}
	qctx, cancel := context.WithCancel(ctx)
	return &pageQueue{ctx: qctx, cancel: cancel, parent: ctx, reader: opt.Reader, slots: make(chan struct{}, n), progress: opt.Progress, total: total}
}

// take waits for a free slot, or for the queue to end (a page failed,
// or the context ended).
func (q *pageQueue) take() error {
	if err := q.ctx.Err(); err != nil {
		return err
	}
	select {
	case q.slots <- struct{}{}:
		return nil
	case <-q.ctx.Done():
		return q.ctx.Err()
	}
}

// give gives back a slot taken for a page that is not started.
func (q *pageQueue) give() { <-q.slots }

// reserve reserves a page's memory from the budget the context carries
// (see reserve), holding a slot. Pages read ahead are held first: when
// the budget cannot hold this page beside them, it waits for them to be
// read and asks again, as reading one page at a time would.
func (q *pageQueue) reserve(n int64) (func(), error) {
	release, err := reserve(q.ctx, n)
	if err == nil || !(errors.Is(err, budget.ErrTooLarge) || errors.Is(err, budget.ErrBusy)) {
		return release, err
	}
	if errors.Is(err, budget.ErrBusy) && len(q.slots) <= 1 {
		// It waited its time with no other page of ours held.
		return nil, err
	}
	// Other pages may hold memory, or may have given it back since the
	// refusal (so the slots taken now do not say whether they did): take
	// every other slot, so that the pages in flight are read and their
	// memory given back, and ask again.
	held := 0
	defer func() {
		for range held {
			<-q.slots
		}
	}()
	for held < cap(q.slots)-1 {
		select {
		case q.slots <- struct{}{}:
			held++
		case <-q.ctx.Done():
			return nil, q.ctx.Err()
		}
	}
	return reserve(q.ctx, n)
}

// start reads page number (its pixels unit page units, as OCRPage's
// Unit) in a goroutine holding the slot taken for it, and gives back the
// slot and the page's memory (release) when it is read.
func (q *pageQueue) start(number int, img image.Image, unit float64, release func()) {
	q.mu.Lock()
	i := len(q.pages)
	q.pages = append(q.pages, queuedPage{OCRPage: OCRPage{Number: number, Unit: unit}})
	q.mu.Unlock()
	q.wg.Go(func() {
		defer q.give()
		defer release()
		p, err := q.reader.Read(q.ctx, img)
		q.mu.Lock()
		defer q.mu.Unlock()
		q.pages[i].Page, q.pages[i].err = p, err
		if err != nil {
			q.pages[i].err = fmt.Errorf("page %d: %w", number, err)
			q.cancel() // the pages after it are not read
			return
		}
		q.done++
		if q.progress != nil {
			q.progress(q.done, max(q.total, q.done))
		}
	})
}

// wait waits for the pages started, and returns them in the order they
// were started, or the error that ended the reading: the context's when
// it ended, else the first page's (in order) that failed but for a page
// cut short by a failure after it. stopped, when not nil, is why the
// drawing of pages stopped: the pages in flight are cancelled, and their
// cancellation is no error of theirs (the caller reports stopped).
func (q *pageQueue) wait(stopped error) ([]OCRPage, error) {
	if stopped != nil {
		q.cancel()
	}
	q.wg.Wait()
	q.cancel()
	if err := q.parent.Err(); err != nil {
		return nil, err
	}
	var first error
	out := make([]OCRPage, 0, len(q.pages))
	for _, p := range q.pages {
		switch {
		case p.err == nil:
			out = append(out, p.OCRPage)
		case !errors.Is(p.err, context.Canceled):
			return nil, p.err
		case first == nil:
			first = p.err
		}
	}
	if first != nil && stopped == nil {
		return nil, first
	}
	return out, nil
}

func ocrResult(pages []OCRPage) ([]gochunk.Element, error) {
	els := OCRElements(pages)
	for _, e := range els {
		if strings.TrimSpace(e.Text) != "" {
			return els, nil
		}
	}
	return nil, noOCRText{len(pages)}
}

// noOCRText reports pages where OCR found no text. It is ErrNoText
// (errors.Is) without that error's words, which are a PDF's.
type noOCRText struct{ pages int }

func (e noOCRText) Error() string {
	return fmt.Sprintf("OCR found no text on its %d page(s): blank, or text too small or faint to find (scan at 200 dpi or more; a PDF's pages are drawn at --ocr-dpi)", e.pages)
}

func (e noOCRText) Is(target error) bool { return target == ErrNoText }

// OCRPDF draws the PDF's pages with PDFium at opt.DPI (lower for a page
// that would be over opt.MaxPixels) and reads them with OCR, one page at a
// time, or as many at once as a ConcurrentOCRReader reads (drawn ahead,
// in page order); pages, when not nil, are the page numbers (1-based) to
// read, else all. A page over the PDF bounds (as ExtractPDF weighs pages),
// or that PDFium cannot draw, is left out (opt.Warn hears why). Each
// page's memory (OCRPageMemory) is reserved, from when it is drawn until
// it is read, from the budget ctx carries (budget.NewContext); the
// context is checked between pages. Elements are as OCRElements makes
// them, boxes in points.
func (e *PDFium) OCRPDF(ctx context.Context, pdf []byte, pages []int, opt OCROptions) ([]gochunk.Element, error) {
	opt = opt.withDefaults()
	if opt.Reader == nil {
		return nil, errors.New("ocr: no OCR engine (give the OCR models: --ocr-model DIR)")
	}
	total := len(pages)
	if pages == nil {
		total, _, _ = EstimatePDF(pdf)
	}
	q := newPageQueue(ctx, opt, total)
	err := drawPages(q.ctx, e, pdf, pages, 0,
		func(w *pdfiumWorker, i int) (ocrDrawn, error) {
			if err := q.take(); err != nil {
				return ocrDrawn{}, stopDrawing{err}
			}
			d, err := drawReserved(w, i, opt, q.reserve)
			if err != nil {
				q.give()
			}
			return d, err
		},
		func(n int, d ocrDrawn) error {
			q.start(n, d.img, 72/float64(d.dpi), d.release)
			return nil
		},
		func(n int, err error) {
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("page %d could not be drawn for OCR and is left out: %v", n, err))
			}
		})
	out, qerr := q.wait(err)
	switch {
	case qerr != nil:
		return nil, qerr
	case err != nil:
		return nil, drawingError(ctx, err)
	case len(out) == 0:
		return nil, fmt.Errorf("%w: no page could be drawn for OCR", ErrNoText)
	}
	return ocrResult(out)
}

// ocrDrawn is a page drawn for OCR, and what gives its reservation back.
type ocrDrawn struct {
	img     image.Image
	dpi     int
	release func()
}

// drawingError is what OCR's drawing of pages ends with when it fails:
// the context's error when it ended, the budget's refusal as it is, else
// err said of the PDF.
func drawingError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, budget.ErrTooLarge) || errors.Is(err, budget.ErrBusy) {
		return err
	}
	return fmt.Errorf("pdf: %w", err)
}

// drawReserved draws page i for OCR once the memory its pixels and their
// reading hold (opt.PageMemory) is reserved by reserve (from the budget
// the context carries); the caller gives it back with the result's
// release. A budget that cannot reserve the page stops the drawing
// (stopDrawing).
func drawReserved(w *pdfiumWorker, i int, opt OCROptions, reserve func(int64) (func(), error)) (ocrDrawn, error) {
	px, err := ocrPixels(w, i, opt)
	if err != nil {
		return ocrDrawn{}, err
	}
	release, err := reserve(opt.PageMemory(px))
	if err != nil {
		return ocrDrawn{}, stopDrawing{err}
	}
	img, dpi, err := drawForOCR(w, i, opt)
	if err != nil {
		release()
		return ocrDrawn{}, err
	}
	return ocrDrawn{img, dpi, release}, nil
}

// OCR's memory for a page: ocrPageBase, the detector's and recogniser's
// working memory in ONNX Runtime (the detector reads the page scaled to
// ocr.DefaultMaxSide, so it is about the same for every page), and
// ocrPixelBytes for each of the page's pixels (its image as drawn or
// decoded, and the copies OCR reads it in).
const (
	ocrPageBase   = 768 << 20
	ocrPixelBytes = 16
)

// OCRPageMemory is about what reading one page of that many pixels with
// OCR holds, at most, for a caller that budgets memory. Measured: the
// peak resident memory of gochunk extract on a US Letter page at 200 dpi
// (1,700 × 2,200 pixels) less that of the same process, models loaded, on
// an image of 2 × 2 pixels: 316 to 535 MiB over 11 pages of one and two
// columns, clean and degraded (the detector reads at most 960 pixels a
// side, ONNX Runtime's arena on); this gives 828 MiB for such a page, half
// again the largest seen, as the recogniser's batches follow the lines found.
func OCRPageMemory(pixels int64) int64 { return ocrPageBase + ocrPixelBytes*pixels }

// reserve grows the reservation ctx carries (budget.Grow) by n bytes for
// a page's reading, and returns what gives them back.
func reserve(ctx context.Context, n int64) (func(), error) {
	r := budget.FromContext(ctx)
	if r == nil {
		return func() {}, nil
	}
	if err := r.Grow(ctx, n); err != nil {
		return nil, fmt.Errorf("reading a page with OCR (%s reserved for it, layout.OCRPageMemory): %w", budget.Format(n), err)
	}
	return sync.OnceFunc(func() { r.Shrink(n) }), nil
}

// ocrPixels returns the pixels page i is drawn in for OCR (drawForOCR).
func ocrPixels(w *pdfiumWorker, i int, opt OCROptions) (int64, error) {
	dpi, wd, ht, err := ocrDPI(w, i, opt)
	if err != nil {
		return 0, err
	}
	return int64(math.Ceil(wd*float64(dpi))) * int64(math.Ceil(ht*float64(dpi))), nil
}

// ocrDPI returns the resolution page i is drawn at for OCR, opt.DPI or the
// highest that keeps it within opt.MaxPixels, and its size in inches.
func ocrDPI(w *pdfiumWorker, i int, opt OCROptions) (int, float64, float64, error) {
	size, err := w.inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: w.doc, Index: i})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	dpi := opt.DPI
	pw, ph := float64(size.Size.Width)/72, float64(size.Size.Height)/72 // inches
	if px := pw * ph * float64(dpi) * float64(dpi); px > float64(opt.MaxPixels) {
		dpi = int(math.Sqrt(float64(opt.MaxPixels) / (pw * ph)))
		if dpi < 50 {
			return 0, 0, 0, fmt.Errorf("the page is %.0f×%.0f inches: too large to draw within %d pixels at 50 dpi or more", pw, ph, opt.MaxPixels)
		}
	}
	return dpi, pw, ph, nil
}

// drawForOCR draws page i at opt.DPI, or at the highest resolution that
// keeps it within opt.MaxPixels.
func drawForOCR(w *pdfiumWorker, i int, opt OCROptions) (image.Image, int, error) {
	dpi, _, _, err := ocrDPI(w, i, opt)
	if err != nil {
		return nil, 0, err
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

// The images of a page with a text layer that OCRImages reads: at least
// MinOCRImageSide points (half an inch) on each side and MinOCRImageArea
// square points (two square inches) in all, as drawn on the page: a
// pasted scan of a few lines, a scanned figure or table, a screenshot; not
// a logo, an icon or a rule. An image under text of the text layer (see
// maxTextOverImage) is not read.
const (
	MinOCRImageSide = 36
	MinOCRImageArea = 2 * 72 * 72
)

// OCRImages reads with OCR the large images (MinOCRImageSide,
// MinOCRImageArea) drawn on the given pages (1-based) of a PDF whose text
// layer ExtractPDF read into els, and places what it finds among els: a
// page's images are drawn with the page at opt.DPI (as OCRPDF draws
// pages), each image's part read, lines that the text layer already has
// (half their box under its elements' boxes) dropped, and the rest made
// into elements (OCRElements, boxes in points) put after the last of the
// page's elements above them in the same column. It returns els with
// those elements, and the pages where OCR found text. Only images drawn
// by the page itself are found (not those inside its form XObjects).
// Memory, bounds and cancellation are as OCRPDF's.
func (e *PDFium) OCRImages(ctx context.Context, pdf []byte, pages []int, els []gochunk.Element, opt OCROptions) ([]gochunk.Element, []int, error) {
	opt = opt.withDefaults()
	if opt.Reader == nil {
		return nil, nil, errors.New("ocr: no OCR engine (give the OCR models: --ocr-model DIR)")
	}
	if len(pages) == 0 {
		return els, nil, nil
	}
	text := map[int][][4]float64{} // the text layer's boxes by page
	for _, el := range els {
		if strings.TrimSpace(el.Text) != "" {
			text[el.Page] = append(text[el.Page], el.BBox)
		}
	}
	type regions struct {
		ocrDrawn
		boxes [][4]float64 // in points
	}
	found := map[int][]gochunk.Element{}
	var read []int
	err := drawPages(ctx, e, pdf, pages, 0,
		func(w *pdfiumWorker, i int) (regions, error) {
			boxes := imageBoxes(w, i, text[i+1])
			if len(boxes) == 0 {
				return regions{}, nil
			}
			d, err := drawReserved(w, i, opt, func(n int64) (func(), error) { return reserve(ctx, n) })
			if err != nil {
				return regions{}, err
			}
			return regions{d, boxes}, nil
		},
		func(n int, r regions) error {
			if r.img == nil {
				return nil
			}
			defer r.release()
			p, err := readRegions(ctx, opt.Reader, r.img, r.dpi, r.boxes, text[n])
			if err != nil {
				return fmt.Errorf("page %d: %w", n, err)
			}
			if len(p.Lines) == 0 {
				return nil
			}
			for _, el := range OCRElements([]OCRPage{{Number: n, Page: p, Unit: 72 / float64(r.dpi)}}) {
				if strings.TrimSpace(el.Text) != "" {
					found[n] = append(found[n], el)
				}
			}
			if len(found[n]) > 0 {
				read = append(read, n)
			}
			return nil
		},
		func(n int, err error) {
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("page %d: its images could not be drawn for OCR and are left out: %v", n, err))
			}
		})
	if err != nil {
		return nil, nil, drawingError(ctx, err)
	}
	if len(read) == 0 {
		return els, nil, nil
	}
	return placeElements(els, found), read, nil
}

// imageBoxes returns the boxes, in points on the page as displayed, of
// the images page i draws that OCRImages reads (MinOCRImageSide,
// MinOCRImageArea, maxTextOverImage).
func imageBoxes(w *pdfiumWorker, i int, text [][4]float64) [][4]float64 {
	size, err := w.inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: w.doc, Index: i})
	if err != nil {
		return nil
	}
	pw, ph := float64(size.Size.Width), float64(size.Size.Height)
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: w.doc, Index: i}}
	rot := 0
	if r, err := w.inst.FPDFPage_GetRotation(&requests.FPDFPage_GetRotation{Page: page}); err == nil {
		rot = int(r.PageRotation) & 3
	}
	n, err := w.inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return nil
	}
	var out [][4]float64
	for k := range min(n.Count, maxObjects) {
		o, err := w.inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: k})
		if err != nil {
			continue
		}
		t, err := w.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject})
		if err != nil || t.Type != enums.FPDF_PAGEOBJ_IMAGE {
			continue
		}
		r, err := w.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: o.PageObject})
		if err != nil {
			continue
		}
		ax, ay := display(rot, pw, ph, float64(r.Left), float64(r.Bottom))
		bx, by := display(rot, pw, ph, float64(r.Right), float64(r.Top))
		b := [4]float64{max(0, math.Min(ax, bx)), max(0, math.Min(ay, by)), min(pw, math.Max(ax, bx)), min(ph, math.Max(ay, by))}
		bw, bh := b[2]-b[0], b[3]-b[1]
		if bw < MinOCRImageSide || bh < MinOCRImageSide || bw*bh < MinOCRImageArea {
			continue
		}
		if under(b, text) > maxTextOverImage {
			continue
		}
		out = append(out, b)
	}
	return out
}

// maxTextOverImage: an image is not read by OCRImages when the text
// layer's elements that lie in it (most of their box within its box)
// cover more than this share of it: the page's producer put its text
// there (a scan under its own invisible OCR text; a picture behind a
// slide's text). A stamp over a scan (a Bates number, a received date)
// covers less, and the scan is read, the stamp's line dropped as the text
// layer's.
const maxTextOverImage = 0.1

// under returns the share of box b's area under the boxes that lie
// mostly (more than half their area) within it.
func under(b [4]float64, boxes [][4]float64) float64 {
	return shareUnder(b, boxes, true)
}

// covered returns the share of box b's area under the boxes (their
// overlaps with b summed, at most 1).
func covered(b [4]float64, boxes [][4]float64) float64 {
	return shareUnder(b, boxes, false)
}

// shareUnder returns the share of box b's area under the boxes, their
// overlaps with b summed, at most 1; with mostlyWithin, only the boxes
// more than half of whose area is within b count.
func shareUnder(b [4]float64, boxes [][4]float64, mostlyWithin bool) float64 {
	area := (b[2] - b[0]) * (b[3] - b[1])
	if area <= 0 {
		return 0
	}
	var sum float64
	for _, t := range boxes {
		w := math.Min(b[2], t[2]) - math.Max(b[0], t[0])
		h := math.Min(b[3], t[3]) - math.Max(b[1], t[1])
		if w <= 0 || h <= 0 || mostlyWithin && 2*w*h <= (t[2]-t[0])*(t[3]-t[1]) {
			continue
		}
		sum += w * h
	}
	return min(1, sum/area)
}

// readRegions reads the parts of a page image at boxes (in points, the
// image drawn at dpi) with OCR, and returns their lines as one page of the
// image's size, in its pixels; lines half under the text layer's boxes
// (in points) are left out.
func readRegions(ctx context.Context, r OCRReader, img image.Image, dpi int, boxes, text [][4]float64) (*ocr.Page, error) {
	b := img.Bounds()
	px := float64(dpi) / 72
	out := &ocr.Page{Width: b.Dx(), Height: b.Dy()}
	for _, box := range boxes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rect := image.Rect(int(box[0]*px), int(box[1]*px), int(math.Ceil(box[2]*px)), int(math.Ceil(box[3]*px))).Add(b.Min).Intersect(b)
		if rect.Dx() < 16 || rect.Dy() < 16 {
			continue
		}
		crop := image.NewRGBA(image.Rect(0, 0, rect.Dx(), rect.Dy()))
		draw.Draw(crop, crop.Bounds(), img, rect.Min, draw.Src)
		p, err := r.Read(ctx, crop)
		if err != nil {
			return nil, err
		}
		dx, dy := float64(rect.Min.X-b.Min.X), float64(rect.Min.Y-b.Min.Y)
		for _, l := range p.Lines {
			lb := l.Box
			if p.Rotation != 0 {
				lb = p.ToSource(lb)
				l.Quad = [4]ocr.Point{} // turned: deskew reads the box
			}
			lb = [4]float64{lb[0] + dx, lb[1] + dy, lb[2] + dx, lb[3] + dy}
			if covered([4]float64{lb[0] / px, lb[1] / px, lb[2] / px, lb[3] / px}, text) > 0.5 {
				continue // the text layer has it
			}
			for k := range l.Quad {
				l.Quad[k].X += dx
				l.Quad[k].Y += dy
			}
			l.Box = lb
			out.Lines = append(out.Lines, l)
		}
	}
	return out, nil
}

// placeElements puts each page's new elements (in their reading order)
// among els: each after the last element of its page, in the same column
// (their boxes overlap across), whose top is above its own; else before
// the first element of its page in that column; else in order of their
// tops among the page's elements; a page without elements gets them after
// the pages before it.
func placeElements(els []gochunk.Element, found map[int][]gochunk.Element) []gochunk.Element {
	out := slices.Clone(els)
	for _, page := range slices.Sorted(maps.Keys(found)) {
		for _, el := range found[page] {
			out = slices.Insert(out, placeAt(out, el), el)
		}
	}
	return out
}

// placeAt returns where el goes among els (see placeElements).
func placeAt(els []gochunk.Element, el gochunk.Element) int {
	across := func(o gochunk.Element) bool {
		return math.Min(o.BBox[2], el.BBox[2])-math.Max(o.BBox[0], el.BBox[0]) > 0
	}
	first, last := -1, -1 // the page's elements
	above, below := -1, -1
	for i, o := range els {
		if o.Page != el.Page {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		if o.Excluded || !across(o) {
			continue
		}
		if o.BBox[1] <= el.BBox[1] {
			above = i
		} else if below < 0 {
			below = i
		}
	}
	switch {
	case above >= 0:
		return above + 1
	case below >= 0:
		return below
	case first >= 0:
		for i := first; i <= last; i++ {
			if els[i].Page == el.Page && !els[i].Excluded && els[i].BBox[1] > el.BBox[1] {
				return i
			}
		}
		return last + 1
	}
	// No element on its page: after the pages before it.
	for i, o := range els {
		if o.Page > el.Page {
			return i
		}
	}
	return len(els)
}
