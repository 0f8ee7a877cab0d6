package officedoc

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// maxRepeat bounds a cell or row repeated by number-columns-repeated or
// number-rows-repeated (spreadsheets repeat empty cells to the sheet's
// edge: a million rows); only repeats of a non-empty cell are expanded,
// and every cell they make is counted against the document's Limits. A
// repeat still moves the cells after it by its whole count (within
// maxPosition), so that they keep their references.
const (
	maxRepeat   = 1000
	maxPosition = 1 << 24
)

// odfElements reads an OpenDocument text (ODT), spreadsheet (ODS) or
// presentation (ODP) from its content.xml: headings with their outline
// levels, paragraphs (the "Title" style as the title), list items with
// their nesting (numbered or bulleted by their list style), tables;
// sheets as "## Sheet N: name" and a table; slides as "## Slide N:
// title", their text as list items and their notes as a caption.
func odfElements(a *archive) ([]gochunk.Element, error) {
	numbered := map[string]map[int]bool{}
	for _, part := range []string{"styles.xml", "content.xml"} {
		if !a.has(part) {
			continue
		}
		data, err := a.part(part)
		if err != nil {
			return nil, err
		}
		var style string
		err = walkXML(part, data, func(t xml.Token) error {
			e, ok := t.(xml.StartElement)
			if !ok {
				return nil
			}
			switch e.Name.Local {
			case "list-style":
				style = attr(e, "name")
				numbered[style] = map[int]bool{}
			case "list-level-style-number", "list-level-style-bullet":
				if lv, err := strconv.Atoi(attr(e, "level")); err == nil && numbered[style] != nil {
					numbered[style][lv] = e.Name.Local == "list-level-style-number" && attr(e, "num-format") != ""
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	data, err := a.part("content.xml")
	if err != nil {
		return nil, err
	}
	r := &odfReader{d: a.d, numbered: numbered}
	if err := walkXML("content.xml", data, r.token); err != nil {
		return nil, err
	}
	for i, note := range r.footnotes {
		r.add(gochunk.Element{Type: "footnote", Text: "[^" + strconv.Itoa(i+1) + "]: " + note})
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.els, nil
}

type odfReader struct {
	d        *doc
	numbered map[string]map[int]bool
	els      []gochunk.Element
	err      error

	kind       string // text, spreadsheet or presentation
	text       strings.Builder
	block      string   // the open p or h: "p", "h"
	level      int      // an h's outline level
	style      string   // the open p's style
	lists      []string // open lists' styles, outermost first
	counters   []int
	lastTop    int // the last outermost list's count, for a list that continues it
	skip       int // inside notes, annotations: not the text
	tables     int
	table      *mdtable.Table
	row, col   int // the open row's and cell's positions
	cell       strings.Builder
	cellRepeat int
	rowRepeat  int
	sheets     int
	page       int
	pageTitle  string
	pageStart  int
	frameClass string
	inNotes    bool
	notes      []string
	sheetName  string

	// Footnotes and endnotes (text:note): read as pandoc writes them, a
	// marker "[^1]" where the note stands and the note, "[^1]: text", at
	// the end of the document. Comments (office:annotation) are not read.
	inNote    int             // inside a text:note
	noteBody  int             // inside its text:note-body (not its citation)
	noteText  strings.Builder // the note's paragraph being read
	noteParas []string        // the note's paragraphs so far
	footnotes []string        // the notes read, in order
}

// sink is where text read now goes: the open note's paragraph, the open
// block's text, or nowhere (nil: an annotation, text outside blocks).
func (r *odfReader) sink() *strings.Builder {
	switch {
	case r.inNote > 0:
		if r.noteBody > 0 {
			return &r.noteText
		}
		return nil
	case r.block != "" && r.skip == 0:
		return &r.text
	}
	return nil
}

// add appends elements, counted against the budget; the first bound
// passed stops the read.
func (r *odfReader) add(es ...gochunk.Element) {
	if r.err == nil {
		r.err = r.d.emit(&r.els, es...)
	}
}

func (r *odfReader) token(t xml.Token) error {
	switch e := t.(type) {
	case xml.StartElement:
		r.start(e)
	case xml.CharData:
		if w := r.sink(); w != nil {
			w.Write(e)
		}
	case xml.EndElement:
		r.end(e.Name.Local)
	}
	return r.err
}

func (r *odfReader) start(e xml.StartElement) {
	switch e.Name.Local {
	case "text", "spreadsheet", "presentation":
		if e.Name.Space != "" && strings.Contains(e.Name.Space, "office") {
			r.kind = e.Name.Local
		}
	case "note", "annotation", "tracked-changes":
		r.skip++
		if e.Name.Local == "note" && strings.Contains(e.Name.Space, "text") {
			if r.inNote++; r.inNote == 1 {
				r.noteText.Reset()
				r.noteParas = r.noteParas[:0]
			}
		}
	case "note-body":
		if r.inNote > 0 {
			r.noteBody++
		}
	case "h", "p":
		if e.Name.Space != "" && strings.Contains(e.Name.Space, "text") && r.block == "" && r.skip == 0 {
			r.block, r.style = e.Name.Local, attr(e, "style-name")
			r.level, _ = strconv.Atoi(attr(e, "outline-level"))
			r.text.Reset()
		}
	case "s":
		if w := r.sink(); w != nil {
			n, err := strconv.Atoi(attr(e, "c"))
			if err != nil || n < 1 {
				n = 1
			}
			w.WriteString(strings.Repeat(" ", min(n, 100)))
		}
	case "tab":
		if w := r.sink(); w != nil {
			w.WriteByte('\t')
		}
	case "line-break":
		if w := r.sink(); w != nil {
			w.WriteByte('\n')
		}
	case "list":
		style := attr(e, "style-name")
		if style == "" && len(r.lists) > 0 {
			style = r.lists[len(r.lists)-1]
		}
		r.lists = append(r.lists, style)
		// A list that continues the one before it (continue-numbering,
		// or ODF 1.2's continue-list, as LibreOffice writes a numbered
		// list a paragraph interrupts) counts on from it.
		n := 0
		if len(r.lists) == 1 && (attr(e, "continue-numbering") == "true" || attr(e, "continue-list") != "") {
			n = r.lastTop
		}
		r.counters = append(r.counters, n)
	case "list-item":
		// An item that restarts its list's numbering (start-value).
		if v, err := strconv.Atoi(attr(e, "start-value")); err == nil && len(r.counters) > 0 && v >= 0 && v < 1<<20 {
			r.counters[len(r.counters)-1] = v - 1
		}
	case "table":
		if strings.Contains(e.Name.Space, "table") {
			if r.tables++; r.tables == 1 {
				r.table, r.row, r.sheetName = r.d.newTable(), 0, attr(e, "name")
			}
		}
	case "table-row":
		if r.tables == 1 {
			r.rowRepeat = repeat(attr(e, "number-rows-repeated"))
			r.col = 0
		}
	case "table-cell", "covered-table-cell":
		if r.tables == 1 {
			r.cell.Reset()
			r.cellRepeat = repeat(attr(e, "number-columns-repeated"))
		}
	case "page":
		if r.kind == "presentation" {
			r.page++
			r.pageTitle, r.pageStart, r.notes = "", len(r.els), nil
			r.els = append(r.els, gochunk.Element{}) // the slide's heading, named at its end
		}
	case "frame":
		r.frameClass = attr(e, "class")
	case "notes":
		r.inNotes = true
	}
}

func (r *odfReader) end(local string) {
	switch local {
	case "note", "annotation", "tracked-changes":
		r.skip--
		if local == "note" && r.inNote > 0 {
			if r.inNote--; r.inNote == 0 {
				r.noteBody = 0
				if text := strings.Join(r.noteParas, "\n"); text != "" && r.block != "" && r.skip == 0 {
					r.footnotes = append(r.footnotes, text)
					r.text.WriteString("[^" + strconv.Itoa(len(r.footnotes)) + "]")
				}
			}
		}
	case "note-body":
		if r.inNote > 0 && r.noteBody > 0 {
			r.noteBody--
		}
	case "h", "p":
		if r.inNote > 0 {
			// A paragraph of a note.
			if t := oneLine(r.noteText.String()); t != "" {
				r.noteParas = append(r.noteParas, t)
			}
			r.noteText.Reset()
			return
		}
		if r.block != local || r.skip > 0 {
			return // a paragraph of an annotation or of tracked changes: not the block's end
		}
		r.block = ""
		text := strings.TrimSpace(r.text.String())
		if text == "" {
			return
		}
		switch {
		case r.tables > 0:
			if r.cell.Len() > 0 {
				r.cell.WriteByte(' ')
			}
			r.cell.WriteString(text)
		case r.inNotes:
			r.notes = append(r.notes, oneLine(text))
		case r.kind == "presentation" && (r.frameClass == "title" || r.frameClass == "subtitle") && r.pageTitle == "":
			r.pageTitle = oneLine(text)
		case r.kind == "presentation":
			r.add(gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", max(len(r.lists)-1, 0)) + "- " + oneLine(text), Page: r.page})
		case local == "h":
			r.add(heading(max(r.level, 1), text))
		case r.style == "Title":
			r.add(heading(1, text))
		case len(r.lists) > 0:
			depth := len(r.lists) - 1
			marker := "- "
			if r.numbered[r.lists[depth]][depth+1] {
				r.counters[depth]++
				marker = strconv.Itoa(r.counters[depth]) + ". "
			}
			r.add(gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", depth) + marker + oneLine(text)})
		default:
			r.add(gochunk.Element{Type: "paragraph", Text: text})
		}
	case "list":
		if n := len(r.lists); n > 0 {
			if n == 1 {
				r.lastTop = r.counters[0]
			}
			r.lists, r.counters = r.lists[:n-1], r.counters[:n-1]
		}
	case "table-cell", "covered-table-cell":
		if r.tables != 1 || r.err != nil {
			return
		}
		// A cell repeated across columns: each repeat of a cell with
		// text is a cell (at most maxRepeat of them), counted; empty
		// ones only move the cells after them.
		if text := cell(r.cell.String()); text != "" {
			for k := range min(r.cellRepeat, maxRepeat) {
				if r.err = r.table.Add(r.row, r.col+k, text); r.err != nil {
					return
				}
			}
		}
		r.col = min(r.col+r.cellRepeat, maxPosition)
	case "table-row":
		if r.tables != 1 || r.err != nil {
			return
		}
		// A row repeated down the sheet: each repeat of a row with text
		// is a row (at most maxRepeat of them) sharing its cells, each
		// cell counted.
		if cells := r.table.Row(r.row); len(cells) > 0 {
			for k := 1; k < min(r.rowRepeat, maxRepeat); k++ {
				if r.err = r.table.AddRow(r.row+k, cells); r.err != nil {
					return
				}
			}
		}
		r.row = min(r.row+r.rowRepeat, maxPosition)
	case "table":
		if r.tables == 0 {
			return
		}
		if r.tables--; r.tables > 0 || r.err != nil {
			return
		}
		if r.kind == "spreadsheet" {
			r.sheets++
			h := heading(2, fmt.Sprintf("Sheet %d: %s", r.sheets, r.sheetName))
			h.Page = r.sheets
			r.add(h)
			if r.err == nil {
				r.err = r.d.writeTable(&r.els, r.table, r.sheets, true)
			}
			return
		}
		r.err = r.d.writeTable(&r.els, r.table, r.page, false)
	case "frame":
		r.frameClass = ""
	case "notes":
		r.inNotes = false
	case "page":
		if r.kind != "presentation" {
			return
		}
		h := fmt.Sprintf("Slide %d", r.page)
		if r.pageTitle != "" {
			h += ": " + r.pageTitle
		}
		el := heading(2, h)
		el.Page = r.page
		r.els[r.pageStart] = el
		if r.err == nil {
			r.err = r.d.budget.Text(int64(len(el.Text)) + 2)
		}
		if len(r.notes) > 0 {
			r.add(gochunk.Element{Type: "caption", Text: "Notes: " + strings.Join(r.notes, " "), Page: r.page})
		}
	}
}

// repeat reads a number-…-repeated attribute (1 when absent).
func repeat(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 1
	}
	return n
}
