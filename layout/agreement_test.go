package layout

import (
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/internal/textgen"
)

// wordAgreement is the share of words two texts have in common, counted
// as multisets, over the longer text's words.
func wordAgreement(a, b string) float64 {
	count := map[string]int{}
	wa, wb := strings.Fields(a), strings.Fields(b)
	for _, w := range wa {
		count[w]++
	}
	common := 0
	for _, w := range wb {
		if count[w] > 0 {
			count[w]--
			common++
		}
	}
	return float64(common) / float64(max(len(wa), len(wb), 1))
}

// printPDF has headless Chromium print an HTML page as a PDF (its fonts
// embedded as subsets, text placed glyph by glyph with kerning, as most
// PDFs people keep are made), with Chromium's flags added, or skips.
func printPDF(t *testing.T, dir, name, page string, flags ...string) string {
	t.Helper()
	bin := ""
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("skipping: no Chromium to print PDFs with (apt-get install chromium; .ci/run does it)")
	}
	in := filepath.Join(dir, name+".html")
	out := filepath.Join(dir, name+".pdf")
	if err := os.WriteFile(in, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-pdf-header-footer", "--print-to-pdf=" + out}, flags...)
	cmd := exec.Command(bin, append(args, "file://"+in)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("skipping: Chromium cannot print here: %v %.300s", err, msg)
	}
	if _, err := os.Stat(out); err != nil {
		t.Skipf("skipping: Chromium printed nothing: %v", err)
	}
	return out
}

// htmlOf lays a markdown-ish text out as HTML: "#" lines as headings,
// other lines as justified paragraphs.
func htmlOf(text string) string {
	var sb strings.Builder
	sb.WriteString(`<html lang="en"><head><meta charset="utf-8"><style>body{font-family:serif;text-align:justify;margin:2cm}</style></head><body>`)
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case strings.HasPrefix(l, "#"):
			fmt.Fprintf(&sb, "<h2>%s</h2>", html.EscapeString(strings.Trim(l, "# ")))
		default:
			fmt.Fprintf(&sb, "<p>%s</p>", html.EscapeString(l))
		}
	}
	sb.WriteString("</body></html>")
	return sb.String()
}

// PDFium's text agrees with Poppler's, word for word, on the project's
// test PDFs: generated two-column pages (a standard font) and pages
// Chromium prints from generated prose and from the development corpora
// where they are present (embedded fonts). Blocks are compared too: the
// same elements in the same order.
func TestPDFiumAgreesWithPoppler(t *testing.T) {
	needPoppler(t)
	dir := t.TempDir()
	docs := map[string]string{}
	var paras []string
	for _, p := range strings.Split(textgen.Prose(60_000, 3), "\n\n") {
		if p = strings.TrimSpace(strings.TrimPrefix(p, "## ")); p != "" {
			paras = append(paras, p)
		}
	}
	docs["two-column"] = writePDF(t, pdfgen.TwoColumn("Generated Two-Column Pages", paras, "Agreement Tests"))
	docs["printed-prose"] = printPDF(t, dir, "prose", htmlOf(textgen.Prose(60_000, 5)))
	for _, name := range []string{"wikitexts", "state_of_the_union", "chatlogs"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name+".md"))
		if err != nil {
			t.Logf("%s: the development corpora (../shared/eval/chroma) are absent", name)
			continue
		}
		text := string(data)
		if len(text) > 80_000 {
			text = text[:strings.LastIndexByte(text[:80_000], '\n')]
		}
		docs["printed-"+name] = printPDF(t, dir, name, htmlOf(text))
	}
	ctx := context.Background()
	for name, path := range docs {
		a, err := ExtractPDF(ctx, path, PDFOptions{Engine: pdfiumEngine(t)})
		if err != nil {
			t.Fatalf("%s: PDFium: %v", name, err)
		}
		b, err := ExtractPDF(ctx, path, PDFOptions{Engine: Poppler{}})
		if err != nil {
			t.Fatalf("%s: Poppler: %v", name, err)
		}
		ta, _ := Assemble(a)
		tb, _ := Assemble(b)
		same := 0
		for i := range min(len(a), len(b)) {
			if a[i].Text == b[i].Text && a[i].Type == b[i].Type {
				same++
			}
		}
		agree := wordAgreement(ta, tb)
		t.Logf("%s: word agreement %.4f (%d words); %d of %d elements (Poppler %d) identical", name, agree, len(strings.Fields(tb)), same, len(a), len(b))
		if agree < 0.99 {
			t.Errorf("%s: PDFium and Poppler agree on %.4f of the words, want 0.99", name, agree)
		}
	}
}
