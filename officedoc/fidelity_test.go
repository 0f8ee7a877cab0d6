package officedoc

import (
	"strings"
	"testing"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
	`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ` +
	`xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" ` +
	`xmlns:v="urn:schemas-microsoft-com:vml" ` +
	`xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"`

// docxOf returns a DOCX whose body is body (WordprocessingML inside
// w:body), with numbering when given.
func docxOf(t *testing.T, body, numbering string) []byte {
	t.Helper()
	parts := map[string][]byte{
		"word/document.xml": []byte(`<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`),
	}
	if numbering != "" {
		parts["word/numbering.xml"] = []byte(`<?xml version="1.0"?><w:numbering ` + wordNS + `>` + numbering + `</w:numbering>`)
	}
	return zipOf(t, parts)
}

// A text box is written by Word twice, as a drawing (mc:Choice) and as
// VML (mc:Fallback): it is read once, as a paragraph of its own, and the
// text of the paragraph that anchors it is kept.
func TestDOCXTextBoxReadOnce(t *testing.T) {
	box := func(text string) string {
		return `<w:txbxContent><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:txbxContent>`
	}
	body := `<w:p><w:r><w:t>Before the box.</w:t></w:r><w:r><mc:AlternateContent>` +
		`<mc:Choice Requires="wps"><w:drawing><wps:wsp><wps:txbx>` + box("Boxed words") + `</wps:txbx></wps:wsp></w:drawing></mc:Choice>` +
		`<mc:Fallback><w:pict><v:shape><v:textbox>` + box("Boxed words") + `</v:textbox></v:shape></w:pict></mc:Fallback>` +
		`</mc:AlternateContent></w:r><w:r><w:t> After the box.</w:t></w:r></w:p>` +
		// A Choice that needs what no reader knows: its Fallback is read.
		`<w:p><w:r><mc:AlternateContent><mc:Choice Requires="w99"><w:t>Future markup</w:t></mc:Choice>` +
		`<mc:Fallback><w:t>Fallback words</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	want := "paragraph Boxed words\nparagraph Before the box. After the box.\nparagraph Fallback words"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Equations (Office Math) are read as linear text that keeps their
// structure: powers, indices, fractions, roots, sums, functions,
// delimiters, matrices.
func TestDOCXEquations(t *testing.T) {
	r := func(s string) string {
		return `<m:r><w:rPr><w:rFonts w:ascii="Cambria Math"/></w:rPr><m:t>` + s + `</m:t></m:r>`
	}
	e := func(s string) string { return `<m:e>` + s + `</m:e>` }
	for _, tc := range []struct{ omml, want string }{
		{r("A=π") + `<m:sSup>` + e(r("r")) + `<m:sup>` + r("2") + `</m:sup></m:sSup>`, "A=πr^2"},
		{`<m:f><m:num>` + r("a+b") + `</m:num><m:den>` + r("2") + `</m:den></m:f>`, "(a+b)/(2)"},
		{`<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/>` + e(r("x+1")) + `</m:rad>`, "√(x+1)"},
		{`<m:rad><m:deg>` + r("3") + `</m:deg>` + e(r("y")) + `</m:rad>`, "∛(y)"},
		{`<m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr><m:sub>` + r("i=1") + `</m:sub><m:sup>` + r("n") + `</m:sup>` +
			e(`<m:sSub>`+e(r("a"))+`<m:sub>`+r("i")+`</m:sub></m:sSub>`) + `</m:nary>`, "∑_(i=1)^n a_i"},
		{`<m:func><m:fName>` + r("sin") + `</m:fName>` + e(r("x")) + `</m:func>`, "sin(x)"},
		{`<m:d><m:dPr><m:begChr m:val="["/><m:endChr m:val="]"/></m:dPr>` + e(r("0")) + e(r("1")) + `</m:d>`, "[0|1]"},
		{`<m:m><m:mr>` + e(r("a")) + e(r("b")) + `</m:mr><m:mr>` + e(r("c")) + e(r("d")) + `</m:mr></m:m>`, "[a, b; c, d]"},
	} {
		body := `<w:p><w:r><w:t xml:space="preserve">Area: </w:t></w:r><m:oMathPara><m:oMath>` + tc.omml + `</m:oMath></m:oMathPara></w:p>`
		els, err := Elements("docx", docxOf(t, body, ""))
		if err != nil {
			t.Fatal(err)
		}
		if len(els) != 1 || els[0].Text != "Area: "+tc.want {
			t.Errorf("got %q, want %q", texts(els), "Area: "+tc.want)
		}
	}
}

// A nested list's levels reach the elements' text as indentation.
func TestDOCXNestedList(t *testing.T) {
	numbering := `<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>` +
		`<w:lvl w:ilvl="1"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>`
	item := func(lvl, text string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + lvl + `"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	els, err := Elements("docx", docxOf(t, item("0", "Fruit")+item("1", "Apple")+item("1", "Pear")+item("0", "Nuts"), numbering))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	want := "list_item - Fruit\nlist_item   1. Apple\nlist_item   2. Pear\nlist_item - Nuts"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
