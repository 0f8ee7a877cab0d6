package officedoc

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/mailgen"
)

// source is a markdown document of known structure: headings of two
// levels, a paragraph, a nested bullet list, a numbered list, a table.
const source = `# Annual Report

## Revenue

Revenue grew in every region.

- North
  - Oslo
- South

1. First step
2. Second step

| Region | Sales |
|--------|-------|
| North  | 10    |
| South  | 20    |

## Outlook

We expect growth.
`

// pandoc converts the source to a document of kind with Debian's pandoc,
// or skips the test.
func pandoc(t *testing.T, kind string) []byte {
	t.Helper()
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("skipping: pandoc is not installed (apt-get install pandoc; .ci/run does it)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.md")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out."+kind)
	if b, err := exec.Command("pandoc", src, "--metadata", "title=Annual Report", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("pandoc: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func texts(els []gochunk.Element) []string {
	var out []string
	for _, e := range els {
		out = append(out, e.Type+" "+e.Text)
	}
	return out
}

// want is the structure every reader must find in the source's
// conversions (the table's delimiter row aside).
var want = []string{
	"heading ## Revenue",
	"paragraph Revenue grew in every region.",
	"list_item - North",
	"list_item   - Oslo",
	"list_item - South",
	"table | Region | Sales |",
	"heading ## Outlook",
	"paragraph We expect growth.",
}

// inOrder reports the first of want not found, in order, among got
// (each a prefix match).
func inOrder(got, want []string) string {
	k := 0
	for _, g := range got {
		if k < len(want) && strings.HasPrefix(g, want[k]) {
			k++
		}
	}
	if k < len(want) {
		return want[k]
	}
	return ""
}

// sameStructure checks that a word processor's document read back holds
// the source's structure: title, headings, paragraphs, nested and
// numbered lists, the table whole.
func sameStructure(t *testing.T, els []gochunk.Element) {
	t.Helper()
	got := texts(els)
	w := append([]string{"title # Annual Report"}, want...)
	w = append(w[:6], append([]string{"list_item 1. First step", "list_item 2. Second step"}, w[6:]...)...)
	if miss := inOrder(got, w); miss != "" {
		t.Errorf("missing %q in\n%s", miss, strings.Join(got, "\n"))
	}
	for _, e := range els {
		if e.Type == "table" && e.Text != "| Region | Sales |\n| --- | --- |\n| North | 10 |\n| South | 20 |" {
			t.Errorf("table %q", e.Text)
		}
	}
}

func TestDOCX(t *testing.T) {
	els, err := Elements("docx", pandoc(t, "docx"))
	if err != nil {
		t.Fatal(err)
	}
	sameStructure(t, els)
}

func TestPPTX(t *testing.T) {
	els, err := Elements("pptx", pandoc(t, "pptx"))
	if err != nil {
		t.Fatal(err)
	}
	got := texts(els)
	// pandoc makes a title slide, a slide for the level-1 heading, then a
	// slide per section; bodies are content placeholders, their
	// paragraphs list items but where they say a:buNone (pandoc's
	// paragraphs), numbered where they say a:buAutoNum.
	w := []string{"heading ## Slide 1: Annual Report", "heading ## Slide 3: Revenue", "paragraph Revenue grew", "list_item - North",
		"list_item   - Oslo", "list_item - South", "list_item 1. First step", "list_item 2. Second step", "table | Region | Sales |",
		"heading ## Slide 4: Outlook", "paragraph We expect growth."}
	if miss := inOrder(got, w); miss != "" {
		t.Errorf("missing %q in\n%s", miss, strings.Join(got, "\n"))
	}
	slide := 0
	for _, e := range els {
		if n, ok := strings.CutPrefix(e.Text, "## Slide "); ok {
			slide = int(n[0] - '0')
		}
		if e.Page != slide {
			t.Errorf("%q on slide %d, under the heading of slide %d", e.Text, e.Page, slide)
		}
	}
}

func TestEPUB(t *testing.T) {
	els, err := Elements("epub", pandoc(t, "epub"))
	if err != nil {
		t.Fatal(err)
	}
	got := texts(els)
	w := append([]string{"title # Annual Report"}, want...)
	if miss := inOrder(got, w); miss != "" {
		t.Errorf("missing %q in\n%s", miss, strings.Join(got, "\n"))
	}
	n := 0
	for _, g := range got {
		if g == "title # Annual Report" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the title %d times", n)
	}
}

// XLSX from openpyxl (Debian's python3-openpyxl), a reference writer.
func TestXLSX(t *testing.T) {
	py := `import openpyxl, sys
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Sales"
for row in [["Region", "Sales", "Note"], ["North", 10, "good | better"], ["South", 20.5, None], [None, None, "end"]]:
    ws.append(row)
ws2 = wb.create_sheet("Empty")
ws3 = wb.create_sheet("Costs")
ws3["B2"] = "Rent"
ws3["C2"] = 1200
wb.save(sys.argv[1])
`
	path := filepath.Join(t.TempDir(), "book.xlsx")
	if b, err := exec.Command("/usr/bin/python3", "-c", py, path).CombinedOutput(); err != nil {
		t.Skipf("skipping: python3-openpyxl is not installed (apt-get install python3-openpyxl; .ci/run does it): %v %s", err, b)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	els, err := Elements("xlsx", data)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(els), "\n")
	wantText := "heading ## Sheet 1: Sales\ntable | Region | Sales | Note |\n| --- | --- | --- |\n| North | 10 | good \\| better |\n| South | 20.5 |  |\n|  |  | end |\n" +
		"heading ## Sheet 2: Empty\nheading ## Sheet 3: Costs\ntable | Rent | 1200 |\n| --- | --- |"
	if got != wantText {
		t.Errorf("got\n%s\nwant\n%s", got, wantText)
	}
	if els[0].Page != 1 || els[len(els)-1].Page != 3 {
		t.Errorf("pages %d and %d", els[0].Page, els[len(els)-1].Page)
	}
}

// An e-mail: subject, sender, the plain body (quoted-printable Latin-1)
// rather than the HTML alternative, and a DOCX attachment read as a
// section of its own.
func TestEmail(t *testing.T) {
	var docx []byte
	if _, err := exec.LookPath("pandoc"); err == nil {
		docx = pandoc(t, "docx")
	}
	var sb strings.Builder
	sb.WriteString("From: Ana <ana@example.com>\r\nTo: team@example.com\r\nSubject: =?utf-8?q?Caf=C3=A9_report?=\r\nDate: Mon, 2 Mar 2026 10:00:00 +0000\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n" +
		"--outer\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nThe caf=E9 report is attached.\r\n\r\nSee you.\r\n" +
		"--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>The HTML body</p>\r\n--alt--\r\n")
	if docx != nil {
		enc := make([]byte, 0, len(docx)*2)
		b64 := []byte(strings.ReplaceAll(encodeBase64(docx), "\n", "\r\n"))
		enc = append(enc, b64...)
		sb.WriteString("--outer\r\nContent-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document; name=\"report.docx\"\r\n" +
			"Content-Disposition: attachment; filename=\"report.docx\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" + string(enc) + "\r\n")
	}
	sb.WriteString("--outer--\r\n")
	data := []byte(sb.String())
	if Sniff(data) != "eml" {
		t.Errorf("sniffed as %q", Sniff(data))
	}
	els, err := Elements("eml", data)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(els)
	w := []string{"title # Café report", "paragraph From: Ana <ana@example.com>", "paragraph The café report is attached.", "paragraph See you."}
	if docx != nil {
		w = append(w, "heading ## Attachment: report.docx", "title # Annual Report", "heading ## Revenue", "table | Region | Sales |")
	}
	if miss := inOrder(got, w); miss != "" {
		t.Errorf("missing %q in\n%s", miss, strings.Join(got, "\n"))
	}
	if strings.Contains(strings.Join(got, "\n"), "HTML body") {
		t.Error("the HTML alternative was read beside the plain one")
	}
}

func encodeBase64(b []byte) string {
	var sb strings.Builder
	s := base64Std(b)
	for len(s) > 76 {
		sb.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	sb.WriteString(s)
	return sb.String()
}

// zipOf returns a zip archive of the given parts.
func zipOf(t testing.TB, parts map[string][]byte) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, b := range parts {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Bad input is an error naming what is wrong, never a hang or unbounded
// memory.
func TestBadInput(t *testing.T) {
	deep := "<w:document xmlns:w=\"w\">" + strings.Repeat("<w:x>", 5000) + strings.Repeat("</w:x>", 5000) + "</w:document>"
	bomb := func() []byte {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		w, _ := z.Create("word/document.xml")
		zero := make([]byte, 1<<20)
		for range maxPartBytes>>20 + 1 {
			w.Write(zero)
		}
		z.Close()
		return buf.Bytes()
	}()
	for _, tc := range []struct {
		name, kind string
		data       []byte
		is         error
	}{
		{"not a zip", "docx", []byte("hello, not a zip"), ErrFormat},
		{"truncated zip", "docx", zipOf(t, map[string][]byte{"word/document.xml": []byte("<w:document/>")})[:30], ErrFormat},
		{"no document part", "docx", zipOf(t, map[string][]byte{"other.xml": []byte("<x/>")}), ErrFormat},
		{"nesting bomb", "docx", zipOf(t, map[string][]byte{"word/document.xml": []byte(deep)}), ErrFormat},
		{"zip bomb", "docx", bomb, ErrTooLarge},
		{"a sheet naming a missing shared string", "xlsx", zipOf(t, map[string][]byte{
			"xl/workbook.xml":            []byte(`<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`),
			"xl/_rels/workbook.xml.rels": []byte(`<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`),
			"xl/worksheets/sheet1.xml":   []byte(`<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>7</v></c></row></sheetData></worksheet>`),
		}), ErrFormat},
		{"an e-mail that is not one", "eml", []byte("no headers here"), ErrFormat},
		{"an epub without a package", "epub", zipOf(t, map[string][]byte{"META-INF/container.xml": []byte(`<container/>`)}), ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Elements(tc.kind, tc.data); !errors.Is(err, tc.is) {
				t.Errorf("got %v, want %v", err, tc.is)
			}
		})
	}
	// An entity defined in a DTD is not expanded (no billion laughs).
	laughs := `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` +
		`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>`
	els, err := Elements("docx", zipOf(t, map[string][]byte{"word/document.xml": []byte(laughs)}))
	if err == nil && len(els) > 0 && strings.Contains(els[0].Text, "aaaaaaaaaa") {
		t.Errorf("an entity was expanded: %q", els[0].Text)
	}
}

func FuzzElements(f *testing.F) {
	f.Add("docx", zipOf(f, map[string][]byte{"word/document.xml": []byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>`)}))
	f.Add("xlsx", zipOf(f, map[string][]byte{"xl/workbook.xml": []byte(`<workbook/>`)}))
	f.Add("eml", []byte("From: a@b\r\nTo: c@d\r\nSubject: x\r\n\r\nbody"))
	f.Add("pptx", []byte("PK\x03\x04"))
	f.Add("ods", odfOf(f, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell><text:p>x</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`))
	f.Add("mbox", []byte("From a\nSubject: s\n\nbody\n"))
	f.Fuzz(func(t *testing.T, kind string, data []byte) {
		switch kind {
		case "docx", "pptx", "xlsx", "epub", "eml", "mbox", "odt", "ods", "odp":
		default:
			kind = "docx"
		}
		els, err := Elements(kind, data)
		if err != nil {
			return
		}
		for _, e := range els {
			if e.Type == "" {
				t.Fatalf("an element without a type: %+v", e)
			}
		}
	})
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestODT(t *testing.T) {
	data := pandoc(t, "odt")
	if Sniff(data) != "odt" {
		t.Errorf("sniffed as %q", Sniff(data))
	}
	els, err := Elements("odt", data)
	if err != nil {
		t.Fatal(err)
	}
	sameStructure(t, els)
}

// odfOf returns an OpenDocument package of a content.xml body.
func odfOf(t testing.TB, mimetype, body string) []byte {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
		`xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"`
	return zipOf(t, map[string][]byte{"mimetype": []byte(mimetype),
		"content.xml": []byte(`<office:document-content ` + ns + `><office:body>` + body + `</office:body></office:document-content>`)})
}

// A spreadsheet and a presentation in LibreOffice's shapes (written here:
// no producer of them is installed), with repeated cells to the sheet's
// edge as LibreOffice writes them.
func TestODSAndODP(t *testing.T) {
	ods := odfOf(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet><table:table table:name="Sales">`+
		`<table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell><table:table-cell><text:p>Sales</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16382"/></table:table-row>`+
		`<table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>North</text:p></table:table-cell><table:table-cell><text:p>10</text:p></table:table-cell></table:table-row>`+
		`<table:table-row table:number-rows-repeated="1048572"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>`+
		`</table:table></office:spreadsheet>`)
	if Sniff(ods) != "ods" {
		t.Errorf("sniffed as %q", Sniff(ods))
	}
	els, err := Elements("ods", ods)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts(els), "\n"); got != "heading ## Sheet 1: Sales\ntable | Region | Sales |\n| --- | --- |\n| North | 10 |\n| North | 10 |" {
		t.Errorf("ods:\n%s", got)
	}
	odp := odfOf(t, "application/vnd.oasis.opendocument.presentation", `<office:presentation>`+
		`<draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>Results</text:p></draw:text-box></draw:frame>`+
		`<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Revenue up</text:p>`+
		`<text:list><text:list-item><text:p>North most</text:p></text:list-item></text:list></text:list-item></text:list></draw:text-box></draw:frame>`+
		`<presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Say thanks.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>`+
		`<draw:page draw:name="p2"><draw:frame presentation:class="title"><draw:text-box><text:p>Next</text:p></draw:text-box></draw:frame></draw:page>`+
		`</office:presentation>`)
	els, err = Elements("odp", odp)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts(els), "\n"); got != "heading ## Slide 1: Results\nlist_item - Revenue up\nlist_item   - North most\ncaption Notes: Say thanks.\nheading ## Slide 2: Next" {
		t.Errorf("odp:\n%s", got)
	}
	if els[0].Page != 1 || els[len(els)-1].Page != 2 {
		t.Errorf("slides %d, %d", els[0].Page, els[len(els)-1].Page)
	}
}

func TestMbox(t *testing.T) {
	box := "From ana@example.com Mon Mar  2 10:00:00 2026\nFrom: ana@example.com\nTo: b@example.com\nSubject: First\n\nHello.\n>From the start, hi.\n\n" +
		"From bo@example.com Tue Mar  3 10:00:00 2026\nFrom: bo@example.com\nTo: a@example.com\nSubject: Second\n\nBye.\n"
	els, err := Elements("mbox", []byte(box))
	if err != nil {
		t.Fatal(err)
	}
	got := texts(els)
	w := []string{"heading ## Message 1: First", "paragraph From: ana@example.com", "paragraph Hello.\nFrom the start, hi.", "heading ## Message 2: Second", "paragraph Bye."}
	if miss := inOrder(got, w); miss != "" {
		t.Errorf("missing %q in\n%s", miss, strings.Join(got, "\n"))
	}
	if _, err := Elements("mbox", []byte("no messages")); !errors.Is(err, ErrFormat) {
		t.Errorf("an empty mailbox: %v", err)
	}
}

// Expansion is what a zip's directory declares, within the reader's
// bound, and a file's own size for anything else.
func TestExpansion(t *testing.T) {
	small := zipOf(t, map[string][]byte{"word/document.xml": bytes.Repeat([]byte("a"), 5000), "[Content_Types].xml": []byte("<Types/>")})
	if got := Expansion(small); got != 5008 {
		t.Errorf("small zip: %d, want 5008", got)
	}
	bomb := zipOf(t, map[string][]byte{"word/document.xml": bytes.Repeat([]byte(" "), 200<<20)})
	if got, limit := Expansion(bomb), archiveLimit(len(bomb)); got != limit || limit != minTotalBytes {
		t.Errorf("zip bomb: %d, want the bound %d (%d)", got, limit, minTotalBytes)
	}
	if got := Expansion([]byte("From: a\r\n\r\nhello")); got != 16 {
		t.Errorf("e-mail: %d, want its size", got)
	}
}

// Attachments of a kind gochunk reads come back as files of their own,
// named once each, and the message names them; others stay named in the
// message. In a mailbox, they are named by their message.
func TestAttachmentsAsFiles(t *testing.T) {
	msg := mailgen.Message("Quarter", "The files are attached.",
		mailgen.Attachment{Name: "notes.txt", Media: "text/plain", Data: []byte("Plain notes about the quarter.")},
		mailgen.Attachment{Name: "notes.txt", Media: "text/plain", Data: []byte("A second file of the same name.")},
		mailgen.Attachment{Name: "paper.pdf", Media: "application/pdf", Data: []byte("%PDF-1.4 a PDF's bytes")},
		mailgen.Attachment{Name: "page.html", Media: "text/html", Data: []byte("<h1>Page</h1><p>A page.</p>")},
		mailgen.Attachment{Name: "../../etc/logo.png", Media: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\x00")})
	els, files, err := ElementsAndAttachments("eml", msg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if want := []string{"notes.txt", "notes-2.txt", "paper.pdf", "page.html"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("files %q, want %q", names, want)
	}
	if string(files[1].Data) != "A second file of the same name." || files[2].Media != "application/pdf" {
		t.Errorf("files %+v", files)
	}
	got := strings.Join(texts(els), "\n")
	for _, want := range []string{"paragraph The files are attached.", "heading ## Attachment: ../../etc/logo.png", "(image/png, 10 bytes, not text)",
		"paragraph Attached, each a document of its own: notes.txt, notes-2.txt, paper.pdf, page.html"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q not in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Plain notes") {
		t.Error("an attachment read as a file is also a section of the message")
	}
	// As sections, as before.
	els, err = Elements("eml", msg)
	if err != nil || !strings.Contains(strings.Join(texts(els), "\n"), "## Attachment: notes.txt\nparagraph Plain notes about the quarter.") {
		t.Errorf("sections: %v\n%s", err, strings.Join(texts(els), "\n"))
	}
	box := append([]byte("From ana@example.com Mon Mar  2 10:00:00 2026\n"), msg...)
	box = append(box, "From bo@example.com Tue Mar  3 10:00:00 2026\nFrom: bo@example.com\nSubject: Plain\n\nNo files.\n"...)
	box = append(box, []byte("From ana@example.com Mon Mar  2 10:00:00 2026\n")...)
	box = append(box, msg...)
	_, files, err = ElementsAndAttachments("mbox", box)
	if err != nil || len(files) != 8 || files[0].Name != "message-1/notes.txt" || files[4].Name != "message-3/notes.txt" {
		t.Errorf("mailbox: %v, %d files, first %q", err, len(files), files[0].Name)
	}
	// Other kinds have no attachments.
	if _, files, err := ElementsAndAttachments("docx", []byte("not a zip")); err == nil || files != nil {
		t.Errorf("docx: %v %v", files, err)
	}
}
