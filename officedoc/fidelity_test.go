package officedoc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
	`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ` +
	`xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" ` +
	`xmlns:v="urn:schemas-microsoft-com:vml" ` +
	`xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ` +
	`xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"`

// docxOf returns a DOCX whose body is body (WordprocessingML inside
// w:body), with numbering when given.
func docxOf(t *testing.T, body, numbering string) []byte {
	t.Helper()
	return docxWith(t, body, numbering, nil)
}

// docxWith is docxOf with more parts (styles, relationships, the parts
// they name), by their names in the package.
func docxWith(t *testing.T, body, numbering string, more map[string]string) []byte {
	t.Helper()
	parts := map[string][]byte{}
	for name, text := range more {
		parts[name] = []byte(text)
	}
	parts["word/document.xml"] = []byte(`<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`)
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
		`<mc:Fallback><w:t>Fallback words</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		// A text box set in the line is part of its paragraph.
		`<w:p><w:r><w:t xml:space="preserve">Single </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:inline><wps:wsp><wps:txbx>` +
		box("inline box") + `</wps:txbx></wps:wsp></wp:inline></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>` + box("inline box") +
		`</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t xml:space="preserve"> within.</w:t></w:r></w:p>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	want := "paragraph Boxed words\nparagraph Before the box. After the box.\nparagraph Fallback words\nparagraph Single inline box within."
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
		{r("sin\u2061") + r("θ"), "sin θ"},
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

const pmlNS = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" ` +
	`xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ` +
	`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ` +
	`xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"`

// pptxOf returns a deck of one slide whose shape tree is tree, with the
// slide's relationships rels (Relationship elements) and other parts.
func pptxOf(t *testing.T, tree, rels string, parts map[string]string) []byte {
	t.Helper()
	all := map[string][]byte{
		"ppt/presentation.xml":             []byte(`<p:presentation ` + pmlNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`),
		"ppt/_rels/presentation.xml.rels":  []byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="slides/slide1.xml"/></Relationships>`),
		"ppt/slides/slide1.xml":            []byte(`<p:sld ` + pmlNS + `><p:cSld><p:spTree>` + tree + `</p:spTree></p:cSld></p:sld>`),
		"ppt/slides/_rels/slide1.xml.rels": []byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels + `</Relationships>`),
	}
	for k, v := range parts {
		all[k] = []byte(v)
	}
	return zipOf(t, all)
}

// A slide's chart (title and values), its comments (legacy, and modern
// with a reply, by their authors) and its pictures' descriptions are
// read, on the slide's page.
func TestPPTXChartsCommentsPictures(t *testing.T) {
	tree := `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr>` +
		`<p:txBody><a:p><a:r><a:t>Sales</a:t></a:r></a:p></p:txBody></p:sp>` +
		`<p:pic><p:nvPicPr><p:cNvPr id="5" name="Picture 4" descr="A map of the northern region"/></p:nvPicPr><p:blipFill><a:blip r:embed="rId6"/></p:blipFill></p:pic>` +
		`<p:graphicFrame><a:graphic><a:graphicData><c:chart r:id="rId7"/></a:graphicData></a:graphic></p:graphicFrame>`
	rels := `<Relationship Id="rId6" Target="../media/image3.png"/><Relationship Id="rId7" Target="../charts/chart1.xml"/><Relationship Id="rId8" Target="../comments/comment1.xml"/>` +
		`<Relationship Id="rId9" Target="../comments/modernComment_1.xml"/>`
	pt := func(i int, v string) string { return fmt.Sprintf(`<c:pt idx="%d"><c:v>%s</c:v></c:pt>`, i, v) }
	ser := func(name, a, b string) string {
		return `<c:ser><c:tx><c:strRef><c:strCache>` + pt(0, name) + `</c:strCache></c:strRef></c:tx>` +
			`<c:cat><c:strRef><c:strCache>` + pt(0, "2022") + pt(1, "2023") + `</c:strCache></c:strRef></c:cat>` +
			`<c:val><c:numRef><c:numCache>` + pt(0, a) + pt(1, b) + `</c:numCache></c:numRef></c:val></c:ser>`
	}
	parts := map[string]string{
		"ppt/charts/chart1.xml": `<c:chartSpace ` + pmlNS + `><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Revenue </a:t></a:r><a:r><a:t>by year</a:t></a:r></a:p></c:rich></c:tx></c:title>` +
			`<c:plotArea><c:barChart>` + ser("North", "10", "12") + ser("South", "7", "9") + `</c:barChart>` +
			`<c:valAx><c:title><c:tx><c:rich><a:p><a:r><a:t>EUR</a:t></a:r></a:p></c:rich></c:tx></c:title></c:valAx></c:plotArea></c:chart></c:chartSpace>`,
		"ppt/comments/comment1.xml": `<p:cmLst ` + pmlNS + `><p:cm authorId="0" idx="1"><p:pos x="1" y="1"/><p:text>Check the 2023 figure</p:text></p:cm></p:cmLst>`,
		"ppt/commentAuthors.xml":    `<p:cmAuthorLst ` + pmlNS + `><p:cmAuthor id="0" name="Ada Lovelace" initials="AL"/></p:cmAuthorLst>`,
		"ppt/comments/modernComment_1.xml": `<p188:cmLst xmlns:p188="http://schemas.microsoft.com/office/powerpoint/2018/8/main" ` + pmlNS + `>` +
			`<p188:cm id="{1}" authorId="{A}"><p188:replyLst><p188:reply id="{2}" authorId="{B}"><p188:txBody><a:p><a:r><a:t>Fixed it</a:t></a:r></a:p></p188:txBody></p188:reply></p188:replyLst>` +
			`<p188:txBody><a:p><a:r><a:t>South looks low</a:t></a:r></a:p></p188:txBody></p188:cm></p188:cmLst>`,
		"ppt/authors.xml": `<p188:authorLst xmlns:p188="http://schemas.microsoft.com/office/powerpoint/2018/8/main"><p188:author id="{A}" name="Grace"/><p188:author id="{B}" name="Alan"/></p188:authorLst>`,
	}
	els, err := Elements("pptx", pptxOf(t, tree, rels, parts))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	want := "heading ## Slide 1: Sales\nfigure ![A map of the northern region](image3.png)\ncaption Chart: Revenue by year\n" +
		"table | Category | North | South |\n| --- | --- | --- |\n| 2022 | 10 | 7 |\n| 2023 | 12 | 9 |\n" +
		"caption Comment by Ada Lovelace: Check the 2023 figure\ncaption Comment by Grace: South looks low\ncaption Comment by Alan: Fixed it"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, e := range els {
		if e.Page != 1 {
			t.Errorf("%q on page %d", e.Text, e.Page)
		}
	}
}

// styledXLSX returns a workbook of one sheet of cells (SpreadsheetML c
// elements, one row), with the cell formats styles (xf elements of
// cellXfs) and custom number formats numFmts.
func styledXLSX(t *testing.T, cells, numFmts, styles string, date1904 bool) []byte {
	t.Helper()
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	pr := ""
	if date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	return zipOf(t, map[string][]byte{
		"xl/workbook.xml":            []byte(`<workbook ` + ns + `>` + pr + `<sheets><sheet name="Log" sheetId="1" r:id="rId1"/></sheets></workbook>`),
		"xl/_rels/workbook.xml.rels": []byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`),
		"xl/styles.xml":              []byte(`<styleSheet ` + ns + `><numFmts>` + numFmts + `</numFmts><cellXfs>` + styles + `</cellXfs></styleSheet>`),
		"xl/worksheets/sheet1.xml":   []byte(`<worksheet ` + ns + `><sheetData><row r="1">` + cells + `</row></sheetData></worksheet>`),
	})
}

// Numbers whose format shows a date or a time (built-in formats 14 to 22
// and 45 to 47, custom ones with d, m, y, h or s) are written as dates
// and times, in either date system; other numbers as they are.
func TestXLSXDates(t *testing.T) {
	numFmts := `<numFmt numFmtId="164" formatCode="yyyy\-mm\-dd\ hh:mm"/><numFmt numFmtId="165" formatCode="[h]:mm:ss"/>` +
		`<numFmt numFmtId="166" formatCode="0.00"/><numFmt numFmtId="167" formatCode="&quot;day &quot;0;[Red]\-0"/>` +
		`<numFmt numFmtId="168" formatCode="[$-409]mmmm\ d\,\ yyyy;@"/>`
	styles := `<xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="20"/><xf numFmtId="165"/><xf numFmtId="166"/>` +
		`<xf numFmtId="167"/><xf numFmtId="168"/><xf numFmtId="47"/>`
	c := func(col string, style int, v string) string {
		return fmt.Sprintf(`<c r="%s1" s="%d"><v>%s</v></c>`, col, style, v)
	}
	cells := c("A", 0, "45292") + c("B", 1, "45292") + c("C", 2, "45292.5625") + c("D", 3, "0.75") + c("E", 4, "1.5104166666666667") +
		c("F", 5, "45292") + c("G", 6, "45292") + c("H", 7, "45323") + c("I", 8, "0.0006944444444444445")
	for _, tc := range []struct {
		date1904 bool
		want     string
	}{
		{false, "| 45292 | 2024-01-01 | 2024-01-01 13:30:00 | 18:00:00 | 36:15:00 | 45292 | 45292 | 2024-02-01 | 00:01:00 |"},
		{true, "| 45292 | 2028-01-02 | 2028-01-02 13:30:00 | 18:00:00 | 36:15:00 | 45292 | 45292 | 2028-02-02 | 00:01:00 |"},
	} {
		els, err := Elements("xlsx", styledXLSX(t, cells, numFmts, styles, tc.date1904))
		if err != nil {
			t.Fatal(err)
		}
		if len(els) != 2 || !strings.HasPrefix(els[1].Text, tc.want) {
			t.Errorf("date1904 %v: got %q, want %q", tc.date1904, texts(els), tc.want)
		}
	}
	for _, tc := range []struct {
		serial float64
		want   string
	}{{1, "1900-01-01"}, {59, "1900-02-28"}, {60, "1900-02-29"}, {61, "1900-03-01"}, {2958465, "9999-12-31"}} {
		if got := serialDate(tc.serial, dateOnly, false); got != tc.want {
			t.Errorf("serial %g: %s, want %s", tc.serial, got, tc.want)
		}
	}
}

// A message saved as UTF-16 (with or without a byte order mark) is read
// and sniffed as the message it is.
func TestEmailUTF16(t *testing.T) {
	msg := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: Caf\u00e9 hours\r\nContent-Type: text/plain; charset=utf-16\r\n\r\nOpen until nine.\r\n"
	for _, tc := range []struct {
		name string
		enc  func(string) []byte
	}{
		{"LE with BOM", func(s string) []byte { return append([]byte{0xFF, 0xFE}, utf16Bytes(s, false)...) }},
		{"BE with BOM", func(s string) []byte { return append([]byte{0xFE, 0xFF}, utf16Bytes(s, true)...) }},
		{"LE", func(s string) []byte { return utf16Bytes(s, false) }},
		{"BE", func(s string) []byte { return utf16Bytes(s, true) }},
	} {
		data := tc.enc(msg)
		if k := Sniff(data); k != "eml" {
			t.Errorf("%s: sniffed as %q", tc.name, k)
		}
		els, err := Elements("eml", data)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := strings.TrimSpace(strings.Join(texts(els), "\n")); got != "title # Caf\u00e9 hours\nparagraph From: ana@example.com\nTo: bo@example.com\nparagraph Open until nine." {
			t.Errorf("%s: got\n%s", tc.name, got)
		}
	}
}

func utf16Bytes(s string, bigEndian bool) []byte {
	var out []byte
	for _, r := range s { // the test's text is in the Basic Multilingual Plane
		if bigEndian {
			out = append(out, byte(r>>8), byte(r))
		} else {
			out = append(out, byte(r), byte(r>>8))
		}
	}
	return out
}

// A multipart message cut short before its closing boundary keeps what
// was read, the part it ends in included, and says it was truncated.
func TestEmailTruncatedMultipart(t *testing.T) {
	msg := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: Minutes\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain\r\n\r\nThe first part was read.\r\n" +
		"--b1\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\nVGhlIHNlY29uZCBwYXJ0IGlzIGN1dCBzaG9y"
	r, err := Read(t.Context(), "eml", []byte(msg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(r.Elements), "\n")
	if !strings.Contains(got, "The first part was read.") || !strings.Contains(got, "The second part is cut") {
		t.Errorf("got\n%s", got)
	}
	if w := strings.Join(r.Warnings, "; "); !strings.Contains(w, "truncated") || !strings.Contains(w, "part 2") {
		t.Errorf("warnings %q: want one saying part 2 is truncated", r.Warnings)
	}
	// Cut between parts: the parts read are kept, and it is said.
	cut := msg[:strings.LastIndex(msg, "--b1")]
	r, err = Read(t.Context(), "eml", []byte(cut), Options{})
	if err != nil || !strings.Contains(strings.Join(texts(r.Elements), "\n"), "The first part was read.") || !strings.Contains(strings.Join(r.Warnings, "; "), "truncated") {
		t.Errorf("cut between parts: %q, warnings %q, %v", texts(r.Elements), r.Warnings, err)
	}
}

// An attachment that cannot be decoded (an image whose base64 is broken)
// is named in a warning; the message, its subject, headers and body, is
// kept. An empty message is refused as what it is.
func TestEmailBadAttachmentKeepsMessage(t *testing.T) {
	msg := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: The scan\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain\r\n\r\nPlease see the scan.\r\n" +
		"--b1\r\nContent-Type: image/png; name=\"scan.png\"\r\nContent-Disposition: attachment; filename=\"scan.png\"\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo!!!!AAAANSUhEUg=A\r\n" +
		"--b1\r\nContent-Type: text/html; name=\"page.html\"\r\nContent-Disposition: attachment; filename=\"page.html\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>ok=ZZ</p>\r\n--b1--\r\n"
	for _, separate := range []bool{false, true} {
		r, err := Read(t.Context(), "eml", []byte(msg), Options{Attachments: separate})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(texts(r.Elements), "\n")
		for _, w := range []string{"title # The scan", "From: ana@example.com", "Please see the scan."} {
			if !strings.Contains(got, w) {
				t.Errorf("separate %v: %q missing from\n%s", separate, w, got)
			}
		}
		if w := strings.Join(r.Warnings, "; "); !strings.Contains(w, `"scan.png"`) {
			t.Errorf("separate %v: warnings %q do not name scan.png", separate, r.Warnings)
		}
	}
	if _, err := Read(t.Context(), "eml", []byte(" \r\n\r\n"), Options{}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "the message is empty") {
		t.Errorf("empty message: %v, want an error saying it is empty", err)
	}
}

// An HTML body is read in its charset: the part's, else its <meta>'s, else
// its bytes'.
func TestEmailHTMLCharset(t *testing.T) {
	head := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: Menu\r\nMIME-Version: 1.0\r\n"
	for _, tc := range []struct{ ctype, body string }{
		{"text/html; charset=windows-1252", "<p>Cr\xe8me br\xfbl\xe9e \x80 5</p>"},
		{"text/html", "<meta charset=\"windows-1252\"><p>Cr\xe8me br\xfbl\xe9e \x80 5</p>"},
		{"text/html", "<p>Cr\xe8me br\xfbl\xe9e \x80 5</p>"},
		{"text/html; charset=us-ascii", "<p>Cr\u00e8me br\u00fbl\u00e9e \u20ac 5</p>"},
	} {
		els, err := Elements("eml", []byte(head+"Content-Type: "+tc.ctype+"\r\n\r\n"+tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := texts(els); got[len(got)-1] != "paragraph Cr\u00e8me br\u00fbl\u00e9e \u20ac 5" {
			t.Errorf("%s %q: got %q", tc.ctype, tc.body, got)
		}
	}
}

// A Word table's cell spanning columns (gridSpan) keeps the cells after
// it in their columns.
func TestDOCXGridSpan(t *testing.T) {
	tc := func(text, pr string) string {
		return `<w:tc><w:tcPr>` + pr + `</w:tcPr><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:tc>`
	}
	body := `<w:tbl><w:tr>` + tc("Region", "") + tc("Sales", `<w:gridSpan w:val="2"/>`) + tc("Note", "") + `</w:tr>` +
		`<w:tr>` + tc("North", "") + tc("10", "") + tc("12", "") + tc("good", "") + `</w:tr></w:tbl>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := "| Region | Sales |  | Note |\n| --- | --- | --- | --- |\n| North | 10 | 12 | good |"
	if len(els) != 1 || els[0].Text != want {
		t.Errorf("got %q, want %q", texts(els), want)
	}
}

// Paragraphs of Word's list styles ("List Bullet 2") are list items
// nested by their style, of the list the style numbers them in.
func TestDOCXListStyles(t *testing.T) {
	styles := `<?xml version="1.0"?><w:styles ` + wordNS + `>` +
		`<w:style w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>` +
		`<w:style w:styleId="ListBullet2"><w:name w:val="List Bullet 2"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>` +
		`</w:styles>`
	numbering := `<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>` +
		`<w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>`
	p := func(style, text string) string {
		return `<w:p><w:pPr><w:pStyle w:val="` + style + `"/></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	els, err := Elements("docx", docxWith(t, p("ListBullet", "Fruit")+p("ListBullet2", "Apple")+p("ListBullet", "Nuts"), numbering, map[string]string{"word/styles.xml": styles}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(texts(els), "\n"), "list_item - Fruit\nlist_item   - Apple\nlist_item - Nuts"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A header line that is not a field loses only itself, with a warning.
func TestEmailMalformedHeader(t *testing.T) {
	msg := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: Plans\r\n\xff\xfe not a field\r\nX-Note: folded\r\n  on two lines\r\n\r\nThe body.\r\n"
	r, err := Read(t.Context(), "eml", []byte(msg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(strings.Join(texts(r.Elements), "\n")); got != "title # Plans\nparagraph From: ana@example.com\nTo: bo@example.com\nparagraph The body." {
		t.Errorf("got\n%s", got)
	}
	if w := strings.Join(r.Warnings, "; "); !strings.Contains(w, "1 malformed lines left out") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// A document is read as Word shows it with its tracked changes accepted:
// deleted and moved-away text is left out (moved text is read once, where
// it went), as is hidden text (w:vanish) and the properties a tracked
// formatting change replaced; a non-breaking hyphen is a hyphen, a tab
// stop's definition no tab.
func TestDOCXTrackedChangesAndHiddenText(t *testing.T) {
	body := `<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>` +
		`<w:r><w:t xml:space="preserve">The </w:t></w:r>` +
		`<w:del w:id="1" w:author="A"><w:r><w:delText>old </w:delText></w:r><w:r><w:t>stale </w:t></w:r></w:del>` +
		`<w:ins w:id="2" w:author="A"><w:r><w:t xml:space="preserve">new </w:t></w:r></w:ins>` +
		`<w:r><w:t>text, e</w:t></w:r><w:r><w:noBreakHyphen/><w:t>mail.</w:t></w:r></w:p>` +
		`<w:moveFrom w:id="3" w:author="A"><w:p><w:r><w:t>Moved paragraph.</w:t></w:r></w:p></w:moveFrom>` +
		`<w:p><w:r><w:t xml:space="preserve">Shown </w:t></w:r>` +
		`<w:r><w:rPr><w:vanish/></w:rPr><w:t xml:space="preserve">hidden </w:t></w:r>` +
		`<w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t xml:space="preserve">visible </w:t></w:r>` +
		`<w:r><w:rPr><w:b/><w:rPrChange w:id="4" w:author="A"><w:rPr><w:vanish/></w:rPr></w:rPrChange></w:rPr><w:t>words.</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:rPr><w:vanish/></w:rPr></w:pPr><w:r><w:t>A hidden paragraph mark keeps its text.</w:t></w:r></w:p>` +
		`<w:moveTo w:id="5" w:author="A"><w:p><w:r><w:t>Moved paragraph.</w:t></w:r></w:p></w:moveTo>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	want := "paragraph The new text, e-mail.\nparagraph Shown visible words.\nparagraph A hidden paragraph mark keeps its text.\nparagraph Moved paragraph."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The text typed into a slide's footer and date placeholders is shown on
// the slide and read; the fields PowerPoint fills in there (the date, the
// slide number) and the slide number placeholder are not, nor the
// footers of the notes page.
func TestPPTXFooters(t *testing.T) {
	sp := func(ph, body string) string {
		return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr><p:ph ` + ph + `/></p:nvPr></p:nvSpPr><p:txBody><a:bodyPr/>` + body + `</p:txBody></p:sp>`
	}
	run := func(s string) string { return `<a:p><a:r><a:t>` + s + `</a:t></a:r></a:p>` }
	tree := sp(`type="title"`, run("Quarterly results")) + sp(`idx="1"`, run("Revenue grew")) +
		sp(`type="dt" sz="half" idx="10"`, `<a:p><a:fld id="{1}" type="datetime1"><a:t>3/14/2024</a:t></a:fld></a:p>`) +
		sp(`type="ftr" sz="quarter" idx="11"`, run("Acme Corp confidential")) +
		sp(`type="sldNum" sz="quarter" idx="12"`, `<a:p><a:fld id="{2}" type="slidenum"><a:t>7</a:t></a:fld></a:p>`)
	notes := `<p:notes ` + pmlNS + `><p:cSld><p:spTree>` + sp(`type="body" idx="1"`, run("Say it slowly")) +
		sp(`type="ftr" idx="4"`, run("Notes footer")) + `</p:spTree></p:cSld></p:notes>`
	data := pptxOf(t, tree, `<Relationship Id="rId2" Target="../notesSlides/notesSlide1.xml"/>`,
		map[string]string{"ppt/notesSlides/notesSlide1.xml": notes})
	els, err := Elements("pptx", data)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	want := "heading ## Slide 1: Quarterly results\nlist_item - Revenue grew\nparagraph Acme Corp confidential\ncaption Notes: Say it slowly"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Numbers are written as Excel shows them in General format, at most 15
// significant digits: the binary noise of a stored double (17 digits) is
// dropped, whatever the cell's style, and a small number Excel writes
// with an exponent is a decimal; shorter numbers, text and dates as
// before.
func TestXLSXNumberNoise(t *testing.T) {
	c := func(col, attrs, v string) string {
		return fmt.Sprintf(`<c r="%s1"%s><v>%s</v></c>`, col, attrs, v)
	}
	cells := c("A", "", "0.30000000000000004") + c("B", ` s="1"`, "1.0000000000000001E-2") + c("C", "", "1234.5600000000002") +
		c("D", "", "-7.0000000000000007E-2") + c("E", "", "12.5") + c("F", "", "1E+22") + c("G", ` t="str"`, "0.30000000000000004") +
		c("H", "", "2.2204460492503131E-16") + c("I", ` s="2"`, "45292.000000000007") + c("J", "", "123456789012345") +
		c("K", "", "1E-3") + c("L", "", "2.5E-12")
	styles := `<xf numFmtId="0"/><xf numFmtId="10"/><xf numFmtId="14"/>`
	els, err := Elements("xlsx", styledXLSX(t, cells, "", styles, false))
	if err != nil {
		t.Fatal(err)
	}
	want := "| 0.3 | 0.01 | 1234.56 | -0.07 | 12.5 | 1E+22 | 0.30000000000000004 | 2.22044604925031e-16 | 2024-01-01 | 123456789012345 | 0.001 | 2.5E-12 |"
	if len(els) != 2 || !strings.HasPrefix(els[1].Text, want) {
		t.Errorf("got %q, want %q", texts(els), want)
	}
}

// A paragraph style inherits what it does not say from the style it is
// based on (w:basedOn), as Word applies it: a "Chapter" style based on
// "Heading 1" makes headings of level 1, through two generations too; a
// style based on a numbered list style makes list items; a style that
// sets its own outline level 9 (body text, as Word's "TOC Heading" does)
// is no heading by inheritance.
func TestDOCXStyleInheritance(t *testing.T) {
	styles := `<?xml version="1.0"?><w:styles ` + wordNS + `>` +
		`<w:style w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
		`<w:style w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
		`<w:style w:styleId="Chapter"><w:name w:val="Chapter"/><w:basedOn w:val="Heading1"/></w:style>` +
		`<w:style w:styleId="Section"><w:name w:val="Section"/><w:basedOn w:val="SectionBase"/></w:style>` +
		`<w:style w:styleId="SectionBase"><w:name w:val="Section Base"/><w:basedOn w:val="Heading2"/></w:style>` +
		`<w:style w:styleId="TOCHeading"><w:name w:val="TOC Heading"/><w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>` +
		`<w:style w:styleId="Numbered"><w:name w:val="Numbered"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr></w:pPr></w:style>` +
		`<w:style w:styleId="Steps"><w:name w:val="Steps"/><w:basedOn w:val="Numbered"/></w:style>` +
		`<w:style w:styleId="Loop1"><w:name w:val="Loop one"/><w:basedOn w:val="Loop2"/></w:style>` +
		`<w:style w:styleId="Loop2"><w:name w:val="Loop two"/><w:basedOn w:val="Loop1"/></w:style>` +
		`</w:styles>`
	numbering := `<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl>` +
		`<w:lvl w:ilvl="1"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>`
	p := func(style, text string) string {
		return `<w:p><w:pPr><w:pStyle w:val="` + style + `"/></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	body := p("TOCHeading", "Contents") + p("Chapter", "Introduction") + p("Section", "Scope") + p("Steps", "Unpack") +
		p("Steps", "Install") + p("Loop1", "Plain words")
	els, err := Elements("docx", docxWith(t, body, numbering, map[string]string{"word/styles.xml": styles}))
	if err != nil {
		t.Fatal(err)
	}
	want := "paragraph Contents\ntitle # Introduction\nheading ## Scope\nlist_item   1. Unpack\nlist_item   2. Install\nparagraph Plain words"
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A paragraph's bullet decides whether it is a list item: a bulleted
// (a:buChar) paragraph of a plain text box is one, by its own properties
// or its text body's list style (a:lstStyle), a content placeholder's
// paragraph is one unless it says a:buNone, and numbered ones
// (a:buAutoNum) are numbered per level from their startAt.
func TestPPTXBullets(t *testing.T) {
	para := func(pPr, s string) string { return `<a:p>` + pPr + `<a:r><a:t>` + s + `</a:t></a:r></a:p>` }
	box := `<p:sp><p:nvSpPr><p:cNvPr id="3" name="TextBox 2"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:txBody><a:bodyPr/>` +
		`<a:lstStyle><a:lvl3pPr><a:buChar char="•"/></a:lvl3pPr></a:lstStyle>` +
		para("", "Plain box text") + para(`<a:pPr lvl="2"/>`, "Listed by the box's style") + para(`<a:pPr marL="285750" indent="-285750"><a:buFont typeface="Arial"/><a:buChar char="•"/></a:pPr>`, "Boxed bullet") +
		para(`<a:pPr lvl="1"><a:buChar char="o"/></a:pPr>`, "Nested bullet") + `</p:txBody></p:sp>`
	body := `<p:sp><p:nvSpPr><p:cNvPr id="4" name="Content"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:bodyPr/>` +
		para("", "Inherited bullet") + para(`<a:pPr marL="0" indent="0"><a:buNone/></a:pPr>`, "No bullet here") +
		para(`<a:pPr><a:buAutoNum type="arabicPeriod" startAt="3"/></a:pPr>`, "Third") +
		para(`<a:pPr lvl="1"><a:buAutoNum type="alphaLcParenR"/></a:pPr>`, "Sub one") +
		para(`<a:pPr lvl="1"><a:buAutoNum type="alphaLcParenR"/></a:pPr>`, "Sub two") +
		para(`<a:pPr><a:buAutoNum type="arabicPeriod" startAt="3"/></a:pPr>`, "Fourth") + `</p:txBody></p:sp>`
	els, err := Elements("pptx", pptxOf(t, box+body, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	want := "heading ## Slide 1\nparagraph Plain box text\nlist_item     - Listed by the box's style\nlist_item - Boxed bullet\nlist_item   - Nested bullet\n" +
		"list_item - Inherited bullet\nparagraph No bullet here\nlist_item 3. Third\nlist_item   1. Sub one\nlist_item   2. Sub two\nlist_item 4. Fourth"
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// An EPUB's authors and description (its blurb, escaped HTML as Calibre
// writes it) are read after its title, before the chapters; its
// navigation document (the table of contents), listed in the spine, is
// not read.
func TestEPUBMetadata(t *testing.T) {
	opf := `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">` +
		`<dc:title>Tides</dc:title><dc:creator>Ana Lima</dc:creator><dc:creator id="c2">Bo Berg</dc:creator>` +
		`<dc:description>&lt;p&gt;A study of &lt;b&gt;coastal&lt;/b&gt; tides.&lt;/p&gt;</dc:description></metadata>` +
		`<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>` +
		`<item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="nav"/><itemref idref="c1"/></spine></package>`
	data := zipOf(t, map[string][]byte{
		"mimetype":               []byte("application/epub+zip"),
		"META-INF/container.xml": []byte(`<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
		"OEBPS/content.opf":      []byte(opf),
		"OEBPS/nav.xhtml":        []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><nav epub:type="toc"><ol><li><a href="ch1.xhtml">Chapter one</a></li></ol></nav></body></html>`),
		"OEBPS/ch1.xhtml":        []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><h2>Chapter one</h2><p>The sea rose.</p></body></html>`),
	})
	els, err := Elements("epub", data)
	if err != nil {
		t.Fatal(err)
	}
	want := "title # Tides\nparagraph Authors: Ana Lima, Bo Berg\nparagraph A study of coastal tides.\nheading ## Chapter one\nparagraph The sea rose."
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// smartArtData is a SmartArt diagram's data part: a hierarchy whose
// points are listed out of order (Plan's children by srcOrd), with
// presentation points and transitions, which hold no text of the
// diagram.
const smartArtData = `<?xml version="1.0"?><dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>` +
	`<dgm:pt modelId="{0}" type="doc"><dgm:prSet/><dgm:t><a:bodyPr/><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>` +
	`<dgm:pt modelId="{3}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Test</a:t></a:r></a:p></dgm:t></dgm:pt>` +
	`<dgm:pt modelId="{1}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Plan</a:t></a:r></a:p></dgm:t></dgm:pt>` +
	`<dgm:pt modelId="{2}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Build </a:t></a:r><a:r><a:t>it</a:t></a:r></a:p><a:p><a:r><a:t>twice</a:t></a:r></a:p></dgm:t></dgm:pt>` +
	`<dgm:pt modelId="{4}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Ship</a:t></a:r></a:p></dgm:t></dgm:pt>` +
	`<dgm:pt modelId="{5}" type="parTrans"><dgm:t><a:bodyPr/><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>` +
	`<dgm:pt modelId="{6}" type="pres"><dgm:prSet presName="text"/></dgm:pt>` +
	`</dgm:ptLst><dgm:cxnLst>` +
	`<dgm:cxn modelId="{c4}" srcId="{0}" destId="{4}" srcOrd="1" destOrd="0"/>` +
	`<dgm:cxn modelId="{c1}" srcId="{0}" destId="{1}" srcOrd="0" destOrd="0"/>` +
	`<dgm:cxn modelId="{c3}" srcId="{1}" destId="{3}" srcOrd="1" destOrd="0"/>` +
	`<dgm:cxn modelId="{c2}" srcId="{1}" destId="{2}" srcOrd="0" destOrd="0"/>` +
	`<dgm:cxn modelId="{c6}" type="presOf" srcId="{1}" destId="{6}" srcOrd="0" destOrd="0"/>` +
	`</dgm:cxnLst></dgm:dataModel>`

// A SmartArt diagram's text (in its data part, which PowerPoint's and
// Word's graphic frames name by r:dm) is read as list items nested as
// the diagram's hierarchy, in its order; in Word, before the paragraph
// holding it.
func TestSmartArt(t *testing.T) {
	const graphic = `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">` +
		`<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:dm="rId7" r:lo="rId8" r:qs="rId9" r:cs="rId10"/></a:graphicData></a:graphic>`
	want := "list_item - Plan\nlist_item   - Build it twice\nlist_item   - Test\nlist_item - Ship"

	tree := `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="Diagram 4"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` + graphic + `</p:graphicFrame>`
	data := pptxOf(t, tree, `<Relationship Id="rId7" Target="../diagrams/data1.xml"/>`, map[string]string{"ppt/diagrams/data1.xml": smartArtData})
	els, err := Elements("pptx", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts(els), "\n"); got != "heading ## Slide 1\n"+want {
		t.Errorf("pptx: got\n%s\nwant\n%s", got, want)
	}

	body := `<w:p><w:r><w:t xml:space="preserve">Our process: </w:t></w:r><w:r><w:drawing><wp:inline>` + graphic + `</wp:inline></w:drawing></w:r></w:p>`
	doc := docxWith(t, body, "", map[string]string{
		"word/diagrams/data1.xml":      smartArtData,
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId7" Target="diagrams/data1.xml"/></Relationships>`,
	})
	els, err = Elements("docx", doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts(els), "\n"); got != want+"\nparagraph Our process:" {
		t.Errorf("docx: got\n%s\nwant\n%s", got, want+"\nparagraph Our process:")
	}
}

// A drop cap (a paragraph framed with w:dropCap) is the first letter of
// the paragraph after it: "Once", not "O" and "nce".
func TestDOCXDropCap(t *testing.T) {
	body := `<w:p><w:pPr><w:framePr w:dropCap="drop" w:lines="3" w:wrap="around" w:vAnchor="text" w:hAnchor="text"/></w:pPr><w:r><w:t>O</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>nce upon a time.</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:framePr w:w="2000" w:wrap="around"/></w:pPr><w:r><w:t>A framed note.</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:framePr w:dropCap="margin"/></w:pPr><w:r><w:t>T</w:t></w:r></w:p>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := "paragraph Once upon a time.\nparagraph A framed note.\nparagraph T"
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Numbered list items count from their level's start (w:start), or
// the list's own override of it (w:startOverride), as Word numbers them.
func TestDOCXListStart(t *testing.T) {
	numbering := `<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="5"/><w:numFmt w:val="decimal"/></w:lvl>` +
		`<w:lvl w:ilvl="1"><w:start w:val="0"/><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>` +
		`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>` +
		`<w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="3"/></w:lvlOverride></w:num>`
	item := func(num, lvl, text string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + lvl + `"/><w:numId w:val="` + num + `"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	body := item("1", "0", "Fifth") + item("1", "1", "Zeroth") + item("1", "1", "First") + item("1", "0", "Sixth") +
		item("2", "0", "Third")
	els, err := Elements("docx", docxOf(t, body, numbering))
	if err != nil {
		t.Fatal(err)
	}
	want := "list_item 5. Fifth\nlist_item   0. Zeroth\nlist_item   1. First\nlist_item 6. Sixth\nlist_item 3. Third"
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A row that starts further in (w:gridBefore) keeps its cells in the
// columns they are shown in.
func TestDOCXGridBefore(t *testing.T) {
	tc := func(text string) string {
		return `<w:tc><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:tc>`
	}
	body := `<w:tbl><w:tr>` + tc("Item") + tc("Q1") + tc("Q2") + `</w:tr>` +
		`<w:tr><w:trPr><w:gridBefore w:val="1"/><w:wBefore w:w="1200" w:type="dxa"/></w:trPr>` + tc("7") + tc("9") + `</w:tr>` +
		`<w:tr>` + tc("Pears") + tc("3") + tc("4") + `</w:tr></w:tbl>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := "| Item | Q1 | Q2 |\n| --- | --- | --- |\n|  | 7 | 9 |\n| Pears | 3 | 4 |"
	if len(els) != 1 || els[0].Text != want {
		t.Errorf("got %q, want %q", texts(els), want)
	}
}

// An imported HTML chunk (w:altChunk, as document generators write it
// and Word converts it on opening) is read where it stands, as HTML.
func TestDOCXAltChunk(t *testing.T) {
	body := `<w:p><w:r><w:t>Before the chunk.</w:t></w:r></w:p>` +
		`<w:altChunk xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rId5"/>` +
		`<w:p><w:r><w:t>After the chunk.</w:t></w:r></w:p>`
	doc := docxWith(t, body, "", map[string]string{
		"word/afchunk.htm":             `<html><head><meta charset="windows-1252"><title>x</title></head><body><h2>Imported</h2><ul><li>One</li><li>Two</li></ul><p>Caf` + "\xe9" + ` prices</p></body></html>`,
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="afchunk.htm"/></Relationships>`,
	})
	els, err := Elements("docx", doc)
	if err != nil {
		t.Fatal(err)
	}
	want := "paragraph Before the chunk.\nheading ## Imported\nlist_item - One\nlist_item - Two\nparagraph Café prices\nparagraph After the chunk."
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Symbols inserted from Word's Symbol font (w:sym, codes F020–F0FF) and
// text set in that font read as the characters they show; symbols of
// pictograph fonts (Wingdings) are not text.
func TestDOCXSymbolFont(t *testing.T) {
	body := `<w:p><w:r><w:t xml:space="preserve">Angle </w:t></w:r><w:r><w:sym w:font="Symbol" w:char="F061"/></w:r>` +
		`<w:r><w:t xml:space="preserve"> is </w:t></w:r><w:r><w:sym w:font="Symbol" w:char="F0B3"/></w:r><w:r><w:t xml:space="preserve"> 30</w:t></w:r>` +
		`<w:r><w:sym w:font="Symbol" w:char="F0B0"/></w:r><w:r><w:sym w:font="Wingdings" w:char="F0E0"/></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">Area = </w:t></w:r><w:r><w:rPr><w:rFonts w:ascii="Symbol" w:hAnsi="Symbol"/></w:rPr><w:t>p</w:t></w:r>` +
		`<w:r><w:t>r2, with r in m and 5 samples.</w:t></w:r></w:p>`
	els, err := Elements("docx", docxOf(t, body, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := "paragraph Angle α is ≥ 30°\nparagraph Area = πr2, with r in m and 5 samples."
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// An ODF numbered list that continues the one before it (as LibreOffice
// writes a list a paragraph interrupts) counts on from it, and an item
// with a start value restarts the count.
func TestODTListContinues(t *testing.T) {
	styles := `<office:automatic-styles><text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style></office:automatic-styles>`
	item := func(attrs, s string) string {
		return `<text:list-item` + attrs + `><text:p>` + s + `</text:p></text:list-item>`
	}
	body := `<office:text><text:list xml:id="list1" text:style-name="L1">` + item("", "Mix") + item("", "Stir") + `</text:list>` +
		`<text:p>Wait ten minutes.</text:p>` +
		`<text:list text:continue-numbering="true" text:style-name="L1">` + item("", "Bake") + `</text:list>` +
		`<text:list text:continue-list="list1" text:style-name="L1">` + item("", "Cool") + `</text:list>` +
		`<text:list text:style-name="L1">` + item(` text:start-value="7"`, "Serve") + item("", "Eat") + `</text:list>` +
		`<text:list text:style-name="L1">` + item("", "Again") + `</text:list></office:text>`
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"`
	data := zipOf(t, map[string][]byte{"mimetype": []byte("application/vnd.oasis.opendocument.text"),
		"content.xml": []byte(`<office:document-content ` + ns + `>` + styles + `<office:body>` + body + `</office:body></office:document-content>`)})
	els, err := Elements("odt", data)
	if err != nil {
		t.Fatal(err)
	}
	want := "list_item 1. Mix\nlist_item 2. Stir\nparagraph Wait ten minutes.\nlist_item 3. Bake\nlist_item 4. Cool\nlist_item 7. Serve\nlist_item 8. Eat\nlist_item 1. Again"
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// An RTF attachment read as a section of its message (text/rtf or any
// media type) is read as RTF, not printed as its markup.
func TestEmailRTFAttachmentSection(t *testing.T) {
	rtf := `{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}{\pard\b Minutes\b0\par}{\pard Caf\'e9 opens at nine.\par}}`
	msg := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: Minutes\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n" +
		"--b\r\nContent-Type: text/rtf; name=\"minutes.rtf\"\r\nContent-Disposition: attachment; filename=\"minutes.rtf\"\r\n\r\n" + rtf + "\r\n--b--\r\n"
	r, err := Read(t.Context(), "eml", []byte(msg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(r.Elements), "\n")
	if !strings.Contains(got, "Café opens at nine.") || strings.Contains(got, `\rtf1`) {
		t.Errorf("the RTF attachment is not read as RTF:\n%s", got)
	}
}
