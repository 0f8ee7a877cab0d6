// Package htmldoc reads HTML documents into layout elements whose text
// keeps the document's structure in markdown form: headings as "## Title",
// list items as "- item" or "1. item", tables as pipe tables (a header row
// and a delimiter row), preformatted text as fenced code. The document's
// text is the elements' texts joined by blank lines (layout.Assemble), so
// the markdown and table-aware chunkers see the structure, and chunk
// offsets refer to that text (as with PDFs; gochunk extract prints it).
// Scripts, styles, templates, the head and hidden elements are dropped.
package htmldoc

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/mdtable"
	"github.com/gochunk/gochunk/internal/textenc"
)

// Elements parses an HTML document (parsed as browsers do, so any HTML
// will do) and returns its blocks in document order.
//
// Nesting deeper than the parser takes (512 open elements) is flattened
// beyond maxDepth levels, so such a page loses the structure of its
// deepest parts, never its text. The page is read within the default
// Limits.
func Elements(r io.Reader) ([]gochunk.Element, error) {
	return ElementsWithin(r, nil)
}

// ElementsLimited is Elements within the bounds lim (zero fields: their
// defaults), the text bound by the page's size.
//
// Every entry point reads the page's bytes in the page's own encoding,
// found as browsers find it (see Decode): a byte order mark, else a
// charset a Content-Type gives (ElementsOfType), else UTF-8 when the
// bytes are UTF-8, else the charset a <meta> declares in the first 1,024
// bytes, else Windows-1252.
func ElementsLimited(r io.Reader, lim Limits) ([]gochunk.Element, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	return elements(data, NewBudget(lim, int64(len(data))))
}

// ElementsWithin is Elements counting the page's text and table cells
// against b, the budget of the document the page is part of (nil: a
// budget of the default Limits for the page alone). A page's text stops
// at the first bound it passes, with an error wrapping ErrTooLarge.
func ElementsWithin(r io.Reader, b *Budget) ([]gochunk.Element, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	if b == nil {
		b = NewBudget(Limits{}, int64(len(data)))
	}
	return elements(data, b)
}

// ElementsOfType is ElementsWithin for a page whose Content-Type
// (an HTTP header's, an e-mail part's: "text/html; charset=iso-8859-1")
// is known: a charset it names is the page's, unless a byte order mark
// says otherwise.
func ElementsOfType(r io.Reader, contentType string, b *Budget) ([]gochunk.Element, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	if b == nil {
		b = NewBudget(Limits{}, int64(len(data)))
	}
	return elementsOfType(data, contentType, b)
}

func elements(data []byte, b *Budget) ([]gochunk.Element, error) {
	return elementsOfType(data, "", b)
}

// Decode returns an HTML page's bytes as UTF-8 and the name of the
// encoding it read them in. The encoding is, in order: the one a byte
// order mark (UTF-8, UTF-16LE, UTF-16BE) names; the charset contentType
// names (an HTTP header's or an e-mail part's, "" for none); UTF-8 when
// the bytes are valid UTF-8 (whatever a <meta> says: a page written in
// UTF-8 and labelled otherwise is read as written, and ISO-2022-JP's
// ASCII bytes are decoded as it declares); the encoding an XML
// declaration names (XHTML, as EPUB's chapters are); the charset a
// <meta charset> or <meta http-equiv="Content-Type"> declares in the
// first 1,024 bytes (a declared UTF-16 is read as UTF-8, as the HTML
// standard says); the legacy encoding ICU's detector recognises the
// bytes in (Shift_JIS, GBK, Big5, EUC-KR, KOI8-R, …), as browsers
// detect an undeclared page's; else Windows-1252, what browsers assume
// of an undeclared page in a Western locale. Bytes that are not text of the encoding
// become U+FFFD.
func Decode(data []byte, contentType string) ([]byte, string) {
	if contentType == "" && !utf8.Valid(data) {
		// An XHTML page (an EPUB's chapter) says its encoding in its XML
		// declaration, which HTML's <meta> prescan does not read.
		contentType = xmlEncoding(data)
	}
	e, name, certain := charset.DetermineEncoding(data, contentType)
	if !certain && (utf8.Valid(data) && name != "iso-2022-jp" || name == "utf-16le" || name == "utf-16be") {
		name = "utf-8"
	}
	if !certain && name == "windows-1252" {
		// Undeclared and not UTF-8: the encoding its bytes are recognised
		// in (Shift_JIS, GBK, Big5, KOI8-R, …), as browsers detect one.
		if n, enc, ok := textenc.Detect(data); ok {
			e, name = enc, n
		}
	}
	if name == "utf-8" || e == nil {
		data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
		return bytes.ToValidUTF8(data, []byte("\uFFFD")), "utf-8"
	}
	out, err := e.NewDecoder().Bytes(data)
	if err != nil { // the decoders replace what they cannot decode: not reached
		return bytes.ToValidUTF8(data, []byte("\uFFFD")), "utf-8"
	}
	out = bytes.TrimPrefix(out, []byte("\xEF\xBB\xBF")) // a byte order mark decoded
	return bytes.ToValidUTF8(out, []byte("\uFFFD")), name
}

// xmlEncoding returns "text/html; charset=X" for the encoding X an XML
// declaration at the start of data names, else "".
func xmlEncoding(data []byte) string {
	if !bytes.HasPrefix(data, []byte("<?xml")) {
		return ""
	}
	decl := data[:min(len(data), 200)]
	if i := bytes.Index(decl, []byte("?>")); i >= 0 {
		decl = decl[:i]
	}
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n=")
	if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
		return ""
	}
	end := bytes.IndexByte(rest[1:], rest[0])
	if end < 0 {
		return ""
	}
	return "text/html; charset=" + string(rest[1:1+end])
}

func elementsOfType(data []byte, contentType string, b *Budget) ([]gochunk.Element, error) {
	data, _ = Decode(data, contentType)
	if isXHTML(data) {
		data = closeEmpty(data)
	}
	root, err := html.Parse(bytes.NewReader(data))
	if err != nil { // the parser refuses only nesting over its limit
		root, err = html.Parse(bytes.NewReader(flatten(data, maxDepth)))
	}
	if err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	w := &walker{budget: b}
	w.walk(root, 0)
	w.flush("paragraph")
	if w.err != nil {
		return nil, fmt.Errorf("html: %w", w.err)
	}
	return w.els, nil
}

type walker struct {
	budget *Budget
	err    error // the first bound passed: the walk stops
	els    []gochunk.Element
	inline strings.Builder // text of the block being read
	lists  []listState     // open lists, innermost last
	items  []itemState     // open list items, innermost last
	// edge says nothing was written since a link's start or end: text
	// that follows it is set apart by a space when both sides are
	// letters or digits (see linkEdge).
	edge bool
}

// itemState is an open list item: whether its marker was written (its
// first block), the column its content starts at (after the marker) and
// its nesting.
type itemState struct {
	marked bool
	col    int
	level  int
}

type listState struct {
	ordered bool
	n       int // the last item's number
	step    int // 1, or -1 in a reversed list
}

// attrInt returns an element's integer attribute, and whether it has one.
func attrInt(n *html.Node, key string) (int, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			v, err := strconv.Atoi(strings.TrimSpace(a.Val))
			return v, err == nil && v > -1<<30 && v < 1<<30
		}
	}
	return 0, false
}

// skipped are the elements whose content is not text of the document.
var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true, atom.Button: true,
	atom.Select: true, atom.Input: true, atom.Textarea: true}

// blocks are the elements that end the text before them.
var blocks = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.Blockquote: true, atom.Figure: true,
	atom.Figcaption: true, atom.Caption: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Address: true,
	atom.Form: true, atom.Fieldset: true, atom.Details: true, atom.Summary: true, atom.Hr: true, atom.Body: true, atom.Html: true}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "hidden" || a.Key == "aria-hidden" && a.Val == "true" {
			return true
		}
	}
	return false
}

func (w *walker) walk(n *html.Node, depth int) {
	if w.err != nil {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	switch a := n.DataAtom; {
	case a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6:
		w.flush("paragraph")
		w.children(n, depth)
		typ := "heading"
		if a == atom.H1 {
			typ = "title"
		}
		w.flushWith(typ, strings.Repeat("#", int(n.Data[1]-'0'))+" ")
	case a == atom.Ul || a == atom.Ol:
		if len(w.lists) > 0 {
			w.flushItem() // the text of the item this list is in
		} else {
			w.flush("paragraph")
		}
		l := listState{ordered: a == atom.Ol, step: 1}
		if l.ordered {
			// <ol start reversed>, numbered as browsers number it: a
			// reversed list without a start counts down to 1.
			rev := false
			for _, at := range n.Attr {
				rev = rev || at.Key == "reversed"
			}
			start, ok := attrInt(n, "start")
			if rev {
				l.step = -1
				if !ok {
					start = 0
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						if c.Type == html.ElementNode && c.DataAtom == atom.Li {
							start++
						}
					}
				}
			} else if !ok {
				start = 1
			}
			l.n = start - l.step
		}
		w.lists = append(w.lists, l)
		w.children(n, depth)
		w.flushItem()
		w.lists = w.lists[:len(w.lists)-1]
	case a == atom.Li:
		w.flushItem()
		if v, ok := attrInt(n, "value"); ok && len(w.lists) > 0 && w.lists[len(w.lists)-1].ordered {
			l := &w.lists[len(w.lists)-1]
			l.n = v - l.step // <li value>: this item's number
		}
		w.items = append(w.items, itemState{})
		w.children(n, depth)
		w.flushItem()
		w.items = w.items[:len(w.items)-1]
	case a == atom.Pre:
		w.flush("paragraph")
		var code strings.Builder
		rawText(n, &code)
		if t := strings.Trim(code.String(), "\n"); strings.TrimSpace(t) != "" {
			w.add("paragraph", "```\n"+t+"\n```")
		}
	case a == atom.Table:
		w.flush("paragraph")
		w.table(n)
	case a == atom.Br:
		w.inline.WriteByte('\n')
	case a == atom.Img:
		for _, at := range n.Attr {
			if at.Key == "alt" && strings.TrimSpace(at.Val) != "" {
				w.text(" " + at.Val + " ")
			}
		}
	case a == atom.A && isLink(n):
		// Links written one against the other (a menu, a list of tags,
		// a label and its value: "<a>Docs</a><a>API</a>") are separate
		// words, as their styles show them; a page sets them apart by
		// its CSS, not by white space. (An anchor without text or
		// target, as books mark their print pages inside words, is no
		// edge.)
		w.edge = true
		w.children(n, depth)
		w.edge = true
	case blocks[a]:
		w.flush("paragraph")
		w.children(n, depth)
		typ := "paragraph"
		switch a {
		case atom.Figcaption, atom.Caption:
			typ = "caption"
		case atom.Header:
			typ = "header"
		case atom.Footer:
			typ = "footer"
		}
		w.flush(typ)
	default:
		w.children(n, depth)
	}
}

func (w *walker) children(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1)
	}
}

// text adds inline text, its white space collapsed as browsers do.
func (w *walker) text(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) && r != '\u00a0' {
			if b := w.inline.String(); b != "" && !strings.HasSuffix(b, " ") && !strings.HasSuffix(b, "\n") {
				w.inline.WriteByte(' ')
			}
			continue
		}
		if w.edge && linkEdge(w.inline.String(), r) {
			w.inline.WriteByte(' ')
		}
		w.edge = false
		w.inline.WriteRune(r)
	}
}

// isLink tells whether n, an <a>, is a link with text: a target (href)
// and text other than white space.
func isLink(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "href" && a.Namespace == "" {
			return hasText(n)
		}
	}
	return false
}

// hasText tells whether n holds text other than white space.
func hasText(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return true
		case c.Type == html.ElementNode && !skipped[c.DataAtom] && hasText(c):
			return true
		}
	}
	return false
}

// linkEdge tells whether text written before a link's edge and the rune r
// written after it would run together into one word: both are letters or
// digits.
func linkEdge(before string, r rune) bool {
	last, _ := utf8.DecodeLastRuneInString(before)
	return (unicode.IsLetter(last) || unicode.IsDigit(last)) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// marker is the list item marker of the innermost list: "- " or "3. ",
// indented two spaces per enclosing list.
func (w *walker) marker() string {
	if len(w.lists) == 0 {
		return "- "
	}
	l := &w.lists[len(w.lists)-1]
	indent := strings.Repeat("  ", len(w.lists)-1)
	if l.ordered {
		l.n += l.step
		return fmt.Sprintf("%s%d. ", indent, l.n)
	}
	return indent + "- "
}

// flush ends the block being read, if it has text, as an element of
// type typ; a paragraph inside a list item (<li><p>...</p></li>) is the
// item's.
func (w *walker) flush(typ string) {
	if typ == "paragraph" && len(w.items) > 0 {
		w.flushItem()
		return
	}
	w.flushWith(typ, "")
}

// flushItem ends the text of a list item, if any: its first block with
// the item's marker, the blocks after it (a second paragraph, text after
// a nested list) indented to the item's content, as markdown continues
// an item.
func (w *walker) flushItem() {
	if strings.TrimSpace(w.inline.String()) == "" {
		return
	}
	level := max(len(w.lists), 1)
	if len(w.items) == 0 { // text of a list outside its items
		w.flushLevel("list_item", w.marker(), level)
		return
	}
	it := &w.items[len(w.items)-1]
	if !it.marked {
		m := w.marker()
		it.marked, it.col, it.level = true, len(m), level
		w.flushLevel("list_item", m, level)
		return
	}
	w.flushLevel("list_item", strings.Repeat(" ", it.col), it.level)
}

// flushWith ends the block being read, if it has text, as an element of
// type typ whose text starts with prefix.
func (w *walker) flushWith(typ, prefix string) { w.flushLevel(typ, prefix, 0) }

// flushLevel is flushWith of an element of the given level (0: as its
// text's markdown says).
func (w *walker) flushLevel(typ, prefix string, level int) {
	t := strings.TrimSpace(w.inline.String())
	w.inline.Reset()
	if t != "" {
		w.addLevel(typ, prefix+t, level)
	}
}

func (w *walker) add(typ, text string) { w.addLevel(typ, text, 0) }

func (w *walker) addLevel(typ, text string, level int) {
	if w.err != nil {
		return
	}
	if w.err = w.budget.Text(int64(len(text)) + 2); w.err != nil {
		return
	}
	w.els = append(w.els, gochunk.Element{Type: typ, Text: text, Order: len(w.els), Level: level})
}

// table adds a table as a pipe table: its first row (header cells, or the
// first row when there are none) as the header, then a delimiter row,
// then the other rows; a pipe in a cell is escaped. A cell spanning
// columns or rows (colspan, rowspan) holds its text in its first column
// and row, and the columns and rows it spans are left to it: the cells
// after it, in its row and in the rows below, are placed in the columns
// a browser shows them in (the spanned positions stay empty, not
// filled with copies). Rows and columns without text are left out, and
// a sparse table is not padded (package internal/mdtable). Blocks inside
// a cell (paragraphs, list items, line breaks) are kept apart (see
// cellText).
func (w *walker) table(t *html.Node) {
	tb := mdtable.New(w.budget)
	var caption string
	rows := 0
	var spans []span // the rows above's cells that span this row, by column
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil && w.err == nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] || hidden(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Caption:
				caption = inlineText(c)
			case atom.Tr:
				spans = slices.DeleteFunc(spans, func(s span) bool { return s.until <= rows })
				var added []span
				col, k := 0, 0
				for d := c.FirstChild; d != nil && w.err == nil; d = d.NextSibling {
					if d.Type != html.ElementNode || d.DataAtom != atom.Td && d.DataAtom != atom.Th {
						continue
					}
					// The first column no cell above spans (spans are
					// sorted by column; cells come left to right).
					for ; k < len(spans) && spans[k].from <= col; k++ {
						col = max(col, spans[k].to)
					}
					colspan := spanAttr(d, "colspan", 1, maxColspan)
					if rowspan := spanAttr(d, "rowspan", 1, maxRowspan); rowspan != 1 && len(spans)+len(added) < maxSpans {
						until := rows + rowspan
						if rowspan == 0 { // to the end of the table
							until = math.MaxInt
						}
						added = append(added, span{from: col, to: col + colspan, until: until})
					}
					w.err = tb.Add(rows, col, strings.ReplaceAll(cellText(d), "|", `\|`))
					col += colspan
				}
				if len(added) > 0 {
					spans = append(spans, added...)
					slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
				}
				rows++
			case atom.Table:
				// a nested table: its rows are read on their own
			default:
				visit(c)
			}
		}
	}
	visit(t)
	if w.err != nil {
		return
	}
	if caption != "" {
		w.add("caption", caption)
	}
	md, err := tb.Write(mdtable.Style{Delim: "---|"})
	if err != nil {
		w.err = err
		return
	}
	if md != "" {
		// The table's text was counted by Write.
		w.els = append(w.els, gochunk.Element{Type: "table", Text: md, Order: len(w.els)})
	}
}

// span is a cell spanning rows: the columns [from, to) it takes, until
// row until (exclusive).
type span struct{ from, to, until int }

// The spans read as HTML reads them (colspan at most 1,000, rowspan at
// most 65,534, rowspan 0 to the end), and the most spans of cells above
// kept at a time (a table holding more is placed as if the others
// spanned one row: cells are placed in time linear in the table).
const (
	maxColspan = 1000
	maxRowspan = 65534
	maxSpans   = 256
)

// spanAttr returns a cell's span attribute key: def when absent or not a
// number, at most limit.
func spanAttr(n *html.Node, key string, def, limit int) int {
	for _, a := range n.Attr {
		if a.Key == key {
			v, err := strconv.Atoi(strings.TrimSpace(a.Val))
			if err != nil || v < 0 || key == "colspan" && v == 0 {
				return def
			}
			return min(v, limit)
		}
	}
	return def
}

// cellText returns a table cell's text as one line: its inline text with
// white space collapsed (a <br> a space), its blocks (paragraphs,
// headings, list items, rows of a table inside it) joined by "; ", or by
// a space after a block that ends in punctuation, so that "First item"
// and "Second item" do not run together.
func cellText(n *html.Node) string {
	var parts []string
	var cur strings.Builder
	edge := 0 // cur's length after a link (see the walker's links)
	end := func() {
		if t := strings.Join(strings.Fields(cur.String()), " "); t != "" {
			parts = append(parts, t)
		}
		cur.Reset()
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				if r, _ := utf8.DecodeRuneInString(c.Data); edge > 0 && edge == cur.Len() && linkEdge(cur.String(), r) {
					cur.WriteByte(' ')
				}
				cur.WriteString(c.Data)
			case c.Type != html.ElementNode || skipped[c.DataAtom] || hidden(c):
			case c.DataAtom == atom.Br:
				cur.WriteByte(' ') // a line broken to fit the cell, most often
			case c.DataAtom == atom.Img:
				for _, at := range c.Attr {
					if at.Key == "alt" {
						cur.WriteString(" " + at.Val + " ")
					}
				}
			case inCellBlocks[c.DataAtom] || blocks[c.DataAtom]:
				end()
				walk(c)
				end()
			case c.DataAtom == atom.A && isLink(c):
				// Links one against the other are separate words (see
				// the walker's links).
				if t := inlineText(c); t != "" {
					if r, _ := utf8.DecodeRuneInString(t); linkEdge(cur.String(), r) {
						cur.WriteByte(' ')
					}
				}
				walk(c)
				edge = cur.Len()
			default:
				walk(c)
			}
		}
	}
	walk(n)
	end()
	var sb strings.Builder
	for i, p := range parts {
		if i > 0 {
			if strings.ContainsRune(".!?;:,", rune(parts[i-1][len(parts[i-1])-1])) {
				sb.WriteByte(' ')
			} else {
				sb.WriteString("; ")
			}
		}
		sb.WriteString(p)
	}
	return sb.String()
}

// inCellBlocks are the elements that, besides blocks, end a block of a
// cell's text.
var inCellBlocks = map[atom.Atom]bool{atom.Li: true, atom.Ul: true, atom.Ol: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Pre: true, atom.Table: true, atom.Tr: true, atom.Td: true, atom.Th: true}

// inlineText returns the text of n with its white space collapsed.
func inlineText(n *html.Node) string {
	var sb strings.Builder
	rawText(n, &sb)
	return strings.Join(strings.Fields(sb.String()), " ")
}

// rawText appends the text of n as it is (preformatted).
func rawText(n *html.Node, sb *strings.Builder) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			sb.WriteString(c.Data)
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
			sb.WriteByte('\n')
		case c.Type == html.ElementNode && !skipped[c.DataAtom]:
			rawText(c, sb)
		}
	}
}

// maxDepth is the nesting kept when a page is nested too deeply to parse:
// the parser may add up to two implied elements per level (a table's body
// and row), so 128 levels stay well under its 512.
const maxDepth = 128

// flatten returns the page with the start and end tags of the elements
// nested deeper than depth removed (their text and the elements inside
// them kept, at that depth). Depth is counted on the tags as written:
// every start tag of an element that has content opens a level, its end
// tag closes it.
func flatten(data []byte, depth int) []byte {
	z := html.NewTokenizer(bytes.NewReader(data))
	out := make([]byte, 0, len(data))
	open := 0
	dropped := map[string]int{} // end tags still to drop, by name
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		raw := z.Raw()
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				break
			}
			if open >= depth {
				dropped[string(name)]++
				continue
			}
			open++
		case html.EndTagToken:
			name, _ := z.TagName()
			if n := dropped[string(name)]; n > 0 {
				dropped[string(name)] = n - 1
				continue
			}
			open = max(open-1, 0)
		}
		out = append(out, raw...)
	}
}

// voidElements have no content and no end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true, "param": true, "keygen": true}
