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
