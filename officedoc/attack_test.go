package officedoc

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attacks returns the small inputs that once expanded without bound
// (issue 48), by file name: each a few hundred bytes to a few hundred
// kilobytes. GOCHUNK_ATTACK_DIR=DIR go test ./officedoc -run TestWriteAttacks
// writes them to DIR (to measure a whole process on them).
func attacks() map[string][]byte {
	out := map[string][]byte{}
	write := func(name string, b []byte) { out[name] = b }
	write("xlsx-a1-xfd.xlsx", xlsxCells("S", "A1", "first", "XFD1048576", "last"))
	// A diagonal: every row and every column holds one cell, so that no
	// empty row or column is left to drop (4,000 cells, 16 million padded).
	write("xlsx-diagonal.xlsx", xlsxDiagonal(4000))
	write("ods-repeat.ods", odsRepeat(200))
	write("docx-ragged.docx", raggedDOCX(30000))
	write("pptx-ragged.pptx", raggedPPTX(30000))
	write("epub-table.epub", epubOf(`<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Before the table.</p>`+raggedHTML(20000)+`<p>After the table.</p></body></html>`))
	write("epub-dtd.epub", epubOf(dtdChapter))
	write("html-table.html", []byte("<!DOCTYPE html><p>Before the table.</p>"+raggedHTML(60000)+"<p>After the table.</p>"))
	write("zip-large-part.docx", largePart(255))
	write("eml-bad-base64.eml", badBase64Mail())
	write("eml-8bit-header.eml", []byte(eightBitMail))
	write("mbox-many-attachments.mbox", mailbox(1200))
	return out
}

// xlsxCells is a workbook of one sheet holding inline strings at
// references: ref, text, ref, text ...
func xlsxCells(sheet string, refText ...string) []byte {
	var sb strings.Builder
	for i := 0; i < len(refText); i += 2 {
		ref := refText[i]
		fmt.Fprintf(&sb, `<row r="%s"><c r="%s" t="inlineStr"><is><t>%s</t></is></c></row>`, strings.TrimLeft(ref, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"), ref, refText[i+1])
	}
	return xlsxOf(sheet, sb.String())
}

// xlsxOf is a workbook of one sheet of the given sheetData.
func xlsxOf(sheet, rows string) []byte {
	return zipParts(
		"xl/workbook.xml", `<workbook xmlns:r="r"><sheets><sheet name="`+sheet+`" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml", `<worksheet><sheetData>`+rows+`</sheetData></worksheet>`)
}

// xlsxDiagonal is a sheet of n numbers on its diagonal.
func xlsxDiagonal(n int) []byte {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `<row r="%d"><c r="%s%d"><v>%d</v></c></row>`, i, colName(i-1), i, i)
	}
	return xlsxOf("D", sb.String())
}

// odsRepeat is a sheet of rows of a non-empty cell repeated across the
// sheet, each row repeated down it.
func odsRepeat(rows int) []byte {
	row := `<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row>`
	return zipParts("mimetype", "application/vnd.oasis.opendocument.spreadsheet",
		"content.xml", odfContent(`<office:spreadsheet><table:table table:name="R">`+strings.Repeat(row, rows)+`</table:table></office:spreadsheet>`))
}

// raggedDOCX is a document whose table's first row has n cells (each
// claiming a span of the whole grid) and n rows of one cell after it.
func raggedDOCX(n int) []byte {
	var docx strings.Builder
	docx.WriteString(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Before the table.</w:t></w:r></w:p><w:tbl><w:tr>`)
	for range n {
		docx.WriteString(`<w:tc><w:tcPr><w:gridSpan w:val="16384"/></w:tcPr><w:p><w:r><w:t>h</w:t></w:r></w:p></w:tc>`)
	}
	docx.WriteString(`</w:tr>`)
	for range n {
		docx.WriteString(`<w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr>`)
	}
	docx.WriteString(`</w:tbl><w:p><w:r><w:t>After the table.</w:t></w:r></w:p></w:body></w:document>`)
	return zipParts("word/document.xml", docx.String())
}

// raggedPPTX is raggedDOCX's table on a slide.
func raggedPPTX(n int) []byte {
	var pptx strings.Builder
	pptx.WriteString(`<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr>`)
	for range n {
		pptx.WriteString(`<a:tc gridSpan="16384"><a:txBody><a:p><a:r><a:t>h</a:t></a:r></a:p></a:txBody></a:tc>`)
	}
	pptx.WriteString(`</a:tr>`)
	for range n {
		pptx.WriteString(`<a:tr><a:tc rowSpan="65535"><a:txBody><a:p><a:r><a:t>c</a:t></a:r></a:p></a:txBody></a:tc></a:tr>`)
	}
	pptx.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>`)
	return zipParts(
		"ppt/presentation.xml", `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", `<Relationships><Relationship Id="rId1" Target="slides/slide1.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", pptx.String())
}

// dtdChapter is an XHTML chapter with an internal DTD subset holding a
// parameter entity, a "]>" in a comment and a quoted ">".
const dtdChapter = `<?xml version="1.0" encoding="utf-8"?>` + "\n" +
	`<!DOCTYPE html [<!ENTITY % pe "<!ENTITY x 'y'>"> %pe; <!ENTITY copy "&#169;"> <!-- a ]> in a comment -->]>` + "\n" +
	`<html xmlns="http://www.w3.org/1999/xhtml"><head><title>T</title></head><body><p>The chapter's text.</p></body></html>`

// largePart is a DOCX whose document part declares (and holds) mib MiB,
// under the 256 MiB bound on a part, in a file whose parts may expand to
// 64 MiB in all.
func largePart(mib int) []byte {
	var big bytes.Buffer
	z := zip.NewWriter(&big)
	w, _ := z.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>`))
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	for range mib {
		w.Write(spaces)
	}
	w.Write([]byte(`</w:t></w:r></w:p></w:body></w:document>`))
	z.Close()
	return big.Bytes()
}

// eightBitMail has raw Latin-1 bytes in its From and Subject.
const eightBitMail = "From: Jos\xe9 <jose@example.com>\r\nTo: team@example.com\r\nSubject: Caf\xe9 men\xfc for M\xe4rz\r\n" +
	"Date: Mon, 2 Mar 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe body is fine.\r\n"

// mailbox is n messages with one small text attachment each.
func mailbox(n int) []byte {
	var box strings.Builder
	for i := range n {
		fmt.Fprintf(&box, "From a@example.com Mon Mar  2 10:00:00 2026\nFrom: a@example.com\nTo: b@example.com\nSubject: m%d\nMIME-Version: 1.0\n"+
			"Content-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/plain\n\nBody %d.\n--b\nContent-Type: text/plain; name=\"n.txt\"\n"+
			"Content-Disposition: attachment; filename=\"n.txt\"\n\nAttached %d.\n--b--\n", i, i, i)
	}
	return []byte(box.String())
}

// raggedHTML is a table whose first row has n cells and n rows of one
// cell after it, with colspans and rowspans of the most browsers take.
func raggedHTML(n int) string {
	var sb strings.Builder
	sb.WriteString("<table><tr>")
	for range n {
		sb.WriteString(`<td colspan=1000>h`)
	}
	for range n {
		sb.WriteString(`<tr><td rowspan=65534>c`)
	}
	sb.WriteString("</table>")
	return sb.String()
}

func badBase64Mail() []byte {
	var sb strings.Builder
	sb.WriteString("From: Ana <ana@example.com>\r\nTo: team@example.com\r\nSubject: Quarter\r\nDate: Mon, 2 Mar 2026 10:00:00 +0000\r\n")
	sb.WriteString("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n")
	sb.WriteString("--b0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe body of the message survives.\r\n")
	part := func(name, media, b64 string) {
		fmt.Fprintf(&sb, "--b0\r\nContent-Type: %s; name=\"%s\"\r\nContent-Disposition: attachment; filename=\"%s\"\r\nContent-Transfer-Encoding: base64\r\n\r\n%s\r\n", media, name, name, b64)
	}
	part("good.txt", "text/plain", base64.StdEncoding.EncodeToString([]byte("The good attachment's text.")))
	part("broken.pdf", "application/pdf", "JVBERi0xLjQK!!!! not base64 at all ***\r\n====AAAA=B")
	part("after.txt", "text/plain", base64.StdEncoding.EncodeToString([]byte("The attachment after the broken one.")))
	sb.WriteString("--b0--\r\n")
	return []byte(sb.String())
}

func epubOf(chapter string) []byte {
	return zipParts("mimetype", "application/epub+zip",
		"META-INF/container.xml", `<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>`,
		"OEBPS/content.opf", `<package><metadata><dc:title xmlns:dc="dc">Book</dc:title></metadata><manifest>`+
			`<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`,
		"OEBPS/c1.xhtml", chapter)
}

func odfContent(body string) string {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`
	return `<office:document-content ` + ns + `><office:body>` + body + `</office:body></office:document-content>`
}

func zipParts(kv ...string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for i := 0; i < len(kv); i += 2 {
		w, err := z.Create(kv[i])
		if err != nil {
			panic(err)
		}
		w.Write([]byte(kv[i+1]))
	}
	if err := z.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestWriteAttacks writes the attacks to $GOCHUNK_ATTACK_DIR, when set.
func TestWriteAttacks(t *testing.T) {
	dir := os.Getenv("GOCHUNK_ATTACK_DIR")
	if dir == "" {
		t.Skip("set GOCHUNK_ATTACK_DIR to write the attack inputs there")
	}
	for name, b := range attacks() {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
