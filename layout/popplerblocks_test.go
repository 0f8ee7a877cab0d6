package layout

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

func popplerElements(t *testing.T, path string) []gochunk.Element {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("skipping: Poppler's pdftotext is not installed (apt-get install poppler-utils)")
	}
	els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: Poppler{}})
	if err != nil {
		t.Fatal(err)
	}
	_, els = Assemble(els)
	return els
}

// Poppler's words go through the layout PDFium's characters go through:
// list items each an element, nested by where their text starts, and
// tables set by alignment (a ruled table and one without borders) as
// tables, where pdftotext's blocks gave a list as one paragraph and each
// cell as a paragraph of its own.
func TestPopplerStructure(t *testing.T) {
	els := popplerElements(t, filepath.Join("testdata", "lists.pdf"))
	type item struct {
		text  string
		level int
	}
	var items []item
	for _, e := range els {
		if e.Type == "list_item" {
			items = append(items, item{strings.TrimSpace(e.Text), e.Level})
		}
	}
	want := []item{
		{"• Clothes for a week", 1}, {"◦ Two warm jumpers", 2}, {"◦ A rain jacket", 2},
		{"• A sleeping bag rated to five degrees", 1}, {"• A torch with spare batteries", 1},
		{"1. Register at the front desk.", 1}, {"2. Pitch the tent before dark.", 1}, {"3. Meet the group at the fire at eight.", 1},
	}
	if len(items) != len(want) {
		t.Fatalf("list items %v, want %v", items, want)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Errorf("item %d: %v, want %v", i, items[i], want[i])
		}
	}
	var tables []string
	heads := 0
	for _, e := range popplerElements(t, filepath.Join("testdata", "structure.pdf")) {
		switch e.Type {
		case "table":
			tables = append(tables, e.Text)
		case "heading":
			heads++
		}
	}
	if len(tables) != 2 || !strings.Contains(tables[0], "| North | 1,200 | 1,350 | +12.5% |") || !strings.Contains(tables[1], "| Berlin | Anna Schmidt | 42 |") {
		t.Errorf("tables %q, want the sales table and the staff table", tables)
	}
	if heads != 3 {
		t.Errorf("%d headings, want 3 (1. Sales by region, 2. Staff, 2.1 Training)", heads)
	}
}

// TestPopplerStructureGroundTruth is TestPDFStructureGroundTruth's
// documents read by Poppler: the headings and list items found, logged,
// with a floor under today's figures (list items 94%, headings 57%:
// pdftotext tells no font weight, so headings set apart by bold alone
// are not found).
func TestPopplerStructureGroundTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: prints a dozen PDFs with Chromium")
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("skipping: Poppler's pdftotext is not installed")
	}
	g := loadGTText(t)
	dir := gtDir(t)
	var all gtScore
	for _, st := range gtStyles {
		var style gtScore
		for _, seed := range gtSeeds {
			d := genDoc(st, seed, g)
			path := printPDF(t, dir, d.name, d.html)
			style.add(scoreDoc(d, popplerElements(t, path), func(string, ...any) {}))
		}
		t.Logf("%s: %v", st.name, style)
		all.add(style)
	}
	t.Logf("all styles: %v", all)
	floor := func(name string, got, of int, want float64) {
		if f := float64(got) / float64(max(of, 1)); f < want {
			t.Errorf("%s: %.3f, below the floor %.2f", name, f, want)
		}
	}
	floor("headings found", all.headingsFound, all.headings, popplerFloors.headings)
	floor("list items found", all.itemsFound, all.items, popplerFloors.items)
}

// popplerFloors are the figures TestPopplerStructureGroundTruth must reach.
var popplerFloors = struct{ headings, items float64 }{0.5, 0.85}

// pdftotext -bbox-layout writes right-to-left words as they show, left to
// right, letters reversed ("םולש" for "שלום"); Poppler's lines are put in
// reading order as PDFium's are, and a page of two right-to-left columns
// is read from its right column.
func TestPopplerRightToLeft(t *testing.T) {
	var sb strings.Builder
	for _, e := range popplerElements(t, filepath.Join("testdata", "bidi.pdf")) {
		sb.WriteString(e.Text + "\n")
	}
	for _, want := range []string{"مرحبا بالعالم هذا نص عربي", "שלום עולם זה טקסט בעברית", "Mixed: the word שלום means peace, and 3 apples cost 12 shekels."} {
		if !strings.Contains(sb.String(), want+"\n") {
			t.Errorf("%q not a paragraph of %q", want, sb.String())
		}
	}
	var text strings.Builder
	for _, e := range popplerElements(t, filepath.Join("testdata", "rtlcolumns.pdf")) {
		text.WriteString(e.Text + "\n")
	}
	last := -1
	for _, want := range []string{"פסקה ראשונה: העיר העתיקה", "פסקה שנייה", "פסקה שלישית", "פסקה רביעית", "פסקה חמישית", "פסקה שישית"} {
		i := strings.Index(text.String(), want)
		if i < 0 || i < last {
			t.Fatalf("%q not after the paragraph before it in %q", want, text.String())
		}
		last = i
	}
}

// pdftotext's output, cut or changed anywhere, is read or refused as
// corrupt, never a panic, and every block read holds a line.
func FuzzParseBBoxLayout(f *testing.F) {
	f.Add([]byte(`<html><body><doc><page width="612" height="792"><flow><block xMin="1" yMin="2" xMax="3" yMax="4"><line xMin="1" yMin="2" xMax="3" yMax="4"><word>Hi</word></line></block></flow></page></doc></body></html>`))
	if _, err := exec.LookPath("pdftotext"); err == nil {
		for _, name := range []string{"lists.pdf", "structure.pdf", "bidi.pdf"} {
			out, err := exec.Command("pdftotext", "-q", "-bbox-layout", "-enc", "UTF-8", filepath.Join("testdata", name), "-").Output()
			if err == nil {
				f.Add(out)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pages, err := parseBBoxLayout(data, 1)
		if err != nil {
			return
		}
		for _, p := range pages {
			for _, b := range p.blocks {
				if len(b.lines) == 0 {
					t.Fatalf("page %d: a block without lines: %+v", p.page, b)
				}
			}
		}
	})
}
