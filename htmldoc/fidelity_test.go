package htmldoc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

func textOf(t *testing.T, page []byte) string {
	t.Helper()
	els, err := Elements(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range els {
		out = append(out, e.Text)
	}
	return strings.Join(out, "\n")
}

// A page is read in its own encoding: a byte order mark's, a <meta>'s,
// else UTF-8 when it is, else Windows-1252, and never as invalid UTF-8.
func TestCharsets(t *testing.T) {
	const want = "Cr\u00e8me br\u00fbl\u00e9e \u20ac 5"
	cp1252 := "<p>Cr\xe8me br\xfbl\xe9e \x80 5</p>"
	long := "<!-- " + strings.Repeat("padding ", 200) + "-->" // pushes the text past the first 1,024 bytes
	for name, page := range map[string]string{
		"undeclared cp1252":          "<html><body>" + cp1252,
		"undeclared cp1252, late":    "<html><body>" + long + cp1252,
		"meta charset":               `<html><head><meta charset="windows-1252"></head><body>` + cp1252,
		"meta http-equiv":            `<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body>` + cp1252,
		"utf-8, undeclared and late": "<html><body>" + long + "<p>" + want + "</p>",
		"utf-8 labelled latin-1":     `<meta charset="iso-8859-1"><p>` + want + "</p>",
		"utf-8 with BOM":             "\xEF\xBB\xBF<p>" + want + "</p>",
	} {
		if got := textOf(t, []byte(page)); !strings.HasSuffix(got, want) {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	xhtml := []byte(`<?xml version="1.0" encoding="koi8-r"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>` + "\xF0\xD2\xC9\xD7\xC5\xD4" + "</p></body></html>")
	if got := textOf(t, xhtml); got != "Привет" {
		t.Errorf("xhtml declaring koi8-r: got %q", got)
	}
	// Undeclared pages in a legacy encoding other than Windows-1252 are
	// read in the one their bytes are recognised in, as browsers detect it.
	for _, tc := range []struct {
		enc  encoding.Encoding
		text string
	}{
		{japanese.ShiftJIS, "昨日の夜、私たちは町を長い間散歩して、この夏に読んだ本について話しました。天気は暖かく、通りにはたくさんの人がいました。"},
		{charmap.KOI8R, "Вчера вечером мы долго гуляли по городу и разговаривали о книгах, которые прочитали этим летом. Погода была тёплой."},
	} {
		body, err := tc.enc.NewEncoder().Bytes([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(t, append([]byte("<html><body><p>"), append(body, "</p></body></html>"...)...)); got != tc.text {
			t.Errorf("undeclared %v: got %q", tc.enc, got)
		}
	}
	sjis := []byte(`<meta charset="shift_jis"><p>` + "\x93\xfa\x96\x7b" + "</p>") // 日本 in Shift JIS
	if got := textOf(t, sjis); got != "日本" {
		t.Errorf("shift_jis: got %q", got)
	}
}

// A UTF-16 page with a byte order mark is read as its text, not as its
// tags, styles and scripts.
func TestUTF16WithBOM(t *testing.T) {
	page := "<html><head><style>p { color: red }</style><script>var x = 1;</script></head><body><h1>\u00c9t\u00e9</h1><p>Hello world</p></body></html>"
	for _, big := range []bool{false, true} {
		data := []byte{0xFF, 0xFE}
		if big {
			data = []byte{0xFE, 0xFF}
		}
		for _, r := range page {
			if big {
				data = append(data, byte(r>>8), byte(r))
			} else {
				data = append(data, byte(r), byte(r>>8))
			}
		}
		if got := textOf(t, data); got != "# \u00c9t\u00e9\nHello world" {
			t.Errorf("big endian %v: got %q", big, got)
		}
	}
}

// A cell spanning rows keeps the cells of the rows below in their
// columns, one spanning columns those after it in its row; the spanned
// positions stay empty.
func TestTableSpans(t *testing.T) {
	page := `<table>
<tr><th rowspan="2">Region</th><th colspan="2">Sales</th><th rowspan="2">Note</th></tr>
<tr><th>Q1</th><th>Q2</th></tr>
<tr><td rowspan="2">North</td><td>10</td><td>12</td><td>good</td></tr>
<tr><td>11</td><td>13</td><td>better</td></tr>
<tr><td>South</td><td colspan="2">n/a</td><td>closed</td></tr>
</table>`
	want := "| Region | Sales |  | Note |\n|---|---|---|---|\n|  | Q1 | Q2 |  |\n| North | 10 | 12 | good |\n|  | 11 | 13 | better |\n| South | n/a |  | closed |"
	if got := textOf(t, []byte(page)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Lists, paragraphs and line breaks inside a cell are kept apart.
func TestTableCellBlocks(t *testing.T) {
	page := `<table><tr><th>Steps</th><th>Notes</th></tr>
<tr><td><ul><li>First item</li><li>Second item</li><li>Third item</li></ul></td>
<td><p>One paragraph.</p><p>Another</p>Line one<br>Line two</td></tr></table>`
	want := "| Steps | Notes |\n|---|---|\n| First item; Second item; Third item | One paragraph. Another; Line one Line two |"
	if got := textOf(t, []byte(page)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A list item whose content is in blocks (<li><p>...</p></li>, as pandoc,
// word processors and EPUBs write loose lists) is a list item, nested as
// its list is; its later blocks continue it, indented to its content.
func TestListItemsOfBlocks(t *testing.T) {
	page := `<ul><li><p>Item one</p><ul><li><p>Nested</p></li></ul></li><li><p>Item two</p><p>More of two</p></li></ul><ol><li><div>Step</div></li></ol>`
	els, err := Elements(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range els {
		got = append(got, fmt.Sprintf("%s %d %q", e.Type, e.Level, e.Text))
	}
	want := []string{`list_item 1 "- Item one"`, `list_item 2 "  - Nested"`, `list_item 1 "- Item two"`, `list_item 1 "  More of two"`, `list_item 1 "1. Step"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Ordered lists are numbered as browsers number them: from <ol start>,
// down with reversed (from the count of items when no start is given),
// and from an item's <li value> on.
func TestOrderedListNumbers(t *testing.T) {
	page := `<ol start="4"><li>Four</li><li>Five</li></ol>` +
		`<ol reversed><li>Three</li><li>Two</li><li>One</li></ol>` +
		`<ol reversed start="10"><li>Ten</li><li>Nine</li></ol>` +
		`<ol><li>One</li><li value="7">Seven</li><li>Eight</li></ol>` +
		`<ol start="x"><li>Bad start is one</li></ol>`
	want := strings.Join([]string{"4. Four", "5. Five", "3. Three", "2. Two", "1. One", "10. Ten", "9. Nine", "1. One", "7. Seven", "8. Eight", "1. Bad start is one"}, "\n")
	if got := textOf(t, []byte(page)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
