package officedoc

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// xlsxElements reads a workbook's sheets in order: each as a heading
// "## Sheet N: name" and a pipe table of its cells (the first row the
// header; rows and columns without text left out, a sparse sheet written
// row by row with each cell's reference, see package internal/mdtable;
// its cells counted against Limits while they are read). Every element carries
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
	err = walkXML(book, data, func(t xml.Token) error {
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
	for n, s := range sheets {
		h := heading(2, fmt.Sprintf("Sheet %d: %s", n+1, s.name))
		h.Page = n + 1
		if err := a.d.emit(&els, h); err != nil {
			return nil, err
		}
		tb, err := xlsxSheet(a, s.part, shared)
		if err == nil {
			err = a.d.writeTable(&els, tb, n+1, true)
		}
		if err != nil {
			return nil, fmt.Errorf("sheet %q: %w", s.name, err)
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
	err = walkXML(name, data, func(t xml.Token) error {
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

// xlsxSheet reads a sheet's cells into a table, by their references.
func xlsxSheet(a *archive, part string, shared []string) (*mdtable.Table, error) {
	data, err := a.part(part)
	if err != nil {
		return nil, err
	}
	tb := a.d.newTable()
	var typ, ref string
	var val strings.Builder
	inVal := false
	row, col := -1, -1
	err = walkXML(part, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "row":
				if r, err := strconv.Atoi(attr(e, "r")); err == nil && r > 0 {
					row = r - 1
				} else {
					row++
				}
				col = -1
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
				col++ // a cell without a reference follows the one before
				if ref != "" {
					col = column(ref)
				}
				row := max(row, 0)
				if col < 0 || row > 1<<20 || col > 1<<14 {
					return fmt.Errorf("%w: cell reference %q", ErrFormat, ref)
				}
				return tb.Add(row, col, cell(v))
			}
		}
		return nil
	})
	return tb, err
}

// column returns the 0-based column of a cell reference ("C7" → 2), or -1.
func column(ref string) int {
	n := 0
	i := 0
	for i < len(ref) && i < 4 && ref[i] >= 'A' && ref[i] <= 'Z' {
		n = n*26 + int(ref[i]-'A'+1)
		i++
	}
	if i == 0 {
		return -1
	}
	return n - 1
}
