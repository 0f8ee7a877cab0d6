package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pdfgen"
)

func twoColumnPDF(t *testing.T) string {
	t.Helper()
	var paras []string
	topics := []string{
		"Glaciers carve valleys as the ice moves slowly downhill under its own weight.",
		"Compilers translate source code into machine instructions after parsing it.",
		"Bread rises because yeast ferments sugars and releases carbon dioxide gas.",
	}
	for i := range 24 {
		paras = append(paras, fmt.Sprintf("Paragraph %d. %s %s", i, topics[i%3], topics[i%3]))
	}
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pdfgen.TwoColumn("Layout Test", paras, "Running Header")); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "doc.pdf", buf.String())
}

func TestPDFChunkAndExtract(t *testing.T) {
	path := twoColumnPDF(t)
	// Poppler's text, where it is installed, is the same.
	if _, err := exec.LookPath("pdftotext"); err == nil {
		pdfium, _, _ := runCmd(t, "", "extract", path)
		poppler, errs, code := runCmd(t, "", "extract", "--pdf-engine", "poppler", path)
		if code != 0 || poppler != pdfium {
			t.Errorf("Poppler's text (exit %d, %s) differs from PDFium's:\n%s\n%s", code, errs, poppler, pdfium)
		}
	}
	// No program is needed: PDFium runs in the process.
	t.Setenv("PATH", t.TempDir())
	if _, errs, code := runCmd(t, "", "extract", "--pdf-engine", "poppler", path); code == 0 || !strings.Contains(errs, "poppler-utils") {
		t.Errorf("--pdf-engine poppler without Poppler: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := runCmd(t, "", "chunk", "--pdf-engine", "mupdf", path); code != exitUsage || !strings.Contains(errs, "pdf_engine") {
		t.Errorf("an unknown engine: exit %d, stderr %q", code, errs)
	}
	text, errs, code := runCmd(t, "", "extract", path)
	if code != 0 {
		t.Fatalf("extract: exit %d: %s", code, errs)
	}
	if strings.Contains(text, "Running Header") || !strings.Contains(text, "Paragraph 23.") {
		t.Fatalf("extracted text keeps the header or loses a paragraph:\n%s", text)
	}
	// Elements point into the extracted text.
	out, errs, code := runCmd(t, "", "extract", "--elements", path)
	if code != 0 {
		t.Fatalf("extract --elements: exit %d: %s", code, errs)
	}
	headers := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var el gochunk.Element
		if err := json.Unmarshal([]byte(line), &el); err != nil {
			t.Fatalf("bad element %q: %v", line, err)
		}
		if el.Excluded {
			headers++
			continue
		}
		if text[el.Start:el.End] != el.Text {
			t.Errorf("element %q: offsets [%d,%d) point at %q", el.Text, el.Start, el.End, text[el.Start:el.End])
		}
	}
	if headers == 0 {
		t.Error("no header or footer element marked excluded")
	}
	for _, chunker := range []string{"s2", "recursive"} {
		out, errs, code := runCmd(t, "", "chunk", "--chunker", chunker, "--size", "80", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", chunker, code, errs)
		}
		recs := decodeLines(t, out)
		if len(recs) < 2 {
			t.Fatalf("%s: %d chunks", chunker, len(recs))
		}
		for _, r := range recs {
			if r.TokenCount > 80 {
				t.Errorf("%s: chunk of %d tokens", chunker, r.TokenCount)
			}
			spans := r.Spans
			if len(spans) == 0 {
				spans = []gochunk.Span{{Start: r.Start, End: r.End}}
			}
			for _, s := range spans {
				if !strings.Contains(r.Text, strings.TrimSpace(text[s.Start:s.End])) {
					t.Errorf("%s: span [%d,%d) not in chunk text", chunker, s.Start, s.End)
				}
			}
			if chunker == "s2" && r.Metadata["pages"] == nil {
				t.Errorf("s2 chunk without pages metadata: %+v", r.Metadata)
			}
		}
	}
}

func TestPDFErrors(t *testing.T) {
	bad := writeFile(t, "bad.pdf", "%PDF-1.4\nthis is not a PDF body\n")
	if _, errs, code := runCmd(t, "", "chunk", bad); code != exitInput || !strings.Contains(errs, "bad.pdf") {
		t.Errorf("corrupt PDF: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := runCmd(t, "", "chunk", "--input", "spreadsheet", bad); code != exitUsage {
		t.Errorf("unknown --input: exit %d, stderr %q", code, errs)
	}
}

func TestElementsInput(t *testing.T) {
	// Unstructured's element JSON: a list with type, text and metadata.
	els := `[
 {"type": "Title", "text": "Results", "metadata": {"page_number": 1, "coordinates": {"points": [[10,10],[10,30],[200,30],[200,10]], "layout_width": 600, "layout_height": 800}}},
 {"type": "NarrativeText", "text": "The first finding is about glaciers and ice.", "metadata": {"page_number": 1, "coordinates": {"points": [[10,40],[10,80],[300,80],[300,40]], "layout_width": 600, "layout_height": 800}}},
 {"type": "NarrativeText", "text": "The second finding is about compilers.", "metadata": {"page_number": 2, "coordinates": {"points": [[10,40],[10,80],[300,80],[300,40]], "layout_width": 600, "layout_height": 800}}}
]`
	path := writeFile(t, "els.json", els)
	out, errs, code := runCmd(t, "", "chunk", "--input", "elements", "--chunker", "s2", "--size", "12", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := decodeLines(t, out)
	var all []string
	for _, r := range recs {
		all = append(all, r.Text)
	}
	joined := strings.Join(all, " ")
	for _, want := range []string{"Results", "glaciers", "compilers"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q lost: %q", want, joined)
		}
	}
	if _, errs, code := runCmd(t, "", "chunk", "--input", "elements", writeFile(t, "x.json", `{"nope": 1}`)); code != exitInput {
		t.Errorf("bad elements: exit %d, stderr %q", code, errs)
	}
}
