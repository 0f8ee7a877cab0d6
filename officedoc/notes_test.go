package officedoc

import (
	"strings"
	"testing"
)

// Footnotes and endnotes of a Word document are read as pandoc writes
// them: a marker where the note is referenced and the notes, numbered in
// the order of their references, at the end of the document; Word's
// separator notes, notes no reference names, and comments are not read.
func TestDOCXNotes(t *testing.T) {
	run := func(s string) string { return `<w:r><w:t xml:space="preserve">` + s + `</w:t></w:r>` }
	ref := func(kind, id string) string {
		return `<w:r><w:rPr><w:rStyle w:val="` + kind + `Reference"/></w:rPr><w:` + kind + `Reference w:id="` + id + `"/></w:r>`
	}
	body := `<w:p>` + run("Revenue grew") + ref("endnote", "1") + run(" in every region") + ref("footnote", "2") + run(".") + `</w:p>` +
		`<w:p><w:commentRangeStart w:id="0"/>` + run("Costs fell.") + `<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc><w:p>` + run("Region") + `</w:p></w:tc><w:tc><w:p>` + run("Sales") + ref("footnote", "3") + `</w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:p>` + run("North") + `</w:p></w:tc><w:tc><w:p>` + run("10") + `</w:p></w:tc></w:tr></w:tbl>` +
		`<w:p>` + run("Again") + ref("footnote", "2") + `</w:p>`
	note := func(kind, id, typ, text string) string {
		attrs := ` w:id="` + id + `"`
		if typ != "" {
			attrs += ` w:type="` + typ + `"`
		}
		return `<w:` + kind + attrs + `><w:p><w:r><w:` + kind + `Ref/></w:r>` + text + `</w:p></w:` + kind + `>`
	}
	footnotes := `<?xml version="1.0"?><w:footnotes ` + wordNS + `>` +
		note("footnote", "-1", "separator", `<w:r><w:separator/></w:r>`) +
		note("footnote", "0", "continuationSeparator", `<w:r><w:continuationSeparator/></w:r>`) +
		note("footnote", "2", "", run(" Before tax.")) +
		`<w:footnote w:id="3"><w:p>` + run("In euros.") + `</w:p><w:p>` + run("Rounded.") + `</w:p></w:footnote>` +
		note("footnote", "4", "", run("Never referenced.")) + `</w:footnotes>`
	endnotes := `<?xml version="1.0"?><w:endnotes ` + wordNS + `>` +
		note("endnote", "1", "", run(" See the annual report.")) + `</w:endnotes>`
	comments := `<?xml version="1.0"?><w:comments ` + wordNS + `><w:comment w:id="0" w:author="Ann"><w:p>` + run("Check this figure.") + `</w:p></w:comment></w:comments>`
	data := docxWith(t, body, "", map[string]string{"word/footnotes.xml": footnotes, "word/endnotes.xml": endnotes, "word/comments.xml": comments})
	els, err := Elements("docx", data)
	if err != nil {
		t.Fatal(err)
	}
	want := "paragraph Revenue grew[^1] in every region[^2].\n" +
		"paragraph Costs fell.\n" +
		"table | Region | Sales[^3] |\n| --- | --- |\n| North | 10 |\n" +
		"paragraph Again[^2]\n" +
		"footnote [^1]: See the annual report.\n" +
		"footnote [^2]: Before tax.\n" +
		"footnote [^3]: In euros.\nRounded."
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// An OpenDocument text's notes (text:note, footnotes and endnotes alike)
// are read as Word's are; a comment (office:annotation) is not read, and
// neither a note nor a comment ends the paragraph it stands in (the text
// after one was lost).
func TestODTNotes(t *testing.T) {
	note := func(class, n, text string) string {
		return `<text:note text:id="` + class + n + `" text:note-class="` + class + `"><text:note-citation>` + n + `</text:note-citation>` +
			`<text:note-body>` + text + `</text:note-body></text:note>`
	}
	body := `<office:text><text:tracked-changes><text:changed-region text:id="c1"><text:deletion><text:p>Deleted words.</text:p></text:deletion></text:changed-region></text:tracked-changes>` +
		`<text:h text:outline-level="1">Results` + note("footnote", "1", `<text:p>Unaudited.</text:p>`) + `</text:h>` +
		`<text:p>Revenue grew` + note("footnote", "2", `<text:p>Before<text:s/>tax.</text:p><text:p>In euros.</text:p>`) + ` in every region` +
		note("endnote", "1", `<text:p>See the annual report.</text:p>`) + `.</text:p>` +
		`<text:p>Costs<office:annotation><dc:creator>Ann</dc:creator><text:p>Check this figure.</text:p></office:annotation> fell.</text:p>` +
		`<text:p>Done.</text:p></office:text>`
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:dc="http://purl.org/dc/elements/1.1/"`
	data := zipOf(t, map[string][]byte{"mimetype": []byte("application/vnd.oasis.opendocument.text"),
		"content.xml": []byte(`<office:document-content ` + ns + `><office:body>` + body + `</office:body></office:document-content>`)})
	els, err := Elements("odt", data)
	if err != nil {
		t.Fatal(err)
	}
	want := "title # Results[^1]\n" +
		"paragraph Revenue grew[^2] in every region[^3].\n" +
		"paragraph Costs fell.\n" +
		"paragraph Done.\n" +
		"footnote [^1]: Unaudited.\n" +
		"footnote [^2]: Before tax.\nIn euros.\n" +
		"footnote [^3]: See the annual report."
	if got := strings.Join(texts(els), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
