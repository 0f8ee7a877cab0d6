package layout

import "testing"

// A bold or large line holding a sum of money or a long code is a
// receipt's or a form's value, not a heading; section numbers and dates
// are no such thing.
func TestAmountOrCode(t *testing.T) {
	for text, want := range map[string]bool{
		"TOTAL $821.14":                          true,
		"*TXN98765202411231432*":                 true,
		"arXiv:2103.15348v2 [cs.CV] 21 Jun 2021": true,
		"Total 1,186 crore":                      true,
		"Total: 1,234.50 EUR":                    true,
		"TOTAL 821.14":                           true,
		"Betrag 1.234,50":                        true,
		"USD 500 million programme":              true,
		"Results for 1,200 patients":             false,
		"CAD 3D modelling":                       false,
		"Python 3.12 release notes":              false,
		"Chapter 12.50 onwards":                  false,
		"1.10 Scope of the work":                 false,
		"Command Codes BMFOL and BMFOR 2.3.59":   false,
		"Exhibit 2.3.59-1 (07-01-2019) Command Code BMFOL Input Display": false,
		"2023-2024 Annual Report": false,
		"Results":                 false,
	} {
		if got := amountOrCode(text); got != want {
			t.Errorf("amountOrCode(%q) = %v, want %v", text, got, want)
		}
	}
}

// A bold line with a count in thousands is a heading: a thousands' comma
// alone is no sum of money.
func TestBoldHeadingWithCount(t *testing.T) {
	for text, want := range map[string]bool{
		"Results for 1,200 patients": true,
		"TOTAL $821.14":              false,
		"Total: 1,234.50 EUR":        false,
	} {
		b := block{x0: 72, y0: 100, x1: 300, y1: 112, lines: []string{text}, lineHeight: 12, bold: true}
		if got := boldHeading(b, text, 12, true); got != want {
			t.Errorf("boldHeading(%q) = %v, want %v", text, got, want)
		}
	}
}

// lineOf makes a line of words set from x, each letter w wide and a
// space of gap between words, its letters' boxes size tall.
func lineOf(x, w, gap, size float64, words ...string) pdfLine {
	l := pdfLine{x0: x, size: size, words: words}
	for _, word := range words {
		end := x + w*float64(len([]rune(word)))
		l.boxes = append(l.boxes, [2]float64{x, end})
		x = end + gap
	}
	l.x1 = x - gap
	return l
}

// A heading set 18% larger than the paragraph under it is a block of its
// own; a line whose box is taller only by a parenthesis is not.
func TestSizeApart(t *testing.T) {
	body := lineOf(72, 5, 2.5, 10.3, "While", "the", "vocals", "were", "praised,", "it", "was", "seen", "as", "too", "political.")
	head := lineOf(72, 6.6, 3.2, 12.2, "1.1", "Million", "more", "Palestinians", "under", "bombardment")
	short := lineOf(72, 6.6, 3.2, 12.2, "2.1", "Scope")
	h3 := lineOf(72, 5.5, 2.8, 11.2, "3.1.1", "Fairies", "of", "the") // 12 pt over 11
	parens := lineOf(72, 5.2, 2.5, 10.9, "(a)", "This", "ammunition,", "and", "that", "which", "I", "brought", "with", "me,", "was", "rapidly")
	next := lineOf(72, 5, 2.5, 9.8, "prepared", "for", "use", "at", "the", "Laboratory", "established", "at", "the", "Little", "Rock")
	for _, c := range []struct {
		name string
		a, b pdfLine
		want bool
	}{
		{"heading above a paragraph", head, body, true},
		{"a paragraph above a heading", body, head, true},
		{"a short heading", short, body, true},
		{"a heading 9% larger", h3, body, true},
		{"a parenthesis", parens, next, false},
		{"one size", body, next, false},
	} {
		if got := sizeApart(c.a, c.b); got != c.want {
			t.Errorf("%s: sizeApart = %v, want %v", c.name, got, c.want)
		}
	}
}

// Word's second-level bullet "o" starts an item where a tab sets it apart
// from its text, not where it is a word of the sentence.
func TestStartsItemLine(t *testing.T) {
	tab := lineOf(108, 5, 2.5, 11, "o", "The", "two", "spare", "units")
	tab.boxes[1][0] += 14 // the text at the next tab stop
	word := lineOf(72, 5, 2.5, 11, "o", "bien", "el", "otro")
	if !startsItemLine(tab) {
		t.Error(`"o" and a tab: no list item`)
	}
	if startsItemLine(word) {
		t.Error(`"o" as a word: a list item`)
	}
}

// A list item's block ends where a line starts left of its text after an
// item's short last line (the paragraph after the list); an item wrapped
// to the margin goes on.
func TestBreaksBlockAfterItem(t *testing.T) {
	item := block{textX: 108}
	last := lineOf(108, 5, 2.5, 11, "Access", "points", "on", "every", "floor.")
	para := lineOf(72, 5, 2.5, 11, "The", "old", "equipment", "is", "wiped", "and", "sent", "for", "recycling", "once", "the", "new", "units")
	full := lineOf(108, 5, 2.5, 11, "Access", "points", "on", "every", "floor", "of", "both", "buildings,", "with", "new")
	full.x1 = para.x1
	if !breaksBlock(item, last, para) {
		t.Error("the paragraph after a list went on the last item")
	}
	if breaksBlock(item, full, para) {
		t.Error("an item wrapped to the margin was cut")
	}
}

// A bare number below every other block of most pages is a page number
// even above the margin inMargin tells (LaTeX's at 0.87 of the page),
// and the list it parted goes on; a number on one page alone is kept.
func TestPageNumbersAboveTheMargin(t *testing.T) {
	page := func(n int, num string) pageBlocks {
		return pageBlocks{page: n, width: 612, height: 792, blocks: []block{
			{x0: 72, y0: 100, x1: 540, y1: 600, lines: []string{"Some text of the page."}, lineHeight: 11},
			{x0: 300, y0: 690, x1: 306, y1: 700, lines: []string{num}, lineHeight: 11},
		}}
	}
	pages := []pageBlocks{page(1, "1"), page(2, "2"), page(3, "3")}
	got := pageNumbers(pages)
	for _, p := range pages {
		if !got[pageBox{p.page, 300, 690}] {
			t.Errorf("page %d: its number is not a page number", p.page)
		}
	}
	els := order(pages)
	for _, e := range els {
		if isPageNumber(e.Text) && !e.Excluded {
			t.Errorf("page %d: the page number %q is in the text", e.Page, e.Text)
		}
	}
	one := []pageBlocks{page(1, "42"), page(2, "Some words"), page(3, "More words")}
	if got := pageNumbers(one); len(got) > 0 {
		t.Errorf("a number on one page of three: %v, want none", got)
	}
}

// A title set 1.2 times the body's size (Word's Title of 16 pt over a
// body of 12), the first and largest block, is the title; a block as
// large further on makes it no title.
func TestTitleBelowHeadingSize(t *testing.T) {
	doc := func(other float64) []pageBlocks {
		return []pageBlocks{{page: 1, width: 612, height: 792, blocks: []block{
			{x0: 72, y0: 72, x1: 300, y1: 90, lines: []string{"Annual Maintenance Report"}, lineHeight: 14.5},
			{x0: 72, y0: 100, x1: 540, y1: 300, lines: []string{"a", "b", "c", "d", "e", "f"}, lineHeight: 11.4},
			{x0: 72, y0: 320, x1: 300, y1: 335, lines: []string{"Inspections"}, lineHeight: other},
			{x0: 72, y0: 340, x1: 540, y1: 500, lines: []string{"g", "h", "i", "j"}, lineHeight: 11.4},
		}}}
	}
	els := order(doc(13))
	if els[0].Type != "title" || els[0].Level != 1 {
		t.Errorf("the first block: %s at level %d, want the title", els[0].Type, els[0].Level)
	}
	if _, ok := titleBlock(doc(14.5), 11.4); ok {
		t.Error("a block as large as the first made it a title")
	}
}

// pdftotext sets a LaTeX section's number in a block of its own (a quad
// stands between "1" and its title): it goes back before the title.
func TestJoinSectionNumbers(t *testing.T) {
	bs := []block{
		{x0: 72, y0: 100, x1: 78, y1: 112, lines: []string{"1"}, lineHeight: 12},
		{x0: 96, y0: 100, x1: 220, y1: 112, lines: []string{"Introduction"}, lineHeight: 12},
		{x0: 72, y0: 130, x1: 540, y1: 200, lines: []string{"The first paragraph", "goes on."}, lineHeight: 10},
		{x0: 300, y0: 760, x1: 306, y1: 770, lines: []string{"3"}, lineHeight: 10},
	}
	got := joinSectionNumbers(bs)
	if len(got) != 3 || got[0].lines[0] != "1 Introduction" || got[0].x0 != 72 {
		t.Errorf("got %+v, want the number before its title and the page number alone", got)
	}
}

// Only a section number joins the block to its right, and only a block
// whose first line is of its size, on its baseline and starts as a
// heading does: not a letter set apart from its word, a drop cap, a
// number cell before a cell in lower case, or a number beside a line it
// does not stand on.
func TestJoinSectionNumbersOnlyNumbers(t *testing.T) {
	for _, c := range []struct {
		name   string
		number block
		right  block
		want   string // the right block's first line after; "" kept apart
	}{
		{"letter set apart", block{x0: 72, y0: 100, x1: 80, y1: 112, lines: []string{"T"}, lineHeight: 12},
			block{x0: 84, y0: 100, x1: 300, y1: 136, lines: []string{"he quick brown fox", "jumps over", "the dog."}, lineHeight: 12}, ""},
		{"drop cap", block{x0: 72, y0: 100, x1: 90, y1: 124, lines: []string{"T"}, lineHeight: 24},
			block{x0: 94, y0: 100, x1: 300, y1: 136, lines: []string{"HE QUICK brown fox", "jumps over", "the dog."}, lineHeight: 12}, ""},
		{"number cell", block{x0: 72, y0: 100, x1: 84, y1: 112, lines: []string{"12"}, lineHeight: 12},
			block{x0: 96, y0: 100, x1: 200, y1: 112, lines: []string{"units sold"}, lineHeight: 12}, ""},
		{"off the baseline", block{x0: 72, y0: 100, x1: 84, y1: 112, lines: []string{"12"}, lineHeight: 12},
			block{x0: 96, y0: 106, x1: 200, y1: 118, lines: []string{"Apples"}, lineHeight: 12}, ""},
		{"section", block{x0: 72, y0: 100, x1: 90, y1: 112, lines: []string{"2.3"}, lineHeight: 12},
			block{x0: 104, y0: 100, x1: 200, y1: 112, lines: []string{"Results"}, lineHeight: 12}, "2.3 Results"},
		{"appendix", block{x0: 72, y0: 100, x1: 90, y1: 112, lines: []string{"A.1"}, lineHeight: 12},
			block{x0: 104, y0: 100, x1: 200, y1: 112, lines: []string{"Proofs"}, lineHeight: 12}, "A.1 Proofs"},
		{"lettered", block{x0: 72, y0: 100, x1: 84, y1: 112, lines: []string{"B."}, lineHeight: 12},
			block{x0: 96, y0: 100, x1: 200, y1: 112, lines: []string{"“Related” work"}, lineHeight: 12}, "B. “Related” work"},
	} {
		got := joinSectionNumbers([]block{c.number, c.right})
		switch {
		case c.want == "" && len(got) != 2:
			t.Errorf("%s: %q joined to %q", c.name, c.number.lines[0], c.right.lines[0])
		case c.want != "" && (len(got) != 1 || got[0].lines[0] != c.want || got[0].x0 != c.number.x0):
			t.Errorf("%s: got %+v, want one block %q", c.name, got, c.want)
		}
	}
}

// Poppler hands LaTeX's \bullet (cmsy10, no Unicode value) over as
// U+0088: before a line's text it is a list's bullet, written as •, and
// its tall box makes no heading.
func TestUnmappedBullet(t *testing.T) {
	if !listMarker("\u0088 In 1942, the Tower Building was renovated") {
		t.Error("U+0088 before a line's text: no list marker")
	}
	if got := bulletText("  \u0088 In 1942"); got != "  • In 1942" {
		t.Errorf("bulletText = %q, want %q", got, "  • In 1942")
	}
	if !unmappedStart("\u0088 In 1942") || unmappedStart("In 1942") {
		t.Error("unmappedStart is wrong")
	}
}
