package layout

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// The PDFs of testdata/*.pdf are their .html printed by Chromium:
//
//	chromium --headless --no-sandbox --no-pdf-header-footer --print-to-pdf=X.pdf X.html
//
// with DejaVu Sans installed (fonts-dejavu-core).

func extractText(t *testing.T, path string) string {
	t.Helper()
	els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: pdfiumEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := Assemble(els)
	return text
}

// Characters outside the Basic Multilingual Plane (the math italics of
// equations) come out whole, where each of their two UTF-16 code units
// was a U+FFFD.
func TestPDFSurrogatePairs(t *testing.T) {
	text := extractText(t, filepath.Join("testdata", "chars.pdf"))
	if strings.ContainsRune(text, '\uFFFD') {
		t.Errorf("U+FFFD in %q", text)
	}
	if want := "Math italic 𝑥 + 𝑦 = 𝑧 and bold 𝐀𝐁 in an equation."; !strings.Contains(text, want) {
		t.Errorf("%q not in %q", want, text)
	}
}

// Text placed outside the page's box (a media box the page's drawing
// overflows) is not shown, so not read.
func TestPDFTextOutsidePage(t *testing.T) {
	path := writePDF(t, []pdfgen.Page{{Width: 612, Height: 792, Lines: []pdfgen.Line{
		{X: 72, Y: 100, Size: 12, Text: "Shown on the page."},
		{X: 700, Y: 200, Size: 12, Text: "Right of the page."},
		{X: 72, Y: 900, Size: 12, Text: "Below the page."},
	}}})
	if text := extractText(t, path); text != "Shown on the page." {
		t.Errorf("%q", text)
	}
}

// Right-to-left text comes out in reading order, a line at a time, with
// its numbers and the left-to-right words within it in theirs, where
// Arabic and Hebrew came out as scattered one- and two-letter elements.
func TestPDFRightToLeft(t *testing.T) {
	text := extractText(t, filepath.Join("testdata", "bidi.pdf"))
	for _, want := range []string{
		"مرحبا بالعالم هذا نص عربي",
		"في عام 2024 كتب الطلاب 150 مقالة عن تاريخ المدينة القديمة وأسواقها وشوارعها الضيقة التي يعرفها كل زائر منذ قرون طويلة",
		"שלום עולם זה טקסט בעברית",
		"Mixed: the word שלום means peace, and 3 apples cost 12 shekels.",
	} {
		if !strings.Contains(text, want+"\n") && !strings.HasSuffix(text, want) {
			t.Errorf("%q not a paragraph of %q", want, text)
		}
	}
}

func TestLogicalOrder(t *testing.T) {
	for _, c := range []struct{ visual, logical string }{
		{"plain text 12", "plain text 12"},
		{"םולש", "שלום"},
		{"the word םולש means", "the word שלום means"},
		{"תירבעב טסקט הז םלוע םולש", "שלום עולם זה טקסט בעברית"},
		{"בתכ 2024 םב", "בם 2024 כתב"},             // a number inside a right-to-left line
		{"GoChunk םע הדובעה", "העבודה עם GoChunk"}, // a left-to-right word in one
		{"ﻻ", "لا"}, // a presentation form, as the letters it shows
	} {
		if got := logicalOrder(c.visual); got != c.logical {
			t.Errorf("logicalOrder(%q) = %q, want %q", c.visual, got, c.logical)
		}
	}
}

// Letter-spaced text (CSS letter-spacing, a tracked heading) reads as its
// words, where each letter was a word ("S U M M A R Y").
func TestPDFLetterSpaced(t *testing.T) {
	want := "SUMMARY OF RESULTS\n\nThe results below were measured in the spring.\n\nLetter spaced text reads as words."
	if text := extractText(t, filepath.Join("testdata", "spaced.pdf")); text != want {
		t.Errorf("%q, want %q", text, want)
	}
}

func TestJoinLetterSpaced(t *testing.T) {
	for _, c := range []struct {
		words []string
		gaps  []float64 // -1: a space; else a gap in ems
		want  string
	}{
		{[]string{"S", "U", "M", "M", "A", "R", "Y"}, []float64{-1, .6, .6, .6, .6, .6, .6}, "SUMMARY"},
		{[]string{"S", "U", "M", "O", "F"}, []float64{-1, .6, .6, 1.1, .6}, "SUM OF"},
		{[]string{"w", "o", "r", "d", "s", "."}, []float64{-1, .4, .4, .4, .4, .4}, "words."},
		// A receipt's columns: numbers and symbols standing apart.
		{[]string{"AUDIO-5521", "1", "@", "$349.99"}, []float64{-1, .6, .6, .6}, "AUDIO-5521 1 @ $349.99"},
		{[]string{"Q", "1", "2", "3"}, []float64{-1, .5, .5, .5}, "Q 1 2 3"},
		{[]string{"a", "b"}, []float64{-1, .5}, "a b"},
	} {
		l := pdfLine{words: c.words, boxes: make([][2]float64, len(c.words))}
		joinLetterSpaced(&l, c.gaps)
		if got := strings.Join(l.words, " "); got != c.want || len(l.boxes) != len(l.words) {
			t.Errorf("%q: %q (%d boxes), want %q", c.words, got, len(l.boxes), c.want)
		}
	}
}

// A page set in two columns of right-to-left text (Hebrew, printed by
// Chromium from testdata/rtlcolumns.html) is read from its right column,
// where it starts, as pdftotext reads it: the six paragraphs in order.
func TestPDFRightToLeftColumns(t *testing.T) {
	text := extractText(t, filepath.Join("testdata", "rtlcolumns.pdf"))
	last := -1
	for _, want := range []string{"פסקה ראשונה", "פסקה שנייה", "פסקה שלישית", "פסקה רביעית", "פסקה חמישית", "פסקה שישית"} {
		i := strings.Index(text, want)
		if i < 0 || i < last {
			t.Fatalf("%q not after the paragraph before it in %q", want, text)
		}
		last = i
	}
}
