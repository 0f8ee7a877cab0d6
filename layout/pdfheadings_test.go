package layout

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

func outline(t *testing.T, path string, types ...string) string {
	var sb strings.Builder
	for _, e := range extractElements(t, path) {
		for _, typ := range types {
			if e.Type == typ {
				fmt.Fprintf(&sb, "%s %d %s\n", e.Type, e.Level, e.Text)
			}
		}
	}
	return sb.String()
}

// Headings are found by their size against the body text's and by their
// section numbers, with levels: "2.1 Training", set barely larger than
// the body, is a heading under "2. Staff"; "1. Sales by region" is a
// heading, not a list item.
func TestPDFHeadings(t *testing.T) {
	got := outline(t, filepath.Join("testdata", "structure.pdf"), "title", "heading", "list_item")
	want := "title 1 Quarterly Report\nheading 2 1. Sales by region\nheading 2 2. Staff\nheading 3 2.1 Training\n" +
		// its list's bullets are shapes Chromium draws
		"list_item 1 • First aid, for every office\nlist_item 2   ◦ Refreshers every two years\nlist_item 2   ◦ New staff in their first month\n" +
		"list_item 1 • Fire safety, twice a year\nlist_item 1 • Data protection, once a year\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// List items are found by their markers, each its own element even where
// the lines stand as close as a paragraph's, nested by their indentation
// (the nested item's text indented as markdown nests it).
func TestPDFLists(t *testing.T) {
	got := outline(t, filepath.Join("testdata", "lists.pdf"), "list_item")
	want := `list_item 1 • Clothes for a week
list_item 2   ◦ Two warm jumpers
list_item 2   ◦ A rain jacket
list_item 1 • A sleeping bag rated to five degrees
list_item 1 • A torch with spare batteries
list_item 1 1. Register at the front desk.
list_item 1 2. Pitch the tent before dark.
list_item 1 3. Meet the group at the fire at eight.
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSectionDepth(t *testing.T) {
	for _, c := range []struct {
		text          string
		depth         int
		dotted, match bool
	}{
		{"1. Introduction", 1, false, true},
		{"2.1 Training", 2, true, true},
		{"3.2.1. Results", 3, true, true},
		{"A. Scope", 1, false, true},
		{"IV. Discussion", 1, false, true},
		{"A.1 Scope", 2, true, true},
		{"B.2.1 Limits", 3, true, true},
		{"3. the next step", 0, false, false},
		{"12,000 people came", 0, false, false},
		{"Introduction", 0, false, false},
	} {
		d, dotted, ok := sectionDepth(c.text)
		if d != c.depth || dotted != c.dotted || ok != c.match {
			t.Errorf("sectionDepth(%q) = %d, %v, %v", c.text, d, dotted, ok)
		}
	}
}

func TestListMarker(t *testing.T) {
	for text, want := range map[string]bool{
		"• Flour": true, "● Eggs": true, "- Salt": true, "1. Preheat": true, "2) Mix": true, "(3) Bake": true,
		"a) Stir": true, "\uf0b7 Whisk": true, "\uf0a7 Fold": true, "⦁ Chill": true, "iv. Serve": true, "(415) 555-0199": false, "— Anonymous": false, "-5.00 off": false, "12,000 people": false, "Flour": false,
	} {
		if got := listMarker(text); got != want {
			t.Errorf("listMarker(%q) = %v", text, got)
		}
	}
}

// Headings set at the body's size are found by their weight: bold lines
// are headings, ranked under the title, bold above bold italic; a
// paragraph opening with bold words, a bold sentence and an italic line
// are not headings.
func TestPDFBoldHeadings(t *testing.T) {
	got := outline(t, filepath.Join("testdata", "weight.pdf"), "title", "heading")
	want := "title 1 Field Guide\nheading 2 Shore birds\nheading 3 Where to look\nheading 2 Sea birds\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A PDF's outline makes headings of lines that look like the body text,
// at the outline's levels (outline.pdf: Chromium's
// --generate-pdf-document-outline).
func TestPDFOutlineLevels(t *testing.T) {
	got := outline(t, filepath.Join("testdata", "outline.pdf"), "title", "heading")
	want := "heading 1 Harbour Rules\nheading 2 Mooring\nheading 3 Rafting up\nheading 2 Fuel and water\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFontStyle(t *testing.T) {
	for _, c := range []struct {
		name          string
		flags, weight int
		want          uint8
	}{
		{"AAAAAA+DejaVuSans-Bold", 4, 455, styleKnown | styleBold},
		{"BAAAAA+DejaVuSans", 4, 225, styleKnown},
		{"DAAAAA+DejaVuSans-Oblique", 68, 610, styleKnown | styleItalic}, // PDFium's weight, from the stems
		{"CAAAAA+DejaVuSans-BoldOblique", 68, 780, styleKnown | styleBold | styleItalic},
		{"Arial,Bold", 0, -1, styleKnown | styleBold},
		{"TimesNewRomanPS-BoldItalicMT", 0, 700, styleKnown | styleBold | styleItalic},
		{"NimbusRomNo9L-Medi", 0, -1, styleKnown | styleBold},
		{"CMBX10", 0, -1, styleKnown | styleBold},
		{"CMR10", 0, 400, styleKnown},
		{"Helvetica", 0, 700, styleKnown | styleBold}, // no style in the name: the weight tells
		{"Calibri-Light", 0, 300, styleKnown},
	} {
		if got := fontStyle(c.name, c.flags, c.weight); got != c.want {
			t.Errorf("fontStyle(%q, %d, %d) = %b, want %b", c.name, c.flags, c.weight, got, c.want)
		}
	}
}

func TestBoldHeading(t *testing.T) {
	for text, want := range map[string]bool{
		"Shore birds":                  true,
		"Where to look":                true,
		"Bring a telescope.":           false, // a sentence
		"Note:":                        false, // a label
		"nbcf.org.au":                  false, // an address
		"www.example.org/help":         false,
		"Write to help@example.org":    false,
		"2024":                         false, // no letter
		"• Pack a torch":               false, // a list item
		"What is cancer? .......... 3": false, // a table of contents' line
	} {
		b := block{lines: []string{text}, lineHeight: 12, bold: true}
		if got := boldHeading(b, text, 12, true); got != want {
			t.Errorf("boldHeading(%q) = %v", text, got)
		}
	}
	b := block{lines: []string{"Bring a telescope and a tide table.", "Sea birds"}, lineHeight: 12, bold: true}
	if boldHeading(b, "Bring a telescope and a tide table. Sea birds", 12, true) {
		t.Error("two bold lines opening with a sentence make a heading")
	}
	if boldHeading(block{lines: []string{"Shore birds"}, lineHeight: 12, bold: true}, "Shore birds", 12, false) {
		t.Error("a bold line is a heading where bold does not set lines apart")
	}
}

// Outline titles match the elements on their pages in order; a title
// that starts a paragraph and is followed by a new sentence is cut off it
// as a heading; a title pointing nowhere is looked for after the last.
func TestApplyOutline(t *testing.T) {
	els := []gochunk.Element{
		{Type: "title", Text: "Harbour Rules", Page: 1},
		{Type: "paragraph", Text: "Mooring Moor only at the berth you are given.", Page: 1, BBox: [4]float64{50, 100, 500, 140}},
		{Type: "paragraph", Text: "Mooring lines must be doubled.", Page: 2},
		{Type: "footer", Text: "Fuel and water", Page: 2, Excluded: true},
		{Type: "paragraph", Text: "Fuel and water", Page: 2},
	}
	keys := make([]headingKey, len(els))
	for i := range keys {
		keys[i] = headingKey{size: 12}
	}
	got := applyOutline(els, keys, []outlineEntry{{"Harbour Rules", 1, 1}, {"Mooring", 2, 1}, {"Fuel and Water", 2, 0}})
	var sb strings.Builder
	for _, e := range got {
		fmt.Fprintf(&sb, "%s %d %s\n", e.Type, e.Level, e.Text)
	}
	want := "title 0 Harbour Rules\nheading 2 Mooring\nparagraph 0 Moor only at the berth you are given.\nparagraph 0 Mooring lines must be doubled.\nfooter 0 Fuel and water\nheading 2 Fuel and water\n"
	if sb.String() != want {
		t.Errorf("got\n%s\nwant\n%s", sb.String(), want)
	}
}

// Headings without numbers rank under the numbered ones above them: run-in
// bold headings at the body's size under "1." (14 pt) and "1.1" (12 pt)
// sit at level 3; two sizes of unnumbered headings rank by size.
func TestSetLevelsMixed(t *testing.T) {
	els := []gochunk.Element{
		{Type: "heading", Level: 1, Text: "1. Scope"},
		{Type: "heading", Level: 2, Text: "1.1 Terms"},
		{Type: "heading", Text: "Vessels"},
		{Type: "heading", Level: 1, Text: "2. Rules"},
		{Type: "heading", Text: "Moorings"},
	}
	keys := []headingKey{{size: 14, bold: true}, {size: 12, bold: true}, {size: 10, bold: true}, {size: 14, bold: true}, {size: 10, bold: true}}
	setLevels(els, keys)
	var got []int
	for _, e := range els {
		got = append(got, e.Level)
	}
	if fmt.Sprint(got) != "[1 2 3 1 3]" {
		t.Errorf("levels %v, want [1 2 3 1 3]", got)
	}
	els = []gochunk.Element{{Type: "heading", Text: "Big"}, {Type: "heading", Text: "Small"}, {Type: "heading", Text: "Small italic"}}
	setLevels(els, []headingKey{{size: 16}, {size: 12, bold: true}, {size: 12, bold: true, italic: true}})
	if els[0].Level != 1 || els[1].Level != 2 || els[2].Level != 3 {
		t.Errorf("levels %d %d %d, want 1 2 3", els[0].Level, els[1].Level, els[2].Level)
	}
}

// The disc, circle and square Chromium draws as shapes for an HTML list
// are read as the markers of the lines they stand before (bullets.pdf:
// an unstyled nested list printed by Chromium).
func TestPDFShapeBullets(t *testing.T) {
	got := outline(t, filepath.Join("testdata", "bullets.pdf"), "list_item")
	want := "list_item 1 • Clothes for a week\nlist_item 2   ◦ Two warm jumpers\nlist_item 3     ▪ One of wool\nlist_item 2   ◦ A rain jacket\nlist_item 1 • A sleeping bag rated to five degrees\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
