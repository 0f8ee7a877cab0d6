package officedoc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

// tableOf returns the text of the document's only table.
func tableOf(t *testing.T, els []gochunk.Element) string {
	t.Helper()
	var tables []string
	for _, e := range els {
		if e.Type == "table" {
			tables = append(tables, e.Text)
		}
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables in %q", len(tables), texts(els))
	}
	return tables[0]
}

// A sheet's cells stay as sparse as the sheet holds them: the rows and
// columns between A1 and ZZ2000 are not padded (they made 1.4 million
// cells; A1 and XFD1048576, 17 billion).
func TestSparseSheet(t *testing.T) {
	els, err := Elements("xlsx", xlsxCells("S", "A1", "first", "ZZ2000", "last"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tableOf(t, els), "| first |  |\n| --- | --- |\n|  | last |"; got != want {
		t.Errorf("got %.300q, want %q", got, want)
	}
	// A leading empty column and empty rows in the middle go too.
	els, err = Elements("xlsx", xlsxCells("S", "C2", "a", "D2", "b", "C9", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tableOf(t, els), "| a | b |\n| --- | --- |\n| c |  |"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A sheet whose grid would be mostly padding even with its empty rows and
// columns left out (a diagonal) is written row by row, each cell with its
// reference.
func TestSparseDiagonal(t *testing.T) {
	els, err := Elements("xlsx", xlsxDiagonal(300))
	if err != nil {
		t.Fatal(err)
	}
	got := tableOf(t, els)
	if !strings.HasPrefix(got, "| A1: 1 |\n| --- |\n| B2: 2 |\n| C3: 3 |\n") || !strings.HasSuffix(got, "\n| KN300: 300 |") {
		t.Errorf("got %.200q ... %q", got, got[max(len(got)-40, 0):])
	}
	if len(got) > 300*20 {
		t.Errorf("%d bytes for 300 cells", len(got))
	}
}

// Repeated ODF rows and columns are counted: 5 rows of a cell repeated
// 16,384 times, each row repeated 1,048,576 times, are 5 million cells
// (1,000 × 1,000 each, as far as they are read) and pass the bound on a
// table's cells. Before, only the columns were counted and the sheet
// became 20 MB of text (the 200 rows of ods-repeat.ods, 800 MB).
func TestODSRepeatsCounted(t *testing.T) {
	_, err := Elements("ods", odsRepeat(5))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxTableCells") {
		t.Errorf("got %v, want the bound on a table's cells", err)
	}
	// Under the bounds, the repeats are read (to 1,000 each): a million
	// cells, 4 MB of text from 512 bytes, past the bound on text (a
	// megabyte at least, a hundred times the file's size) unless it is
	// raised.
	if _, err := Elements("ods", odsRepeat(1)); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MinText") {
		t.Errorf("got %v, want the bound on text", err)
	}
	els, err := Read(context.Background(), "ods", odsRepeat(1), Options{Limits: Limits{MinText: 8 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	tb := tableOf(t, els.Elements)
	if rows := strings.Count(tb, "\n") + 1; rows != 1001 || !strings.HasPrefix(tb, "| x | x |") {
		t.Errorf("%d lines, %.40q", rows, tb)
	}
}

// A table whose rows differ in width by thousands of cells is not padded
// to the widest (before, n rows of one cell after a row of n cells made
// n² cells: 9 million here, 900 million for the 20 KB attack files).
func TestRaggedTables(t *testing.T) {
	const n = 3000
	for kind, data := range map[string][]byte{"docx": raggedDOCX(n), "pptx": raggedPPTX(n),
		"epub": epubOf(`<html xmlns="http://www.w3.org/1999/xhtml"><body>` + raggedHTML(n) + `</body></html>`)} {
		t.Run(kind, func(t *testing.T) {
			els, err := Elements(kind, data)
			if err != nil {
				t.Fatal(err)
			}
			tb := tableOf(t, els)
			if len(tb) > 18*n+100 { // the header, its delimiter, the rows
				t.Errorf("%d bytes of table for %d cells", len(tb), 2*n)
			}
			if !strings.HasPrefix(tb, "| h | h |") || !strings.HasSuffix(tb, "\n| c |") || strings.Count(tb, "\n") != n+1 {
				t.Errorf("%.40q ... %q, %d lines", tb, tb[max(len(tb)-20, 0):], strings.Count(tb, "\n")+1)
			}
		})
	}
	// A table of a few short rows is padded as before.
	els, err := Elements("docx", zipParts("word/document.xml", `<w:document xmlns:w="w"><w:body><w:tbl>`+
		`<w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr>`+
		`<w:tr><w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc/><w:tc/></w:tr></w:tbl></w:body></w:document>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := tableOf(t, els); got != "| a | b |\n| --- | --- |\n| c |  |" {
		t.Errorf("got %q", got)
	}
}

// The bounds on cells and text are the reader's options, and their
// errors name them.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	doc := raggedDOCX(50)
	for _, c := range []struct {
		lim  Limits
		want string
	}{
		{Limits{MaxTableCells: 60}, "MaxTableCells"},
		{Limits{MaxCells: 60}, "MaxCells"},
		{Limits{MaxText: 100}, "MaxText"},
		{Limits{TextRatio: 1, MinText: 10}, "TextRatio"},
	} {
		_, err := Read(ctx, "docx", doc, Options{Limits: c.lim})
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want the bound %s", c.lim, err, c.want)
		}
	}
	if _, err := Read(ctx, "docx", doc, Options{}); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	if d := DefaultLimits(); d.TextLimit(1000) != 1<<20 || d.TextLimit(5<<20) != 128<<20 || d.TextLimit(100<<10) != 100*(100<<10) {
		t.Errorf("text bounds %d %d %d", d.TextLimit(1000), d.TextLimit(5<<20), d.TextLimit(100<<10))
	}
	// A DOCX's text is bounded by what its parts declare (Estimate): a
	// chapter listed a thousand times in an EPUB's spine passes it.
	spine := strings.Repeat(`<itemref idref="c1"/>`, 1000)
	book := zipParts("mimetype", "application/epub+zip",
		"META-INF/container.xml", `<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>`,
		"c.opf", `<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine>`+spine+`</spine></package>`,
		"c1.xhtml", "<p>"+strings.Repeat("word ", 2000)+"</p>")
	if _, err := Elements("epub", book); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Estimate") {
		t.Errorf("a chapter read a thousand times: %v", err)
	}
}

// Estimate bounds the text from the zip directory alone, and the reader
// holds to it.
func TestEstimate(t *testing.T) {
	for name, data := range attacks() {
		est, err := Estimate(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		kind := Kinds[name[strings.LastIndexByte(name, '.'):]]
		if kind == "" {
			continue
		}
		r, err := Read(context.Background(), kind, data, Options{})
		if err != nil {
			continue
		}
		text := 0
		for _, e := range r.Elements {
			text += len(e.Text) + 2
		}
		if int64(text) > est {
			t.Errorf("%s: %d bytes of text, estimated at most %d", name, text, est)
		}
	}
	docx := raggedDOCX(10)
	est, _ := Estimate(docx)
	if est != 3*Expansion(docx)+64<<10 {
		t.Errorf("docx: %d, want 3 × %d + 64 KiB", est, Expansion(docx))
	}
	if est, _ := Estimate(odsRepeat(1)); est != 1<<20 {
		t.Errorf("ods: %d, want the text bound", est)
	}
	if _, err := Estimate([]byte("PK\x03\x04 not a zip")); !errors.Is(err, ErrFormat) {
		t.Errorf("a broken zip: %v", err)
	}
}

// A part is read with what is left of the archive's bound as its limit:
// a 255 MiB part of a 260 KB file (bound 64 MiB) is refused after 64 MiB,
// not read whole (before, 543-587 MB for such a file).
func TestPartWithinArchiveBound(t *testing.T) {
	data := largePart(255)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Elements("docx", data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("%d MB allocated", alloc>>20)
	}
	// One that declares less than it holds stops at its bound too.
	if _, err := Read(context.Background(), "docx", largePart(70), Options{}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "left of the archive's bound") {
		t.Errorf("got %v", err)
	}
}

// The attack inputs each end in a clear error or a bounded result, and
// within a bounded allocation (before, each but the e-mails grew past
// 1 GB: see /work/notes/readers.md for the whole process's figures).
func TestAttackInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a few megabytes of attack inputs")
	}
	inputs := attacks()
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[name]
		kind := Kinds[name[strings.LastIndexByte(name, '.'):]]
		if kind == "" {
			continue // html: package htmldoc
		}
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := Read(context.Background(), kind, data, Options{Attachments: true})
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("%d MB allocated", alloc>>20)
			}
			if err != nil && !errors.Is(err, ErrTooLarge) {
				t.Errorf("not a bound: %v", err)
			}
			text := 0
			for _, e := range r.Elements {
				text += len(e.Text)
			}
			if text > 64*len(data)+1<<20 {
				t.Errorf("%d bytes of text from %d", text, len(data))
			}
		})
	}
}

// List levels are indentation: a level of a hundred thousand is the
// deepest Word has (before, 200 KB of spaces and a counter per level).
func TestListLevelBounded(t *testing.T) {
	doc := `<w:document xmlns:w="w"><w:body><w:p><w:pPr><w:numPr><w:ilvl w:val="100000"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>deep</w:t></w:r></w:p></w:body></w:document>`
	els, err := Elements("docx", zipParts("word/document.xml", doc))
	if err != nil || len(els) != 1 || els[0].Text != strings.Repeat("  ", 8)+"- deep" {
		t.Errorf("%v %q", err, texts(els))
	}
}

// One broken base64 attachment loses only itself: the body and the other
// attachments are kept, and a warning names it (before, the whole message
// was "illegal base64 data at input byte 12").
func TestEmailBrokenAttachment(t *testing.T) {
	msg := badBase64Mail()
	els, err := Elements("eml", msg)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	for _, want := range []string{"paragraph The body of the message survives.", "paragraph The good attachment's text.",
		"heading ## Attachment: broken.pdf", "paragraph The attachment after the broken one."} {
		if !strings.Contains(got, want) {
			t.Errorf("%q not in\n%s", want, got)
		}
	}
	r, err := Read(context.Background(), "eml", msg, Options{Attachments: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range r.Files {
		names = append(names, f.Name)
	}
	if fmt.Sprint(names) != "[good.txt broken.pdf after.txt]" || !strings.HasPrefix(string(r.Files[1].Data), "%PDF-1.4") {
		t.Errorf("files %q, %q", names, r.Files[1].Data)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `attachment "broken.pdf" (part 3)`) || !strings.Contains(r.Warnings[0], "broken base64") {
		t.Errorf("warnings %q", r.Warnings)
	}
	// A message cut short keeps what came before the cut.
	cut := msg[:strings.Index(string(msg), "after.txt")-40]
	if els, err := Elements("eml", cut); err != nil || !strings.Contains(strings.Join(texts(els), "\n"), "The good attachment's text.") {
		t.Errorf("cut short: %v %q", err, texts(els))
	}
}

// Raw 8-bit bytes in a header are read as Latin-1, with a warning, and
// the text is UTF-8 (before, the message's title held invalid UTF-8 and
// the chunker refused it at "byte 5").
func TestEmail8BitHeader(t *testing.T) {
	r, err := Read(context.Background(), "eml", []byte(eightBitMail), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := texts(r.Elements)
	if len(got) < 3 || got[0] != "title # Café menü for März" || !strings.HasPrefix(got[1], "paragraph From: José <jose@example.com>") {
		t.Errorf("got %q", got)
	}
	if len(r.Warnings) != 2 || !strings.Contains(r.Warnings[0], "header Subject") || !strings.Contains(r.Warnings[0], "Latin-1") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// A mailbox's attachments count against MaxAttachments (before, one
// mailbox returned 75,001 documents): those past it are named, not read.
func TestMailboxAttachmentsBounded(t *testing.T) {
	r, err := Read(context.Background(), "mbox", mailbox(1200), Options{Attachments: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != 1000 || r.Files[999].Name != "message-1000/n.txt" {
		t.Errorf("%d files", len(r.Files))
	}
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], `message 1001: attachment "n.txt" (part 2)`) || !strings.Contains(r.Warnings[0], "MaxAttachments") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if got := strings.Join(texts(r.Elements), "\n"); !strings.Contains(got, "Attached, not read (past the bound of 1000 attachments): n.txt") {
		t.Errorf("the skipped attachments are not named")
	}
	r, err = Read(context.Background(), "mbox", mailbox(20), Options{Attachments: true, Limits: Limits{MaxAttachments: 5}})
	if err != nil || len(r.Files) != 5 {
		t.Errorf("MaxAttachments 5: %v, %d files", err, len(r.Files))
	}
}

// Reading stops at the context's end, between an e-mail's parts too.
func TestReadStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for kind, data := range map[string][]byte{"mbox": mailbox(50), "eml": badBase64Mail(), "docx": raggedDOCX(10)} {
		if _, err := Read(ctx, kind, data, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

// An EPUB chapter's internal DTD subset is not text (before, "%pe; ...
// ]>" leaked into it).
func TestEPUBInternalDTD(t *testing.T) {
	els, err := Elements("epub", epubOf(dtdChapter))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	if got != "title # Book\nparagraph The chapter's text." {
		t.Errorf("got %q", got)
	}
	for in, want := range map[string]string{
		"<!DOCTYPE html><p>x</p>":                                      "<p>x</p>",
		`<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "]>">]><p>x</p>`: `<?xml version="1.0"?><p>x</p>`,
		"<p>no doctype</p>":                                            "<p>no doctype</p>",
		"<!DOCTYPE a [ unterminated":                                   "<!DOCTYPE a [ unterminated",
	} {
		if got := string(withoutDoctype([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// BenchmarkWorstCaseDocuments reads each attack input (the worst cases of
// issue 48), reporting its allocation: go test ./officedoc -run '^$'
// -bench WorstCaseDocuments -benchmem
func BenchmarkWorstCaseDocuments(b *testing.B) {
	inputs := attacks()
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[name]
		kind := Kinds[name[strings.LastIndexByte(name, '.'):]]
		if kind == "" {
			continue
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Read(context.Background(), kind, data, Options{Attachments: true})
			}
		})
	}
}

// A cell's text is one line with its pipes escaped, whether or not it
// takes the path that does not copy it.
func TestCell(t *testing.T) {
	for in, want := range map[string]string{"": "", "a b": "a b", " a": "a", "a ": "a", "a  b": "a b", "a\nb": "a b", "a|b": `a\|b`,
		"café  au lait": "café au lait", "\u00a0x": "x", "x\u2003 y": "x y", "12.5": "12.5"} {
		if got := cell(in); got != want || got != strings.ReplaceAll(oneLine(in), "|", `\|`) {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
}

// A part's XML errors name the part.
func TestErrorsNameThePart(t *testing.T) {
	_, err := Elements("docx", zipParts("word/document.xml", `<w:document xmlns:w="w"><w:body></w:p>`))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "part word/document.xml: ") {
		t.Errorf("got %v", err)
	}
}
