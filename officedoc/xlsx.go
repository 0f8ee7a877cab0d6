package officedoc

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
)

// maxCells bounds the cells read from a workbook: a sheet is a table held
// whole, so a huge one is refused rather than read into memory.
const maxCells = 10_000_000

// xlsxElements reads a workbook's sheets in order: each as a heading
// "## Sheet N: name" and a pipe table of its cells (the first row the
// header; empty trailing rows and columns left out). Every element carries
// its sheet's number as its page. Values are as the cells hold them
// (shared and inline strings, numbers as written; dates are numbers).
func xlsxElements(a *archive) ([]gochunk.Element, error) {
	const book = "xl/workbook.xml"
	rels, err := relationships(a, book)
	if err != nil {
		return nil, err
	}
	shared, err := xlsxShared(a)
	if err != nil {
		return nil, err
	}
	data, err := a.part(book)
	if err != nil {
		return nil, err
	}
	type sheet struct{ name, part string }
	var sheets []sheet
	err = walkXML(data, func(t xml.Token) error {
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "sheet" {
			if target, ok := rels[rid(e)]; ok {
				sheets = append(sheets, sheet{attr(e, "name"), target})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var els []gochunk.Element
	cells := 0
	for n, s := range sheets {
		rows, err := xlsxSheet(a, s.part, shared, &cells)
		if err != nil {
			return nil, fmt.Errorf("sheet %q: %w", s.name, err)
		}
		h := heading(2, fmt.Sprintf("Sheet %d: %s", n+1, s.name))
		h.Page = n + 1
		els = append(els, h)
		if md := table(rows); md != "" {
			els = append(els, gochunk.Element{Type: "table", Text: md, Page: n + 1})
		}
	}
	return els, nil
}

// xlsxShared reads the shared strings.
func xlsxShared(a *archive) ([]string, error) {
	const name = "xl/sharedStrings.xml"
	if !a.has(name) {
		return nil, nil
	}
	data, err := a.part(name)
	if err != nil {
		return nil, err
	}
	var out []string
	var sb strings.Builder
	inText, inPhonetic := false, false
	err = walkXML(data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "si":
				sb.Reset()
			case "t":
				inText = true
			case "rPh":
				inPhonetic = true
			}
		case xml.CharData:
			if inText && !inPhonetic {
				sb.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "rPh":
				inPhonetic = false
			case "si":
				out = append(out, sb.String())
			}
		}
		return nil
	})
	return out, err
}

// xlsxSheet reads a sheet's cells into rows, by their references.
func xlsxSheet(a *archive, part string, shared []string, cells *int) ([][]string, error) {
	data, err := a.part(part)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	var typ, ref string
	var val strings.Builder
	inVal := false
	row := -1
	err = walkXML(data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "row":
				if r, err := strconv.Atoi(attr(e, "r")); err == nil && r > 0 {
					row = r - 1
				} else {
					row++
				}
			case "c":
				typ, ref = attr(e, "t"), attr(e, "r")
				val.Reset()
			case "v", "t":
				inVal = true
			}
		case xml.CharData:
			if inVal {
				val.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "v", "t":
				inVal = false
			case "c":
				v := val.String()
				if typ == "s" {
					i, err := strconv.Atoi(strings.TrimSpace(v))
					if err != nil || i < 0 || i >= len(shared) {
						return fmt.Errorf("%w: cell %s names shared string %q", ErrFormat, ref, v)
					}
					v = shared[i]
				} else if typ == "b" {
					v = map[string]string{"1": "TRUE", "0": "FALSE"}[strings.TrimSpace(v)]
				}
				if strings.TrimSpace(v) == "" {
					return nil
				}
				if *cells++; *cells > maxCells {
					return fmt.Errorf("%w: more than %d cells", ErrTooLarge, maxCells)
				}
				for len(rows) <= max(row, 0) {
					rows = append(rows, nil)
				}
				col := len(rows[max(row, 0)]) // a cell without a reference follows the one before
				if ref != "" {
					col = column(ref)
				}
				if col < 0 || row < 0 || row > 1<<20 || col > 1<<14 {
					return fmt.Errorf("%w: cell reference %q", ErrFormat, ref)
				}
				for len(rows) <= row {
					rows = append(rows, nil)
				}
				for len(rows[row]) <= col {
					rows[row] = append(rows[row], "")
				}
				rows[row][col] = v
			}
		}
		return nil
	})
	// Leading empty rows go; a row of no cells in the middle stays.
	for len(rows) > 0 && len(rows[0]) == 0 {
		rows = rows[1:]
	}
	return rows, err
}

// column returns the 0-based column of a cell reference ("C7" → 2), or -1.
func column(ref string) int {
	n := 0
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		n = n*26 + int(ref[i]-'A'+1)
		i++
	}
	if i == 0 {
		return -1
	}
	return n - 1
}
