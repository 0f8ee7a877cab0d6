// Package rtfdoc reads Rich Text Format (RTF 1.x, as Word, WordPad,
// LibreOffice and TextEdit write it) as layout elements: paragraphs,
// headings (from outline levels and "heading N" styles), list items (from
// the list text Word writes before each item) and tables (\cell and \row)
// as pipe tables, like the other readers of gochunk.
//
// The reader keeps the text a person sees: destinations that are not
// text (the font, colour and style tables, document information,
// pictures, objects' data, field instructions, headers and footers, and
// every destination marked \* that it does not know) are skipped, hidden
// text (\v) is left out, and footnotes and endnotes are read as pandoc
// writes them: a marker "[^1]" in the text, the note "[^1]: text" after
// the body. Comments (\annotation) are not read. Characters
// are decoded from \uN (with its \ucN fallback skipped), and from raw and
// \'hh bytes in the code page of the document (\ansicpg) or of the font in
// use (\fcharset, \cpg), single-byte and East Asian double-byte ones alike.
//
// Reading is bounded: groups nest at most MaxDepth deep, and the text and
// tables are counted against htmldoc's Limits, as the other readers' are.
package rtfdoc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/internal/mdtable"
)

// MaxDepth is the deepest nesting of groups read; a document nested
// deeper is refused (Word writes a few levels, a dozen at most).
const MaxDepth = 512

// ErrFormat reports data that is not RTF or is broken beyond reading.
var ErrFormat = errors.New("not a readable RTF document")

// Is reports whether data starts as an RTF document does ("{\rtf"),
// after white space or a UTF-8 byte order mark.
func Is(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	data = bytes.TrimLeft(data, " \t\r\n")
	return bytes.HasPrefix(data, []byte(`{\rtf`))
}

// Elements reads data as an RTF document within the default limits.
func Elements(ctx context.Context, data []byte) ([]gochunk.Element, error) {
	return ElementsWithin(ctx, data, htmldoc.NewBudget(htmldoc.DefaultLimits(), int64(len(data))))
}

// ElementsWithin reads data as an RTF document, counting its text and
// table cells against b. It returns an error wrapping ErrFormat for data
// that is not RTF or nests groups deeper than MaxDepth, one wrapping
// htmldoc.ErrTooLarge when b's bounds are passed, and ctx's when it is
// done.
func ElementsWithin(ctx context.Context, data []byte, b *htmldoc.Budget) ([]gochunk.Element, error) {
	if !Is(data) {
		return nil, fmt.Errorf(`%w: it does not start with "{\rtf"`, ErrFormat)
	}
	r := &reader{ctx: ctx, data: data, budget: b, ansiCP: 1252, fonts: map[int]int{}, styles: map[int]int{}}
	r.st = state{uc: 1, cp: 1252, outline: -1, font: -1}
	if err := r.run(); err != nil {
		return nil, err
	}
	return r.els, nil
}

// Destinations whose text is not the document's: skipped with their
// groups (the font table and the style sheet are read for their code
// pages and heading levels; a shape's \shpinst is read for its text
// box, and its \shprslt, the same drawn for older readers, skipped).
var skipped = map[string]bool{
	"colortbl": true, "info": true, "pict": true, "nonshppict": true,
	"objdata": true, "fldinst": true, "header": true, "headerl": true, "headerr": true,
	"headerf": true, "footer": true, "footerl": true, "footerr": true, "footerf": true,
	"listtable": true, "listoverridetable": true, "revtbl": true, "rsidtbl": true,
	"generator": true, "filetbl": true, "xe": true, "tc": true, "tcn": true, "txe": true,
	"private": true, "themedata": true, "colorschememapping": true, "datastore": true,
	"latentstyles": true, "xmlnstbl": true, "pgdsctbl": true, "bkmkstart": true,
	"bkmkend": true, "comment": true, "atnauthor": true, "atnid": true, "atndate": true,
	"template": true, "userprops": true, "docvar": true, "mmathPr": true, "pn": true,
	"listpicture": true, "sp": true, "shprslt": true, "ftnsep": true, "ftnsepc": true,
	"aftnsep": true, "aftnsepc": true, "ftncn": true, "aftncn": true, "shppict": true,
	"blipuid": true, "fontemb": true, "fontfile": true, "falt": true, "panose": true,
}

// dest is what a group's text is.
type dest uint8

const (
	destText     dest = iota // the body
	destSkip                 // nothing: a skipped destination
	destFonts                // the font table
	destStyles               // the style sheet
	destListText             // a list item's marker
	destNote                 // a footnote
)

// state is a group's: RTF's properties are scoped to the group that sets
// them.
type state struct {
	dest    dest
	uc      int  // bytes of fallback after \uN
	cp      int  // code page of the font in use
	hidden  bool // \v
	intbl   bool // the paragraph is in a table
	outline int  // \outlinelevelN, -1 when none
	style   int  // \sN
	ilvl    int  // \ilvlN
	font    int  // \fN in the font table: the font being described
	upr     dest // the destination around an \upr group, for its \ud
	hasIlvl bool // \ilvlN was given
	li      int  // \liN, the left indent in twips
}

type reader struct {
	ctx    context.Context
	data   []byte
	pos    int
	budget *htmldoc.Budget
	els    []gochunk.Element
	notes  []gochunk.Element

	st    state
	stack []state

	ansiCP int         // \ansicpg, or that of \ansi, \mac, \pc, \pca
	fonts  map[int]int // code page by font number
	styles map[int]int // heading level by style number
	style  struct {    // the style sheet's entry being read
		num   int
		level int
		name  strings.Builder
	}

	pending []byte // bytes in st.cp not yet decoded
	pendCP  int
	high    rune // a UTF-16 high surrogate from \uN, waiting for its pair
	skip    int  // fallback bytes after \uN still to skip

	para   strings.Builder // the paragraph being read
	marker strings.Builder // its list marker (\listtext, \pntext)
	note   strings.Builder // the footnote being read
	cell   strings.Builder // the table cell being read
	row    []mdtable.Cell
	table  *mdtable.Table
	rows   int
}

func (r *reader) run() error {
	for n := 0; r.pos < len(r.data); n++ {
		if n&0xFFFF == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		c := r.data[r.pos]
		switch c {
		case '{':
			r.pos++
			r.flush()
			if len(r.stack) >= MaxDepth {
				return fmt.Errorf("%w: groups nested deeper than %d at byte %d", ErrFormat, MaxDepth, r.pos-1)
			}
			r.stack = append(r.stack, r.st)
			r.skip = 0
		case '}':
			r.pos++
			r.flush()
			if err := r.closeGroup(); err != nil {
				return err
			}
			if len(r.stack) == 0 {
				r.pos = len(r.data) // the document's group closed: what follows is not RTF
				break
			}
			r.st = r.stack[len(r.stack)-1]
			r.stack = r.stack[:len(r.stack)-1]
			r.skip = 0
		case '\\':
			if err := r.control(); err != nil {
				return err
			}
		case '\r', '\n':
			r.pos++ // line breaks of the file are not the text's
		default:
			r.pos++
			if r.skip > 0 {
				r.skip--
				continue
			}
			r.byte(c)
		}
	}
	// A document cut short (its last braces missing) keeps what was read.
	r.flush()
	if err := r.endParagraph(); err != nil {
		return err
	}
	if err := r.endTable(); err != nil {
		return err
	}
	for _, e := range r.notes {
		if err := r.emit(e); err != nil {
			return err
		}
	}
	return nil
}

// closeGroup finishes what a group held as it closes: a style sheet
// entry, a footnote.
func (r *reader) closeGroup() error {
	if len(r.stack) == 0 {
		return nil
	}
	parent := r.stack[len(r.stack)-1]
	switch {
	case r.st.dest == destStyles && parent.dest == destStyles:
		name := strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(r.style.name.String()), ";")))
		level := r.style.level
		if l, ok := strings.CutPrefix(name, "heading "); ok {
			if n, err := strconv.Atoi(l); err == nil && n >= 1 && n <= 9 {
				level = n
			}
		} else if name == "title" {
			level = 1
		}
		if level > 0 {
			r.styles[r.style.num] = level
		}
		r.style.num, r.style.level = 0, 0
		r.style.name.Reset()
	case r.st.dest == destNote && parent.dest != destNote:
		// A footnote or endnote (\footnote, \footnote\ftnalt) is read as
		// pandoc writes notes: a marker "[^1]" where it stands (its
		// group follows the reference mark, \chftn, in the text) and the
		// note, "[^1]: text", after the body, its paragraphs a line each.
		var lines []string
		for l := range strings.SplitSeq(r.note.String(), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		r.note.Reset()
		if len(lines) == 0 {
			return nil
		}
		n := strconv.Itoa(len(r.notes) + 1)
		r.notes = append(r.notes, gochunk.Element{Type: "footnote", Text: "[^" + n + "]: " + strings.Join(lines, "\n")})
		if parent.dest == destText && !parent.hidden {
			r.para.WriteString("[^" + n + "]")
		}
	}
	return nil
}

// control reads a control word or symbol at r.pos (its backslash).
func (r *reader) control() error {
	r.pos++
	if r.pos >= len(r.data) {
		return nil
	}
	c := r.data[r.pos]
	if !isLetter(c) {
		r.pos++
		return r.symbol(c)
	}
	start := r.pos
	for r.pos < len(r.data) && isLetter(r.data[r.pos]) && r.pos-start < 32 {
		r.pos++
	}
	word := string(r.data[start:r.pos])
	param, hasParam := 0, false
	if r.pos < len(r.data) && (r.data[r.pos] == '-' || isDigit(r.data[r.pos])) {
		neg := r.data[r.pos] == '-'
		if neg {
			r.pos++
		}
		digits := 0
		for r.pos < len(r.data) && isDigit(r.data[r.pos]) {
			if digits < 10 {
				param = param*10 + int(r.data[r.pos]-'0')
			}
			digits++
			r.pos++
		}
		hasParam = digits > 0
		if neg {
			param = -param
		}
	}
	if r.pos < len(r.data) && r.data[r.pos] == ' ' {
		r.pos++ // the delimiter
	}
	if r.skip > 0 && word != "bin" {
		r.skip-- // a control word stands for one character of the fallback
		return nil
	}
	return r.word(word, param, hasParam)
}

// symbol handles a control symbol: \ followed by one character that is
// not a letter.
func (r *reader) symbol(c byte) error {
	switch c {
	case '\'':
		if r.pos+2 <= len(r.data) {
			if v, err := strconv.ParseUint(string(r.data[r.pos:r.pos+2]), 16, 8); err == nil {
				r.pos += 2
				if r.skip > 0 {
					r.skip--
					return nil
				}
				r.byte(byte(v))
				return nil
			}
		}
	case '*':
		// An ignorable destination: skipped unless its word is known.
		r.starred()
		return nil
	}
	if r.skip > 0 {
		r.skip--
		return nil
	}
	switch c {
	case '\\', '{', '}':
		r.byte(c)
	case '~':
		r.text("\u00A0")
	case '_':
		r.text("\u2011")
	case '\r', '\n':
		return r.paragraph()
	case '\t':
		r.text("\t")
	}
	// \- (optional hyphen), \: (index subentry), \| (formula) have no text.
	return nil
}

// starred handles \*: the control word after it names a destination that
// a reader may ignore; gochunk reads the few it knows and skips the rest.
func (r *reader) starred() {
	i := r.pos
	if i < len(r.data) && r.data[i] == '\\' {
		j := i + 1
		for j < len(r.data) && isLetter(r.data[j]) {
			j++
		}
		switch string(r.data[i+1 : j]) {
		case "ud": // the Unicode alternative of \upr: read
			if r.st.dest == destSkip {
				r.st.dest = r.st.upr
			}
			return
		case "footnote":
			// pandoc and others mark a footnote ignorable: read, after
			// the body.
			return
		case "shpinst":
			// A shape: its properties (\sp) are skipped, a text box's
			// text (\shptxt) read; its \shprslt copy for older readers
			// is skipped.
			return
		}
	}
	r.flush()
	r.st.dest = destSkip
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// word handles a control word.
func (r *reader) word(w string, param int, hasParam bool) error {
	if r.st.dest == destSkip {
		if w == "bin" {
			r.bin(param)
		}
		return nil
	}
	if skipped[w] {
		r.flush()
		r.st.dest = destSkip
		return nil
	}
	switch w {
	// Code pages.
	case "ansi":
		r.ansiCP = 1252
	case "mac":
		r.ansiCP = 10000
	case "pc":
		r.ansiCP = 437
	case "pca":
		r.ansiCP = 850
	case "ansicpg":
		if hasParam && param > 0 {
			r.ansiCP = param
		}
		r.setCP(r.ansiCP)
	case "deff":
		// The default font's code page applies until a \f says otherwise.
	case "f":
		if r.st.dest == destFonts {
			r.st.font = param
			return nil
		}
		cp, ok := r.fonts[param]
		if !ok || cp == 0 {
			cp = r.ansiCP
		}
		r.setCP(cp)
	case "fcharset":
		if r.st.dest == destFonts && r.st.font >= 0 {
			if _, set := r.fonts[r.st.font]; !set {
				r.fonts[r.st.font] = charsetCP(param)
			}
		}
	case "cpg":
		if r.st.dest == destFonts && r.st.font >= 0 && param > 0 {
			r.fonts[r.st.font] = param
		}
	case "uc":
		r.st.uc = max(0, min(param, 16))
	case "u":
		r.unicode(param)
	case "bin":
		r.bin(param)

	// Destinations read.
	case "fonttbl":
		r.flush()
		r.st.dest = destFonts
	case "stylesheet":
		r.flush()
		r.st.dest = destStyles
	case "listtext", "pntext":
		r.flush()
		r.st.dest = destListText
		r.marker.Reset()
	case "footnote":
		r.flush()
		r.st.dest = destNote
	case "upr":
		// {\upr{ANSI text}{\*\ud{Unicode text}}}: the ANSI text is
		// skipped, its Unicode copy read (see starred).
		r.flush()
		r.st.upr, r.st.dest = r.st.dest, destSkip

	// Style sheet entries and paragraph properties.
	case "s":
		if r.st.dest == destStyles {
			r.style.num = param
			return nil
		}
		r.st.style = param
	case "outlinelevel":
		if r.st.dest == destStyles {
			if param >= 0 && param < 9 {
				r.style.level = param + 1
			}
			return nil
		}
		r.st.outline = param
	case "pard":
		r.st.intbl, r.st.outline, r.st.style, r.st.ilvl, r.st.hasIlvl, r.st.li = false, -1, 0, 0, false, 0
	case "intbl":
		r.st.intbl = true
	case "itap":
		r.st.intbl = param > 0
	case "ilvl":
		r.st.ilvl = max(0, min(param, 8))
		r.st.hasIlvl = true
	case "li":
		r.st.li = param
	case "v":
		r.flush()
		r.st.hidden = !hasParam || param != 0
	case "plain":
		r.flush()
		r.st.hidden = false

	// Breaks.
	case "par", "sect", "page":
		return r.paragraph()
	case "line":
		r.text("\n")
	case "tab":
		r.text("\t")
	case "cell", "nestcell":
		r.endCell()
	case "row", "nestrow":
		return r.endRow()

	// Characters.
	case "emdash":
		r.text("—")
	case "endash":
		r.text("–")
	case "emspace", "enspace", "qmspace":
		r.text(" ")
	case "bullet":
		r.text("•")
	case "lquote":
		r.text("‘")
	case "rquote":
		r.text("’")
	case "ldblquote":
		r.text("“")
	case "rdblquote":
		r.text("”")
	case "zwj":
		r.text("\u200D")
	case "zwnj":
		r.text("\u200C")
	case "ltrmark":
		r.text("\u200E")
	case "rtlmark":
		r.text("\u200F")
	}
	return nil
}

// bin skips \binN's N bytes of binary data.
func (r *reader) bin(n int) {
	r.flush()
	if n < 0 {
		n = 0
	}
	r.pos = min(len(r.data), r.pos+n)
}

// unicode handles \uN: the character (a negative N is its 16-bit value
// less 65536), then st.uc bytes of fallback skipped.
func (r *reader) unicode(n int) {
	r.flush()
	if n < 0 {
		n += 65536
	}
	c := rune(n & 0xFFFF)
	switch {
	case utf16.IsSurrogate(c) && c < 0xDC00:
		r.emitRune(0) // a high surrogate waiting is lost
		r.high = c
	case utf16.IsSurrogate(c):
		if h := r.high; h != 0 {
			r.high = 0
			r.emitRune(utf16.DecodeRune(h, c))
		} else {
			r.emitRune(utf8.RuneError)
		}
	default:
		r.emitRune(c)
	}
	r.skip = r.st.uc
}

// setCP makes cp the code page of the bytes that follow.
func (r *reader) setCP(cp int) {
	if cp != r.st.cp {
		r.flush()
		r.st.cp = cp
	}
}

// byte takes one byte of text in the current code page.
func (r *reader) byte(c byte) {
	if r.st.dest == destSkip || r.st.hidden && r.st.dest != destFonts && r.st.dest != destStyles {
		return
	}
	if len(r.pending) > 0 && r.pendCP != r.st.cp {
		r.flush()
	}
	if c < 0x80 && len(r.pending) == 0 {
		r.emitByte(c)
		return
	}
	r.pendCP = r.st.cp
	r.pending = append(r.pending, c)
}

// flush decodes the pending bytes.
func (r *reader) flush() {
	if len(r.pending) == 0 {
		return
	}
	s := Decode(r.pendCP, r.pending)
	r.pending = r.pending[:0]
	r.emitText(s)
}

// text takes a character given by a control word.
func (r *reader) text(s string) {
	if r.st.dest == destSkip || r.st.hidden {
		return
	}
	r.flush()
	r.emitText(s)
}

// emitRune takes a character of \uN (none for 0).
func (r *reader) emitRune(c rune) {
	if r.st.dest == destSkip || r.st.hidden || c == 0 && r.high == 0 {
		return
	}
	if c == 0 {
		r.emitText("")
		return
	}
	r.lone()
	switch r.st.dest {
	case destText:
		r.para.WriteRune(c)
	case destListText:
		r.marker.WriteRune(c)
	case destNote:
		r.note.WriteRune(c)
	case destStyles:
		r.style.name.WriteRune(c)
	}
}

// lone writes U+FFFD for a high surrogate of \uN that no low one
// followed.
func (r *reader) lone() {
	if r.high != 0 {
		r.high = 0
		r.emitText(string(utf8.RuneError))
	}
}

func (r *reader) emitByte(c byte) {
	r.lone()
	switch r.st.dest {
	case destText:
		r.para.WriteByte(c)
	case destListText:
		r.marker.WriteByte(c)
	case destNote:
		r.note.WriteByte(c)
	case destStyles:
		r.style.name.WriteByte(c)
	}
}

func (r *reader) emitText(s string) {
	r.lone()
	switch r.st.dest {
	case destText:
		r.para.WriteString(s)
	case destListText:
		r.marker.WriteString(s)
	case destNote:
		r.note.WriteString(s)
	case destStyles:
		r.style.name.WriteString(s)
	}
}

// paragraph ends a paragraph (\par): in a table it is part of the
// cell's text, in a footnote part of the note's.
func (r *reader) paragraph() error {
	r.flush()
	switch r.st.dest {
	case destNote:
		r.note.WriteByte('\n')
		return nil
	case destText:
	default:
		return nil
	}
	if r.st.intbl {
		if t := strings.TrimSpace(r.para.String()); t != "" {
			if r.cell.Len() > 0 {
				r.cell.WriteByte(' ')
			}
			r.cell.WriteString(t)
		}
		r.para.Reset()
		r.marker.Reset()
		return nil
	}
	return r.endParagraph()
}

// endParagraph emits the paragraph read, as a heading, list item or
// paragraph, after the table before it.
func (r *reader) endParagraph() error {
	text := strings.TrimSpace(r.para.String())
	marker := strings.TrimSpace(r.marker.String())
	r.para.Reset()
	r.marker.Reset()
	if text == "" {
		return nil
	}
	if err := r.endTable(); err != nil {
		return err
	}
	level := r.styles[r.st.style]
	if r.st.outline >= 0 && r.st.outline < 9 {
		level = r.st.outline + 1
	}
	switch {
	case level > 0 && !strings.Contains(text, "\n") && len(text) < 500:
		typ := "heading"
		if level == 1 {
			typ = "title"
		}
		return r.emit(gochunk.Element{Type: typ, Text: strings.Repeat("#", min(level, 6)) + " " + strings.Join(strings.Fields(text), " ")})
	}
	if marker == "" {
		marker, text = inlineMarker(text)
	}
	if marker != "" {
		m := "- "
		if last := marker[len(marker)-1]; (last == '.' || last == ')') && len(marker) <= 8 {
			m = marker + " "
		}
		nest := r.st.ilvl
		if !r.st.hasIlvl && r.st.li > 360 {
			nest = min((r.st.li+180)/360-1, 8) // 0.25 inch a level, as Word and pandoc indent
		}
		return r.emit(gochunk.Element{Type: "list_item", Text: strings.Repeat("  ", nest) + m + strings.Join(strings.Fields(text), " ")})
	}
	return r.emit(gochunk.Element{Type: "paragraph", Text: text})
}

// inlineMarker returns the list marker a paragraph's text starts with,
// written in the text before a tab as pandoc and older writers do ("•\t",
// "–\t", "3.\t", "b)\t"), and the text after it; "" and the text when
// it has none.
func inlineMarker(text string) (string, string) {
	m, rest, ok := strings.Cut(text, "\t")
	if !ok || m == "" || len(m) > 8 {
		return "", text
	}
	switch m {
	case "•", "·", "–", "-", "—", "▪", "◦", "o", "*", "\uf0b7", "\uf0a7":
		return "-", rest
	}
	if last := m[len(m)-1]; last == '.' || last == ')' {
		body := m[:len(m)-1]
		digits := strings.Trim(body, "0123456789") == ""
		letter := len(body) == 1 && (body[0] >= 'a' && body[0] <= 'z' || body[0] >= 'A' && body[0] <= 'Z')
		roman := strings.Trim(strings.ToLower(body), "ivxlc") == ""
		if body != "" && (digits || letter || roman) {
			return m, rest
		}
	}
	return "", text
}

// endCell ends a table cell (\cell).
func (r *reader) endCell() {
	r.flush()
	if r.st.dest != destText {
		return
	}
	if t := strings.TrimSpace(r.para.String()); t != "" {
		if r.cell.Len() > 0 {
			r.cell.WriteByte(' ')
		}
		r.cell.WriteString(t)
	}
	r.para.Reset()
	r.marker.Reset()
	r.row = append(r.row, mdtable.Cell{Col: len(r.row), Text: cellText(r.cell.String())})
	r.cell.Reset()
}

// endRow ends a table row (\row).
func (r *reader) endRow() error {
	r.flush()
	if r.st.dest != destText {
		return nil
	}
	if r.cell.Len() > 0 || strings.TrimSpace(r.para.String()) != "" {
		r.endCell()
	}
	if r.table == nil {
		r.table = mdtable.New(r.budget)
		r.rows = 0
	}
	cells := r.row[:0:0]
	for _, c := range r.row {
		if c.Text != "" {
			cells = append(cells, c)
		}
	}
	r.row = r.row[:0]
	if len(cells) == 0 {
		return nil
	}
	if err := r.table.AddRow(r.rows, cells); err != nil {
		return err
	}
	r.rows++
	return nil
}

// endTable emits the table read, if any.
func (r *reader) endTable() error {
	if r.table == nil {
		return nil
	}
	tb := r.table
	r.table = nil
	md, err := tb.Write(mdtable.Style{Delim: " --- |"})
	if err != nil || md == "" {
		return err
	}
	r.els = append(r.els, gochunk.Element{Type: "table", Text: md})
	return nil
}

// emit appends an element, counted against the budget.
func (r *reader) emit(e gochunk.Element) error {
	if err := r.budget.Text(int64(len(e.Text)) + 2); err != nil {
		return err
	}
	r.els = append(r.els, e)
	return nil
}

// cellText returns a cell's text as a pipe table holds it: one line,
// pipes escaped.
func cellText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
