// Package layout holds the document-element model's tools and the S2
// layout chunker: elements from PDFs (through Poppler), from the JSON of
// layout tools (Unstructured, Docling, PyMuPDF, or gochunk's own), or
// derived from plain text; and S2 Chunking, spectral clustering over a
// graph weighted by spatial proximity and semantic similarity.
package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/segment"
)

// ErrElements reports unusable element input.
var ErrElements = errors.New("bad layout elements")

// Assemble joins the texts of the elements that are not excluded, in
// order, separated by blank lines, into the document text, and sets every
// element's offsets in it. The result is what chunk offsets refer to.
func Assemble(els []gochunk.Element) (string, []gochunk.Element) {
	var sb strings.Builder
	out := make([]gochunk.Element, len(els))
	copy(out, els)
	for i := range out {
		out[i].Order = i
		out[i].Text = trimElement(out[i].Type, out[i].Text)
		if out[i].Level == 0 {
			out[i].Level = level(out[i].Type, out[i].Text)
		}
		if out[i].Excluded || out[i].Text == "" {
			out[i].Excluded = true
			out[i].Start, out[i].End = 0, 0
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		out[i].Start = sb.Len()
		sb.WriteString(out[i].Text)
		out[i].End = sb.Len()
	}
	text := sb.String()
	conv := runeoff.New(text)
	for i := range out {
		if !out[i].Excluded {
			out[i].StartRune, out[i].EndRune = conv.Rune(out[i].Start), conv.Rune(out[i].End)
		}
	}
	return text, out
}

// trimElement trims an element's text of white space, except a list
// item's indentation (its nesting, as markdown writes it: "  - nested").
func trimElement(typ, text string) string {
	t := strings.TrimSpace(text)
	if typ != "list_item" || t == "" || t == text {
		return t
	}
	lead := text[:strings.Index(text, t)]
	if i := strings.LastIndexAny(lead, "\r\n"); i >= 0 {
		lead = lead[i+1:]
	}
	if strings.Trim(lead, " \t") != "" { // other white space: not an indentation
		return t
	}
	return lead + t
}

// level returns the level an element's markdown text gives it: a
// heading's number of "#", a list item's nesting (1 + its indentation in
// columns / 2, a tab being 4); 0 for other elements.
func level(typ, text string) int {
	switch typ {
	case "title", "heading":
		n := 0
		for n < len(text) && n < 7 && text[n] == '#' {
			n++
		}
		if n >= 1 && n <= 6 && (n == len(text) || text[n] == ' ') {
			return n
		}
		if typ == "title" {
			return 1
		}
	case "list_item":
		cols := 0
		for _, c := range text {
			switch c {
			case ' ':
				cols++
			case '\t':
				cols += 4
			default:
				return 1 + cols/2
			}
		}
	}
	return 0
}

// inText returns the elements of text in text order, ready for chunking:
// excluded elements are left out; the others must lie inside text, start
// and end on character boundaries and not overlap; and text that no
// element covers (other than white space) becomes an element of type
// "text" placed like the element before it, so that nothing of the text is
// lost. The text's order is the reading order.
func inText(text string, els []gochunk.Element) ([]gochunk.Element, error) {
	out := make([]gochunk.Element, 0, len(els))
	for i, e := range els {
		if e.Excluded {
			continue
		}
		if e.Start < 0 || e.End > len(text) || e.Start > e.End {
			return nil, fmt.Errorf("%w: element %d has offsets [%d,%d) outside the text of %d bytes", ErrElements, i, e.Start, e.End, len(text))
		}
		if !boundary(text, e.Start) || !boundary(text, e.End) {
			return nil, fmt.Errorf("%w: element %d has offsets [%d,%d) inside a character", ErrElements, i, e.Start, e.End)
		}
		if e.End > e.Start {
			e.Order = i
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Start < out[b].Start })
	for k := 1; k < len(out); k++ {
		if out[k].Start < out[k-1].End {
			return nil, fmt.Errorf("%w: elements %d and %d overlap in the text", ErrElements, out[k-1].Order, out[k].Order)
		}
	}
	gap := func(a, b int, like gochunk.Element) (gochunk.Element, bool) {
		if strings.TrimSpace(text[a:b]) == "" {
			return gochunk.Element{}, false
		}
		return gochunk.Element{Type: "text", Text: text[a:b], Page: like.Page, BBox: like.BBox,
			PageWidth: like.PageWidth, PageHeight: like.PageHeight, Order: like.Order, Start: a, End: b}, true
	}
	full := make([]gochunk.Element, 0, len(out))
	prev := 0
	for k, e := range out {
		like := e
		if k > 0 {
			like = out[k-1]
		}
		if g, ok := gap(prev, e.Start, like); ok {
			full = append(full, g)
		}
		full = append(full, e)
		prev = e.End
	}
	if len(out) > 0 {
		if g, ok := gap(prev, len(text), out[len(out)-1]); ok {
			full = append(full, g)
		}
	} else if g, ok := gap(0, len(text), gochunk.Element{Page: 1}); ok {
		full = append(full, g)
	}
	return full, nil
}

func boundary(text string, i int) bool {
	return i == len(text) || utf8.RuneStart(text[i])
}

// Validate checks elements: finite, non-negative box sizes and some text.
func Validate(els []gochunk.Element) error {
	text := false
	for i, e := range els {
		for _, v := range e.BBox {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: element %d has a bounding box with NaN or infinite coordinates %v", ErrElements, i, e.BBox)
			}
		}
		if e.BBox[2] < e.BBox[0] || e.BBox[3] < e.BBox[1] {
			return fmt.Errorf("%w: element %d has a bounding box of negative size %v (want x0 <= x1, y0 <= y1)", ErrElements, i, e.BBox)
		}
		if e.Page < 0 {
			return fmt.Errorf("%w: element %d has page %d", ErrElements, i, e.Page)
		}
		if strings.TrimSpace(e.Text) != "" && !e.Excluded {
			text = true
		}
	}
	if !text && len(els) > 0 {
		return fmt.Errorf("%w: no element has text", ErrElements)
	}
	return nil
}

// rawElement accepts the field names of gochunk, Unstructured, Docling
// (texts items) and PyMuPDF blocks.
type rawElement struct {
	Type     string          `json:"type"`
	Category string          `json:"category"`
	Label    string          `json:"label"`
	Text     string          `json:"text"`
	Page     int             `json:"page"`
	PageNo   int             `json:"page_number"`
	BBox     json.RawMessage `json:"bbox"`
	PageW    float64         `json:"page_width"`
	PageH    float64         `json:"page_height"`
	Excluded bool            `json:"excluded"`
	Level    int             `json:"level"`
	Metadata *struct {
		PageNumber    int  `json:"page_number"`
		CategoryDepth *int `json:"category_depth"`
		Coordinates   *struct {
			Points       [][]float64 `json:"points"`
			LayoutWidth  float64     `json:"layout_width"`
			LayoutHeight float64     `json:"layout_height"`
		} `json:"coordinates"`
	} `json:"metadata"`
	Prov []struct {
		PageNo int             `json:"page_no"`
		BBox   json.RawMessage `json:"bbox"`
	} `json:"prov"`
}

// ParseElements reads elements from JSON: an array, an object with an
// "elements" (or Docling "texts") array, or JSON Lines. Field names of
// Unstructured (type, text, metadata.page_number,
// metadata.coordinates.points), Docling (label, text, prov[].page_no,
// prov[].bbox l/t/r/b) and PyMuPDF (bbox [x0, y0, x1, y1]) are accepted.
func ParseElements(data []byte) ([]gochunk.Element, error) {
	data = bytes.TrimSpace(data)
	var raws []rawElement
	var wrap struct {
		Elements []rawElement `json:"elements"`
		Texts    []rawElement `json:"texts"`
	}
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrElements, err)
		}
	case json.Unmarshal(data, &wrap) == nil && (wrap.Elements != nil || wrap.Texts != nil):
		raws = append(wrap.Elements, wrap.Texts...)
	default: // JSON Lines, one element per line
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var r rawElement
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrElements, line, err)
			}
			raws = append(raws, r)
		}
	}
	out := make([]gochunk.Element, 0, len(raws))
	for i, r := range raws {
		e := gochunk.Element{Type: normType(firstNonEmpty(r.Type, r.Category, r.Label)), Text: r.Text, Page: max(r.Page, r.PageNo),
			PageWidth: r.PageW, PageHeight: r.PageH, Excluded: r.Excluded, Level: max(r.Level, 0)}
		if bb, err := parseBBox(r.BBox); err != nil {
			return nil, fmt.Errorf("%w: element %d: %v", ErrElements, i, err)
		} else if bb != nil {
			e.BBox = *bb
		}
		if m := r.Metadata; m != nil {
			e.Page = max(e.Page, m.PageNumber)
			if d := m.CategoryDepth; d != nil && *d >= 0 && e.Level == 0 {
				e.Level = *d + 1 // Unstructured counts from 0
			}
			if c := m.Coordinates; c != nil && len(c.Points) > 0 {
				x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
				for _, p := range c.Points {
					if len(p) >= 2 {
						x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
					}
				}
				e.BBox = [4]float64{x0, y0, x1, y1}
				e.PageWidth, e.PageHeight = c.LayoutWidth, c.LayoutHeight
			}
		}
		if len(r.Prov) > 0 {
			e.Page = max(e.Page, r.Prov[0].PageNo)
			if bb, err := parseBBox(r.Prov[0].BBox); err == nil && bb != nil {
				e.BBox = *bb
			}
		}
		if e.Page == 0 {
			e.Page = 1
		}
		out = append(out, e)
	}
	if err := Validate(out); err != nil {
		return nil, err
	}
	return out, nil
}

// parseBBox reads [x0, y0, x1, y1] or Docling's {"l", "t", "r", "b"}
// (with coord_origin BOTTOMLEFT turned to y downwards is not possible
// without the page height, so t and b are taken as given, ordered).
func parseBBox(raw json.RawMessage) (*[4]float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var arr []float64
	if err := json.Unmarshal(raw, &arr); err == nil {
		if len(arr) != 4 {
			return nil, fmt.Errorf("bbox has %d numbers, want 4", len(arr))
		}
		return &[4]float64{arr[0], arr[1], arr[2], arr[3]}, nil
	}
	var o struct{ L, T, R, B float64 }
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("bbox is neither [x0, y0, x1, y1] nor {l, t, r, b}")
	}
	return &[4]float64{o.L, min(o.T, o.B), o.R, max(o.T, o.B)}, nil
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// normType maps the element types of layout tools to gochunk's.
func normType(t string) string {
	switch strings.ToLower(strings.ReplaceAll(t, " ", "_")) {
	case "title":
		return "title"
	case "heading", "header_title", "section_header", "section-header", "subtitle":
		return "heading"
	case "listitem", "list_item", "list-item":
		return "list_item"
	case "table":
		return "table"
	case "figure", "image", "picture":
		return "figure"
	case "figurecaption", "caption", "figure_caption", "table_caption":
		return "caption"
	case "header", "page_header", "page-header":
		return "header"
	case "footer", "page_footer", "page-footer", "pagenumber", "page_number":
		return "footer"
	case "paragraph", "narrativetext", "narrative_text", "text", "uncategorizedtext", "":
		return "paragraph"
	}
	return strings.ToLower(t)
}

// FromText derives elements, with their offsets in text, from plain text
// or markdown: every
// blank-line-separated paragraph is an element (a heading when it is a
// markdown heading or a short line without a final period, a list item
// when it starts with a bullet or a number), on page 1, with synthetic
// positions: one column 600 units wide, 12 units per line, paragraphs
// stacked top to bottom, each as wide as its longest line (at 6 units per
// character). Spatial proximity then reflects distance in the text.
func FromText(text string) []gochunk.Element {
	var out []gochunk.Element
	conv := runeoff.New(text)
	y := 0.0
	for _, p := range segment.Paragraphs(text) {
		raw := text[p.Start:p.End]
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		start := p.Start + strings.Index(raw, t)
		lines := strings.Split(t, "\n")
		widest := 0
		for _, l := range lines {
			widest = max(widest, len([]rune(l)))
		}
		h := 12 * float64(len(lines))
		typ := "paragraph"
		switch {
		case strings.HasPrefix(t, "#"):
			typ = "heading"
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "• ") || startsNumbered(t):
			typ = "list_item"
		case len(lines) == 1 && len([]rune(t)) < 80 && !strings.HasSuffix(t, ".") && unicode.IsUpper(firstRune(t)):
			typ = "heading"
		}
		out = append(out, gochunk.Element{Type: typ, Text: t, Page: 1, BBox: [4]float64{0, y, min(600, 6*float64(widest)), y + h}, PageWidth: 600,
			Order: len(out), Start: start, End: start + len(t), StartRune: conv.Rune(start), EndRune: conv.Rune(start + len(t))})
		y += h + 12
	}
	for i := range out {
		out[i].PageHeight = max(y, 1)
	}
	return out
}

func startsNumbered(t string) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}
