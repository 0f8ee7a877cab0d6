package layout

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/klippa-app/go-pdfium/requests"
)

// extractWarn reads a PDF in memory with the package's PDFium, and
// returns what reading warned of.
func extractWarn(t *testing.T, pdf []byte, opt PDFOptions) (string, []string, error) {
	t.Helper()
	if opt.Engine == nil {
		opt.Engine = pdfiumEngine(t)
	}
	var warns []string
	opt.Warn = func(s string) { warns = append(warns, s) }
	els, err := ExtractPDFReader(context.Background(), bytes.NewReader(pdf), opt)
	var text strings.Builder
	for _, e := range els {
		if !e.Excluded {
			text.WriteString(e.Text)
			text.WriteByte('\n')
		}
	}
	return text.String(), warns, err
}

// A 5 KB PDF of forms that draw the next twice, 20 deep, is a page of a
// million forms: it was drawn until PDFium's gigabyte ran out (3.6 GB in
// the process, 16 s); it is weighed and refused before it is drawn.
func TestPDFFormBomb(t *testing.T) {
	bomb := pdfgen.FormBomb(20)
	_, _, err := extractWarn(t, bomb, PDFOptions{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "page 1") || !strings.Contains(err.Error(), "MaxFormDepth") {
		t.Fatalf("20 deep: %v, want ErrTooLarge naming page 1 and MaxFormDepth", err)
	}
	// Written as PDF 1.5 writers do (object and cross-reference streams),
	// it is weighed the same.
	_, _, err = extractWarn(t, pdfgen.FormBombCompact(20), PDFOptions{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxFormDepth") {
		t.Fatalf("20 deep, compact: %v, want ErrTooLarge naming MaxFormDepth", err)
	}
	if text, _, err := extractWarn(t, pdfgen.FormBombCompact(3), PDFOptions{}); err != nil || !strings.Contains(text, "The last form of a nest of forms.") {
		t.Fatalf("3 deep, compact: %v %q", err, text)
	}
	// Forms drawn many times without nesting deep: the count bounds them.
	_, _, err = extractWarn(t, pdfgen.FormBomb(12), PDFOptions{MaxPageForms: 1000})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxPageForms") {
		t.Fatalf("4,096 forms over a bound of 1,000: %v", err)
	}
	// Under the bounds, the page is read, every form's text drawn.
	text, _, err := extractWarn(t, pdfgen.FormBomb(3), PDFOptions{})
	if err != nil || !strings.Contains(text, "A page of nested forms.") || !strings.Contains(text, "The last form of a nest of forms.") {
		t.Fatalf("3 deep: %v %q", err, text)
	}
}

// A 300 KB PDF whose content stream inflates to 100 MB took 4.9 GB and
// 36 s to fail; the page is refused for its content before PDFium parses
// it, and a PDF of many pages for all its content together.
func TestPDFBigContent(t *testing.T) {
	_, _, err := extractWarn(t, pdfgen.BigContent(100<<20), PDFOptions{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxPageContent") || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("100 MB: %v, want ErrTooLarge naming MaxPageContent and its 16 MiB", err)
	}
	many := pdfgen.WithFormBombPage(5, 0, 1) // five plain pages
	_, _, err = extractWarn(t, many, PDFOptions{MaxContent: 200})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxContent") {
		t.Fatalf("5 pages over a document bound of 200 bytes: %v", err)
	}
}

// A page of a million characters cost 760 MB (the issue measured up to
// 1.9 GB): PDFium builds a record of each before the first is read. Its
// strings are weighed first: a page that shows more than four times the
// characters read from a page is not drawn; one under that is read to the
// bound and the cut reported. PDFium's memory stays within its bound.
func TestPDFManyChars(t *testing.T) {
	e, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 1, TotalMemory: 400 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, _, err = extractWarn(t, pdfgen.ManyChars(1_000_000), PDFOptions{Engine: e})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "page 1") || !strings.Contains(err.Error(), "MaxPageChars") {
		t.Fatalf("a million characters: %v, want ErrTooLarge naming page 1 and MaxPageChars", err)
	}
	text, warns, err := extractWarn(t, pdfgen.ManyChars(500_000), PDFOptions{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(text); n > DefaultMaxPageChars+DefaultMaxPageChars/10 || n < DefaultMaxPageChars/2 {
		t.Errorf("%d bytes of text, want about %d", n, DefaultMaxPageChars)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "page 1") || !strings.Contains(warns[0], "MaxPageChars") {
		t.Errorf("warnings %q, want one naming page 1 and MaxPageChars", warns)
	}
	if used := e.budget.used.Load(); used != 0 {
		t.Errorf("%d bytes of PDFium memory still held after the read", used)
	}
	// The document's bound refuses it.
	if _, _, err := extractWarn(t, pdfgen.ManyChars(20_000), PDFOptions{Engine: e, MaxChars: 10_000}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxChars") {
		t.Errorf("20,000 characters over a bound of 10,000: %v", err)
	}
}

// The strings a content stream shows are counted, not its operators,
// names, comments or dictionaries.
func TestTextCounter(t *testing.T) {
	for in, want := range map[string]int64{
		"BT (Hello) Tj ET":                     5,
		"[(A) -120 (B\\)c)] TJ":                4, // \) is an escaped parenthesis
		"(a (nested) b) Tj":                    12,
		"<48656C6C6F> Tj <4 8> Tj":             6,
		"% a comment (not a string\n(x) Tj":    1,
		"/P << /MCID 0 >> BDC 0 0 m 10 10 l S": 1, // the dictionary's C, D and 0 read as hex: an upper bound
	} {
		var c textCounter
		for i := 0; i < len(in); i += 3 { // fed in pieces
			c.feed([]byte(in[i:min(len(in), i+3)]))
		}
		if c.n != want {
			t.Errorf("%q: %d, want %d", in, c.n, want)
		}
	}
}

// One page over a bound (or that PDFium cannot read) is left out and
// reported; the PDF's other pages are read, as Poppler reads them. It
// failed the whole PDF.
func TestPDFBadPageKept(t *testing.T) {
	text, warns, err := extractWarn(t, pdfgen.WithFormBombPage(5, 3, 20), PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"Page 1 begins", "Page 2 begins", "Page 4 begins", "Page 5 begins"} {
		if !strings.Contains(text, p) {
			t.Errorf("%q lost: %q", p, text)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "page 3") || !strings.Contains(warns[0], "MaxFormDepth") {
		t.Errorf("warnings %q, want one naming page 3 and its bound", warns)
	}
	// Drawing it leaves that page out too, and draws the others.
	imgs, err := pdfiumEngine(t).Render(context.Background(), pdfgen.WithFormBombPage(5, 3, 20), 30, 10)
	if err != nil || len(imgs) != 4 {
		t.Fatalf("render: %d pages, %v; want 4", len(imgs), err)
	}
	for _, im := range imgs {
		if im.Page == 3 {
			t.Error("page 3 drawn")
		}
	}
}

// PDFium running out of its memory is said so, naming the bound, not
// reported as a corrupt PDF; the memory is given back.
func TestPDFMemoryError(t *testing.T) {
	e, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 1, MemoryLimit: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// (Its text under the bound on characters, its content under 16 MiB.)
	_, _, err = extractWarn(t, pdfgen.BigContent(12<<20), PDFOptions{Engine: e, MaxPageChars: 10_000_000})
	if !errors.Is(err, ErrPDFMemory) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "MemoryLimit") || !strings.Contains(err.Error(), "64 MiB") {
		t.Fatalf("%v, want ErrPDFMemory naming MemoryLimit and its 64 MiB", err)
	}
	if used := e.budget.used.Load(); used != 0 {
		t.Errorf("%d bytes of PDFium memory still held after the read", used)
	}
	// The engine reads the next PDF as before.
	if text, _, err := extractWarn(t, pdfgen.Plain([][]string{{"Still reading."}}), PDFOptions{Engine: e}); err != nil || !strings.Contains(text, "Still reading.") {
		t.Fatalf("after: %v %q", err, text)
	}
}

// A PDF whose text is all in its margins, repeated on every page, keeps
// it as its text and says so; it was told to run OCR.
func TestPDFAllHeadersAndFooters(t *testing.T) {
	pages := make([]pdfgen.Page, 3)
	for i := range pages {
		pages[i] = pdfgen.Page{Width: 612, Height: 792, Lines: []pdfgen.Line{{X: 50, Y: 30, Size: 9, Text: "Quarterly report of the harbour board"}}}
	}
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pages); err != nil {
		t.Fatal(err)
	}
	text, warns, err := extractWarn(t, buf.Bytes(), PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(text, "Quarterly report") != 3 {
		t.Errorf("text %q, want the three headers", text)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "headers and footers") {
		t.Errorf("warnings %q", warns)
	}
	// Page numbers alone are no text: a scan still gets the OCR advice.
	for i := range pages {
		pages[i].Lines = []pdfgen.Line{{X: 300, Y: 770, Size: 9, Text: string(rune('1' + i))}}
	}
	buf.Reset()
	pdfgen.Write(&buf, pages)
	if _, _, err := extractWarn(t, buf.Bytes(), PDFOptions{}); !errors.Is(err, ErrNoText) {
		t.Errorf("page numbers only: %v, want ErrNoText", err)
	}
}

// EstimatePDF finds the pages and counts forms as drawn, capped at the
// page bound; on real PDFs it finds PDFium's pages.
func TestEstimatePDF(t *testing.T) {
	for name, tc := range map[string]struct {
		pdf      []byte
		pages    int
		min, max int64
	}{
		"plain":   {pdfgen.Plain([][]string{{"One."}, {"Two."}}), 2, 50, 500},
		"bomb":    {pdfgen.FormBomb(20), 1, DefaultMaxPageContent, DefaultMaxPageContent},
		"big":     {pdfgen.BigContent(100 << 20), 1, DefaultMaxPageContent, DefaultMaxPageContent},
		"3 deep":  {pdfgen.FormBomb(3), 1, 8 * 36, 1000},
		"compact": {pdfgen.FormBombCompact(3), 1, 8 * 36, 1000},
		"5 pages": {pdfgen.WithFormBombPage(5, 0, 1), 5, 5 * 50, 5 * 500},
	} {
		pages, content, err := EstimatePDF(tc.pdf)
		if err != nil || pages != tc.pages || content < tc.min || content > tc.max {
			t.Errorf("%s: %d pages, %d bytes, %v; want %d pages, %d to %d bytes", name, pages, content, err, tc.pages, tc.min, tc.max)
		}
	}
	if _, _, err := EstimatePDF([]byte("not a PDF")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("not a PDF: %v", err)
	}
	if r := PDFReserve(1, DefaultMaxPageContent); r > DefaultPDFiumMemory+DefaultMaxPageContent*4+DefaultMaxPageChars*24+1<<20 {
		t.Errorf("PDFReserve of the worst page: %d", r)
	}
	dir := filepath.Join("..", "..", "shared", "eval", "documents", "unstructured", "pdf")
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if len(files) == 0 {
		t.Skip("skipping the real PDFs: ../shared/eval/documents is absent")
	}
	e := pdfiumEngine(t)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages, _, err := EstimatePDF(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		w, err := e.open(context.Background(), pdfSource{data: data})
		if err != nil {
			continue // encrypted
		}
		n, err := w.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: w.doc})
		w.close()
		if err == nil && n.PageCount != pages {
			t.Errorf("%s: %d pages, PDFium finds %d", filepath.Base(f), pages, n.PageCount)
		}
	}
}

// The scan reads untrusted bytes: whatever they are, it ends without a
// panic, and within its bounds.
func FuzzScanPDF(f *testing.F) {
	f.Add(pdfgen.Plain([][]string{{"One."}, {"Two."}}))
	f.Add(pdfgen.FormBomb(4))
	f.Add(pdfgen.FormBombCompact(4))
	f.Add(pdfgen.WithFormBombPage(3, 2, 3))
	f.Add(pdfgen.ManyChars(300))
	f.Add([]byte("%PDF-1.5\n1 0 obj << /Type /ObjStm /N 2 /First 8 /Filter /ASCIIHexDecode /Length 20 >>\nstream\n3 0 4 5 <<>> <</A 3 0 R>>\nendstream endobj trailer << /Root 4 0 R >>"))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj 2 0 obj << /Kids [2 0 R 3 0 R] >> endobj 3 0 obj << /Contents [5 0 R] /Resources << /XObject << /X 5 0 R >> >> >> endobj 5 0 obj << /Subtype /Form /Filter [/A85 /Fl] /Length 99 >> stream\n/X Do /X Do~>\nendstream endobj"))
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append([]byte("%PDF-1.7\n"), data...)
		pages, content, err := EstimatePDF(data)
		if err != nil || pages < 0 || content < 0 {
			t.Fatalf("%d pages, %d bytes, %v", pages, content, err)
		}
		if costs, err := weigh(data, PDFOptions{}.bounds()); err == nil && costs != nil && len(costs) != pages {
			t.Fatalf("weigh: %d pages, EstimatePDF %d", len(costs), pages)
		}
	})
}

// A page tree whose /Count PDFium trusts while the scan walks the kids:
// the pages cannot be matched, and a page over a bound refuses the PDF
// rather than going unweighed.
func TestPDFPageCountMismatch(t *testing.T) {
	pdf := bytes.Replace(pdfgen.WithFormBombPage(2, 1, 20), []byte("/Count 2"), []byte("/Count 1"), 1)
	_, _, err := extractWarn(t, pdf, PDFOptions{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "refused whole") {
		t.Fatalf("%v, want ErrTooLarge for the whole PDF", err)
	}
	if _, err := pdfiumEngine(t).Render(context.Background(), pdf, 30, 5); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("render: %v, want ErrTooLarge", err)
	}
}

// A file that defines its content stream twice, the cross-reference table
// pointing PDFium at the first (100 MB) while a second, light, comes last:
// the scan reads the definition the table names, as PDFium does.
func TestPDFScanFollowsXref(t *testing.T) {
	pdf := pdfgen.BigContent(100 << 20) // object 1 is the page's content
	pdf = append(pdf, "1 0 obj\n<< /Length 6 >>\nstream\nBT ET\n\nendstream\nendobj\n"...)
	_, _, err := extractWarn(t, pdf, PDFOptions{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxPageContent") {
		t.Fatalf("%v, want ErrTooLarge naming MaxPageContent", err)
	}
	if _, content, _ := EstimatePDF(pdf); content != DefaultMaxPageContent {
		t.Errorf("EstimatePDF: %d bytes, want the page bound", content)
	}
}

// A PDF file cut short while its mapped bytes are weighed is an error,
// not a crash of the process.
func TestPDFFileTruncatedWhileWeighed(t *testing.T) {
	if !mappedFiles {
		t.Skip("skipping: files are read whole here, not mapped")
	}
	path := filepath.Join(t.TempDir(), "a.pdf")
	if err := os.WriteFile(path, pdfgen.WithFormBombPage(200, 0, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	data, free, err := sourceBytes(pdfSource{path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer free()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := weighMapped(data, PDFOptions{}.bounds()); err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("%v, want an error saying the file changed", err)
	}
}

// TestPDFiumRefusesMemoryBelowItsStart: an instance bound below what
// PDFium's module takes to start is refused when the engine is built, with
// the option named, instead of failing inside the runtime on the first PDF.
func TestPDFiumRefusesMemoryBelowItsStart(t *testing.T) {
	for _, opt := range []PDFiumOptions{
		{Instances: 1, MemoryLimit: 16 << 20},
		{Instances: 1, TotalMemory: 8 << 20},
	} {
		_, err := NewPDFium(context.Background(), opt)
		if err == nil {
			t.Fatalf("%+v: no error", opt)
		}
		if !strings.Contains(err.Error(), "PDFiumOptions.") || !strings.Contains(err.Error(), "32 MiB") {
			t.Errorf("%+v: %v, want the option and the 32 MiB it needs named", opt, err)
		}
	}
}
