package layout

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/ocr"
)

// markedReader reads the pages of ocrtest.GreyPages: page k's text is two lines
// naming k. It reads Concurrency pages at once, notes the most in flight
// and the reservation the context carries at each read, fails at page
// failAt, and its first read waits (a while at most) for a second to
// start, so that a reader taking several pages sees them together.
type markedReader struct {
	concurrency, failAt int
	mu                  sync.Mutex
	inFlight, most      int
	started             []int
	held                []int64
	second              chan struct{}
	once                sync.Once
}

func newMarkedReader(concurrency int) *markedReader {
	return &markedReader{concurrency: concurrency, second: make(chan struct{})}
}

func (r *markedReader) Concurrency() int { return r.concurrency }

func (r *markedReader) Read(ctx context.Context, img image.Image) (*ocr.Page, error) {
	b := img.Bounds()
	g := color.GrayModel.Convert(img.At(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()/2)).(color.Gray)
	k := (int(g.Y) + 10) / 20
	r.mu.Lock()
	r.inFlight++
	r.most = max(r.most, r.inFlight)
	first := len(r.started) == 0
	r.started = append(r.started, k)
	if res := budget.FromContext(ctx); res != nil {
		r.held = append(r.held, res.Size())
	}
	if r.inFlight == 2 {
		r.once.Do(func() { close(r.second) })
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	if first && r.concurrency > 1 {
		select {
		case <-r.second:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if k == r.failAt {
		return nil, errors.New("the model refused the page")
	}
	if r.failAt > 0 && k > r.failAt {
		// Pages after the failing one finish only when the reading is
		// stopped, so how many start does not depend on the machine's
		// speed: those before it and one reader's worth in flight.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w, h := float64(b.Dx()), float64(b.Dy())
	line := func(y float64, text string) ocr.Line {
		box := [4]float64{0.1 * w, y * h, 0.8 * w, (y + 0.03) * h}
		return ocr.Line{Text: text, Box: box, Quad: [4]ocr.Point{{X: box[0], Y: box[1]}, {X: box[2], Y: box[1]}, {X: box[2], Y: box[3]}, {X: box[0], Y: box[3]}}}
	}
	return &ocr.Page{Width: b.Dx(), Height: b.Dy(), Lines: []ocr.Line{
		line(0.2, fmt.Sprintf("Page %d begins its paragraph here", k)),
		line(0.24, fmt.Sprintf("and page %d ends it on this line.", k)),
	}}, nil
}

// A reader that reads several pages at once (ConcurrentOCRReader) gets
// them together: OCRPDF and ExtractImages draw or decode pages ahead,
// more than one is in flight (never more than it takes), the elements are
// those of reading one page at a time, in page order, each page drawn
// ahead is reserved in the budget while it is held, a budget that holds
// one page at a time still reads them all, a page that fails stops the
// reading with its error, and a cancelled context stops it. Before,
// pages were read one at a time whatever the reader.
func TestOCRConcurrentPages(t *testing.T) {
	const n = 10
	pages := ocrtest.GreyPages(n, 170, 220)
	pdf := ocrtest.ScanPDF(t, pages...)
	tiff := ocrtest.TIFF(pages...)
	ctx := context.Background()
	e, err := NewPDFium(ctx, PDFiumOptions{Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const page = 8 << 20
	opt := func(r OCRReader, progress func(int, int)) OCROptions {
		return OCROptions{Reader: r, DPI: 20, PageMemory: func(int64) int64 { return page }, Progress: progress}
	}
	for name, read := range map[string]func(context.Context, OCROptions) ([]gochunk.Element, error){
		"pdf":  func(ctx context.Context, o OCROptions) ([]gochunk.Element, error) { return e.OCRPDF(ctx, pdf, nil, o) },
		"tiff": func(ctx context.Context, o OCROptions) ([]gochunk.Element, error) { return ExtractImages(ctx, tiff, o) },
	} {
		seq := newMarkedReader(1)
		want, err := read(ctx, opt(seq, nil))
		if err != nil {
			t.Fatalf("%s, one at a time: %v", name, err)
		}
		if seq.most != 1 || len(want) != n {
			t.Fatalf("%s, one at a time: %d in flight, %d elements: %+v", name, seq.most, len(want), want)
		}
		for i, el := range want {
			if el.Page != i+1 || !strings.HasPrefix(el.Text, fmt.Sprintf("Page %d begins", i+1)) {
				t.Errorf("%s, one at a time: element %d on page %d: %q", name, i, el.Page, el.Text)
			}
		}

		// Four at a time, within a budget that holds them.
		b := budget.New(1<<30, 4)
		res, err := b.Take(ctx, 1<<20, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		con := newMarkedReader(4)
		var progress []int
		got, err := read(budget.NewContext(ctx, res), opt(con, func(done, total int) {
			progress = append(progress, done)
			if total != n {
				t.Errorf("%s: progress %d of %d, want of %d", name, done, total, n)
			}
		}))
		if err != nil {
			t.Fatalf("%s, four at a time: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: four at a time read\n%+v\nwant, as one at a time,\n%+v", name, got, want)
		}
		if con.most < 2 || con.most > 4 {
			t.Errorf("%s: %d pages in flight at most, want 2 to 4", name, con.most)
		}
		most := int64(0)
		for _, h := range con.held {
			most = max(most, h)
		}
		if most < 1<<20+2*page || most > 1<<20+4*page {
			t.Errorf("%s: %d bytes reserved at most while pages were read, want the pages in flight's (2 to 4 of %d) and 1 MiB", name, most, page)
		}
		if len(progress) != n || progress[n-1] != n {
			t.Errorf("%s: progress %v", name, progress)
		}
		if res.Size() != 1<<20 {
			t.Errorf("%s: %d bytes held after, want the 1 MiB taken", name, res.Size())
		}
		res.Release()

		// A budget of one page at a time: the pages ahead wait for it.
		small := budget.New(1<<20+page+page/2, 4)
		res, err = small.Take(ctx, 1<<20, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		one := newMarkedReader(4)
		got, err = read(budget.NewContext(ctx, res), opt(one, nil))
		res.Release()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s, a budget of one page: %v, %d elements", name, err, len(got))
		}
		for _, h := range one.held {
			if h > 1<<20+page {
				t.Errorf("%s, a budget of one page: %d bytes held while a page was read", name, h)
			}
		}

		// Page 3 fails: its error ends the reading; pages after it
		// are not all read.
		bad := newMarkedReader(4)
		bad.failAt = 3
		if _, err := read(ctx, opt(bad, nil)); err == nil || !strings.Contains(err.Error(), "page 3: the model refused the page") {
			t.Errorf("%s: page 3 failed: %v", name, err)
		}
		if len(bad.started) > 2+4 {
			t.Errorf("%s: page 3 failed, and pages %v were read", name, bad.started)
		}

		// A cancelled context: its error.
		cctx, cancel := context.WithCancel(ctx)
		stop := &cancelReader{markedReader: newMarkedReader(4), at: 2, cancel: cancel}
		if _, err := read(cctx, opt(stop, nil)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled at page 2: %v", name, err)
		}
		cancel()
	}
}

// cancelReader is a markedReader that cancels the reading at page at.
type cancelReader struct {
	*markedReader
	at     int
	cancel context.CancelFunc
}

func (r *cancelReader) Read(ctx context.Context, img image.Image) (*ocr.Page, error) {
	b := img.Bounds()
	if g := color.GrayModel.Convert(img.At(b.Dx()/2, b.Dy()/2)).(color.Gray); (int(g.Y)+10)/20 == r.at {
		r.cancel()
	}
	return r.markedReader.Read(ctx, img)
}

// blockingReader holds each page until the reading is cancelled (or a
// minute passes), noting whether it was cancelled.
type blockingReader struct {
	mu        sync.Mutex
	cancelled int
}

func (r *blockingReader) Concurrency() int { return 4 }

func (r *blockingReader) Read(ctx context.Context, img image.Image) (*ocr.Page, error) {
	select {
	case <-ctx.Done():
		r.mu.Lock()
		r.cancelled++
		r.mu.Unlock()
		return nil, ctx.Err()
	case <-time.After(time.Minute):
		return nil, errors.New("not cancelled")
	}
}

// A page that cannot be decoded while pages before it are read stops the
// reading: the pages in flight are cancelled (not awaited), and the error
// is the page's, not their cancellation.
func TestOCRConcurrentPagesStopOnBadPage(t *testing.T) {
	pages := ocrtest.GreyPages(3, 40, 30)
	tiff := ocrtest.TIFF(pages...)
	// The second page's strip offset (its directory's sixth entry) points
	// past the end of the file.
	le := func(i int) int { return int(tiff[i]) | int(tiff[i+1])<<8 | int(tiff[i+2])<<16 | int(tiff[i+3])<<24 }
	first := le(4)
	second := le(first + 2 + 9*12)
	at := second + 2 + 5*12 + 8
	tiff[at], tiff[at+1], tiff[at+2], tiff[at+3] = 0xff, 0xff, 0xff, 0x0f
	r := &blockingReader{}
	_, err := ExtractImages(context.Background(), tiff, OCROptions{Reader: r})
	if err == nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "page 2") {
		t.Errorf("page 2 cannot be decoded: %v, want its error", err)
	}
	if r.cancelled != 1 {
		t.Errorf("%d pages in flight cancelled, want page 1", r.cancelled)
	}
}
