package layout

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// Bounds on what a PDF may make a reader hold. A small PDF can draw a
// great deal: a form XObject drawn twice by a form drawn twice, twenty
// deep, is a page of a million forms in 5 KB; a content stream deflated a
// thousand to one is 100 MB in 100 KB. Before PDFium draws a page, its
// content is weighed in Go (content streams inflated, each form counted
// as often as it is drawn); a page over a bound is not drawn, and the
// PDF's other pages are read.
const (
	// DefaultMaxPageContent bounds the bytes of content a page draws
	// (PDFOptions.MaxPageContent): its content streams inflated, and each
	// form XObject's as often as the page draws it. Typeset pages draw
	// 2 to 200 KB; PDFium holds about 10 to 20 bytes a byte of content.
	DefaultMaxPageContent = 16 << 20
	// DefaultMaxContent bounds the bytes of content all pages draw
	// together (PDFOptions.MaxContent).
	DefaultMaxContent = 512 << 20
	// DefaultMaxPageForms bounds the form XObjects a page draws, each
	// time counted (PDFOptions.MaxPageForms).
	DefaultMaxPageForms = 100_000
	// DefaultMaxFormDepth bounds forms drawn within forms
	// (PDFOptions.MaxFormDepth).
	DefaultMaxFormDepth = 16
	// DefaultMaxPageChars bounds the characters read from a page
	// (PDFOptions.MaxPageChars): a dense page holds 10,000.
	DefaultMaxPageChars = 200_000
	// DefaultMaxChars bounds the characters read from a PDF
	// (PDFOptions.MaxChars).
	DefaultMaxChars = 50_000_000
	// DefaultPDFiumMemory bounds one PDFium instance's memory
	// (PDFiumOptions.MemoryLimit).
	DefaultPDFiumMemory = 512 << 20
	// DefaultPDFiumTotalMemory bounds the memory of all of an engine's
	// instances together (PDFiumOptions.TotalMemory).
	DefaultPDFiumTotalMemory = 1 << 30
	// MinPDFiumMemory is the least an instance (PDFiumOptions.MemoryLimit)
	// or the engine (PDFiumOptions.TotalMemory) may be given: PDFium's
	// module takes about 19 MiB before it reads a page.
	MinPDFiumMemory = 32 << 20
)

// pageTextFactor: a page whose strings hold more than this many times
// MaxPageChars bytes is not drawn (PDFium would build a record of each
// character, some 250 bytes, before its first MaxPageChars are read); one
// that holds less is read to MaxPageChars characters. A character takes
// one to four bytes of a string (two in most CID fonts).
const pageTextFactor = 4

// ErrTooLarge reports a PDF (or a page of it) that draws more than a
// bound allows; the message names the bound, its value and the option
// that sets it.
var ErrTooLarge = errors.New("the PDF draws more than gochunk's bounds allow")

// ErrPDFMemory reports that PDFium ran out of the memory it is allowed.
var ErrPDFMemory = errors.New("PDFium ran out of memory")

// bounds are PDFOptions' bounds with their defaults.
type bounds struct {
	pageContent, content, pageForms int64
	formDepth, pageChars, chars     int
}

func (o PDFOptions) bounds() bounds {
	b := bounds{pageContent: o.MaxPageContent, content: o.MaxContent, pageForms: o.MaxPageForms,
		formDepth: o.MaxFormDepth, pageChars: o.MaxPageChars, chars: o.MaxChars}
	if b.pageContent <= 0 {
		b.pageContent = DefaultMaxPageContent
	}
	if b.content <= 0 {
		b.content = DefaultMaxContent
	}
	if b.pageForms <= 0 {
		b.pageForms = DefaultMaxPageForms
	}
	if b.formDepth <= 0 {
		b.formDepth = DefaultMaxFormDepth
	}
	if b.pageChars <= 0 {
		b.pageChars = DefaultMaxPageChars
	}
	if b.chars <= 0 {
		b.chars = DefaultMaxChars
	}
	return b
}

// check returns why a page of that cost is not drawn, or nil.
func (b bounds) check(c pageCost) error {
	switch {
	case c.depth > b.formDepth:
		return fmt.Errorf("%w: it draws forms nested more than %d deep (the bound, PDFOptions.MaxFormDepth)", ErrTooLarge, b.formDepth)
	case c.forms > b.pageForms:
		return fmt.Errorf("%w: it draws more than %s forms (the bound, PDFOptions.MaxPageForms)", ErrTooLarge, thousands(b.pageForms))
	case c.content > b.pageContent:
		return fmt.Errorf("%w: it draws more than %s of content (the bound, PDFOptions.MaxPageContent)", ErrTooLarge, byteSize(b.pageContent))
	case c.text > pageTextFactor*int64(b.pageChars):
		return fmt.Errorf("%w: it shows more than %s bytes of text, over %d times the %s characters read from a page (the bound, PDFOptions.MaxPageChars)",
			ErrTooLarge, thousands(pageTextFactor*int64(b.pageChars)), pageTextFactor, thousands(int64(b.pageChars)))
	}
	return nil
}

// checkAll returns the first page's error over the bounds, for a PDF
// whose pages PDFium counts differently (the page it is cannot be told).
func (b bounds) checkAll(costs []pageCost) error {
	for i, c := range costs {
		if err := b.check(c); err != nil {
			return fmt.Errorf("the page tree's page %d: %w (PDFium counts the pages differently, so the PDF is refused whole)", i+1, err)
		}
	}
	return nil
}

// thousands writes n with thousands separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var sb strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return thousands(n) + " bytes"
}

// weigh scans a PDF and returns each page's cost, nil when the scan found
// no page tree (PDFium is left to read it, under the memory bound), or an
// error when all pages together pass b.content.
func weigh(data []byte, b bounds) ([]pageCost, error) {
	s := scanPDF(data, b.pageContent)
	if len(s.pages) == 0 {
		return nil, nil
	}
	// A page over the bound counts as the bound: pages over it are not
	// drawn, but were weighed, and weighing is bounded too.
	costs := make([]pageCost, len(s.pages))
	var total int64
	for i := range s.pages {
		costs[i] = s.pageCost(i, b.pageContent)
		total = satAdd(total, min(costs[i].content, b.pageContent))
		if total > b.content {
			return nil, fmt.Errorf("%w: its pages draw more than %s of content together (the bound, PDFOptions.MaxContent)", ErrTooLarge, byteSize(b.content))
		}
	}
	return costs, nil
}

// weighMapped is weigh for bytes that may be a mapped file: one cut short
// while it is read faults, which is an error here rather than a crash (as
// is any failure of the scan).
func weighMapped(data []byte, b bounds) (costs []pageCost, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			costs = nil
			if _, fault := r.(interface{ Addr() uintptr }); fault {
				err = fmt.Errorf("cannot read the file: it changed while it was read (%v)", r)
				return
			}
			err = fmt.Errorf("%w: weighing its pages failed (%v)", ErrCorrupt, r)
		}
	}()
	return weigh(data, b)
}

// sourceBytes returns a PDF's bytes for the scan, and what frees them.
func sourceBytes(src pdfSource) ([]byte, func(), error) {
	if src.data != nil {
		return src.data, func() {}, nil
	}
	f, err := os.Open(src.path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open the file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open the file: %w", err)
	}
	b, free, err := mapFile(f, st.Size())
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the file: %w", err)
	}
	return b, free, nil
}

// EstimatePDF weighs a PDF without PDFium, in time linear in its size
// (its content streams inflated, each at most to the page bound): its
// pages, and the bytes of content they draw together, each form XObject
// counted as often as it is drawn (a page over DefaultMaxPageContent
// counts as that bound, since it will not be drawn). It is an estimate
// for a caller that reserves memory before reading (see PDFReserve):
// ExtractPDF checks the bounds itself. A PDF whose page tree it cannot
// follow gives 0 pages and the bytes of its streams; err is ErrCorrupt
// for data that is no PDF.
func EstimatePDF(data []byte) (pages int, contentBytes int64, err error) {
	if !strings.Contains(string(data[:min(len(data), 1024)]), "%PDF-") {
		return 0, 0, fmt.Errorf("%w (no %%PDF- header)", ErrCorrupt)
	}
	b := PDFOptions{}.bounds()
	s := scanPDF(data, b.pageContent)
	for i := range s.pages {
		if contentBytes > b.content {
			// Past the document's bound (ExtractPDF refuses it): the
			// other pages count as the one bound each, unweighed.
			contentBytes = satAdd(contentBytes, b.pageContent)
			continue
		}
		contentBytes = satAdd(contentBytes, min(s.pageCost(i, b.pageContent).content, b.pageContent))
	}
	return len(s.pages), contentBytes, nil
}

// PDFReserve is about what reading a PDF of that many pages and bytes of
// content (EstimatePDF) holds in the process, at most, with the default
// bounds: an instance of PDFium at work (64 MiB) and 20 bytes for each
// byte of content it draws, up to DefaultPDFiumMemory; the text and the
// elements read (a character is at most a byte of content, about 24
// bytes held while its page is grouped into lines, 4 once read), and 2
// KiB a page.
func PDFReserve(pages int, contentBytes int64) int64 {
	engine := min(64<<20+satMul(contentBytes, 20), DefaultPDFiumMemory)
	chars := min(contentBytes, DefaultMaxChars)
	return engine + 4*chars + 24*min(chars, DefaultMaxPageChars) + 2<<10*int64(pages)
}
