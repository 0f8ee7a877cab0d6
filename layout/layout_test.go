package layout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/tokenize"
)

var paragraphs = []string{
	"Pasta dough needs flour, eggs and a pinch of salt; knead the pasta dough until smooth.",
	"Boil the fresh pasta in salted water and toss the pasta with butter and sage.",
	"Jupiter is the largest planet; the planet has a giant red storm and many moons.",
	"Saturn is a giant planet with bright rings; both planets are mostly hydrogen gas.",
	"The football match ended in a draw; the football striker scored with a header.",
	"Football fans sang in the stadium until the football match ended late at night.",
}

func TestElementsJSON(t *testing.T) {
	ours := `[{"type":"title","text":"A title","page":1,"bbox":[10,10,200,30],"page_width":600,"page_height":800},
	{"type":"NarrativeText","text":"Some text.","page":1,"bbox":[10,40,300,80]}]`
	unstructured := `[{"type":"Title","text":"A title","metadata":{"page_number":2,"coordinates":{"points":[[10,10],[10,30],[200,30],[200,10]],"layout_width":600,"layout_height":800}}}]`
	docling := `{"texts":[{"label":"section_header","text":"Intro","prov":[{"page_no":3,"bbox":{"l":10,"t":700,"r":300,"b":680}}]}]}`
	pymupdf := "{\"bbox\":[1,2,3,4],\"text\":\"block one\"}\n{\"bbox\":[1,5,3,9],\"text\":\"block two\",\"page\":2}\n"
	for name, tc := range map[string]struct {
		in    string
		n     int
		first gochunk.Element
	}{
		"github.com/gochunk/gochunk": {ours, 2, gochunk.Element{Type: "title", Text: "A title", Page: 1, BBox: [4]float64{10, 10, 200, 30}}},
		"unstructured":               {unstructured, 1, gochunk.Element{Type: "title", Text: "A title", Page: 2, BBox: [4]float64{10, 10, 200, 30}}},
		"docling":                    {docling, 1, gochunk.Element{Type: "heading", Text: "Intro", Page: 3, BBox: [4]float64{10, 680, 300, 700}}},
		"pymupdf":                    {pymupdf, 2, gochunk.Element{Type: "paragraph", Text: "block one", Page: 1, BBox: [4]float64{1, 2, 3, 4}}},
	} {
		els, err := ParseElements([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(els) != tc.n || els[0].Type != tc.first.Type || els[0].Text != tc.first.Text || els[0].Page != tc.first.Page || els[0].BBox != tc.first.BBox {
			t.Errorf("%s: %+v", name, els[0])
		}
	}
	for _, bad := range []string{`[{"text":"x","bbox":[0,0,"a",1]}]`, `[{"text":"x","bbox":[5,5,1,1]}]`, `[{"text":"  "}]`, `[{"text":"x","bbox":[1,2,3]}]`, `not json`} {
		if _, err := ParseElements([]byte(bad)); !errors.Is(err, ErrElements) {
			t.Errorf("%s: err %v", bad, err)
		}
	}
	if err := Validate([]gochunk.Element{{Text: "x", BBox: [4]float64{math.NaN(), 0, 1, 1}}}); !errors.Is(err, ErrElements) {
		t.Errorf("NaN box: %v", err)
	}
}

func TestAssemble(t *testing.T) {
	text, els := Assemble([]gochunk.Element{{Text: " one "}, {Text: "header", Excluded: true}, {Text: "twö"}})
	if text != "one\n\ntwö" || els[2].Start != 5 || els[2].End != 9 || els[2].EndRune != 8 || !els[1].Excluded {
		t.Errorf("%q %+v", text, els)
	}
}

// A list item's indentation is its nesting: Assemble keeps it in the text
// (as markdown writes a nested list) and gives the element its level, as
// it gives a heading the level of its "#".
func TestAssembleKeepsListNesting(t *testing.T) {
	text, els := Assemble([]gochunk.Element{
		{Type: "heading", Text: "## Steps"},
		{Type: "list_item", Text: "- first"},
		{Type: "list_item", Text: "  - nested"},
		{Type: "list_item", Text: "\n    1. deeper "},
		{Type: "list_item", Text: "- given", Level: 3},
		{Type: "title", Text: "Plain title"},
		{Type: "paragraph", Text: "  body  "},
	})
	want := "## Steps\n\n- first\n\n  - nested\n\n    1. deeper\n\n- given\n\nPlain title\n\nbody"
	if text != want {
		t.Errorf("text %q, want %q", text, want)
	}
	for i, lv := range []int{2, 1, 2, 3, 3, 1, 0} {
		if els[i].Level != lv {
			t.Errorf("element %d %q: level %d, want %d", i, els[i].Text, els[i].Level, lv)
		}
		if text[els[i].Start:els[i].End] != els[i].Text {
			t.Errorf("element %d: offsets give %q, not %q", i, text[els[i].Start:els[i].End], els[i].Text)
		}
	}
	parsed, err := ParseElements([]byte(`[{"type": "ListItem", "text": "x", "metadata": {"category_depth": 1}}, {"type": "list_item", "text": "y", "level": 2}]`))
	if err != nil || parsed[0].Level != 2 || parsed[1].Level != 2 {
		t.Errorf("parsed levels: %+v %v", parsed, err)
	}
}

func newS2(t testing.TB, size int) *S2 {
	cfg := DefaultS2Config()
	cfg.Size = size
	s, err := NewS2(cfg, tokenize.Words{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestS2PlainText(t *testing.T) {
	text := strings.Join(paragraphs, "\n\n")
	for _, size := range []int{8, 30, 60, 400} {
		chunks := chunktest.Check(t, newS2(t, size), text, chunktest.Options{Counter: tokenize.Words{}, Limit: size})
		for _, c := range chunks {
			if c.Metadata["pages"] == nil || c.Metadata["elements"] == nil {
				t.Fatalf("chunk without layout metadata: %+v", c.Metadata)
			}
		}
	}
	// Topics stay together at a size of two paragraphs.
	chunks, _ := newS2(t, 35).Chunk(context.Background(), gochunk.Document{Text: text})
	for _, c := range chunks {
		if strings.Contains(c.Text, "Pasta") && strings.Contains(c.Text, "football") {
			t.Errorf("pasta and football in one chunk: %q", c.Text)
		}
	}
	runes, _ := NewS2(DefaultS2Config(), tokenize.Runes{}, nil)
	chunktest.CheckBadInput(t, runes)
}

func TestS2Elements(t *testing.T) {
	// Two columns: a caption far from its figure in reading order but
	// next to it on the page.
	els := []gochunk.Element{
		{Type: "paragraph", Text: paragraphs[0], Page: 1, BBox: [4]float64{50, 100, 290, 160}},
		{Type: "paragraph", Text: paragraphs[2], Page: 1, BBox: [4]float64{320, 100, 560, 160}},
		{Type: "paragraph", Text: paragraphs[1], Page: 1, BBox: [4]float64{50, 170, 290, 230}},
		{Type: "paragraph", Text: paragraphs[3], Page: 1, BBox: [4]float64{320, 170, 560, 230}},
	}
	for i := range els {
		els[i].PageWidth, els[i].PageHeight = 612, 792
	}
	text, els := Assemble(els)
	chunks := chunktest.Check(t, newS2(t, 40), text, chunktest.Options{Counter: tokenize.Words{}, Limit: 40})
	_ = chunks
	doc := gochunk.Document{Text: text, Elements: els}
	got, err := newS2(t, 40).Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if msg := chunktest.Verify(text, got, chunktest.Options{Counter: tokenize.Words{}, Limit: 40}); msg != "" {
		t.Fatal(msg)
	}
	multi := false
	for _, c := range got {
		if len(c.Spans) > 1 {
			multi = true
		}
		if strings.Contains(c.Text, "Pasta") && strings.Contains(c.Text, "planet") {
			t.Errorf("columns mixed: %q", c.Text)
		}
	}
	if !multi {
		t.Error("the pasta paragraphs, apart in reading order, should form one multi-span chunk")
	}
	bad := []gochunk.Element{{Text: "x", Start: 0, End: 50, BBox: [4]float64{0, 0, 1, 1}}}
	if _, err := newS2(t, 40).Chunk(context.Background(), gochunk.Document{Text: "x", Elements: bad}); !errors.Is(err, ErrElements) {
		t.Errorf("offsets outside the text: %v", err)
	}
}

func FuzzS2(f *testing.F) {
	f.Add(strings.Join(paragraphs, "\n\n"), uint8(20))
	f.Add("# H\n\n- a\n- b\n\nText.", uint8(3))
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		if !utf8.ValidString(text) {
			return
		}
		limit := int(size%100) + 4
		chunktest.Check(t, newS2(t, limit), text, chunktest.Options{Counter: tokenize.Words{}, Limit: limit})
		// The same paragraphs scattered over pages and positions: chunks
		// become multi-span, and must still keep the contract.
		els := FromText(text)
		x := uint64(size) + 1
		for i := range els {
			x = x*6364136223846793005 + 1442695040888963407
			els[i].Page = 1 + int(x>>60)%3
			x0, y0 := float64(x>>40%500), float64(x>>20%700)
			els[i].BBox = [4]float64{x0, y0, x0 + 50, y0 + 20}
			els[i].PageWidth, els[i].PageHeight = 612, 792
		}
		// Some elements dropped (their text must still be chunked) and the
		// list reversed (the text's order is the reading order).
		var kept []gochunk.Element
		for i := len(els) - 1; i >= 0; i-- {
			if (x>>uint(i%61))&3 != 0 {
				kept = append(kept, els[i])
			}
		}
		if len(kept) > 0 {
			els = kept
		}
		chunks, err := newS2(t, limit).Chunk(context.Background(), gochunk.Document{Text: text, Elements: els})
		if err != nil {
			t.Fatal(err)
		}
		if msg := chunktest.Verify(text, chunks, chunktest.Options{Counter: tokenize.Words{}, Limit: limit}); msg != "" {
			t.Fatal(msg)
		}
	})
}

func needPoppler(t testing.TB) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("skipping: Poppler's pdftotext is not installed (apt-get install poppler-utils)")
	}
}

// testPDFium is one engine for the package's tests: its module is compiled
// once (or loaded from the user's cache).
var testPDFium = sync.OnceValues(func() (*PDFium, error) {
	return NewPDFium(context.Background(), PDFiumOptions{})
})

func pdfiumEngine(t testing.TB) *PDFium {
	e, err := testPDFium()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// pdfEngines returns PDFium, and Poppler where it is installed.
func pdfEngines(t testing.TB) []PDFEngine {
	out := []PDFEngine{pdfiumEngine(t)}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out = append(out, Poppler{})
	} else {
		t.Log("Poppler's pdftotext is not installed: PDFium only")
	}
	return out
}

func writePDF(t testing.TB, pages []pdfgen.Page) string {
	p := filepath.Join(t.TempDir(), "doc.pdf")
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pages); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, buf.Bytes(), 0o644)
	return p
}

func TestPDFTwoColumns(t *testing.T) {
	var paras []string
	for i := range 30 {
		paras = append(paras, fmt.Sprintf("Paragraph %d. ", i)+paragraphs[i%len(paragraphs)])
	}
	path := writePDF(t, pdfgen.TwoColumn("Chunking Two Columns", paras, "Journal of Layout Tests"))
	for _, eng := range pdfEngines(t) {
		t.Run(eng.Name(), func(t *testing.T) {
			pages := 0
			els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: eng, PagesPerBatch: 1, Progress: func(done, total int) { pages = total }})
			if err != nil {
				t.Fatal(err)
			}
			if pages < 2 {
				t.Fatalf("%d pages", pages)
			}
			var order []string
			headers, footers := 0, 0
			for _, e := range els {
				switch e.Type {
				case "header":
					headers++
				case "footer":
					footers++
				}
				if !e.Excluded && strings.HasPrefix(e.Text, "Paragraph") {
					order = append(order, strings.SplitN(e.Text, ".", 2)[0])
				}
			}
			if headers != pages || footers != pages {
				t.Errorf("%d headers, %d footers for %d pages", headers, footers, pages)
			}
			for _, e := range els {
				if !e.Excluded {
					if e.Type != "title" || e.Text != "Chunking Two Columns" {
						t.Errorf("first element %+v", e)
					}
					break
				}
			}
			// Reading order: paragraphs in their order, column by column,
			// each whole.
			for i, o := range order {
				if o != fmt.Sprintf("Paragraph %d", i) {
					t.Fatalf("reading order %v", order)
				}
			}
			if len(order) != len(paras) {
				t.Errorf("%d paragraphs read, want %d", len(order), len(paras))
			}
			text, els := Assemble(els)
			if strings.Contains(text, "Journal of Layout Tests") {
				t.Error("the running header is in the text")
			}
			for _, p := range paras {
				if !strings.Contains(text, p) {
					t.Errorf("paragraph not read whole: %q", p)
				}
			}
			s := newS2(t, 60)
			chunks, err := s.Chunk(context.Background(), gochunk.Document{Text: text, Elements: els})
			if err != nil {
				t.Fatal(err)
			}
			if msg := chunktest.Verify(text, chunks, chunktest.Options{Counter: tokenize.Words{}, Limit: 60}); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

func TestPDFErrors(t *testing.T) {
	ctx := context.Background()
	corrupt := filepath.Join(t.TempDir(), "bad.pdf")
	os.WriteFile(corrupt, []byte("%PDF-1.4 this is not really a pdf"), 0o644)
	notPDF := filepath.Join(t.TempDir(), "notes.pdf")
	os.WriteFile(notPDF, []byte("plain text named .pdf"), 0o644)
	imageOnly := writePDF(t, []pdfgen.Page{{Width: 612, Height: 792}})
	for _, eng := range pdfEngines(t) {
		t.Run(eng.Name(), func(t *testing.T) {
			opt := PDFOptions{Engine: eng}
			if _, err := ExtractPDF(ctx, corrupt, opt); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), corrupt) {
				t.Errorf("corrupt: %v", err)
			}
			if _, err := ExtractPDF(ctx, notPDF, opt); !errors.Is(err, ErrCorrupt) {
				t.Errorf("not a PDF: %v", err)
			}
			if _, err := ExtractPDF(ctx, imageOnly, opt); !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "no text layer") {
				t.Errorf("image-only: %v", err)
			}
			if _, err := ExtractPDF(ctx, filepath.Join(t.TempDir(), "missing.pdf"), opt); err == nil {
				t.Error("missing file: no error")
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := ExtractPDF(cancelled, imageOnly, opt); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: %v", err)
			}
		})
	}
}

// Poppler's engine without Poppler is a clear error, not a crash; the
// default engine needs no program at all.
func TestNoPDFEngine(t *testing.T) {
	var paras []string
	for i := range 4 {
		paras = append(paras, paragraphs[i])
	}
	path := writePDF(t, pdfgen.TwoColumn("No Programs", paras, "Header"))
	t.Setenv("PATH", t.TempDir())
	_, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: Poppler{}})
	if !errors.Is(err, ErrNoEngine) || !strings.Contains(err.Error(), "poppler") {
		t.Errorf("no engine: %v", err)
	}
	els, err := ExtractPDF(context.Background(), path, PDFOptions{})
	if err != nil {
		t.Fatalf("the default engine without Poppler: %v", err)
	}
	if text, _ := Assemble(els); !strings.Contains(text, paragraphs[3]) {
		t.Errorf("the default engine read %q", text)
	}
}

func TestEncryptedPDF(t *testing.T) {
	var buf bytes.Buffer
	pages := []pdfgen.Page{{Width: 612, Height: 792, Lines: []pdfgen.Line{{X: 50, Y: 100, Size: 12, Text: "Secret text."}}}}
	if err := pdfgen.WriteEncrypted(&buf, pages, "hunter2"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "locked.pdf")
	os.WriteFile(path, buf.Bytes(), 0o644)
	for _, eng := range pdfEngines(t) {
		_, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: eng})
		if !errors.Is(err, ErrEncrypted) {
			t.Errorf("%s: encrypted PDF: %v", eng.Name(), err)
		}
	}
}

// A word hyphenated at a line's end is joined to its rest: without the
// hyphen, unless the document writes the word with one elsewhere, or the
// rest starts in upper case.
func TestPDFHyphenation(t *testing.T) {
	line := func(y float64, s string) pdfgen.Line { return pdfgen.Line{X: 72, Y: y, Size: 11, Text: s} }
	path := writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: []pdfgen.Line{
		line(100, "Chunkers cut documents where the hyphen-"),
		line(113, "ation of a word spans two lines, and a well-"),
		line(126, "known rule keeps a well-known compound whole;"),
		line(139, "the Franco-"),
		line(152, "Prussian war stays as it was written."),
	}}})
	want := "Chunkers cut documents where the hyphenation of a word spans two lines, and a well-known rule keeps a well-known compound whole; the Franco-Prussian war stays as it was written."
	for _, eng := range pdfEngines(t) {
		els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		if text, _ := Assemble(els); text != want {
			t.Errorf("%s:\n got %q\nwant %q", eng.Name(), text, want)
		}
	}
}

// FuzzPDFium feeds PDFium any bytes: a PDF, a truncated or mangled one, or
// none. It gives elements or an error, never a panic or a hang, and what
// it gives holds together: text in every element, boxes on their pages.
//
//	go test ./layout -run '^$' -fuzz FuzzPDFium -fuzztime 60s
func FuzzPDFium(f *testing.F) {
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pdfgen.TwoColumn("Fuzzing", paragraphs, "Header")); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:len(good)-40])
	f.Add(bytes.Replace(good, []byte("/Length"), []byte("/Lngth"), 1))
	f.Add([]byte("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Add([]byte("%PDF-"))
	e := pdfiumEngine(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		els, err := ExtractPDFReader(context.Background(), bytes.NewReader(data), PDFOptions{Engine: e})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNoText) && !errors.Is(err, ErrEncrypted) {
				t.Fatalf("an error of no kind: %v", err)
			}
			return
		}
		for _, el := range els {
			if strings.TrimSpace(el.Text) == "" || !utf8.ValidString(el.Text) {
				t.Fatalf("element without valid text: %+v", el)
			}
			if el.Page < 1 {
				t.Fatalf("element on page %d", el.Page)
			}
		}
		text, els := Assemble(els)
		for _, el := range els {
			if el.End > len(text) || el.Start > el.End {
				t.Fatalf("element [%d, %d) outside the text of %d bytes", el.Start, el.End, len(text))
			}
		}
	})
}

func TestJoinLines(t *testing.T) {
	compounds := map[string]bool{"self-contained": true}
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"one", "two"}, "one two"},
		{[]string{"a hyphen-", "ated word"}, "a hyphenated word"},
		{[]string{"a self-", "contained unit"}, "a self-contained unit"},
		{[]string{"pre-", "1990 prices"}, "pre-1990 prices"},
		{[]string{"a dash -", "then more"}, "a dash - then more"},
		{[]string{"soft\u00ad", "ware"}, "software"},
		{[]string{"(multi-", "line)."}, "(multiline)."},
	} {
		if got := joinLines(c.lines, compounds); got != c.want {
			t.Errorf("joinLines(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}

// Runs become lines and blocks by position alone, whatever order the PDF
// writes them in: two columns written line by line across both come out
// as two blocks, each in its order.
func TestGroupBlocksInterleavedColumns(t *testing.T) {
	var runs []pdfRun
	for i := range 4 {
		y := 100 + 14*float64(i)
		runs = append(runs,
			pdfRun{text: fmt.Sprintf("left%d", i), x0: 50, x1: 250, y0: y, y1: y + 12, size: 12},
			pdfRun{text: " "},
			pdfRun{text: fmt.Sprintf("right%d", i), x0: 320, x1: 520, y0: y, y1: y + 12, size: 12},
			pdfRun{text: " "})
	}
	// A paragraph gap, then another block in the left column; a heading
	// in a larger size above nothing.
	runs = append(runs, pdfRun{text: "after", x0: 50, x1: 100, y0: 200, y1: 212, size: 12},
		pdfRun{text: "Title", x0: 50, x1: 200, y0: 30, y1: 54, size: 24})
	bs := groupBlocks(runs)
	var got []string
	for _, b := range bs {
		got = append(got, strings.Join(b.lines, "|"))
	}
	want := []string{"left0|left1|left2|left3", "right0|right1|right2|right3", "after", "Title"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("blocks %q, want %q", got, want)
	}
}

// An element over the size is cut into pieces of about equal size that
// become consecutive chunks of their own, never mixed with other elements.
func TestS2OversizedElementBalanced(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("Glaciers carve deep valleys in hard rock. ", 5)) // 35 words
	els := []gochunk.Element{
		{Type: "paragraph", Text: "Short opening words here.", Page: 1, BBox: [4]float64{10, 10, 300, 40}},
		{Type: "paragraph", Text: long, Page: 1, BBox: [4]float64{10, 50, 300, 200}},
		{Type: "paragraph", Text: "Short closing words here.", Page: 1, BBox: [4]float64{10, 210, 300, 240}},
	}
	text, placed := Assemble(els)
	chunks, err := newS2(t, 30).Chunk(context.Background(), gochunk.Document{Text: text, Elements: placed})
	if err != nil {
		t.Fatal(err)
	}
	var pieces []gochunk.Chunk
	for _, c := range chunks {
		inside := c.Spans[0].Start >= placed[1].Start && c.Spans[len(c.Spans)-1].End <= placed[1].End
		touches := c.Spans[len(c.Spans)-1].End > placed[1].Start && c.Spans[0].Start < placed[1].End
		if touches && !inside {
			t.Errorf("chunk %q mixes the long element with others", c.Text)
		}
		if inside {
			pieces = append(pieces, c)
		}
	}
	if len(pieces) != 2 {
		t.Fatalf("long element in %d chunks, want 2: %+v", len(pieces), pieces)
	}
	if a, b := pieces[0].TokenCount, pieces[1].TokenCount; a < 14 || b < 14 {
		t.Errorf("unbalanced pieces of %d and %d words", a, b)
	}
	if pieces[0].Text != strings.TrimSpace(strings.Repeat("Glaciers carve deep valleys in hard rock. ", 3)) {
		t.Errorf("first piece does not end at a sentence: %q", pieces[0].Text)
	}
}

// Elements given with a text of the caller's: out of order, not covering
// all of it, overlapping or cutting a character.
func TestS2ElementsInText(t *testing.T) {
	text := "Intro words here. Alpha paragraph text.\n\nBeta paragraph text. Tail words é."
	at := func(s string) (int, int) {
		i := strings.Index(text, s)
		return i, i + len(s)
	}
	el := func(s string, page int) gochunk.Element {
		a, b := at(s)
		return gochunk.Element{Type: "paragraph", Text: s, Page: page, BBox: [4]float64{10, 10, 100, 30}, Start: a, End: b}
	}
	opt := chunktest.Options{Counter: tokenize.Words{}, Limit: 4}
	// Listed backwards, and "Intro words here." and "Tail words é." in no
	// element: nothing may be lost, spans stay in text order.
	els := []gochunk.Element{el("Beta paragraph text.", 2), el("Alpha paragraph text.", 1)}
	chunks, err := newS2(t, 4).Chunk(context.Background(), gochunk.Document{Text: text, Elements: els})
	if err != nil {
		t.Fatal(err)
	}
	if msg := chunktest.Verify(text, chunks, opt); msg != "" {
		t.Fatal(msg)
	}
	overlap := []gochunk.Element{el("Alpha paragraph text.", 1), el("paragraph", 1)}
	if _, err := newS2(t, 4).Chunk(context.Background(), gochunk.Document{Text: text, Elements: overlap}); !errors.Is(err, ErrElements) || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping elements: %v", err)
	}
	a, b := at("é")
	cut := []gochunk.Element{{Text: "x", Page: 1, Start: a + 1, End: b}}
	if _, err := newS2(t, 4).Chunk(context.Background(), gochunk.Document{Text: text, Elements: cut}); !errors.Is(err, ErrElements) || !strings.Contains(err.Error(), "inside a character") {
		t.Errorf("offsets inside a character: %v", err)
	}
}

// pdftotext output cut short is an error, not a document missing its end.
func TestParseBBoxLayoutTruncated(t *testing.T) {
	good := `<html><body><doc><page width="612" height="792"><flow><block xMin="1" yMin="2" xMax="3" yMax="4"><line xMin="1" yMin="2" xMax="3" yMax="4"><word>Hi</word></line></block></flow></page></doc></body></html>`
	pages, err := parseBBoxLayout([]byte(good), 1)
	if err != nil || len(pages) != 1 || len(pages[0].blocks) != 1 || pages[0].blocks[0].lines[0] != "Hi" {
		t.Fatalf("%+v %v", pages, err)
	}
	if _, err := parseBBoxLayout([]byte(good[:len(good)/2]), 1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated output: %v", err)
	}
}

// The paper's cluster count (fewer clusters) and the dense graph keep the
// contract; the dense graph links elements far apart in reading order.
func TestS2GraphAndClusterOptions(t *testing.T) {
	text := strings.Repeat("Pasta dough needs flour and eggs; knead the pasta dough.\n\nJupiter is the largest planet of the solar system.\n\n", 12)
	for _, cfg := range []S2Config{
		func() S2Config { c := DefaultS2Config(); c.Graph = "dense"; c.Size = 60; return c }(),
		func() S2Config { c := DefaultS2Config(); c.Clusters = "paper"; c.Size = 60; return c }(),
		func() S2Config { c := DefaultS2Config(); c.Graph, c.Clusters, c.Size = "dense", "paper", 60; return c }(),
	} {
		c, err := NewS2(cfg, tokenize.Words{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		chunktest.Check(t, c, text, chunktest.Options{Counter: tokenize.Words{}, Limit: 60})
	}
	for _, bad := range []func(*S2Config){func(c *S2Config) { c.Graph = "full" }, func(c *S2Config) { c.Clusters = "auto" }} {
		cfg := DefaultS2Config()
		bad(&cfg)
		if _, err := NewS2(cfg, nil, nil); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("%+v: err = %v, want ErrConfig", cfg, err)
		}
	}
}

// A PDF given as a stream goes through a temporary file for Poppler,
// removed when the extraction ends, cancelled or not, and errors do not
// name it.
func TestExtractPDFReaderRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ExtractPDFReader(ctx, strings.NewReader("%PDF-1.4 not really"), PDFOptions{Engine: Poppler{}})
	if err == nil {
		t.Fatal("a cancelled extraction gave no error")
	}
	if strings.Contains(err.Error(), dir) {
		t.Errorf("the error names the temporary file: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A cache directory holds compiled code once a file is in it, at any depth
// (wazero keeps a folder per runtime version).
func TestCompiledCache(t *testing.T) {
	dir := t.TempDir()
	if compiled(dir) || compiled("") {
		t.Fatal("an empty directory holds compiled code")
	}
	os.MkdirAll(filepath.Join(dir, "wazero-v1"), 0o755)
	if compiled(dir) {
		t.Fatal("an empty folder counts as compiled code")
	}
	os.WriteFile(filepath.Join(dir, "wazero-v1", "module"), []byte("code"), 0o644)
	if !compiled(dir) {
		t.Fatal("compiled code is not found")
	}
}

// A landscape page (its text drawn turned, the page shown turned back) is
// read as it is displayed: its lines in order as one paragraph, the box
// where the page shows it (Poppler's, to a few points), on a page 792
// wide and 612 high; turned the other way, the text reads upside down and
// still comes out in order.
func TestLandscapePDF(t *testing.T) {
	lines := []string{"Landscape pages hold wide tables.", "Their text is drawn turned a quarter,", "and the page is shown turned back."}
	want := strings.Join(lines, " ")
	// Where Poppler places the paragraph on the displayed page.
	boxes := map[int][4]float64{90: {92, 91.4, 282.1, 134.5}, 270: {509.9, 477.5, 700, 520.6}}
	for _, rotate := range []int{90, 270} {
		var buf bytes.Buffer
		if err := pdfgen.WriteLandscape(&buf, lines, rotate); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "landscape.pdf")
		os.WriteFile(path, buf.Bytes(), 0o644)
		for _, eng := range pdfEngines(t) {
			els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: eng})
			if err != nil {
				t.Fatalf("%s, /Rotate %d: %v", eng.Name(), rotate, err)
			}
			if text, _ := Assemble(els); text != want {
				t.Errorf("%s, /Rotate %d: %q", eng.Name(), rotate, text)
			}
			e := els[0]
			for k := range 4 {
				if math.Abs(e.BBox[k]-boxes[rotate][k]) > 4 {
					t.Errorf("%s, /Rotate %d: box %v, the page shows it at %v", eng.Name(), rotate, e.BBox, boxes[rotate])
					break
				}
			}
			if eng.Name() == "pdfium" && (e.PageWidth != 792 || e.PageHeight != 612) {
				t.Errorf("/Rotate %d: a page %gx%g", rotate, e.PageWidth, e.PageHeight)
			}
		}
	}
}
