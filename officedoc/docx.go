package officedoc

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// maxListLevel is the deepest list level read (Word's and PowerPoint's
// levels run from 0 to 8): a level is an indentation, so a larger one is
// not allowed to grow the text.
const maxListLevel = 8

// maxGridSpan is the most columns a Word table's cell spans (Word's
// tables have at most 63).
const maxGridSpan = 64

// docxStyle is what a paragraph style says about structure: a heading
// level (0 for none), or a title.
type docxStyle struct {
	level int
	title bool
	list  bool
	numID string // the list its paragraphs are items of (numPr)
	ilvl  int    // their list level: numPr's, else the name's ("List Bullet 2": 1)

	basedOn  string // the style it inherits from
	outlined bool   // it sets its own outline level (9: body text)
	ownIlvl  bool   // it sets its own list level
}

// docxStyles reads word/styles.xml: a heading is a style named "heading
// N" (Word's built-in names are English whatever the language of the
// document) or with an outline level; "Title" is the title.
func docxStyles(a *archive) (map[string]docxStyle, error) {
	out := map[string]docxStyle{}
	if !a.has("word/styles.xml") {
		return out, nil
	}
	data, err := a.part("word/styles.xml")
	if err != nil {
		return nil, err
	}
	var id string
	var st docxStyle
	err = walkXML("word/styles.xml", data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "style":
				id, st = attr(e, "styleId"), docxStyle{}
			case "name":
				name := strings.ToLower(attr(e, "val"))
				if n, ok := strings.CutPrefix(name, "heading "); ok {
					if lv, err := strconv.Atoi(n); err == nil {
						st.level = lv
					}
				}
				st.title = name == "title"
				st.list = strings.HasPrefix(name, "list")
				if f := strings.Fields(name); st.list && len(f) == 3 && st.ilvl == 0 {
					if n, err := strconv.Atoi(f[2]); err == nil && n > 1 {
						st.ilvl = min(n-1, maxListLevel)
					}
				}
			case "basedOn":
				st.basedOn = attr(e, "val")
			case "numId":
				st.numID = attr(e, "val")
			case "ilvl":
				if n, err := strconv.Atoi(attr(e, "val")); err == nil {
					st.ilvl = min(max(n, 0), maxListLevel)
					st.ownIlvl = true
				}
			case "outlineLvl":
				st.outlined = true
				if lv, err := strconv.Atoi(attr(e, "val")); err == nil && lv < 9 && st.level == 0 {
					st.level = lv + 1
				}
			}
		case xml.EndElement:
			if e.Name.Local == "style" && id != "" {
				out[id] = st
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A style inherits what it does not say from the style it is based
	// on, as Word applies them: a company's "Chapter" style based on
	// "Heading 1" is a heading of level 1, one based on a list style a
	// list item. A style that sets its own outline level (9, body text,
	// as "TOC Heading" does) is not a heading by inheritance.
	resolved := make(map[string]docxStyle, len(out))
	for id, st := range out {
		base := st.basedOn
		for depth := 0; base != "" && depth < 16; depth++ {
			b, ok := out[base]
			if !ok {
				break
			}
			if st.level == 0 && !st.title && !st.outlined {
				st.level, st.title, st.outlined = b.level, b.title, b.outlined
			}
			if st.numID == "" {
				st.numID = b.numID
				if !st.ownIlvl {
					st.ilvl, st.ownIlvl = b.ilvl, b.ownIlvl
				}
			}
			base = b.basedOn
		}
		resolved[id] = st
	}
	return resolved, nil
}

// docxLevel is how a list level numbers its items: numbered (or
// bulleted), from which number.
type docxLevel struct {
	numbered bool
	start    int
	hasStart bool
}

// docxNumbering reads word/numbering.xml: how each list (numId) level
// numbers its items, with the list's own overrides of its abstract
// definition's start (w:lvlOverride/w:startOverride).
func docxNumbering(a *archive) (map[string]map[int]docxLevel, error) {
	out := map[string]map[int]docxLevel{}
	if !a.has("word/numbering.xml") {
		return out, nil
	}
	data, err := a.part("word/numbering.xml")
	if err != nil {
		return nil, err
	}
	abstract := map[string]map[int]docxLevel{}
	overrides := map[string]map[int]int{} // numId -> level -> start
	numAbstract := map[string]string{}    // numId -> abstractNumId
	var numOrder []string
	var absID, numID string
	lvl, override := -1, -1
	err = walkXML("word/numbering.xml", data, func(t xml.Token) error {
		e, ok := t.(xml.StartElement)
		if !ok {
			return nil
		}
		switch e.Name.Local {
		case "abstractNum":
			absID, numID = attr(e, "abstractNumId"), ""
			abstract[absID] = map[int]docxLevel{}
		case "lvl":
			lvl, _ = strconv.Atoi(attr(e, "ilvl"))
		case "numFmt":
			if m := abstract[absID]; m != nil && numID == "" {
				f := attr(e, "val")
				l := m[lvl]
				l.numbered = f != "bullet" && f != "none" && f != ""
				m[lvl] = l
			}
		case "start":
			if m := abstract[absID]; m != nil && numID == "" {
				if n, err := strconv.Atoi(attr(e, "val")); err == nil && n >= 0 && n < 1<<20 {
					l := m[lvl]
					l.start, l.hasStart = n, true
					m[lvl] = l
				}
			}
		case "num":
			numID, override = attr(e, "numId"), -1
			numOrder = append(numOrder, numID)
		case "abstractNumId":
			if numID != "" {
				numAbstract[numID] = attr(e, "val")
			}
		case "lvlOverride":
			override, _ = strconv.Atoi(attr(e, "ilvl"))
		case "startOverride":
			if n, err := strconv.Atoi(attr(e, "val")); err == nil && numID != "" && override >= 0 && n >= 0 && n < 1<<20 {
				if overrides[numID] == nil {
					overrides[numID] = map[int]int{}
				}
				overrides[numID][override] = n
			}
		}
		return nil
	})
	for _, id := range numOrder {
		levels := map[int]docxLevel{}
		for k, l := range abstract[numAbstract[id]] {
			levels[k] = l
		}
		for k, n := range overrides[id] {
			l := levels[k]
			l.start, l.hasStart = n, true
			levels[k] = l
		}
		out[id] = levels
	}
	return out, err
}

// docxElements reads a Word document's body: headings with their levels,
// paragraphs, list items with their nesting, tables; then its footnotes
// and endnotes, as pandoc writes them: a marker "[^1]" where the note is
// referenced and the note, "[^1]: text", at the end of the document, all
// notes numbered in the order they are referenced. Comments
// (word/comments.xml) are not read: they are reviewers' remarks, not the
// document's text (pandoc and mammoth leave them out too).
func docxElements(a *archive) ([]gochunk.Element, error) {
	styles, err := docxStyles(a)
	if err != nil {
		return nil, err
	}
	numbering, err := docxNumbering(a)
	if err != nil {
		return nil, err
	}
	notes := &docxNotes{texts: map[string]string{}}
	for _, part := range [...]struct{ kind, name string }{{"footnote", "word/footnotes.xml"}, {"endnote", "word/endnotes.xml"}} {
		if !a.has(part.name) {
			continue
		}
		notes.reading = part.kind
		if _, err := docxPart(a, part.name, styles, numbering, notes); err != nil {
			return nil, err
		}
	}
	notes.reading = ""
	els, err := docxPart(a, "word/document.xml", styles, numbering, notes)
	if err != nil {
		return nil, err
	}
	for i, key := range notes.order {
		note := gochunk.Element{Type: "footnote", Text: "[^" + strconv.Itoa(i+1) + "]: " + notes.texts[key]}
		if err := a.d.emit(&els, note); err != nil {
			return nil, err
		}
	}
	return els, nil
}

// docxNotes are a Word document's footnotes and endnotes: their texts by
// kind and id ("footnote 2"), and those the body references, in the order
// of their first reference.
type docxNotes struct {
	texts   map[string]string
	order   []string
	reading string // the kind of notes part being read ("footnote"), "" for the body
}

// ref returns the number of the note of kind and id referenced in the
// body, from 1, in the order of references; 0 for a note without text or
// that the document does not hold.
func (n *docxNotes) ref(kind, id string) int {
	key := kind + " " + id
	if n.texts[key] == "" {
		return 0
	}
	for i, k := range n.order {
		if k == key {
			return i + 1
		}
	}
	n.order = append(n.order, key)
	return len(n.order)
}

// docxPart reads one part of a Word document: the body (word/document.xml)
// or its notes (word/footnotes.xml, word/endnotes.xml: each note's
// elements are gathered into notes.texts, one line each).
func docxPart(a *archive, name string, styles map[string]docxStyle, numbering map[string]map[int]docxLevel, notes *docxNotes) ([]gochunk.Element, error) {
	data, err := a.part(name)
	if err != nil {
		return nil, err
	}
	rels, err := relationships(a, name)
	if err != nil {
		return nil, err
	}
	noteID, noteStart := "", 0 // the note being read (notes parts), where its elements start
	diagrams := map[string]bool{}
	dropped := "" // a drop cap's letters, waiting for their paragraph
	var els []gochunk.Element
	// Open paragraphs, innermost last: a text box's paragraphs are inside
	// the paragraph that anchors it, and are read as paragraphs of their
	// own before the rest of it.
	type paragraph struct {
		text         strings.Builder
		style, numID string
		ilvl         int
		hasIlvl      bool // ilvl is the paragraph's own
		boxed        bool // holds an inline text box's text, set apart by spaces
		dropCap      bool // a drop cap's frame (w:framePr w:dropCap): the first letters of the next paragraph
	}
	var open []*paragraph
	para := &paragraph{}   // the innermost open paragraph
	tables, inline := 0, 0 // open tables, open wp:inline drawings
	inText := false
	var tb *mdtable.Table
	row, col := -1, 0
	var cellText strings.Builder
	gridSpan := 1
	counters := map[string][]int{} // numbered lists' counters by numId, per level
	// The document is read as Word shows it with its tracked changes
	// accepted: deleted and moved-away text (w:del, w:moveFrom) is left
	// out, as is hidden text (a run whose properties say w:vanish).
	skip := 0                    // depth inside a w:del or w:moveFrom
	var hidden []bool            // open runs (w:r; a text box's runs are inside a run): hidden or not
	var symbol []bool            // open runs: set in the Symbol font or not
	inRPr, inPPr := false, false // inside a run's own properties; a paragraph's
	isHidden := func() bool { return len(hidden) > 0 && hidden[len(hidden)-1] }
	err = walkXML(name, data, func(t xml.Token) error {
		if skip > 0 {
			switch t.(type) {
			case xml.StartElement:
				skip++
			case xml.EndElement:
				skip--
			}
			return nil
		}
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "del", "moveFrom", "rPrChange", "pPrChange":
				// Tracked deletions and moves, and the properties a
				// tracked formatting change replaced.
				skip = 1
				return nil
			case "pPr":
				inPPr = true
			case "r":
				hidden = append(hidden, isHidden())
				symbol = append(symbol, false)
			case "rPr":
				inRPr = len(hidden) > 0 && !inPPr
			case "rFonts":
				if inRPr && strings.EqualFold(attr(e, "ascii"), "Symbol") {
					symbol[len(symbol)-1] = true
				}
			case "sym":
				// A symbol inserted from a font (w:sym): the Symbol
				// font's are characters; pictograph fonts' are not text.
				if strings.EqualFold(attr(e, "font"), "Symbol") && !isHidden() {
					if n, err := strconv.ParseUint(attr(e, "char"), 16, 16); err == nil {
						if r := fromSymbolFont(rune(n)); r != rune(n) {
							para.text.WriteRune(r)
						}
					}
				}
			case "vanish":
				if inRPr {
					v := attr(e, "val")
					hidden[len(hidden)-1] = v != "0" && v != "false" && v != "off"
				}
			case "relIds":
				// A SmartArt diagram: its text, from its data part
				// (r:dm), as list items before the paragraph holding
				// it, or within the cell holding it.
				target, ok := rels[attr(e, "dm")]
				if !ok || !a.has(target) || diagrams[target] || isHidden() {
					return nil
				}
				diagrams[target] = true
				var items []gochunk.Element
				if err := diagramElements(a, target, &items); err != nil {
					return err
				}
				if tables == 0 {
					els = append(els, items...) // counted by diagramElements
					return nil
				}
				for _, it := range items {
					if cellText.Len() > 0 {
						cellText.WriteString("; ")
					}
					cellText.WriteString(strings.TrimLeft(it.Text, " -"))
				}
			case "altChunk":
				// An imported chunk (w:altChunk: HTML that a generator
				// put in, which Word converts when it opens the
				// document): read where it stands, as HTML is read.
				target, ok := rels[rid(e)]
				if !ok || !a.has(target) || tables > 0 || len(open) > 0 {
					return nil
				}
				switch strings.ToLower(path.Ext(target)) {
				case ".htm", ".html", ".xhtml":
				default:
					return nil // MHT, RTF, plain text, DOCX chunks: not read
				}
				chunk, err := a.part(target)
				if err != nil {
					return err
				}
				items, err := htmldoc.ElementsOfType(bytes.NewReader(chunk), "", a.d.budget)
				if err != nil {
					return fmt.Errorf("%s: %w", path.Base(target), err)
				}
				els = append(els, items...) // counted by htmldoc
			case "footnote", "endnote":
				// A note of a notes part; Word's separators (w:type
				// separator, continuationSeparator) are not notes.
				if e.Name.Local == notes.reading {
					if typ := attr(e, "type"); typ == "" || typ == "normal" {
						noteID, noteStart = attr(e, "id"), len(els)
					}
				}
			case "footnoteReference", "endnoteReference":
				if notes.reading == "" && !isHidden() {
					if n := notes.ref(strings.TrimSuffix(e.Name.Local, "Reference"), attr(e, "id")); n > 0 {
						para.text.WriteString("[^" + strconv.Itoa(n) + "]")
					}
				}
			case "noBreakHyphen":
				if !isHidden() {
					para.text.WriteByte('-') // a hyphen Word keeps on its line
				}
			case "p":
				para = &paragraph{}
				open = append(open, para)
			case "inline":
				inline++
			case "framePr":
				if d := attr(e, "dropCap"); d == "drop" || d == "margin" {
					para.dropCap = true
				}
			case "pStyle":
				para.style = attr(e, "val")
			case "ilvl":
				para.ilvl, _ = strconv.Atoi(attr(e, "val"))
				para.hasIlvl = true
				para.ilvl = min(max(para.ilvl, 0), maxListLevel) // Word has nine levels, 0 to 8
			case "numId":
				para.numID = attr(e, "val")
			case "t":
				inText = !isHidden()
			case "tab":
				if !inPPr && !isHidden() && len(hidden) > 0 { // not a tab stop (w:tabs)
					para.text.WriteByte('\t')
				}
			case "br", "cr":
				if !isHidden() {
					para.text.WriteByte('\n')
				}
			case "tbl":
				if tables++; tables == 1 {
					tb, row = a.d.newTable(), -1
				}
			case "tr":
				if tables == 1 {
					row, col = row+1, 0
				}
			case "tc":
				if tables == 1 {
					cellText.Reset()
					gridSpan = 1
				}
			case "gridSpan":
				if tables == 1 {
					if n, err := strconv.Atoi(attr(e, "val")); err == nil && n > 1 {
						gridSpan = min(n, maxGridSpan)
					}
				}
			case "gridBefore":
				// A row that starts further in (w:trPr's gridBefore):
				// its first cell is in the column after the skipped.
				if tables == 1 && col == 0 {
					if n, err := strconv.Atoi(attr(e, "val")); err == nil && n > 0 {
						col = min(n, maxGridSpan)
					}
				}
			}
		case xml.CharData:
			if inText && len(symbol) > 0 && symbol[len(symbol)-1] {
				// Text set in the Symbol font shows its letters as
				// Greek and its codes as symbols ("a" is α).
				for _, r := range string(e) {
					para.text.WriteRune(fromSymbolFont(r))
				}
			} else if inText {
				para.text.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "r":
				if len(hidden) > 0 {
					hidden = hidden[:len(hidden)-1]
					symbol = symbol[:len(symbol)-1]
				}
			case "rPr":
				inRPr = false
			case "pPr":
				inPPr = false
			case "inline":
				inline = max(inline-1, 0)
			case "p":
				if len(open) == 0 {
					return nil
				}
				p := open[len(open)-1]
				open = open[:len(open)-1]
				if len(open) > 0 {
					para = open[len(open)-1]
				} else {
					para = &paragraph{}
				}
				style, numID, ilvl := p.style, p.numID, p.ilvl
				text := strings.TrimSpace(p.text.String())
				for p.boxed && strings.Contains(text, "  ") {
					text = strings.ReplaceAll(text, "  ", " ")
				}
				if len(open) > 0 && inline > 0 {
					// A text box set in the line (wp:inline): its text
					// is part of the paragraph it is in.
					if text != "" {
						para.text.WriteString(" " + text + " ")
						para.boxed = true
					}
					return nil
				}
				if tables > 0 {
					if text != "" {
						if cellText.Len() > 0 {
							cellText.WriteByte(' ')
						}
						cellText.WriteString(text)
					}
					return nil
				}
				if text == "" {
					return nil
				}
				if p.dropCap && len(open) == 0 {
					// A drop cap is set in a frame of its own, but it
					// is the first letter(s) of the paragraph after it.
					dropped += text
					return nil
				}
				text, dropped = dropped+text, ""
				st := styles[style]
				if numID == "" {
					numID = st.numID // a list style's paragraphs
				}
				if !p.hasIlvl {
					ilvl = st.ilvl
				}
				switch {
				case st.title:
					return a.d.emit(&els, heading(1, text))
				case st.level > 0:
					return a.d.emit(&els, heading(st.level, text))
				case numID != "" && numID != "0" || st.list:
					marker := "- "
					if lv := numbering[numID][ilvl]; lv.numbered {
						// Counted from the level's start (w:start, or
						// the list's w:startOverride; 1 when unsaid).
						c := counters[numID]
						for len(c) <= ilvl {
							c = append(c, 0)
						}
						c = c[:ilvl+1]
						c[ilvl]++ // the items so far at this level
						counters[numID] = c
						start := 1
						if lv.hasStart {
							start = lv.start
						}
						marker = strconv.Itoa(start+c[ilvl]-1) + ". "
					}
					return a.d.emit(&els, gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", ilvl) + marker + oneLine(text)})
				default:
					return a.d.emit(&els, gochunk.Element{Type: "paragraph", Text: text})
				}
			case "footnote", "endnote":
				if e.Name.Local == notes.reading && noteID != "" {
					var lines []string
					for _, el := range els[noteStart:] {
						lines = append(lines, el.Text)
					}
					notes.texts[notes.reading+" "+noteID] = strings.Join(lines, "\n")
					els, noteID = els[:noteStart], ""
				}
			case "tc":
				// A cell spanning columns (gridSpan) holds its text in its
				// first column, the cells after it in the columns they
				// are shown in; one spanning rows (vMerge) continues as
				// an empty cell in the rows below. Spans are not filled
				// with copies.
				if tables == 1 && row >= 0 {
					col += gridSpan
					return tb.Add(row, col-gridSpan, cell(cellText.String()))
				}
			case "tbl":
				if tables > 0 {
					if tables--; tables == 0 {
						return a.d.writeTable(&els, tb, 0, false)
					}
				}
			}
		}
		return nil
	})
	if err == nil && dropped != "" {
		err = a.d.emit(&els, gochunk.Element{Type: "paragraph", Text: dropped}) // a drop cap that ends the document
	}
	return els, err
}
