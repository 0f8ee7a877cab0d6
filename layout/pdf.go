package layout

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
)

// PDF errors.
var (
	ErrNoEngine  = errors.New("PDF input needs Poppler's pdftotext and pdfinfo (Debian/Ubuntu: apt-get install poppler-utils; macOS: brew install poppler)")
	ErrEncrypted = errors.New("the PDF is encrypted")
	ErrCorrupt   = errors.New("the PDF is corrupt or not a PDF")
	ErrNoText    = errors.New("no text layer: the PDF holds only images (run OCR first, for example with ocrmypdf)")
)

// errNoTextNoImage is ErrNoText for a PDF whose pages draw no image
// either: there is nothing for OCR to read.
var errNoTextNoImage error = noTextError("no text layer: the PDF's pages hold no text and no image (its text may be drawn as shapes, or its pages are blank); OCR of its drawn pages may read it (ocrmypdf --force-ocr)")

type noTextError string

func (e noTextError) Error() string        { return string(e) }
func (e noTextError) Is(target error) bool { return target == ErrNoText }

// PDFOptions configure PDF extraction.
type PDFOptions struct {
	// PagesPerBatch bounds the pages Poppler reads at once (memory), and
	// how often Progress hears of PDFium's; 0 means 20.
	PagesPerBatch int
	// Progress, when set, is called with the pages read so far.
	Progress func(done, total int)
	// Engine reads the PDF: a *PDFium (in the process; build one with
	// NewPDFium and share it) or Poppler{} (the pdftotext and pdfinfo
	// programs). Nil means a PDFium built for this call and closed after
	// it, which costs NewPDFium's start each time.
	Engine PDFEngine
	// Warn, when set, hears what reading left out or cut: a page not
	// read (over a bound, out of memory, unreadable) while the others
	// were, a page's characters past MaxPageChars. Without it the
	// document is read the same and the notes are lost.
	Warn func(string)

	// Bounds on what PDFium reads of a PDF (0 means the default; see
	// ErrTooLarge). A page over MaxPageContent, MaxPageForms or
	// MaxFormDepth is left out and reported to Warn; past MaxContent or
	// MaxChars the PDF is refused.
	MaxPageContent int64 // bytes of content a page draws (DefaultMaxPageContent, 16 MiB)
	MaxContent     int64 // bytes of content all pages draw (DefaultMaxContent, 512 MiB)
	MaxPageForms   int64 // form XObjects a page draws, each time counted (DefaultMaxPageForms, 100,000)
	MaxFormDepth   int   // forms drawn within forms (DefaultMaxFormDepth, 16)
	MaxPageChars   int   // characters read from a page (DefaultMaxPageChars, 200,000)
	MaxChars       int   // characters read from the PDF (DefaultMaxChars, 50,000,000)
}

func (o PDFOptions) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// Poppler reads PDFs with Poppler's pdftotext -bbox-layout and pdfinfo,
// which must be installed (poppler-utils).
type Poppler struct{}

// Name returns "poppler".
func (Poppler) Name() string { return "poppler" }

func (Poppler) read(ctx context.Context, src pdfSource, opt PDFOptions) ([]pageBlocks, error) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		return nil, ErrNoEngine
	}
	if _, err := exec.LookPath("pdfinfo"); err != nil {
		return nil, ErrNoEngine
	}
	path := src.path
	if src.data != nil {
		f, err := os.CreateTemp("", "gochunk-*.pdf")
		if err != nil {
			return nil, err
		}
		defer os.Remove(f.Name())
		_, err = f.Write(src.data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		path = f.Name()
		pages, err := popplerPages(ctx, path, opt)
		if err != nil {
			return nil, errors.New(strings.ReplaceAll(err.Error(), path+": ", ""))
		}
		return pages, nil
	}
	return popplerPages(ctx, path, opt)
}

func popplerPages(ctx context.Context, path string, opt PDFOptions) ([]pageBlocks, error) {
	pages, err := pageCount(ctx, path)
	if err != nil {
		return nil, err
	}
	batch := opt.PagesPerBatch
	if batch <= 0 {
		batch = 20
	}
	var all []pageBlocks
	for first := 1; first <= pages; first += batch {
		last := min(first+batch-1, pages)
		cmd := exec.CommandContext(ctx, "pdftotext", "-q", "-bbox-layout", "-enc", "UTF-8", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), path, "-")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, classify(path, err, stderr.String())
		}
		ps, err := parseBBoxLayout(out, first)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, ps...)
		if opt.Progress != nil {
			opt.Progress(last, pages)
		}
	}
	return all, nil
}

// ExtractPDFReader is ExtractPDF for a PDF that is not a file (standard
// input, a request body). PDFium reads it in memory; Poppler from a
// temporary file, removed when the extraction ends, cancelled or not
// (errors do not name that file).
func ExtractPDFReader(ctx context.Context, r io.Reader, opt PDFOptions) ([]gochunk.Element, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pdf: read: %w", err)
	}
	els, err := extract(ctx, pdfSource{data: data}, opt)
	if err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	return els, nil
}

// ExtractPDF reads the text blocks of a PDF with their bounding boxes
// (PDFium's characters grouped into lines and blocks, or Poppler's
// pdftotext -bbox-layout blocks), orders them for reading (columns
// detected from the blocks' horizontal positions, full-width blocks cutting
// the page into bands, each column top to bottom), joins a word hyphenated
// across lines, marks headers and footers (text repeated in the top or
// bottom margin of at least half the pages, and lone page numbers there)
// as excluded, and types elements: title, heading, list_item, caption,
// paragraph.
func ExtractPDF(ctx context.Context, path string, opt PDFOptions) ([]gochunk.Element, error) {
	els, err := extract(ctx, pdfSource{path: path}, opt)
	if err != nil && !strings.HasPrefix(err.Error(), path+": ") && ctx.Err() == nil && !errors.Is(err, ErrNoEngine) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return els, err
}

func extract(ctx context.Context, src pdfSource, opt PDFOptions) ([]gochunk.Element, error) {
	engine := opt.Engine
	if engine == nil {
		e, err := NewPDFium(ctx, PDFiumOptions{Instances: 1})
		if err != nil {
			return nil, err
		}
		defer e.Close()
		engine = e
	}
	pages, err := engine.read(ctx, src, opt)
	if err != nil {
		return nil, err
	}
	els := order(pages)
	hasText, excluded := false, false
	for _, e := range els {
		if strings.TrimSpace(e.Text) != "" {
			if !e.Excluded {
				hasText = true
				break
			}
			// Page numbers alone are no text: a scan may carry them.
			excluded = excluded || !isPageNumber(strings.TrimSpace(e.Text))
		}
	}
	switch {
	case !hasText && excluded:
		// All the text is in the margins, repeated or page numbers: it
		// is kept as the document's text rather than lost.
		for i := range els {
			els[i].Excluded = false
		}
		opt.warn("all its text is in headers and footers (repeated in the top or bottom margin, or page numbers): kept as its text")
	case !hasText:
		for _, p := range pages {
			if !p.blank {
				return nil, ErrNoText
			}
		}
		return nil, errNoTextNoImage
	}
	return els, nil
}

var pagesRe = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)

func pageCount(ctx context.Context, path string) (int, error) {
	cmd := exec.CommandContext(ctx, "pdfinfo", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, classify(path, err, stderr.String())
	}
	m := pagesRe.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s: %w (pdfinfo reports no page count)", path, ErrCorrupt)
	}
	n, _ := strconv.Atoi(string(m[1]))
	if n == 0 {
		return 0, fmt.Errorf("%s: %w: no pages", path, ErrNoText)
	}
	return n, nil
}

// classify turns a Poppler failure into one of the PDF errors.
func classify(path string, err error, stderr string) error {
	low := strings.ToLower(stderr)
	switch {
	case strings.Contains(low, "password") || strings.Contains(low, "encrypt"):
		return fmt.Errorf("%s: %w (Poppler: %s)", path, ErrEncrypted, strings.TrimSpace(stderr))
	case strings.Contains(low, "couldn't open file") || strings.Contains(low, "no such file"):
		return fmt.Errorf("%s: cannot open the file: %s", path, strings.TrimSpace(stderr))
	case stderr != "":
		return fmt.Errorf("%s: %w (Poppler: %.300s)", path, ErrCorrupt, strings.TrimSpace(stderr))
	}
	return fmt.Errorf("%s: %w: %v", path, ErrCorrupt, err)
}

type block struct {
	x0, y0, x1, y1 float64
	lines          []string
	lineHeight     float64    // mean
	table          [][]string // a table's cells by row and column (lines are its rows' text)
	bold, italic   bool       // all its lines set in a bold (italic) font, where the engine tells (PDFium)
	textX          float64    // a list item's: where its text starts after the marker; 0 unknown
}

type pageBlocks struct {
	page          int
	width, height float64
	blocks        []block
	chars         int            // characters read
	blank         bool           // no text and no image (PDFium)
	outline       []outlineEntry // the document's bookmarks, on its first page read (PDFium)
}

// parseBBoxLayout reads pdftotext's -bbox-layout XHTML: its words and
// lines, with their boxes, built into blocks by popplerBlocks.
func parseBBoxLayout(data []byte, firstPage int) ([]pageBlocks, error) {
	dec := xml.NewDecoder(bytes.NewReader(xmlText(data)))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	var pages []pageBlocks
	var blocks []popplerBlock // the page's
	var line pdfLine
	inWord := false
	var word strings.Builder
	var wordBox [2]float64
	attr := func(se xml.StartElement, name string) float64 {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				v, _ := strconv.ParseFloat(a.Value, 64)
				return v
			}
		}
		return 0
	}
	endPage := func() {
		if len(pages) > 0 && len(blocks) > 0 {
			pages[len(pages)-1].blocks = popplerBlocks(blocks)
		}
		blocks = blocks[:0]
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: reading pdftotext's output: %v", ErrCorrupt, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "page":
				endPage()
				pages = append(pages, pageBlocks{page: firstPage + len(pages), width: attr(t, "width"), height: attr(t, "height")})
			case "block":
				blocks = append(blocks, popplerBlock{x0: attr(t, "xMin"), y0: attr(t, "yMin"), x1: attr(t, "xMax"), y1: attr(t, "yMax")})
			case "line":
				line = pdfLine{}
				line.x0, line.y0, line.x1, line.y1 = attr(t, "xMin"), attr(t, "yMin"), attr(t, "xMax"), attr(t, "yMax")
				line.size = line.y1 - line.y0
			case "word":
				inWord = true
				word.Reset()
				wordBox = [2]float64{attr(t, "xMin"), attr(t, "xMax")}
			}
		case xml.CharData:
			if inWord {
				word.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "word":
				inWord = false
				if w := strings.Join(strings.Fields(word.String()), " "); w != "" {
					if wordBox[1] <= wordBox[0] {
						wordBox = [2]float64{line.x0, line.x1} // no box: the line's
					}
					line.words = append(line.words, w)
					line.boxes = append(line.boxes, wordBox)
				}
			case "line":
				if len(line.words) > 0 && len(blocks) > 0 {
					b := &blocks[len(blocks)-1]
					b.lines = append(b.lines, line)
				}
				line = pdfLine{}
			case "page":
				endPage()
			}
		}
	}
	endPage()
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w: pdftotext returned no page", ErrCorrupt)
	}
	return pages, nil
}

var digitsRe = regexp.MustCompile(`\d+`)

// order types the blocks, finds headers and footers, and returns the
// elements of all pages in reading order.
func order(pages []pageBlocks) []gochunk.Element {
	// Headers and footers: normalised text in the margins repeated on at
	// least half the pages (and on two or more).
	key := func(b block) string {
		return digitsRe.ReplaceAllString(strings.ToLower(strings.Join(b.lines, " ")), "#")
	}
	count := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, b := range p.blocks {
			if inMargin(b, p) {
				k := key(b)
				if !seen[k] {
					seen[k] = true
					count[k]++
				}
			}
		}
	}
	need := max(2, (len(pages)+1)/2)
	// The body text's size, for headings.
	median := bodySize(pages)
	boldOK := boldDistinct(pages) // bold sets headings apart
	compounds := hyphenated(pages)
	numbers := pageNumbers(pages) // page numbers outside the margins
	title, hasTitle := titleBlock(pages, median)
	var out []gochunk.Element
	var keys []headingKey // each element's size and style
	titled := false
	for _, p := range pages {
		for _, b := range readingOrder(p) {
			text := joinLines(b.lines, compounds)
			if b.table != nil {
				text = tableText(b.table)
			}
			e := gochunk.Element{Type: "paragraph", Text: text, Page: p.page, BBox: [4]float64{b.x0, b.y0, b.x1, b.y1}, PageWidth: p.width, PageHeight: p.height}
			trimmed := strings.TrimSpace(text)
			switch {
			case b.table != nil && !(inMargin(b, p) && count[key(b)] >= need):
				e.Type = "table"
			case inMargin(b, p) && (count[key(b)] >= need || isPageNumber(trimmed)) || numbers[pageBox{p.page, b.x0, b.y0}]:
				e.Type, e.Excluded = "footer", true
				if b.y1 < p.height/2 {
					e.Type = "header"
				}
			case hasTitle && !titled && title == pageBox{p.page, b.x0, b.y0}:
				e.Type, e.Level, titled = "title", 1, true
			case captionRe.MatchString(trimmed):
				e.Type = "caption"
			case len(b.lines) <= 2 && len(strings.Fields(trimmed)) <= 14 && isHeadingSize(b.lineHeight, median) && !amountOrCode(trimmed) &&
				strings.ContainsFunc(trimmed, unicode.IsLetter) && !unmappedStart(trimmed):
				e.Type = "heading"
				if depth, _, ok := sectionDepth(trimmed); ok {
					e.Level = depth
				} else if p.page == pages[0].page && !titled {
					titled = true
					e.Type = "title"
				}
			default:
				if depth, ok := numberedHeading(b, trimmed, median, boldOK); ok {
					e.Type, e.Level = "heading", depth
				} else if boldHeading(b, trimmed, median, boldOK) {
					e.Type = "heading"
				} else if listMarker(trimmed) || b.textX > 0 {
					e.Type = "list_item" // textX: the block began as an item (startsItemLine)
				}
			}
			out = append(out, e)
			keys = append(keys, headingKey{b.lineHeight, b.bold, b.italic, b.textX})
		}
	}
	setLevels(out, keys)
	if len(pages) > 0 {
		out = applyOutline(out, keys, pages[0].outline) // the outline wins over the looks
	}
	return out
}

// hyphenated returns the words written with a hyphen inside a line
// anywhere in the document, lowercased: a line that ends in "well-" before
// "known" keeps its hyphen when "well-known" is such a word.
func hyphenated(pages []pageBlocks) map[string]bool {
	out := map[string]bool{}
	for _, p := range pages {
		for _, b := range p.blocks {
			for _, l := range b.lines {
				for _, w := range strings.Fields(l) {
					w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
					if i := strings.IndexByte(w, '-'); i > 0 && i < len(w)-1 {
						out[strings.ToLower(w)] = true
					}
				}
			}
		}
	}
	return out
}

// joinLines joins a block's lines with spaces, and a word hyphenated at a
// line's end to its rest on the next line: without the hyphen when the
// rest starts in lower case (a soft hyphen always), unless the document
// writes the word with a hyphen elsewhere; with it otherwise ("Franco-" and
// "Prussian").
func joinLines(lines []string, compounds map[string]bool) string {
	var sb strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			last := prev[strings.LastIndexByte(prev, ' ')+1:]
			first, _ := utf8.DecodeRuneInString(l)
			switch {
			case strings.HasSuffix(last, "\u00ad"):
				s := sb.String()
				sb.Reset()
				sb.WriteString(strings.TrimSuffix(s, "\u00ad"))
			case len(last) > 1 && strings.HasSuffix(last, "-") && unicode.IsLetter(lastRune(last[:len(last)-1])):
				rest := l
				if j := strings.IndexByte(rest, ' '); j >= 0 {
					rest = rest[:j]
				}
				rest = strings.TrimRightFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
				word := strings.TrimLeftFunc(last, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) + rest
				if unicode.IsLower(first) && !compounds[strings.ToLower(word)] {
					s := sb.String()
					sb.Reset()
					sb.WriteString(s[:len(s)-1])
				}
			default:
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(l)
	}
	return sb.String()
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

var captionRe = regexp.MustCompile(`^(Figure|Fig\.|Table)\s+\d+`)

func inMargin(b block, p pageBlocks) bool {
	if p.height <= 0 {
		return false
	}
	return b.y1 <= 0.08*p.height || b.y0 >= 0.92*p.height
}

func isPageNumber(s string) bool {
	s = strings.TrimSpace(strings.Trim(s, "-–— "))
	if len(s) == 0 || len(s) > 12 {
		return false
	}
	_, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(strings.TrimPrefix(s, "Page ")), "page "))
	return err == nil
}

// readingOrder sorts a page's blocks. Columns are found from the
// horizontal projection profile of the blocks narrower than 55% of the page;
// a block that is wider, or that overlaps two columns (a centred title),
// spans the page and cuts it into horizontal bands; within a band, blocks
// are read column by column, left to right, each top to bottom; right to
// left on a page whose letters are mostly right-to-left (Arabic, Hebrew),
// whose columns are read from the right.
func readingOrder(p pageBlocks) []block {
	w := p.width
	if w <= 0 {
		for _, b := range p.blocks {
			w = max(w, b.x1)
		}
	}
	// Projection profile: how many narrow blocks cover each 1% of the
	// width. Columns are runs of positions covered by more than a tenth of
	// the densest position; a centred title crossing the gutter leaves it
	// a valley.
	const bins = 100
	var cover [bins]int
	for _, b := range p.blocks {
		if b.x1-b.x0 > 0.55*w {
			continue
		}
		for i := max(0, int(b.x0/w*bins)); i < min(bins, int(math.Ceil(b.x1/w*bins))); i++ {
			cover[i]++
		}
	}
	peak := 0
	for _, c := range cover {
		peak = max(peak, c)
	}
	var merged [][2]float64
	for i := 0; i < bins; {
		if float64(cover[i]) <= 0.1*float64(peak) {
			i++
			continue
		}
		j := i
		for j < bins && float64(cover[j]) > 0.1*float64(peak) {
			j++
		}
		merged = append(merged, [2]float64{float64(i) * w / bins, float64(j) * w / bins})
		i = j
	}
	if len(merged) == 0 {
		merged = [][2]float64{{0, w}}
	}
	column := func(b block) (int, int) { // the column of most overlap, and how many it touches
		best, bestOv, touches := 0, -1.0, 0
		for i, c := range merged {
			ov := min(b.x1, c[1]) - max(b.x0, c[0])
			if ov > 0 {
				touches++
			}
			if ov > bestOv {
				best, bestOv = i, ov
			}
		}
		return best, touches
	}
	rtl := rightToLeftPage(p.blocks)
	var wide, narrow []block
	for _, b := range p.blocks {
		if _, n := column(b); b.x1-b.x0 > 0.55*w || n > 1 {
			wide = append(wide, b)
		} else {
			narrow = append(narrow, b)
		}
	}
	sort.SliceStable(wide, func(i, j int) bool { return wide[i].y0 < wide[j].y0 })
	var out []block
	top := math.Inf(-1)
	emitBand := func(bottom float64) {
		byCol := make([][]block, len(merged))
		rest := narrow[:0]
		for _, b := range narrow {
			if c := (b.y0 + b.y1) / 2; c >= top && c < bottom {
				i, _ := column(b)
				byCol[i] = append(byCol[i], b)
			} else {
				rest = append(rest, b)
			}
		}
		narrow = rest
		if rtl {
			slices.Reverse(byCol)
		}
		for _, col := range byCol {
			sort.SliceStable(col, func(i, j int) bool { return col[i].y0 < col[j].y0 })
			out = append(out, col...)
		}
	}
	for _, b := range wide {
		emitBand((b.y0 + b.y1) / 2)
		out = append(out, b)
		top = (b.y0 + b.y1) / 2
	}
	emitBand(math.Inf(1))
	return out
}

// rightToLeftPage reports whether most of the letters of a page's blocks
// are right-to-left ones (pdftotext reads such a page's columns from the
// right).
func rightToLeftPage(blocks []block) bool {
	rtl, ltr := 0, 0
	for _, b := range blocks {
		for _, l := range b.lines {
			for _, c := range l {
				switch {
				case c >= 0x0590 && isRTL(c):
					rtl++
				case unicode.IsLetter(c):
					ltr++
				}
			}
		}
	}
	return rtl > ltr
}
