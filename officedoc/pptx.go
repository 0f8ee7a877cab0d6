package officedoc

import (
	"encoding/xml"
	"fmt"
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
	var els []gochunk.Element
	for n, part := range slides {
		title, body, err := pptxSlide(a, part)
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
		srels, err := relationships(a, part)
		if err != nil {
			return nil, err
		}
		for _, target := range srels {
			if strings.Contains(target, "notesSlides/") {
				_, notes, err := pptxSlide(a, target)
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
// and the other shapes' paragraphs and tables in order.
func pptxSlide(a *archive, part string) (string, []gochunk.Element, error) {
	data, err := a.part(part)
	if err != nil {
		return "", nil, err
	}
	var title []string
	var els []gochunk.Element
	var para strings.Builder
	var phType string
	hasPh, inText := false, false
	lvl := 0
	var tb *mdtable.Table
	row, col := -1, 0
	var cellText strings.Builder
	inTable := false
	err = walkXML(part, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "sp":
				hasPh, phType = false, ""
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
				lvl = 0
			case "pPr":
				lvl, _ = strconv.Atoi(attr(e, "lvl"))
				lvl = min(max(lvl, 0), maxListLevel)
			case "t":
				inText = true
			case "br":
				para.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				para.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "p":
				text := strings.TrimSpace(para.String())
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
				case hasPh && (phType == "" || phType == "body" || phType == "obj"):
					return a.d.emit(&els, gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", lvl) + "- " + oneLine(text)})
				case hasPh && (phType == "sldNum" || phType == "dt" || phType == "ftr" || phType == "hdr"):
					// slide numbers, dates, footers: not the slide's content
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

// isNumber tells whether s is a number alone (a slide number in notes).
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
