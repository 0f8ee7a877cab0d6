// Package notebookdoc reads Jupyter notebooks (.ipynb, nbformat 4 and 3)
// as layout elements, like the other readers of gochunk: a markdown cell's
// blocks become headings, paragraphs, list items, tables and fenced code
// as the Markdown writes them (its HTML blocks read as HTML is, by package
// htmldoc); a code cell becomes a fenced code block marked with the
// notebook's language ("```python"), or the language a cell magic runs
// it in ("%%bash", "%%sql"); a raw cell's paragraphs are kept as they are.
//
// A code cell's text outputs follow it, each run of them one fenced block
// marked "text": what a cell printed (stdout and stderr), and a result's or
// display's text/markdown (read as Markdown), else its text/plain, else
// its text/html (read as HTML). An error output is kept as its name and
// value ("NameError: name 'x' is not defined"), without the traceback;
// terminal colour codes are removed, and a line rewritten with carriage
// returns (a progress bar) is kept as last written. Images, widgets and
// other binary outputs are left out: their data is not text (nor is an
// image's text/plain stand-in, "<Figure size 640x480 with 1 Axes>").
//
// Reading is bounded: the text is counted against htmldoc's Limits, as the
// other readers' is, and the notebook's JSON is decoded into the text it
// holds and nothing else (an output's image data is skipped, not copied).
package notebookdoc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// ErrFormat reports data that is not a Jupyter notebook, or one broken
// beyond reading (JSON that does not parse, cells that are not cells).
var ErrFormat = errors.New("not a readable Jupyter notebook")

// VersionError is a notebook of an nbformat this package does not read
// (it reads 3 and 4).
type VersionError struct {
	// NBFormat is the notebook's nbformat, as written.
	NBFormat string
}

// Error says the version and how to convert the notebook.
func (e *VersionError) Error() string {
	return fmt.Sprintf("a Jupyter notebook of nbformat %s: gochunk reads nbformat 4 and 3; convert it with jupyter nbconvert --to notebook --nbformat 4 FILE, then give the converted notebook", e.NBFormat)
}

// Is reports whether data looks like a notebook by its content: a JSON
// object (after white space or a UTF-8 byte order mark) that names
// "nbformat" and holds "cells" (nbformat 4) or "worksheets" (nbformat 3).
// It does not parse the JSON: ElementsWithin says whether it is one.
func Is(data []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	return bytes.Contains(t, []byte(`"nbformat"`)) && (bytes.Contains(t, []byte(`"cells"`)) || bytes.Contains(t, []byte(`"worksheets"`)))
}

// Elements reads data as a notebook within the default limits.
func Elements(ctx context.Context, data []byte) ([]gochunk.Element, error) {
	return ElementsWithin(ctx, data, htmldoc.NewBudget(htmldoc.DefaultLimits(), int64(len(data))))
}

// multiline is a notebook's text: a string, or a list of strings (its
// lines, each with its line break) to join.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*m = multiline(s)
	case len(b) > 0 && b[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for _, p := range parts {
			if len(p) == 0 || p[0] != '"' {
				// No offset: encoding/json names the field, and
				// locate finds where it is in the file.
				return &json.UnmarshalTypeError{Value: jsonKind(p), Type: multilineType}
			}
			var s string
			if err := json.Unmarshal(p, &s); err != nil {
				return err
			}
			sb.WriteString(s)
		}
		*m = multiline(sb.String())
	case string(b) == "null":
		*m = ""
	default:
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: multilineType}
	}
	return nil
}

var multilineType = reflect.TypeFor[multiline]()

// jsonKind names the kind of a JSON value by its first byte.
func jsonKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "value"
	case b[0] == '"':
		return "string"
	case b[0] == '[':
		return "list"
	case b[0] == '{':
		return "object"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == 'n':
		return "null"
	}
	return "number"
}

// loose is a field of nbformat 3 that nbformat 4 does not have (a cell's
// level, language, input; an output's markdown, html), or one of the
// metadata's: read as text when it is a string or a list of strings, a
// number as written, else left empty, as Jupyter ignores a field it does
// not know (a v4 cell's stray "level": "2").
type loose string

func (l *loose) UnmarshalJSON(b []byte) error {
	var m multiline
	if m.UnmarshalJSON(b) == nil {
		*l = loose(m)
	} else if jsonKind(b) == "number" {
		*l = loose(b) // a heading's level
	}
	return nil
}

// locate finds, in a notebook's JSON, the value a type error is about:
// the first at the error's field path (encoding/json's "cells.source")
// that its Go type does not take (for a multiline, a string, a list or
// null; in a list, a string), returning its offset and the cell it is
// in (1-based, counted as ElementsWithin counts them; 0 outside cells).
// encoding/json gives an error from a field's own UnmarshalJSON no
// offset, and offsets counted from the field's start for one inside it.
func locate(data []byte, e *json.UnmarshalTypeError) (cell int, off int64, ok bool) {
	type frame struct {
		obj, wantKey bool
		key          string
		cells        bool // a list of cells
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	path := func() string {
		var keys []string
		for _, f := range stack {
			if f.obj {
				keys = append(keys, f.key)
			}
		}
		return strings.Join(keys, ".")
	}
	for {
		start := dec.InputOffset()
		for start < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[start]) >= 0 {
			start++
		}
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		if d, isDelim := tok.(json.Delim); isDelim && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].wantKey = true
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			stack[n-1].key, stack[n-1].wantKey = tok.(string), false
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].cells {
			cell++
		}
		p := path()
		kind := jsonKind(data[start:min(start+1, int64(len(data)))])
		if p == e.Field && !takes(e.Type, kind) {
			return cell, start, true
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{cells: p == "cells" || p == "worksheets.cells"})
		}
	}
}

// takes reports whether a field of type t is read from a JSON value of
// kind (jsonKind).
func takes(t reflect.Type, kind string) bool {
	if kind == "null" || t == nil {
		return true
	}
	if t == multilineType {
		return kind == "string" || kind == "list"
	}
	switch t.Kind() {
	case reflect.String:
		return kind == "string"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return kind == "number"
	case reflect.Struct, reflect.Map:
		return kind == "object"
	case reflect.Slice:
		return kind == "list"
	case reflect.Bool:
		return kind == "bool"
	}
	return true
}

// mimeBundle is the text an output holds, by its MIME type; other types
// (images, widgets, JavaScript) are skipped by the decoder.
type mimeBundle struct {
	Markdown multiline `json:"text/markdown"`
	Plain    multiline `json:"text/plain"`
	HTML     multiline `json:"text/html"`
	// An image's text/plain is its stand-in ("<Figure size 640x480 with
	// 1 Axes>"), not what Jupyter shows: it is left out with the image.
	PNG  seen `json:"image/png"`
	JPEG seen `json:"image/jpeg"`
	SVG  seen `json:"image/svg+xml"`
	GIF  seen `json:"image/gif"`
}

// seen records that a value is there, without copying it.
type seen bool

func (s *seen) UnmarshalJSON([]byte) error {
	*s = true
	return nil
}

type output struct {
	OutputType string     `json:"output_type"`
	Text       multiline  `json:"text"` // a stream's; nbformat 3: a result's text/plain too
	Data       mimeBundle `json:"data"`
	Ename      string     `json:"ename"`
	Evalue     string     `json:"evalue"`
	// nbformat 3 keeps a result's types at the top of the output.
	Markdown loose `json:"markdown"`
	HTML     loose `json:"html"`
}

type cell struct {
	CellType string    `json:"cell_type"`
	Source   multiline `json:"source"`
	Input    loose     `json:"input"`    // nbformat 3: a code cell's source
	Language loose     `json:"language"` // nbformat 3: a code cell's language
	Level    loose     `json:"level"`    // nbformat 3: a heading cell's level
	Outputs  []output  `json:"outputs"`
}

type notebook struct {
	NBFormat   json.RawMessage `json:"nbformat"`
	Cells      []cell          `json:"cells"`
	Worksheets []struct {
		Cells []cell `json:"cells"`
	} `json:"worksheets"`
	Metadata struct {
		// Metadata is free-form beyond these: a value of another type is
		// ignored (loose), not a reason to refuse the notebook.
		Kernelspec struct {
			Language loose `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name loose `json:"name"`
		} `json:"language_info"`
		Language loose `json:"language"`
	} `json:"metadata"`
}

// ElementsWithin reads data as a notebook, counting its text against b.
// It returns an error wrapping ErrFormat for data that is not a notebook's
// JSON (saying where the JSON breaks, or that it is cut short), a
// *VersionError for a notebook of an nbformat other than 3 and 4, one
// wrapping htmldoc.ErrTooLarge when b's bounds are passed, and ctx's when
// it is done.
func ElementsWithin(ctx context.Context, data []byte, b *htmldoc.Budget) ([]gochunk.Element, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bom := 0 // a byte order mark's bytes, counted in the offsets said
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		data, bom = data[3:], 3
	}
	if !utf8.Valid(data) {
		// Jupyter reads a notebook as UTF-8 and refuses one that is not;
		// the JSON decoder would put U+FFFD in silently.
		at := 0
		for at < len(data) {
			r, n := utf8.DecodeRune(data[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		line, col := lineCol(data, int64(at)+1) // the column of the byte at
		return nil, fmt.Errorf("%w: invalid UTF-8 at byte %d (line %d, column %d), where a notebook is UTF-8: convert the file to UTF-8 (iconv -f ENCODING -t UTF-8)", ErrFormat, bom+at, line, col)
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, jsonError(data, bom, err)
	}
	if len(nb.NBFormat) == 0 {
		return nil, fmt.Errorf(`%w: the JSON has no "nbformat": it is not a notebook`, ErrFormat)
	}
	version, err := strconv.Atoi(string(nb.NBFormat))
	if err != nil {
		return nil, fmt.Errorf(`%w: "nbformat" is %s, not a number`, ErrFormat, nb.NBFormat)
	}
	cells := nb.Cells
	switch version {
	case 4:
	case 3:
		cells = nil
		for _, ws := range nb.Worksheets {
			cells = append(cells, ws.Cells...)
		}
	default:
		return nil, &VersionError{NBFormat: string(nb.NBFormat)}
	}
	lang := strings.ToLower(strings.TrimSpace(firstOf(string(nb.Metadata.LanguageInfo.Name), string(nb.Metadata.Kernelspec.Language), string(nb.Metadata.Language))))
	r := &reader{ctx: ctx, budget: b}
	for i, c := range cells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := r.cell(c, version, lang); err != nil {
			return nil, fmt.Errorf("cell %d: %w", i+1, err)
		}
	}
	return r.els, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// jsonError says where a notebook's JSON breaks, and what to do.
func jsonError(data []byte, bom int, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))):
		return fmt.Errorf("%w: the JSON is cut short (it ends at byte %d inside the notebook): check that the file was saved or copied whole", ErrFormat, bom+len(data))
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("%w: the JSON does not parse at line %d, column %d (%s): open and save it in Jupyter, or find the fault with python3 -m json.tool FILE", ErrFormat, line, col, strings.TrimPrefix(err.Error(), "json: "))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the notebook"
		}
		where := ""
		if cell, off, ok := locate(data, typ); ok {
			line, col := lineCol(data, off+1)
			where = fmt.Sprintf(" at line %d, column %d", line, col)
			if cell > 0 {
				_, field, _ = strings.Cut(field, "cells.")
				field = fmt.Sprintf("cell %d: %s", cell, field)
			}
		}
		return fmt.Errorf("%w: %s: want %s, found a JSON %s%s: open and save it in Jupyter", ErrFormat, field, want(typ), typ.Value, where)
	}
	return fmt.Errorf("%w: %s: open and save it in Jupyter", ErrFormat, strings.TrimPrefix(err.Error(), "json: "))
}

func want(e *json.UnmarshalTypeError) string {
	if e.Type == nil {
		return "another type"
	}
	if e.Type == multilineType {
		return "a string or a list of strings"
	}
	switch e.Type.Kind().String() {
	case "slice":
		return "a list"
	case "struct", "map":
		return "an object"
	case "string":
		return "a string"
	case "int":
		return "a number"
	}
	return "another type"
}

// lineCol returns the 1-based line and column (in characters) of the
// character that ends at byte off: where encoding/json's errors point
// (their Offset counts the bytes read, the faulty one included).
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, max(col, 1)
}

type reader struct {
	ctx    context.Context
	budget *htmldoc.Budget
	els    []gochunk.Element
}

func (r *reader) add(e gochunk.Element) error {
	if strings.TrimSpace(e.Text) == "" {
		return nil
	}
	if err := r.budget.Text(int64(len(e.Text)) + 2); err != nil {
		return err
	}
	r.els = append(r.els, e)
	return nil
}

func (r *reader) cell(c cell, version int, lang string) error {
	src := string(c.Source)
	switch c.CellType {
	case "markdown":
		return r.markdown(src)
	case "heading": // nbformat 3
		n, _ := strconv.Atoi(strings.Trim(string(c.Level), `" `))
		level := min(max(n, 1), 6)
		typ := "heading"
		if level == 1 {
			typ = "title"
		}
		return r.add(gochunk.Element{Type: typ, Text: strings.Repeat("#", level) + " " + strings.Join(strings.Fields(src), " "), Level: level})
	case "raw":
		for _, p := range paragraphs(src) {
			if err := r.add(gochunk.Element{Type: "paragraph", Text: p}); err != nil {
				return err
			}
		}
		return nil
	case "code":
		if version == 3 {
			src = string(c.Input)
			lang = strings.ToLower(strings.TrimSpace(firstOf(string(c.Language), lang)))
		}
		if m := magicLanguage(src); m != "" {
			lang = m
		}
		if err := r.add(gochunk.Element{Type: "paragraph", Text: fence(lang, trimBlankLines(src))}); err != nil {
			return err
		}
		return r.outputs(c.Outputs)
	}
	return nil // a cell of a type Jupyter does not define: nothing a person sees
}

// cellMagics are the IPython cell magics that run a cell in another
// language, and that language.
var cellMagics = map[string]string{
	"bash": "bash", "sh": "sh", "sql": "sql", "javascript": "javascript", "js": "javascript",
	"html": "html", "latex": "latex", "markdown": "markdown", "r": "r", "ruby": "ruby",
	"perl": "perl", "python2": "python", "python3": "python", "pypy": "python", "svg": "svg",
	"powershell": "powershell", "cmd": "batch",
}

// magicLanguage returns the language a code cell's first line sets with a
// cell magic ("%%bash", "%%sql", "%%script bash"), else "".
func magicLanguage(src string) string {
	line, _, _ := strings.Cut(strings.TrimLeft(src, " \t\r\n"), "\n")
	name, ok := strings.CutPrefix(strings.TrimSpace(line), "%%")
	if !ok {
		return ""
	}
	f := strings.Fields(name)
	if len(f) == 0 {
		return ""
	}
	if f[0] == "script" && len(f) > 1 {
		return cellMagics[strings.ToLower(filepath.Base(f[1]))]
	}
	return cellMagics[strings.ToLower(f[0])]
}

// outputs adds a code cell's text outputs: each run of plain text (streams,
// results' text/plain, errors) one fenced block, Markdown and HTML read as
// such.
func (r *reader) outputs(outs []output) error {
	var plain strings.Builder
	flush := func() error {
		t := trimBlankLines(plain.String())
		plain.Reset()
		return r.add(gochunk.Element{Type: "paragraph", Text: fence("text", t)})
	}
	for _, o := range outs {
		var md, htm, txt string
		switch o.OutputType {
		case "stream":
			txt = string(o.Text)
		case "execute_result", "display_data", "pyout", "update_display_data":
			md, txt, htm = firstOf(string(o.Data.Markdown), string(o.Markdown)), string(o.Data.Plain), firstOf(string(o.Data.HTML), string(o.HTML))
			if txt == "" {
				txt = string(o.Text) // nbformat 3
			}
			if d := o.Data; d.PNG || d.JPEG || d.SVG || d.GIF {
				txt = ""
			}
		case "error", "pyerr":
			txt = o.Ename
			if o.Evalue != "" {
				txt += ": " + o.Evalue
			}
			txt += "\n"
		default:
			continue
		}
		switch {
		case strings.TrimSpace(md) != "":
			if err := flush(); err != nil {
				return err
			}
			if err := r.markdown(md); err != nil {
				return err
			}
		case strings.TrimSpace(txt) != "":
			txt = terminalText(txt)
			if plain.Len() > 0 && !strings.HasSuffix(plain.String(), "\n") {
				plain.WriteByte('\n')
			}
			plain.WriteString(txt)
		case strings.TrimSpace(htm) != "":
			if err := flush(); err != nil {
				return err
			}
			els, err := htmldoc.ElementsWithin(strings.NewReader(htm), r.budget)
			if err != nil {
				return err
			}
			r.els = append(r.els, els...) // counted by htmldoc
		}
	}
	return flush()
}

// fence returns text as a fenced code block marked lang, its fence longer
// than any run of backticks in text; "" for blank text.
func fence(lang, text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	n, run := 3, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + text + "\n" + f
}

// trimBlankLines removes blank lines (and trailing white space) at the
// start and end of text, keeping the first line's indentation.
func trimBlankLines(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	for {
		line, rest, ok := strings.Cut(text, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return text
		}
		text = rest
	}
}

// terminalText returns what a terminal shows of text: ANSI escape
// sequences (colours, cursor moves) removed, and a line rewritten after a
// carriage return kept as last written.
func terminalText(text string) string {
	if !strings.ContainsAny(text, "\x1b\r") {
		return text
	}
	var sb strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != 0x1b {
			sb.WriteByte(c)
			continue
		}
		if i+1 < len(text) && text[i+1] == '[' { // CSI: parameters, then a final byte @ to ~
			j := i + 2
			for j < len(text) && (text[j] < 0x40 || text[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		if i+1 < len(text) && text[i+1] == ']' { // OSC: up to BEL or ST
			j := i + 2
			for j < len(text) && text[j] != 0x07 && !(text[j] == 0x1b && j+1 < len(text) && text[j+1] == '\\') {
				j++
			}
			if j < len(text) && text[j] == 0x1b {
				j++
			}
			i = j
			continue
		}
		i++ // a two-byte escape
	}
	lines := strings.Split(strings.ReplaceAll(sb.String(), "\r\n", "\n"), "\n")
	for k, l := range lines {
		if i := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); i >= 0 {
			lines[k] = l[i+1:]
		}
		lines[k] = strings.TrimRight(lines[k], "\r")
	}
	return strings.Join(lines, "\n")
}

// paragraphs returns text's blank-line-separated paragraphs, trimmed.
func paragraphs(text string) []string {
	var out []string
	var cur []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, "\n"))
				cur = cur[:0]
			}
			continue
		}
		cur = append(cur, strings.TrimRight(l, " \t\r"))
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}
