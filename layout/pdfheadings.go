package layout

import (
	"context"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/tetratelabs/wazero/api"
)

// Headings and list items of a PDF, from what its text looks like: a
// heading is set larger than the body text, or numbered as sections are
// ("2.1 Training", "A. Scope", "IV. Results") and not smaller than the
// body; its level is its numbering's depth, else the rank of its size
// among the document's heading sizes. A list item starts with a bullet
// or a list number, and nests by its indentation under the items above it.

// sectionRe matches a section number and the heading's first letter.
var sectionRe = regexp.MustCompile(`^(?:((?:\d{1,2}|[A-Z])(?:\.\d{1,2}){1,5}|\d{1,2})\.?|([A-Z])\.|([IVX]{1,5})\.)\s+\S`)

// sectionDepth returns the depth of a heading's section number (1 for
// "2." or "A.", 2 for "2.1") and whether text starts with one; dotted
// reports a number of two parts or more ("2.1"), which a list item never
// is.
func sectionDepth(text string) (depth int, dotted bool, ok bool) {
	m := sectionRe.FindStringSubmatch(text)
	if m == nil {
		return 0, false, false
	}
	rest := strings.TrimSpace(text[len(m[0])-1:])
	if r, _ := utf8.DecodeRuneInString(rest); !unicode.IsUpper(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Lo, r) {
		return 0, false, false // "3. the next step": a list, a sentence
	}
	if m[1] == "" {
		return 1, false, true
	}
	depth = strings.Count(m[1], ".") + 1
	return depth, depth > 1, true
}

// headingLike reports whether a block's text could be a heading at all: a
// line or two, a few words, no sentence's end.
func headingLike(b block, text string) bool {
	if len(b.lines) > 2 || len(strings.Fields(text)) > 14 || strings.Contains(text, "....") || strings.Contains(text, "…") {
		return false // a table of contents' line has dot leaders
	}
	text = strings.TrimRight(text, `"'”’»)]`)
	last, _ := utf8.DecodeLastRuneInString(text)
	return last != ',' && last != ';' && (last != '.' || strings.HasSuffix(text, "..."))
}

// bulletRunes are the markers a bulleted item starts with (not an em
// dash, which opens a quotation's attribution), with the bullets Word
// writes in its Symbol and Wingdings fonts, which PDFs often map to the
// Private Use Area (U+F0B7 •, U+F0A7 ▪, U+F076 ❖, U+F0D8 ➢, U+F0FC ✓,
// U+F06E ■, U+F0A8 □).
const bulletRunes = "•●○◦▪▫■□‣⁃∙·◆◇►▶➢➤✓✔❖⦁◼◾⚫-–*\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf06e\uf0a8"

// listMarker reports whether text starts with a list item's marker: a
// bullet, or a number or letter with a period or parenthesis, then a
// space.
func listMarker(text string) bool {
	r, n := utf8.DecodeRuneInString(text)
	if unmappedGlyph(r) {
		return n < len(text) && text[n] == ' '
	}
	if strings.ContainsRune(bulletRunes, r) {
		return n < len(text) && (text[n] == ' ' || r != '-' && r != '*' && r != '–')
	}
	return listNumberRe.MatchString(text)
}

var listNumberRe = regexp.MustCompile(`^(?:\d{1,3}[.)]|\(\d{1,2}\)|[a-z][.)]|\([a-z]\)|[ivx]{1,4}[.)])\s`)

// unmappedGlyph reports whether r is a C1 control character, which no
// text holds: Poppler hands one over for a symbol font's glyph without a
// Unicode value, LaTeX's \bullet in cmsy10 (U+0088) among them; one alone
// before a line's text is a list's bullet.
func unmappedGlyph(r rune) bool { return r >= 0x80 && r <= 0x9f }

// unmappedStart reports whether text starts with an unmapped glyph (a
// bullet, whose box may stand taller than the text: no heading).
func unmappedStart(text string) bool {
	r, _ := utf8.DecodeRuneInString(text)
	return unmappedGlyph(r)
}

// bulletText writes a list item's unmapped bullet (unmappedGlyph) as •.
func bulletText(text string) string {
	lead := len(text) - len(strings.TrimLeft(text, " "))
	if r, n := utf8.DecodeRuneInString(text[lead:]); unmappedGlyph(r) {
		return text[:lead] + "•" + text[lead+n:]
	}
	return text
}

// startsItem reports whether a line's first word is a list marker alone
// (a bullet, "1.", "a)"), which starts a block of its own.
func startsItem(words []string) bool {
	if len(words) < 2 {
		return false
	}
	return listMarker(words[0] + " " + words[1])
}

// startsItemLine reports whether a line starts a list item: its first
// word is a list marker alone (startsItem), or a marker that is also a
// word ("o", Word's second-level bullet in Courier New; "-", "*") set
// apart from the text by a tab's gap (an em or more).
func startsItemLine(l pdfLine) bool {
	if startsItem(l.words) {
		return true
	}
	if len(l.words) < 2 || len(l.boxes) < 2 || l.size <= 0 {
		return false
	}
	switch l.words[0] {
	case "o", "-", "*", "–":
		return l.boxes[1][0]-l.boxes[0][1] >= 0.8*l.size
	}
	return false
}

// breaksBlock reports whether line l starts a block of its own rather
// than going on the block b, whose last line is last: bold after plain or
// plain after bold (and in bold, italic after upright or upright after
// italic: a heading's subtitle); another size (sizeApart: a heading set
// a little larger than the paragraph beside it, whose lines stand as
// close as a paragraph's); a line under a list item starting left of the item's text
// (at its marker or the margin) where the item's last line ended short
// of it (the paragraph after a list; an item wrapped to the margin has
// its lines full).
func breaksBlock(b block, last, l pdfLine) bool {
	if b.bold != lineBold(l) || b.bold && b.italic != lineItalic(l) {
		return true
	}
	if sizeApart(last, l) {
		return true
	}
	return b.textX > 0 && l.x0 < b.textX-0.5*l.size && last.x1 < l.x1-2*l.size
}

// sizeApart reports whether two lines are set in sizes apart by their
// tallest letters' boxes: 8% where the larger is a heading's length (30
// letters or fewer: Word's Heading 3 of 12 pt over a body of 11), else
// 10% with letters 10% wider too (over lines of 15 letters or more), as a
// parenthesis or an accent makes a line's box taller, not its letters
// wider.
func sizeApart(a, b pdfLine) bool {
	if a.size > b.size {
		a, b = b, a
	}
	if a.size <= 0 || b.size < 1.08*a.size {
		return false
	}
	wa, na := letterWidth(a)
	wb, nb := letterWidth(b)
	if nb <= 30 {
		return nb > 0
	}
	return b.size >= 1.1*a.size && na >= 15 && wb >= 1.1*wa
}

// letterWidth returns a line's mean width of a letter (its words' boxes
// over their letters) and its letters counted; 0 where unknown.
func letterWidth(l pdfLine) (float64, int) {
	w, n := 0.0, 0
	for k, word := range l.words {
		if k < len(l.boxes) && l.boxes[k][1] > l.boxes[k][0] {
			w += l.boxes[k][1] - l.boxes[k][0]
			n += utf8.RuneCountInString(word)
		}
	}
	if n == 0 {
		return 0, 0
	}
	return w / float64(n), n
}

// bodySize returns the size of the body text: the line height that most
// lines have (the median over lines).
func bodySize(pages []pageBlocks) float64 {
	type sz struct{ h, n float64 }
	var all []sz
	total := 0.0
	for _, p := range pages {
		for _, b := range p.blocks {
			if b.table == nil {
				all = append(all, sz{b.lineHeight, float64(len(b.lines))})
				total += float64(len(b.lines))
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].h < all[j].h })
	acc := 0.0
	for _, s := range all {
		if acc += s.n; acc >= total/2 {
			return s.h
		}
	}
	return 0
}

// headingKey is what ranks a heading without a number: its size, then
// its weight, then its slant.
type headingKey struct {
	size         float64
	bold, italic bool
	indent       float64 // a list item's text's start after its marker; 0 unknown
}

// setLevels gives headings their levels and list items theirs. A
// heading's look is its size (within 5%), weight and slant. In a look
// where at least half the headings are numbered, a heading's level is its
// numbering's depth (the shallowest of the look's where it has none); the
// other looks rank by size, then weight (bold above plain), then slant
// (upright above italic), each one level under the look above it or under
// the deepest numbering above it; one more under a title, which is 1. A list item's level is 1, and one more for each
// indentation of its text past the item above, within a run of items; a
// nested item's text is indented by two spaces a level as markdown does.
func setLevels(els []gochunk.Element, keys []headingKey) {
	var distinct []float64
	for i, e := range els {
		if e.Type == "heading" {
			distinct = append(distinct, keys[i].size)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(distinct)))
	var ranks []float64
	for _, s := range distinct {
		if len(ranks) == 0 || s < 0.95*ranks[len(ranks)-1] {
			ranks = append(ranks, s)
		}
	}
	type look struct{ size, style int }
	lookOf := func(k headingKey) look {
		l := look{size: sort.Search(len(ranks), func(j int) bool { return ranks[j] <= k.size*1.0001 })}
		if !k.bold {
			l.style += 2
		}
		if k.italic {
			l.style++
		}
		return l
	}
	// A look is numbered when at least half its headings are; a number
	// in a look that mostly has none is taken as a title's words.
	numbered := map[look]int{}
	for i, e := range els {
		if e.Type == "heading" {
			if e.Level > 0 {
				numbered[lookOf(keys[i])]++
			} else {
				numbered[lookOf(keys[i])]--
			}
		}
	}
	minDepth := map[look]int{} // the shallowest numbering of each numbered look
	for i, e := range els {
		if l := lookOf(keys[i]); e.Type == "heading" && e.Level > 0 && numbered[l] >= 0 {
			if d, ok := minDepth[l]; !ok || e.Level < d {
				minDepth[l] = e.Level
			}
		}
	}
	// Looks without numbers rank among all looks, larger and bolder
	// first: one level under the deepest numbering of the looks above
	// them, or under the look without numbers just above.
	maxDepth := map[look]int{}
	seen := map[look]bool{}
	for i, e := range els {
		if e.Type != "heading" {
			continue
		}
		l := lookOf(keys[i])
		seen[l] = true
		if numbered[l] >= 0 && e.Level > maxDepth[l] {
			maxDepth[l] = e.Level
		}
	}
	var looks []look
	for l := range seen {
		looks = append(looks, l)
	}
	sort.Slice(looks, func(a, b int) bool {
		if looks[a].size != looks[b].size {
			return looks[a].size < looks[b].size
		}
		return looks[a].style < looks[b].style
	})
	rankOf := map[look]int{}
	cur := 0
	for _, l := range looks {
		if numbered[l] >= 0 {
			cur = max(cur, maxDepth[l])
			continue
		}
		cur++
		rankOf[l] = cur
	}
	levels := make([]int, len(els))
	for i, e := range els {
		if e.Type != "heading" {
			continue
		}
		l := lookOf(keys[i])
		switch {
		case numbered[l] < 0:
			levels[i] = rankOf[l]
		case e.Level > 0:
			levels[i] = e.Level
		case minDepth[l] > 0:
			levels[i] = minDepth[l]
		default:
			levels[i] = rankOf[l]
		}
	}
	titled := false
	for _, e := range els {
		titled = titled || e.Type == "title"
	}
	var indents []float64 // the current run of list items' indentations
	for i := range els {
		e := &els[i]
		switch e.Type {
		case "title":
			e.Level = 1
		case "heading":
			e.Level = levels[i]
			if titled {
				e.Level++ // under the title
			}
			e.Level = min(6, e.Level)
		case "list_item":
			// Where the item's text starts after its marker (markers
			// set flush right, "i." to "iii.", start apart).
			x := e.BBox[0]
			if keys[i].indent > 0 {
				x = keys[i].indent
			}
			// A list going on in the next column (or on the next page
			// a column away) keeps the last item's level; one going on
			// at the next page's margin goes on as on its first.
			if n := len(indents); n > 0 && e.PageWidth > 0 && math.Abs(x-indents[n-1]) > e.PageWidth/4 {
				d := x - indents[n-1]
				for k := range indents {
					indents[k] += d
				}
			}
			for len(indents) > 0 && x < indents[len(indents)-1]-3 {
				indents = indents[:len(indents)-1]
			}
			if len(indents) == 0 || x > indents[len(indents)-1]+3 {
				indents = append(indents, x)
			}
			e.Level = len(indents)
			e.Text = bulletText(e.Text)
			if e.Level > 1 {
				e.Text = strings.Repeat("  ", e.Level-1) + e.Text
			}
			continue
		}
		if !e.Excluded {
			indents = indents[:0]
		}
	}
}

// isHeadingSize reports whether a block's size sets it apart from the
// body text.
func isHeadingSize(h, body float64) bool {
	return body > 0 && h >= 1.3*body
}

// numberedHeading reports whether a block is a numbered heading: a
// section number, not set smaller than the body (a dotted number), or a
// little larger or in bold (a single one, which list items share).
func numberedHeading(b block, text string, body float64, boldOK bool) (int, bool) {
	depth, dotted, ok := sectionDepth(text)
	if !ok || body <= 0 || !headingLike(b, text) || len(b.lines) > 1 && !dotted {
		return 0, false
	}
	if dotted && b.lineHeight >= 0.97*body || b.lineHeight >= 1.1*body || boldOK && b.bold && b.lineHeight >= 0.97*body {
		return depth, true
	}
	return 0, false
}

// boldHeading reports whether a block is a heading by its weight: set in
// bold, where bold sets lines apart, not smaller than the body, a line or
// two of a few words without a sentence's or a label's end, not a list
// item.
func boldHeading(b block, text string, body float64, boldOK bool) bool {
	if !boldOK || !b.bold || body <= 0 || b.lineHeight < 0.9*body || b.table != nil || !headingLike(b, text) || listMarker(text) {
		return false
	}
	if strings.HasSuffix(text, ":") || !strings.ContainsFunc(text, unicode.IsLetter) || amountOrCode(text) {
		return false
	}
	// A web or mail address set in bold is a link, not a heading.
	if strings.Contains(text, "://") || strings.Contains(text, "www.") || strings.Contains(text, "@") ||
		!strings.Contains(text, " ") && strings.Contains(strings.TrimRight(text, "."), ".") {
		return false
	}
	// Two bold lines, the first a sentence's end: a bold sentence and
	// what follows it, not one heading.
	if len(b.lines) == 2 {
		first := strings.TrimRight(b.lines[0], `"'”’»)] `)
		if strings.HasSuffix(first, ".") || strings.HasSuffix(first, "!") || strings.HasSuffix(first, "?") {
			return false
		}
	}
	return true
}

// amountRe matches a sum of money: a currency sign or code (ISO 4217's
// commonest, Rs, or an Indian report's crore and lakh) next to a number
// ("$821.14", "1,234.50 EUR", "₹ 1,186 crore"), or an amount with cents
// that no section number or version is: two decimals after thousands'
// separators ("1,234.50", "1.234,50") or after three digits or more
// ("821.14"). A count with a thousands' comma ("1,200 patients") or a
// section number ("1.10", "2.3.59") is no sum.
var amountRe = regexp.MustCompile(strings.Join([]string{
	`[$€£¥₹]\s?\d`, `\d\s?[$€£¥₹]`,
	// A code before a figure that is not a word ("USD 500", not "3D").
	`\b(?:USD|EUR|GBP|JPY|CNY|INR|CHF|AUD|Rs\.?)\s?\d[\d,.]*(?:$|[^\pL\d])`,
	`\d\s?(?:USD|EUR|GBP|JPY|CNY|INR|CHF|AUD|[Cc]rores?|[Ll]akhs?)\b`,
	// Cents, the figure not part of a longer one.
	`(?:^|[^\d.,])(?:\d{1,3}(?:,\d{3})+\.\d\d|\d{1,3}(?:\.\d{3})+,\d\d|\d{3,}\.\d\d)(?:$|[^\d.,]|[.,]$|[.,]\D)`,
}, "|"))

// amountOrCode reports whether a bold line is a label and its value
// ("TOTAL $821.14") or holds a code (a word of 10 characters or more, 9
// of them digits: a transaction number, a barcode's text, an arXiv
// identifier; not a date), which a receipt or a form sets in bold or
// large and no heading holds.
func amountOrCode(text string) bool {
	if amountRe.MatchString(text) {
		return true
	}
	for _, w := range strings.Fields(text) {
		if len(w) < 10 {
			continue
		}
		digits := 0
		for _, r := range w {
			if unicode.IsDigit(r) {
				digits++
			}
		}
		if digits >= 9 {
			return true
		}
	}
	return false
}

// boldDistinct reports whether bold sets lines apart in a document: at
// most a quarter of the words outside tables are in bold blocks.
func boldDistinct(pages []pageBlocks) bool {
	bold, all := 0, 0
	for _, p := range pages {
		for _, b := range p.blocks {
			if b.table != nil {
				continue
			}
			n := 0
			for _, l := range b.lines {
				n += strings.Count(l, " ") + 1
			}
			all += n
			if b.bold {
				bold += n
			}
		}
	}
	return all > 0 && 4*bold <= all
}

// Font styles: a run's style tells whether its font is bold or italic.
const (
	styleKnown  uint8 = 1 << iota // the style was read
	styleBold                     // a bold font (by name or weight)
	styleItalic                   // an italic font (by name or flags)
)

// fontStyle returns the style of a font from its name (without a subset's
// "ABCDEF+" prefix, "Arial,Bold", "TimesNewRomanPS-BoldItalicMT",
// "NimbusRomNo9L-Medi", TeX's "CMBX10"), its descriptor flags (italic) and
// its weight (700 and over is bold where the name has no style; -1 where
// PDFium tells none).
func fontStyle(name string, flags, weight int) uint8 {
	if i := strings.IndexByte(name, '+'); i >= 0 && i <= 7 {
		name = name[i+1:]
	}
	n := strings.ToLower(name)
	s := styleKnown
	// A name with a style after the family ("-Oblique", ",Italic",
	// "-Regular") tells its weight; PDFium's weight, estimated from the
	// stems where the font does not give it, is trusted only without one
	// (it reads DejaVu Sans Oblique as 610).
	styled := strings.ContainsAny(n, "-,")
	if !styled && weight >= 700 || strings.Contains(n, "bold") || strings.Contains(n, "black") || strings.Contains(n, "heavy") ||
		strings.Contains(n, "semibold") || strings.Contains(n, "demi") || strings.HasSuffix(n, "-medi") ||
		strings.HasSuffix(n, "-bd") || strings.HasPrefix(n, "cmbx") || strings.HasPrefix(n, "sfbx") || strings.HasPrefix(n, "cmb10") {
		s |= styleBold
	}
	if flags&64 != 0 || strings.Contains(n, "italic") || strings.Contains(n, "oblique") || strings.HasSuffix(n, "-it") ||
		strings.HasPrefix(n, "cmti") || strings.HasPrefix(n, "sfti") {
		s |= styleItalic
	}
	return s
}

// styleProbe reads the style of a page's characters at the start of each
// word (after a space, or where the text goes back left or to another
// line): the font of the word's first character, by the text object
// PDFium draws it in and that object's font, each one WebAssembly call
// (the font only where the object changes); a font's name and weight are
// asked for once a page (a page draws a few fonts). Characters inside a
// word take the word's first character's style. Where PDFium tells no
// text object, the style goes by the character's font weight, as fonts
// of one weight are read alike.
type styleProbe struct {
	inst    pdfium.Pdfium
	tp      references.FPDF_TEXTPAGE
	calls   *charCalls
	fonts   *fontCalls       // nil where the module lacks the functions
	byWt    map[int]uint8    // style by font weight, on this page
	byFont  map[uint64]uint8 // style by font, on this page
	lastObj uint64           // the text object read last, and its style
	objSt   uint8
	cur     uint8
	fresh   bool
	px, pcy float64
}

func newStyleProbe(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, calls *charCalls) *styleProbe {
	return &styleProbe{inst: inst, tp: tp, calls: calls, fonts: newFontCalls(calls), byWt: map[int]uint8{}, byFont: map[uint64]uint8{}, fresh: true}
}

// fontCalls calls PDFium's FPDFText_GetTextObject and FPDFTextObj_GetFont
// directly, as charCalls calls the character functions.
type fontCalls struct {
	c             *charCalls
	textObj, font api.Function
}

// newFontCalls resolves the two functions in c's module; nil where it
// lacks them or they take other arguments.
func newFontCalls(c *charCalls) *fontCalls {
	if c == nil || c.mod == nil {
		return nil
	}
	f := &fontCalls{c: c, textObj: c.mod.ExportedFunction("FPDFText_GetTextObject"), font: c.mod.ExportedFunction("FPDFTextObj_GetFont")}
	if f.textObj == nil || f.font == nil {
		return nil
	}
	i32 := api.ValueTypeI32
	if d := f.textObj.Definition(); !slices.Equal(d.ParamTypes(), []api.ValueType{i32, i32}) || !slices.Equal(d.ResultTypes(), []api.ValueType{i32}) {
		return nil
	}
	if d := f.font.Definition(); !slices.Equal(d.ParamTypes(), []api.ValueType{i32}) || !slices.Equal(d.ResultTypes(), []api.ValueType{i32}) {
		return nil
	}
	return f
}

// objectAt returns the text object character i is drawn by; 0 for none.
func (f *fontCalls) objectAt(i int) uint64 {
	r, err := f.c.call(f.textObj, i)
	if err != nil {
		return 0
	}
	return uint64(uint32(r))
}

// fontOf returns a text object's font; 0 for none.
func (f *fontCalls) fontOf(obj uint64) uint64 {
	f.c.stack[0] = obj
	if err := f.font.CallWithStack(context.Background(), f.c.stack[:]); err != nil {
		return 0
	}
	return uint64(uint32(f.c.stack[0]))
}

// space marks the start of a word.
func (s *styleProbe) space() { s.fresh = true }

// at returns the style of character i, whose box is (x0, y0, x1, y1) in
// the page's PDF space.
func (s *styleProbe) at(i int, x0, y0, x1, y1 float64) uint8 {
	cy := (y0 + y1) / 2
	if s.fresh || x0 < s.px-1 || math.Abs(cy-s.pcy) > math.Abs(y1-y0)/2 {
		s.cur = s.read(i)
	}
	s.fresh, s.px, s.pcy = false, x1, cy
	return s.cur
}

func (s *styleProbe) read(i int) uint8 {
	if s.fonts != nil {
		if obj := s.fonts.objectAt(i); obj != 0 {
			if obj == s.lastObj {
				return s.objSt
			}
			font := s.fonts.fontOf(obj)
			st, ok := s.byFont[font]
			if !ok || font == 0 {
				st = s.info(i)
				if len(s.byFont) < 64 {
					s.byFont[font] = st
				}
			}
			s.lastObj, s.objSt = obj, st
			return st
		}
	}
	weight := -1
	if s.calls != nil {
		if w, ok := s.calls.weightAt(i); ok {
			weight = w
		}
	}
	if st, ok := s.byWt[weight]; ok {
		return st
	}
	st := s.info(i)
	if len(s.byWt) < 64 {
		s.byWt[weight] = st
	}
	return st
}

// info reads character i's font's name, flags and weight.
func (s *styleProbe) info(i int) uint8 {
	weight := -1
	if s.calls != nil {
		if w, ok := s.calls.weightAt(i); ok {
			weight = w
		}
	}
	if f, err := s.inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: s.tp, Index: i}); err == nil {
		return fontStyle(f.FontName, f.Flags, weight)
	}
	return 0
}

// countStyle counts a run's characters by style into its line.
func countStyle(l *pdfLine, st uint8) {
	if st&styleKnown == 0 {
		return
	}
	l.styled++
	if st&styleBold != 0 {
		l.bold++
	}
	if st&styleItalic != 0 {
		l.italic++
	}
}

// lineBold reports whether all of a line's characters of known style are
// bold; lineItalic, italic.
func lineBold(l pdfLine) bool   { return l.styled > 0 && l.bold == l.styled }
func lineItalic(l pdfLine) bool { return l.styled > 0 && l.italic == l.styled }

// pageNumbers returns the boxes of the page numbers standing outside the
// margins inMargin tells (LaTeX sets its page number well above the
// page's foot): a block of a bare number, below (or above) every other
// block of its page, in its bottom (or top) quarter, on at least two
// pages and half the pages of the document. Left in the text they part a
// list going on across a page into two.
func pageNumbers(pages []pageBlocks) map[pageBox]bool {
	out := map[pageBox]bool{}
	found := 0
	for _, p := range pages {
		if p.height <= 0 || len(p.blocks) < 2 {
			continue
		}
		lo, hi := -1, -1 // the lowest and the highest block
		for k, b := range p.blocks {
			if lo < 0 || b.y1 > p.blocks[lo].y1 {
				lo = k
			}
			if hi < 0 || b.y0 < p.blocks[hi].y0 {
				hi = k
			}
		}
		got := false
		for _, k := range []int{lo, hi} {
			b := p.blocks[k]
			if len(b.lines) != 1 || b.table != nil || !isPageNumber(strings.TrimSpace(b.lines[0])) {
				continue
			}
			alone := true
			for j, o := range p.blocks {
				if j != k && (k == lo && o.y1 > b.y0 || k == hi && o.y0 < b.y1) {
					alone = false // another block beside it
				}
			}
			if alone && (k == lo && b.y0 >= 0.75*p.height || k == hi && b.y1 <= 0.25*p.height) {
				out[pageBox{p.page, b.x0, b.y0}] = true
				got = true
			}
		}
		if got {
			found++
		}
	}
	if found < 2 || 2*found < len(pages) {
		return nil
	}
	return out
}

// pageBox names a block by its page and its top left corner.
type pageBox struct {
	page   int
	x0, y0 float64
}

// titleBlock returns the box of a document's title set less than 1.3
// times the body's size (a Word title of 16 pt over a body of 12): the
// first block of the first page, of a line or two and 14 words at most,
// 1.2 times the body's size or more, larger than any other block.
func titleBlock(pages []pageBlocks, body float64) (pageBox, bool) {
	if len(pages) == 0 || body <= 0 {
		return pageBox{}, false
	}
	first := readingOrder(pages[0])
	if len(first) == 0 {
		return pageBox{}, false
	}
	t := first[0]
	if t.table != nil || len(t.lines) > 2 || len(strings.Fields(strings.Join(t.lines, " "))) > 14 || t.lineHeight < 1.2*body {
		return pageBox{}, false
	}
	for _, p := range pages {
		for _, b := range p.blocks {
			if b.lineHeight >= t.lineHeight && !(p.page == pages[0].page && b.x0 == t.x0 && b.y0 == t.y0) {
				return pageBox{}, false
			}
		}
	}
	return pageBox{pages[0].page, t.x0, t.y0}, true
}
