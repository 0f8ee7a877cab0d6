package layout

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// A PDF's outline (its bookmarks) names its sections as their author set
// them: where a PDF has one, the lines its titles match on the pages they
// point to are headings at the outline's levels, whatever their look
// suggests.

// outlineEntry is a bookmark: its title, its depth in the outline (1 at
// the top) and the page it points to (1 for the first; 0 when unknown).
type outlineEntry struct {
	title string
	level int
	page  int
}

// Bounds on the outline read: a PDF's bookmarks may loop (a sibling or a
// child pointing back), so the walk stops at these.
const (
	maxOutlineEntries = 4096
	maxOutlineDepth   = 16
	// A title whose page is unknown is looked for in this many elements
	// after the last title's, so that a long outline of such titles stays
	// linear in a long document.
	maxOutlineScan = 2000
)

// readOutline returns a document's outline in order, depth first; none
// where it has none or PDFium cannot read it.
func readOutline(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT) []outlineEntry {
	var out []outlineEntry
	calls := 0
	var walk func(parent *references.FPDF_BOOKMARK, level int)
	walk = func(parent *references.FPDF_BOOKMARK, level int) {
		if level > maxOutlineDepth {
			return
		}
		c, err := inst.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: doc, Bookmark: parent})
		if err != nil || c.Bookmark == nil {
			return
		}
		bm := *c.Bookmark
		for calls < maxOutlineEntries {
			calls++
			e := outlineEntry{level: level, page: bookmarkPage(inst, doc, bm)}
			if t, err := inst.FPDFBookmark_GetTitle(&requests.FPDFBookmark_GetTitle{Bookmark: bm}); err == nil {
				e.title = strings.Join(strings.Fields(t.Title), " ")
			}
			if e.title != "" {
				out = append(out, e)
			}
			walk(&bm, level+1)
			n, err := inst.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: doc, Bookmark: bm})
			if err != nil || n.Bookmark == nil {
				return
			}
			bm = *n.Bookmark
		}
	}
	walk(nil, 1)
	return out
}

// bookmarkPage returns the page (from 1) a bookmark points to, by its
// destination or its go-to action's; 0 when it points nowhere known.
func bookmarkPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, bm references.FPDF_BOOKMARK) int {
	var dest *references.FPDF_DEST
	if d, err := inst.FPDFBookmark_GetDest(&requests.FPDFBookmark_GetDest{Document: doc, Bookmark: bm}); err == nil && d.Dest != nil {
		dest = d.Dest
	} else if a, err := inst.FPDFBookmark_GetAction(&requests.FPDFBookmark_GetAction{Bookmark: bm}); err == nil && a.Action != nil {
		if d, err := inst.FPDFAction_GetDest(&requests.FPDFAction_GetDest{Document: doc, Action: *a.Action}); err == nil && d.Dest != nil {
			dest = d.Dest
		}
	}
	if dest == nil {
		return 0
	}
	p, err := inst.FPDFDest_GetDestPageIndex(&requests.FPDFDest_GetDestPageIndex{Document: doc, Dest: *dest})
	if err != nil || p.Index < 0 {
		return 0
	}
	return p.Index + 1
}

// outlineKey is how a title and a line are compared: letters and digits
// only, lower-cased ("1.2 Scope" and "1.2. SCOPE" are one).
func outlineKey(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

// applyOutline makes the elements the outline's titles match headings at
// the outline's levels: an element (not excluded, not a table) whose text
// is a title, on the page the title points to (any page where it points
// nowhere known), each title matching its first such element after the
// one the title before it matched. A paragraph or list item that starts
// with a title followed by a new sentence (a heading set as the body text
// is, close above its paragraph) is cut in two. Under a title the outline
// does not hold, the outline's levels are one deeper. keys are the
// elements' sizes, for the boxes of the parts cut.
func applyOutline(els []gochunk.Element, keys []headingKey, outline []outlineEntry) []gochunk.Element {
	if len(outline) == 0 {
		return els
	}
	type match struct {
		el  int // element index+1
		cut int // bytes of its text the title takes, where it takes a part
	}
	matched := make([]match, len(outline))
	norm := make([]string, len(els))
	for i, e := range els {
		if !e.Excluded && e.Type != "table" && len(e.Text) <= 4096 {
			norm[i] = outlineKey(e.Text)
		}
	}
	from := 0
	for k, o := range outline {
		key := outlineKey(o.title)
		if key == "" {
			continue
		}
		end := len(els)
		if o.page == 0 {
			end = min(end, from+maxOutlineScan) // a title pointing nowhere is looked for nearby
		}
		for i := from; i < end; i++ {
			e := els[i]
			if norm[i] == "" || o.page != 0 && e.Page < o.page {
				continue
			}
			if o.page != 0 && e.Page > o.page {
				break
			}
			if norm[i] == key {
				matched[k] = match{el: i + 1}
				from = i + 1
				break
			}
			if len(key) >= 4 && (e.Type == "paragraph" || e.Type == "list_item") && strings.HasPrefix(norm[i], key) {
				if cut := titleCut(e.Text, key); cut > 0 {
					matched[k] = match{el: i + 1, cut: cut}
					from = i + 1
					break
				}
			}
		}
	}
	// A title the outline does not hold sits above its top level.
	shift := 0
	for i, e := range els {
		if e.Type != "title" {
			continue
		}
		held := false
		for _, m := range matched {
			held = held || m.el == i+1
		}
		if !held {
			shift = 1
		}
		break
	}
	byEl := map[int]int{} // element index → outline entry
	for k, m := range matched {
		if m.el != 0 {
			byEl[m.el-1] = k
		}
	}
	out := make([]gochunk.Element, 0, len(els)+len(byEl))
	for i, e := range els {
		k, ok := byEl[i]
		if !ok {
			out = append(out, e)
			continue
		}
		level := min(6, outline[k].level+shift)
		if cut := matched[k].cut; cut > 0 {
			rest := e
			rest.Text = strings.TrimSpace(e.Text[cut:])
			h := keys[i].size
			e.Text = e.Text[:cut]
			e.BBox[3] = min(e.BBox[3], e.BBox[1]+1.2*h)
			rest.BBox[1] = min(rest.BBox[3], rest.BBox[1]+1.2*h)
			e.Type, e.Level = "heading", level
			e.Text = strings.TrimSpace(e.Text)
			out = append(out, e, rest)
			continue
		}
		if e.Type != "title" || level != 1 {
			e.Type, e.Level = "heading", level
		}
		e.Text = strings.TrimSpace(e.Text) // a list item's indentation
		out = append(out, e)
	}
	return out
}

// titleCut returns where in text the title whose key is key ends, when
// text starts with it and a new sentence follows (a capital, a digit, a
// mark); 0 otherwise.
func titleCut(text, key string) int {
	n := 0
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !strings.HasPrefix(key[n:], string(unicode.ToLower(r))) {
				return 0
			}
			n += len(string(unicode.ToLower(r)))
			if n == len(key) {
				end := i + len(string(r))
				rest := strings.TrimSpace(text[end:])
				first, _ := utf8.DecodeRuneInString(rest)
				if rest == "" || unicode.IsLower(first) {
					return 0
				}
				return end
			}
		}
	}
	return 0
}
