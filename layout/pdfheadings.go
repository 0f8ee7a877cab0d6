package layout

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
)

// Headings and list items of a PDF, from what its text looks like: a
// heading is set larger than the body text, or numbered as sections are
// ("2.1 Training", "A. Scope", "IV. Results") and not smaller than the
// body; its level is its numbering's depth, else the rank of its size
// among the document's heading sizes. A list item starts with a bullet
// or a list number, and nests by its indentation under the items above it.

// sectionRe matches a section number and the heading's first letter.
var sectionRe = regexp.MustCompile(`^(?:(\d{1,2}(?:\.\d{1,2}){0,5})\.?|([A-Z])\.|([IVX]{1,5})\.)\s+\S`)

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
	if len(b.lines) > 2 || len(strings.Fields(text)) > 14 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(text)
	return last != ',' && last != ';' && (last != '.' || strings.HasSuffix(text, "..."))
}

// bulletRunes are the markers a bulleted item starts with (not an em
// dash, which opens a quotation's attribution).
const bulletRunes = "•●○◦▪▫■□‣⁃∙·◆◇►▶➢➤✓✔❖-–*"

// listMarker reports whether text starts with a list item's marker: a
// bullet, or a number or letter with a period or parenthesis, then a
// space.
func listMarker(text string) bool {
	r, n := utf8.DecodeRuneInString(text)
	if strings.ContainsRune(bulletRunes, r) {
		return n < len(text) && (text[n] == ' ' || r != '-' && r != '*' && r != '–')
	}
	return listNumberRe.MatchString(text)
}

var listNumberRe = regexp.MustCompile(`^(?:\d{1,3}[.)]|\(\d{1,2}\)|[a-z][.)]|\([a-z]\)|[ivx]{1,4}[.)])\s`)

// startsItem reports whether a line's first word is a list marker alone
// (a bullet, "1.", "a)"), which starts a block of its own.
func startsItem(words []string) bool {
	if len(words) < 2 {
		return false
	}
	return listMarker(words[0] + " " + words[1])
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

// setLevels gives headings their levels (numbered ones their numbering's
// depth, the others the rank of their size among the headings' sizes,
// sizes within 5% one rank; one more under a title, which is 1) and list items theirs (1, and
// one more for each indentation past the item above, within a run of
// items on a page), indenting a nested item's text by two spaces a level
// as markdown does.
func setLevels(els []gochunk.Element, sizes []float64) {
	var distinct []float64
	for i, e := range els {
		if e.Type == "heading" && e.Level == 0 {
			distinct = append(distinct, sizes[i])
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(distinct)))
	var ranks []float64
	for _, s := range distinct {
		if len(ranks) == 0 || s < 0.95*ranks[len(ranks)-1] {
			ranks = append(ranks, s)
		}
	}
	titled := false
	for _, e := range els {
		titled = titled || e.Type == "title"
	}
	var indents []float64 // the current run of list items' indentations
	page := 0
	for i := range els {
		e := &els[i]
		switch e.Type {
		case "title":
			e.Level = 1
		case "heading":
			if e.Level == 0 {
				e.Level = sort.Search(len(ranks), func(k int) bool { return ranks[k] <= sizes[i]*1.0001 }) + 1
			}
			if titled {
				e.Level++ // under the title
			}
			e.Level = min(6, e.Level)
		case "list_item":
			if e.Page != page {
				indents, page = indents[:0], e.Page
			}
			x := e.BBox[0]
			for len(indents) > 0 && x < indents[len(indents)-1]-3 {
				indents = indents[:len(indents)-1]
			}
			if len(indents) == 0 || x > indents[len(indents)-1]+3 {
				indents = append(indents, x)
			}
			e.Level = len(indents)
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
// little larger (a single one, which list items share).
func numberedHeading(b block, text string, body float64) (int, bool) {
	depth, dotted, ok := sectionDepth(text)
	if !ok || body <= 0 || !headingLike(b, text) || len(b.lines) > 1 && !dotted {
		return 0, false
	}
	if dotted && b.lineHeight >= 0.97*body || b.lineHeight >= 1.1*body {
		return depth, true
	}
	return 0, false
}
