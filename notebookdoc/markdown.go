package notebookdoc

import (
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// markdown adds the blocks of a markdown cell (or a Markdown output) as
// elements, their text as written: ATX and setext headings (a level-1
// heading a title, as the HTML reader makes <h1>), fenced code kept whole
// with its blank lines, list items (a marker starts one; its indentation
// is its nesting), pipe tables (a row of cells, then a delimiter row),
// block quotes and paragraphs. An HTML block (a line that starts with a
// tag, to the next blank line; a comment to its end, a script, pre, style
// or textarea to its closing tag) is read as HTML is (package htmldoc), as a
// Markdown renderer shows it; a thematic break ("---") holds no text and
// is left out.
func (r *reader) markdown(src string) error {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var cur []string
	typ := ""
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		text := strings.Join(cur, "\n")
		t := typ
		cur = cur[:0]
		typ = ""
		if t != "list_item" {
			text = strings.TrimLeft(text, " \t")
		}
		if t == "quote" {
			t = "paragraph"
		}
		return r.add(gochunk.Element{Type: t, Text: text})
	}
	for i := 0; i < len(lines); i++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		l := strings.TrimRight(lines[i], " \t\r")
		t := strings.TrimSpace(l)
		top := indent(l) < 4
		switch {
		case t == "":
			if err := flush(); err != nil {
				return err
			}
		case top && fenceOpen(t) != "":
			if err := flush(); err != nil {
				return err
			}
			open := fenceOpen(t)
			block := []string{strings.TrimLeft(l, " ")}
			for i+1 < len(lines) {
				i++
				next := strings.TrimRight(lines[i], " \t\r")
				block = append(block, next)
				if c := strings.TrimSpace(next); strings.HasPrefix(c, open) && strings.Trim(c, open[:1]) == "" {
					break
				}
			}
			if err := r.add(gochunk.Element{Type: "paragraph", Text: strings.Join(block, "\n")}); err != nil {
				return err
			}
		case top && atxLevel(t) > 0:
			if err := flush(); err != nil {
				return err
			}
			level := atxLevel(t)
			if err := r.add(gochunk.Element{Type: headingType(level), Text: t, Level: level}); err != nil {
				return err
			}
		case top && typ == "paragraph" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == ""):
			level := 1
			if t[0] == '-' {
				level = 2
			}
			text := strings.Join(append(cur, t), "\n")
			cur, typ = cur[:0], ""
			if err := r.add(gochunk.Element{Type: headingType(level), Text: strings.TrimLeft(text, " \t"), Level: level}); err != nil {
				return err
			}
		case top && thematicBreak(t):
			if err := flush(); err != nil {
				return err
			}
		case top && htmlStart(t):
			if err := flush(); err != nil {
				return err
			}
			// As CommonMark ends HTML blocks: a comment at "-->", a
			// script, pre, style or textarea at its closing tag, any
			// other at a blank line.
			end := htmlBlockEnd(t)
			block := []string{l}
			closed := end != "" && strings.Contains(strings.ToLower(l), end)
			for i+1 < len(lines) && !closed && (end != "" || strings.TrimSpace(lines[i+1]) != "") {
				i++
				block = append(block, lines[i])
				closed = end != "" && strings.Contains(strings.ToLower(lines[i]), end)
			}
			els, err := htmldoc.ElementsWithin(strings.NewReader(strings.Join(block, "\n")), r.budget)
			if err != nil {
				return err
			}
			r.els = append(r.els, els...) // counted by htmldoc
		case listMarker(t):
			if err := flush(); err != nil {
				return err
			}
			typ, cur = "list_item", append(cur, l)
		case typ == "table" && strings.Contains(t, "|"):
			cur = append(cur, l)
		case top && strings.Contains(t, "|") && i+1 < len(lines) && delimiterRow(strings.TrimSpace(lines[i+1])):
			if err := flush(); err != nil {
				return err
			}
			typ, cur = "table", append(cur, l)
		case strings.HasPrefix(t, ">") && typ != "list_item":
			if typ != "quote" {
				if err := flush(); err != nil {
					return err
				}
			}
			typ, cur = "quote", append(cur, l)
		default:
			if typ == "table" {
				if err := flush(); err != nil {
					return err
				}
			}
			if typ == "" {
				typ = "paragraph"
			}
			cur = append(cur, l)
		}
	}
	return flush()
}

func headingType(level int) string {
	if level == 1 {
		return "title"
	}
	return "heading"
}

// indent returns a line's indentation in columns (a tab is 4).
func indent(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// fenceOpen returns the fence a line opens (three or more backticks or
// tildes), or "".
func fenceOpen(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 && (c == "~" || !strings.Contains(t[n:], "`")) {
			return t[:n]
		}
	}
	return ""
}

// atxLevel returns the level of an ATX heading ("## Title"), else 0.
func atxLevel(t string) int {
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t') {
		return n
	}
	return 0
}

// thematicBreak reports whether a line is "---", "***" or "___" (three or
// more of one, spaces between allowed).
func thematicBreak(t string) bool {
	s := strings.ReplaceAll(strings.ReplaceAll(t, " ", ""), "\t", "")
	return len(s) >= 3 && (strings.Trim(s, "-") == "" || strings.Trim(s, "*") == "" || strings.Trim(s, "_") == "")
}

// htmlStart reports whether a line starts an HTML block: a tag, a
// closing tag, a comment or a declaration at its start.
func htmlStart(t string) bool {
	if len(t) < 2 || t[0] != '<' {
		return false
	}
	c := t[1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// htmlBlockEnd returns what ends an HTML block that starts with line t
// across blank lines ("-->" for a comment, "</script>" for a script ...),
// or "" for a block a blank line ends.
func htmlBlockEnd(t string) string {
	lower := strings.ToLower(t)
	if strings.HasPrefix(lower, "<!--") {
		return "-->"
	}
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if rest, ok := strings.CutPrefix(lower, "<"+tag); ok && (rest == "" || rest[0] == '>' || rest[0] == ' ' || rest[0] == '\t') {
			return "</" + tag + ">"
		}
	}
	return ""
}

// listMarker reports whether a line starts a list item: "-", "*" or "+",
// or a number of up to 9 digits and "." or ")", then a space or nothing.
func listMarker(t string) bool {
	if len(t) >= 1 && (t[0] == '-' || t[0] == '*' || t[0] == '+') {
		return len(t) == 1 || t[1] == ' ' || t[1] == '\t'
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')') && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t')
}

// delimiterRow reports whether a line is a pipe table's delimiter row:
// cells of dashes, with colons for alignment.
func delimiterRow(t string) bool {
	t = strings.Trim(t, "|")
	if t == "" || !strings.Contains(t, "-") {
		return false
	}
	for _, cell := range strings.Split(t, "|") {
		c := strings.Trim(strings.TrimSpace(cell), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}
