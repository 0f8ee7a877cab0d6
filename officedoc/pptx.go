package officedoc

import (
	"encoding/xml"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// pptxElements reads a presentation's slides in order: each slide's
// title as a heading "## Slide N: title", its text boxes' paragraphs (as
// list items, nested by level, in content placeholders), its tables, and
// its speaker notes as a caption. Every element carries its slide's
// number as its page.
func pptxElements(a *archive) ([]gochunk.Element, error) {
	const pres = "ppt/presentation.xml"
	rels, err := relationships(a, pres)
	if err != nil {
		return nil, err
	}
	data, err := a.part(pres)
	if err != nil {
		return nil, err
	}
	var slides []string
	err = walkXML(pres, data, func(t xml.Token) error {
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "sldId" {
			if target, ok := rels[rid(e)]; ok {
				slides = append(slides, target)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	authors, err := pptxAuthors(a)
	if err != nil {
		return nil, err
	}
	var els []gochunk.Element
	for n, part := range slides {
		srels, err := relationships(a, part)
		if err != nil {
			return nil, err
		}
		title, body, err := pptxSlide(a, part, srels, true)
		if err != nil {
			return nil, fmt.Errorf("slide %d: %w", n+1, err)
		}
		h := fmt.Sprintf("Slide %d", n+1)
		if title != "" {
			h += ": " + title
		}
		start := len(els)
		if err := a.d.emit(&els, heading(2, h)); err != nil {
			return nil, err
		}
		els = append(els, body...) // counted by pptxSlide
		for _, target := range sortedTargets(srels) {
			if strings.Contains(target, "comments/") && a.has(target) {
				if err := pptxComments(a, target, authors, &els); err != nil {
					return nil, fmt.Errorf("comments of slide %d: %w", n+1, err)
				}
			}
		}
		for _, target := range sortedTargets(srels) {
			if strings.Contains(target, "notesSlides/") {
				_, notes, err := pptxSlide(a, target, nil, false)
				if err != nil {
					return nil, fmt.Errorf("notes of slide %d: %w", n+1, err)
				}
				var texts []string
				for _, e := range notes {
					if t := strings.TrimSpace(strings.TrimLeft(e.Text, " -")); t != "" && !isNumber(t) {
						texts = append(texts, t)
					}
				}
				if len(texts) > 0 {
					if err := a.d.emit(&els, gochunk.Element{Type: "caption", Text: "Notes: " + strings.Join(texts, " ")}); err != nil {
						return nil, err
					}
				}
			}
		}
		for k := start; k < len(els); k++ {
			els[k].Page = n + 1
		}
	}
	return els, nil
}

// pptxSlide reads one slide (or notes) part: the title placeholder's text,
// and the other shapes' paragraphs, tables, charts (a caption and a
// table of their values, from the chart parts rels names) and pictures'
// descriptions (their alternative text, as figures "![text](file)") in
// order, and SmartArt diagrams' text as list items (see
// diagramElements). On a slide (slide true), the text typed into its footer, date
// and header placeholders is read as paragraphs, being shown on the
// slide, but not the fields in them (a:fld: the date or slide number
// PowerPoint fills in), nor the slide number placeholder; a notes page's
// are left out.
func pptxSlide(a *archive, part string, rels map[string]string, slide bool) (string, []gochunk.Element, error) {
	data, err := a.part(part)
	if err != nil {
		return "", nil, err
	}
	var title []string
	var els []gochunk.Element
	var para strings.Builder
	var phType string
	hasPh, inText, inField := false, false, false
	bullet, startAt := "", 1   // the open paragraph's bullet (a:buChar, a:buAutoNum, a:buNone) and first number
	var numbers []int          // the shape's numbered paragraphs' last numbers, per level
	var levelBullets [9]string // the shape's list style's bullets, per level
	inLstStyle, lstLevel := false, -1
	lvl := 0
	var tb *mdtable.Table
	row, col := -1, 0
	var cellText strings.Builder
	inTable, inPic := false, false
	var picDescr, picFile string // the open picture's description and file
	charts := map[string]bool{}
	err = walkXML(part, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "sp":
				hasPh, phType = false, ""
				numbers = numbers[:0]
				levelBullets = [9]string{}
			case "ph":
				hasPh, phType = true, attr(e, "type")
			case "tbl":
				inTable, tb, row = true, a.d.newTable(), -1
			case "tr":
				if inTable {
					row, col = row+1, 0
				}
			case "tc":
				cellText.Reset()
			case "p":
				para.Reset()
				lvl, bullet, startAt = 0, "", 1
			case "pPr":
				lvl, _ = strconv.Atoi(attr(e, "lvl"))
				lvl = min(max(lvl, 0), maxListLevel)
			case "lstStyle":
				inLstStyle = true
			case "lvl1pPr", "lvl2pPr", "lvl3pPr", "lvl4pPr", "lvl5pPr", "lvl6pPr", "lvl7pPr", "lvl8pPr", "lvl9pPr":
				lstLevel = int(e.Name.Local[3] - '1')
			case "buChar", "buBlip", "buAutoNum", "buNone":
				b := map[string]string{"buChar": "char", "buBlip": "char", "buAutoNum": "number", "buNone": "none"}[e.Name.Local]
				if inLstStyle {
					// The text body's own list style: its levels'
					// bullets, for its paragraphs that say none.
					if lstLevel >= 0 {
						levelBullets[lstLevel] = b
					}
					return nil
				}
				bullet = b
				if n, err := strconv.Atoi(attr(e, "startAt")); err == nil && b == "number" && n > 0 && n < 1<<20 {
					startAt = n
				}
			case "t":
				inText = true
			case "fld":
				inField = true
			case "br":
				para.WriteByte('\n')
			case "pic":
				inPic, picDescr, picFile = true, "", ""
			case "cNvPr":
				if inPic {
					picDescr = oneLine(attr(e, "descr"))
				}
			case "blip":
				if inPic {
					picFile = path.Base(rels[attr(e, "embed")])
				}
			case "chart":
				if target, ok := rels[rid(e)]; ok && a.has(target) && !charts[target] {
					charts[target] = true // a chart shown twice is read once
					return pptxChart(a, target, &els)
				}
			case "relIds":
				// A SmartArt diagram: its data part (r:dm) holds its text.
				if target, ok := rels[attr(e, "dm")]; ok && a.has(target) && !charts[target] {
					charts[target] = true
					return diagramElements(a, target, &els)
				}
			}
		case xml.CharData:
			if inText && !(inField && hasPh && footer(phType)) {
				para.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "fld":
				inField = false
			case "pic":
				inPic = false
				if picDescr != "" {
					// A picture's description (its alternative text) as
					// markdown's image: ![description](file).
					alt := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(picDescr)
					text := "![" + alt + "]"
					if picFile != "" && picFile != "." {
						text += "(" + picFile + ")"
					}
					return a.d.emit(&els, gochunk.Element{Type: "figure", Text: text})
				}
			case "lstStyle":
				inLstStyle, lstLevel = false, -1
			case "p":
				text := strings.TrimSpace(para.String())
				if bullet == "" {
					bullet = levelBullets[lvl]
				}
				switch {
				case text == "":
				case inTable:
					if cellText.Len() > 0 {
						cellText.WriteByte(' ')
					}
					cellText.WriteString(text)
				case hasPh && (phType == "title" || phType == "ctrTitle"):
					title = append(title, oneLine(text))
					return a.d.budget.Text(int64(len(text)))
				case hasPh && (phType == "sldNum" || footer(phType) && !slide):
					// slide numbers; a notes page's footers
				case bullet == "number":
					// A numbered paragraph (a:buAutoNum): numbered in
					// its shape, per level, from startAt.
					for len(numbers) <= lvl {
						numbers = append(numbers, 0)
					}
					numbers = numbers[:lvl+1]
					if numbers[lvl] == 0 {
						numbers[lvl] = startAt
					} else {
						numbers[lvl]++
					}
					return a.d.emit(&els, gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", lvl) + strconv.Itoa(numbers[lvl]) + ". " + oneLine(text)})
				case bullet == "char" && !(hasPh && footer(phType)) ||
					bullet == "" && hasPh && (phType == "" || phType == "body" || phType == "obj"):
					// A bulleted paragraph (a:buChar) anywhere, and one
					// of a content placeholder, whose bullets its
					// layout gives, unless it says a:buNone.
					numbers = numbers[:min(len(numbers), lvl)]
					return a.d.emit(&els, gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", lvl) + "- " + oneLine(text)})
				default:
					return a.d.emit(&els, gochunk.Element{Type: "paragraph", Text: text})
				}
			case "tc":
				// A cell spanning columns or rows (gridSpan, rowSpan) is
				// one cell: spans are not expanded.
				if inTable && row >= 0 {
					col++
					return tb.Add(row, col-1, cell(cellText.String()))
				}
			case "tbl":
				if inTable {
					inTable = false
					return a.d.writeTable(&els, tb, 0, false)
				}
			}
		}
		return nil
	})
	return strings.Join(title, " "), els, err
}

// footer tells whether a placeholder type is a footer's, a date's or a
// header's.
func footer(phType string) bool { return phType == "ftr" || phType == "dt" || phType == "hdr" }

// isNumber tells whether s is a number alone (a slide number in notes).
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// sortedTargets returns the targets of rels in order of their ids (rId2
// before rId10), so that a slide's parts are read in the same order every
// time.
func sortedTargets(rels map[string]string) []string {
	ids := make([]string, 0, len(rels))
	for id := range rels {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y string) int {
		if len(x) != len(y) {
			return len(x) - len(y)
		}
		return strings.Compare(x, y)
	})
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = rels[id]
	}
	return out
}

// pptxAuthors reads the names of comments' authors by id: legacy
// comments' (ppt/commentAuthors.xml) and modern ones' (ppt/authors.xml).
func pptxAuthors(a *archive) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range []string{"ppt/commentAuthors.xml", "ppt/authors.xml"} {
		if !a.has(part) {
			continue
		}
		data, err := a.part(part)
		if err != nil {
			return nil, err
		}
		err = walkXML(part, data, func(t xml.Token) error {
			if e, ok := t.(xml.StartElement); ok && (e.Name.Local == "cmAuthor" || e.Name.Local == "author") {
				out[attr(e, "id")] = attr(e, "name")
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pptxComments appends a slide's comments (legacy p:cm with their
// p:text, or modern ones with their replies) as captions "Comment by
// author: text", in order.
func pptxComments(a *archive, part string, authors map[string]string, els *[]gochunk.Element) error {
	data, err := a.part(part)
	if err != nil {
		return err
	}
	type comment struct {
		author string
		text   strings.Builder
	}
	var all []*comment
	var open []*comment
	inText := false
	err = walkXML(part, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "cm", "reply":
				c := &comment{author: authors[attr(e, "authorId")]}
				all = append(all, c)
				open = append(open, c)
			case "text", "t":
				inText = len(open) > 0
			case "p":
				if len(open) > 0 && open[len(open)-1].text.Len() > 0 {
					open[len(open)-1].text.WriteByte('\n')
				}
			}
		case xml.CharData:
			if inText {
				open[len(open)-1].text.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "cm", "reply":
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
			case "text", "t":
				inText = false
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range all {
		text := oneLine(c.text.String())
		if text == "" {
			continue
		}
		head := "Comment: "
		if c.author != "" {
			head = "Comment by " + oneLine(c.author) + ": "
		}
		if err := a.d.emit(els, gochunk.Element{Type: "caption", Text: head + text}); err != nil {
			return err
		}
	}
	return nil
}

// pptxChart appends a chart's title as a caption "Chart: title" and its
// data as a table: a row per category, a column per series (named in
// the header), the values as the chart's cache holds them.
func pptxChart(a *archive, part string, els *[]gochunk.Element) error {
	data, err := a.part(part)
	if err != nil {
		return err
	}
	type series struct {
		name string
		cats map[int]string
		vals map[int]string
	}
	var title strings.Builder
	var all []*series
	var cur *series
	var where []string // open elements among title, tx, cat, val, pt, v, t
	idx := 0
	var v strings.Builder
	in := func(name string) bool { return slices.Contains(where, name) }
	err = walkXML(part, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "title", "tx", "cat", "xVal", "val", "yVal", "v", "t":
				where = append(where, e.Name.Local)
				v.Reset()
			case "ser":
				cur = &series{cats: map[int]string{}, vals: map[int]string{}}
				all = append(all, cur)
			case "pt":
				idx, _ = strconv.Atoi(attr(e, "idx"))
			case "valAx", "catAx", "dateAx", "serAx":
				where = append(where, "axis")
			}
		case xml.CharData:
			if len(where) > 0 && (where[len(where)-1] == "v" || where[len(where)-1] == "t") {
				v.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "v", "t":
				text := strings.TrimSpace(v.String())
				switch {
				case in("axis"):
				case in("title") && cur == nil:
					title.WriteString(v.String()) // runs of one title
				case cur != nil && in("tx"):
					cur.name = text
				case cur != nil && (in("cat") || in("xVal")):
					cur.cats[idx] = text
				case cur != nil && (in("val") || in("yVal")):
					cur.vals[idx] = text
				}
				where = where[:len(where)-1]
			case "title", "tx", "cat", "xVal", "val", "yVal", "valAx", "catAx", "dateAx", "serAx":
				if len(where) > 0 {
					where = where[:len(where)-1]
				}
			case "ser":
				cur = nil
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if t := oneLine(title.String()); t != "" {
		if err := a.d.emit(els, gochunk.Element{Type: "caption", Text: "Chart: " + t}); err != nil {
			return err
		}
	}
	if len(all) == 0 {
		return nil
	}
	tb := a.d.newTable()
	seen := map[int]bool{}
	var points []int // the points' indexes, in order
	for _, s := range all {
		for _, m := range []map[int]string{s.cats, s.vals} {
			for i := range m {
				if !seen[i] {
					seen[i] = true
					points = append(points, i)
				}
			}
		}
	}
	slices.Sort(points)
	if err := tb.Add(0, 0, "Category"); err != nil {
		return err
	}
	for k, s := range all {
		name := s.name
		if name == "" {
			name = fmt.Sprintf("Series %d", k+1)
		}
		if err := tb.Add(0, k+1, cell(name)); err != nil {
			return err
		}
	}
	for r, p := range points {
		cat := ""
		for _, s := range all {
			if c, ok := s.cats[p]; ok {
				cat = c
				break
			}
		}
		if err := tb.Add(r+1, 0, cell(cat)); err != nil {
			return err
		}
		for k, s := range all {
			if err := tb.Add(r+1, k+1, cell(s.vals[p])); err != nil {
				return err
			}
		}
	}
	return a.d.writeTable(els, tb, 0, false)
}
