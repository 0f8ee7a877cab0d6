package officedoc

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// xlsxElements reads a workbook's sheets in order: each as a heading
// "## Sheet N: name" and a pipe table of its cells (the first row the
// header; rows and columns without text left out, a sparse sheet written
// row by row with each cell's reference, see package internal/mdtable;
// its cells counted against Limits while they are read). Every element carries
// its sheet's number as its page. Values are as the cells hold them
// (shared and inline strings, numbers as written), but for numbers whose
// number format is a date or a time: those are written in ISO 8601 form
// (2024-01-01, 13:30:00, 2024-01-01 13:30:00; an elapsed time [h]:mm:ss
// as 36:15:00), whatever the format's own pattern.
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
	date1904 := false
	err = walkXML(book, data, func(t xml.Token) error {
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "sheet" {
			if target, ok := rels[rid(e)]; ok {
				sheets = append(sheets, sheet{attr(e, "name"), target})
			}
		} else if ok && e.Name.Local == "workbookPr" {
			v := attr(e, "date1904")
			date1904 = v == "1" || v == "true"
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	formats, err := xlsxStyles(a)
	if err != nil {
		return nil, err
	}
	st := &cellStyles{formats: formats, date1904: date1904}
	var els []gochunk.Element
	for n, s := range sheets {
		h := heading(2, fmt.Sprintf("Sheet %d: %s", n+1, s.name))
		h.Page = n + 1
		if err := a.d.emit(&els, h); err != nil {
			return nil, err
		}
		tb, err := xlsxSheet(a, s.part, shared, st)
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

// xlsxSheet reads a sheet's cells into a table, by their references;
// numbers whose format is a date or time are written as one (see
// cellStyles).
func xlsxSheet(a *archive, part string, shared []string, st *cellStyles) (*mdtable.Table, error) {
	data, err := a.part(part)
	if err != nil {
		return nil, err
	}
	tb := a.d.newTable()
	var typ, ref, style string
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
				typ, ref, style = attr(e, "t"), attr(e, "r"), attr(e, "s")
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
				} else if typ == "" || typ == "n" {
					v = st.number(style, v)
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

// dateKind is what a number format shows of a serial date: nothing (a
// number), a date, a time of day, both, or an elapsed time.
type dateKind uint8

const (
	notDate dateKind = iota
	dateOnly
	timeOnly
	dateTime
	elapsed
)

// cellStyles are a workbook's cell formats (xl/styles.xml's cellXfs, by
// index, as a cell's s attribute names them) and its date system.
type cellStyles struct {
	formats  []dateKind
	date1904 bool
}

// number returns a number cell's text: a serial date or time as ISO 8601
// when its format (style, an index of cellXfs) shows one, else v.
func (c *cellStyles) number(style, v string) string {
	i, err := strconv.Atoi(style)
	if err != nil || i < 0 || i >= len(c.formats) || c.formats[i] == notDate {
		return excelNumber(v)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 2958465 { // 9999-12-31
		return v
	}
	return serialDate(f, c.formats[i], c.date1904)
}

// excelNumber returns a number as Excel shows it in General format: Excel
// stores a double with up to 17 significant digits (0.1+0.2 as
// 0.30000000000000004, 0.01 as 1.0000000000000001E-2), and shows at most
// 15, which drops the binary noise; it writes small numbers with an
// exponent (1E-3) that it shows as decimals (0.001), as between 1e-9 and
// 1e21. Other numbers are returned as written; text that is not a
// number, unchanged.
func excelNumber(v string) string {
	digits, started := 0, false
	for i := 0; i < len(v) && v[i] != 'E' && v[i] != 'e'; i++ {
		switch c := v[i]; {
		case c >= '1' && c <= '9':
			started = true
			digits++
		case c == '0' && started:
			digits++
		}
	}
	exp := strings.ContainsAny(v, "Ee")
	if digits <= 15 && !exp {
		return v
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return v
	}
	if digits > 15 {
		f, err = strconv.ParseFloat(strconv.FormatFloat(f, 'e', 14, 64), 64)
		if err != nil {
			return v
		}
	}
	if a := math.Abs(f); a != 0 && (a < 1e-9 || a >= 1e21) {
		if digits <= 15 {
			return v
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// serialDate writes a serial date (days since the epoch of the date
// system, the fraction the time of day) as kind shows it, to the second.
func serialDate(f float64, kind dateKind, date1904 bool) string {
	secs := int64(math.Round(f * 86400))
	if kind == elapsed {
		return fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	}
	days, sec := secs/86400, secs%86400
	clock := fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if kind == timeOnly {
		return clock
	}
	var day string
	switch {
	case date1904:
		day = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days)).Format(time.DateOnly)
	case days == 60:
		day = "1900-02-29" // Lotus 1-2-3's leap day, which Excel keeps
	case days < 60:
		day = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days)).Format(time.DateOnly)
	default:
		day = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days)).Format(time.DateOnly)
	}
	if kind == dateOnly {
		return day
	}
	return day + " " + clock
}

// builtinDates are the built-in number formats that show dates or times
// (ECMA-376 part 1, 18.8.30; 27 to 36 and 50 to 58 are the East Asian
// locales' dates).
var builtinDates = map[int]dateKind{
	14: dateOnly, 15: dateOnly, 16: dateOnly, 17: dateOnly, 18: timeOnly, 19: timeOnly, 20: timeOnly, 21: timeOnly, 22: dateTime,
	27: dateOnly, 28: dateOnly, 29: dateOnly, 30: dateOnly, 31: dateOnly, 32: timeOnly, 33: timeOnly, 34: timeOnly, 35: timeOnly, 36: dateOnly,
	45: timeOnly, 46: elapsed, 47: timeOnly,
	50: dateOnly, 51: dateOnly, 52: dateOnly, 53: dateOnly, 54: dateOnly, 55: dateOnly, 56: dateOnly, 57: dateOnly, 58: dateOnly,
}

// formatKind tells what a custom number format code shows: a date when
// its first section holds d or y (or m without h or s beside it), a
// time when it holds h or s, elapsed time when [h], [m] or [s]; quoted
// text, escaped characters and other bracketed codes (colours,
// conditions, locales) do not count.
func formatKind(code string) dateKind {
	if i := strings.IndexByte(code, ';'); i >= 0 {
		code = code[:i] // the positive numbers' section
	}
	var date, clock, el bool
	minutes := false
	for i := 0; i < len(code); i++ {
		switch c := code[i] | 0x20; {
		case code[i] == '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
		case code[i] == '\\' || code[i] == '_' || code[i] == '*':
			i++ // the next character is literal, or a fill or width
		case code[i] == '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				return notDate
			}
			if b := strings.ToLower(code[i+1 : i+j]); b != "" && strings.Trim(b, "hms") == "" {
				el = true
			}
			i += j
		case c == 'd' || c == 'y':
			date = true
		case c == 'h' || c == 's':
			clock = true
		case c == 'm':
			minutes = true
		case c == 'e' && i+1 < len(code) && (code[i+1] == '+' || code[i+1] == '-'):
			return notDate // scientific notation
		}
	}
	switch {
	case el:
		return elapsed
	case date && clock:
		return dateTime
	case date || minutes && !clock:
		return dateOnly
	case clock:
		return timeOnly
	}
	return notDate
}

// xlsxStyles reads xl/styles.xml: what each cell format (cellXfs, by
// index) shows of a number, from its number format (built-in or custom).
func xlsxStyles(a *archive) ([]dateKind, error) {
	const name = "xl/styles.xml"
	if !a.has(name) {
		return nil, nil
	}
	data, err := a.part(name)
	if err != nil {
		return nil, err
	}
	custom := map[int]dateKind{}
	var out []dateKind
	inXfs := false
	err = walkXML(name, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "numFmt":
				if id, err := strconv.Atoi(attr(e, "numFmtId")); err == nil {
					custom[id] = formatKind(attr(e, "formatCode"))
				}
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					id, _ := strconv.Atoi(attr(e, "numFmtId"))
					k, ok := custom[id]
					if !ok {
						k = builtinDates[id]
					}
					out = append(out, k)
				}
			}
		case xml.EndElement:
			if e.Name.Local == "cellXfs" {
				inXfs = false
			}
		}
		return nil
	})
	return out, err
}
