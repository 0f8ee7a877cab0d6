package layout

import (
	"path/filepath"
	"strings"
	"testing"
)

// LaTeX's \bullet comes from cmsy10, whose glyphs have no Unicode value:
// PDFium hands it over as a C1 control character (U+0088), which the
// line builder dropped, so every item of an itemize list was a paragraph
// with no marker. testdata/latex-itemize.pdf is pdflatex's output of
// testdata/latex-itemize.tex.
func TestPDFLaTeXBullets(t *testing.T) {
	els := extractElements(t, filepath.Join("testdata", "latex-itemize.pdf"))
	want := map[string]int{ // an item's text, its level
		"• Parcels are weighed at the depot.":  1,
		"• Letters go by the morning round.":   1,
		"– Registered letters are signed for.": 2,
		"• Returns are held for ten days.":     1,
	}
	seen := map[string]bool{}
	for _, e := range els {
		level, ok := want[strings.TrimSpace(e.Text)] // a nested item is indented
		if !ok {
			if e.Type == "list_item" {
				t.Errorf("list item %q not in the source's list", e.Text)
			}
			continue
		}
		seen[strings.TrimSpace(e.Text)] = true
		if e.Type != "list_item" || e.Level != level {
			t.Errorf("%q: %s at level %d, want a list item at level %d", e.Text, e.Type, e.Level, level)
		}
	}
	for text := range want {
		if !seen[text] {
			t.Errorf("%q is no element of its own", text)
		}
	}
}
