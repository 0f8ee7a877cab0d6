package layout

import (
	"bytes"
	"testing"
)

// pdftotext writes a PDF's control characters as they are (a subset font
// without a Unicode map gives its space glyph U+0003); the page is read
// as pdftotext's text output reads, not called corrupt (issue 50).
func TestParseBBoxLayoutControlCharacters(t *testing.T) {
	out := "<html><body><doc><page width=\"612\" height=\"792\"><flow><block xMin=\"1\" yMin=\"2\" xMax=\"3\" yMax=\"4\">" +
		"<line xMin=\"1\" yMin=\"2\" xMax=\"3\" yMax=\"4\"><word>Total\x03due</word><word>\x01</word><word>caf\xe9</word><word>\x0c12.50\x1f</word></line>" +
		"</block></flow></page></doc></body></html>"
	pages, err := parseBBoxLayout([]byte(out), 1)
	if err != nil {
		t.Fatalf("pdftotext output with control characters: %v", err)
	}
	if len(pages) != 1 || len(pages[0].blocks) != 1 {
		t.Fatalf("got %+v", pages)
	}
	if got, want := pages[0].blocks[0].lines[0], "Total due caf\uFFFD 12.50"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

func TestXMLText(t *testing.T) {
	clean := []byte("<word>plain\ttext\r\n</word>")
	if got := xmlText(clean); &got[0] != &clean[0] {
		t.Error("clean output was copied")
	}
	for in, want := range map[string]string{
		"a\x00b\x1fc":         "a b c",
		"x\uFFFEy\uFFFF":      "x\uFFFDy\uFFFD",
		"ok \xff\xfe end\x7f": "ok \uFFFD end\x7f",
	} {
		if got := xmlText([]byte(in)); !bytes.Equal(got, []byte(want)) {
			t.Errorf("xmlText(%q) = %q, want %q", in, got, want)
		}
	}
}
