package officedoc

import (
	"encoding/xml"
	"strings"
	"unicode/utf8"
)

// Markup compatibility (mc:AlternateContent) and Office Math (OMML), read
// as the token stream of an OOXML part passes (see walkXML): one branch
// of each AlternateContent is read, and each equation becomes the text of
// one run, in linear form.

const (
	nsMC   = "http://schemas.openxmlformats.org/markup-compatibility/2006"
	nsMath = "http://schemas.openxmlformats.org/officeDocument/2006/math"
)

// understood are the namespace prefixes (as Office writes them in an
// mc:Choice's Requires) whose content the readers read: drawing shapes
// and text boxes, groups, Office 2010+ extensions of text and drawing,
// math, VML, charts. A Choice that requires another is not chosen.
var understood = map[string]bool{
	"wps": true, "wpg": true, "wpc": true, "wpi": true, "wp14": true, "wp": true, "w14": true, "w15": true, "w16": true,
	"w16se": true, "w16cid": true, "w16cex": true, "w16sdtdh": true, "w10": true, "a": true, "a14": true, "a15": true, "a16": true,
	"p14": true, "p15": true, "p16": true, "m": true, "v": true, "o": true, "c14": true, "c16": true, "c16r2": true, "c16r3": true,
	"x14": true, "x14ac": true, "x15": true, "xr": true, "xr2": true, "r": true, "dgm": true, "pic": true,
}

// alternates passes an OOXML part's tokens to fn with markup
// compatibility resolved, as an application that reads every branch's
// content does: of each mc:AlternateContent, the first mc:Choice whose
// Requires it understands, else the mc:Fallback (so a text box that Word
// writes both as a drawing and as VML is read once); and each Office Math
// zone (m:oMath) given as one text run (a "t" element) of its linear
// form, as the readers take runs' text.
type alternates struct {
	fn     func(xml.Token) error
	skip   int    // depth inside a branch not read (0: reading)
	chosen []bool // per open AlternateContent: a branch was read
	math   *mathNode
	stack  []*mathNode // open math elements, the zone's root first
}

func (a *alternates) token(tok xml.Token) error {
	if a.skip > 0 {
		switch tok.(type) {
		case xml.StartElement:
			a.skip++
		case xml.EndElement:
			a.skip--
		}
		return nil
	}
	if len(a.stack) > 0 {
		return a.mathToken(tok)
	}
	switch e := tok.(type) {
	case xml.StartElement:
		if isMC(e.Name) {
			switch e.Name.Local {
			case "AlternateContent":
				a.chosen = append(a.chosen, false)
				return nil
			case "Choice", "Fallback":
				n := len(a.chosen)
				if n == 0 {
					return nil // outside an AlternateContent: read as it is
				}
				if a.chosen[n-1] || e.Name.Local == "Choice" && !requiresUnderstood(attr(e, "Requires")) {
					a.skip = 1
					return nil
				}
				a.chosen[n-1] = true
				return nil
			}
		}
		if isMath(e.Name) && e.Name.Local == "oMath" {
			root := &mathNode{name: "oMath"}
			a.stack = []*mathNode{root}
			return nil
		}
	case xml.EndElement:
		if isMC(e.Name) {
			if e.Name.Local == "AlternateContent" && len(a.chosen) > 0 {
				a.chosen = a.chosen[:len(a.chosen)-1]
			}
			return nil
		}
	}
	return a.fn(tok)
}

// mathToken builds the open equation's tree; at its end the equation is
// passed on as a run of its linear text.
func (a *alternates) mathToken(tok xml.Token) error {
	top := a.stack[len(a.stack)-1]
	switch e := tok.(type) {
	case xml.StartElement:
		if isMath(e.Name) || e.Name.Local == "t" {
			n := &mathNode{name: e.Name.Local, val: attr(e, "val")}
			top.kids = append(top.kids, n)
			a.stack = append(a.stack, n)
			return nil
		}
		// Other markup in an equation (run properties of Word): its
		// content is not the equation's text.
		n := &mathNode{name: "-"}
		top.kids = append(top.kids, n)
		a.stack = append(a.stack, n)
	case xml.CharData:
		if top.name == "t" {
			top.text += string(e)
		}
	case xml.EndElement:
		a.stack = a.stack[:len(a.stack)-1]
		if len(a.stack) == 0 {
			text := strings.TrimSpace(top.render())
			if text == "" {
				return nil
			}
			t := xml.Name{Space: nsMath, Local: "t"}
			for _, tk := range []xml.Token{xml.StartElement{Name: t}, xml.CharData(text), xml.EndElement{Name: t}} {
				if err := a.fn(tk); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// isMC and isMath tell an element of markup compatibility or of Office
// Math, by its namespace or, where the document does not declare it, by
// its usual prefix.
func isMC(n xml.Name) bool { return n.Space == nsMC || n.Space == "mc" }

func isMath(n xml.Name) bool { return n.Space == nsMath || n.Space == "m" }

func requiresUnderstood(req string) bool {
	for _, p := range strings.Fields(req) {
		if !understood[p] {
			return false
		}
	}
	return true
}

// mathNode is an element of an equation: its local name, its m:val
// attribute (a property's value), its text (of an m:t), its children.
type mathNode struct {
	name string
	val  string
	text string
	kids []*mathNode
}

// child returns the first child named name, or nil.
func (n *mathNode) child(name string) *mathNode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// prop returns the value of the property name in the element's
// properties (its first child named ...Pr), and whether it is there.
func (n *mathNode) prop(name string) (string, bool) {
	for _, k := range n.kids {
		if strings.HasSuffix(k.name, "Pr") {
			if p := k.child(name); p != nil {
				return p.val, true
			}
		}
	}
	return "", false
}

// arg renders the child name (an argument: m:e, m:num, m:sup...).
func (n *mathNode) arg(name string) string {
	if k := n.child(name); k != nil {
		return k.render()
	}
	return ""
}

// render writes an equation in linear form, close to UnicodeMath and to
// what a reader types: x^2, x_i, (a)/(b), √(x), ∛(x), √(n&x) for an n-th
// root, ∑_(i=1)^n a_i, sin(x), lim_(n→∞) a_n, matrices as [a, b; c, d],
// delimiters as written, accents and bars after their base; a script or
// argument longer than one character is parenthesized.
func (n *mathNode) render() string {
	switch n.name {
	case "t":
		// Invisible operators: a function's application reads as a
		// space (sin θ), invisible times, separators and plus as nothing.
		return invisibleOps.Replace(n.text)
	case "-", "rPr", "ctrlPr":
		return ""
	case "f":
		return "(" + n.arg("num") + ")/(" + n.arg("den") + ")"
	case "sSup":
		return n.arg("e") + "^" + group(n.arg("sup"))
	case "sSub":
		return n.arg("e") + "_" + group(n.arg("sub"))
	case "sSubSup":
		return n.arg("e") + "_" + group(n.arg("sub")) + "^" + group(n.arg("sup"))
	case "sPre":
		return "_" + group(n.arg("sub")) + "^" + group(n.arg("sup")) + n.arg("e")
	case "rad":
		e := n.arg("e")
		deg := n.arg("deg")
		switch deg {
		case "":
			return "√(" + e + ")"
		case "3":
			return "∛(" + e + ")"
		case "4":
			return "∜(" + e + ")"
		}
		return "√(" + deg + "&" + e + ")"
	case "nary":
		op, ok := n.prop("chr")
		if !ok || op == "" {
			op = "∫"
		}
		s := op
		if sub := n.arg("sub"); sub != "" {
			s += "_" + group(sub)
		}
		if sup := n.arg("sup"); sup != "" {
			s += "^" + group(sup)
		}
		return s + " " + n.arg("e")
	case "d":
		beg, ok := n.prop("begChr")
		if !ok {
			beg = "("
		}
		end, ok := n.prop("endChr")
		if !ok {
			end = ")"
		}
		sep, ok := n.prop("sepChr")
		if !ok {
			sep = "|"
		}
		var parts []string
		for _, k := range n.kids {
			if k.name == "e" {
				parts = append(parts, k.render())
			}
		}
		return beg + strings.Join(parts, sep) + end
	case "func":
		name, e := n.arg("fName"), n.arg("e")
		if strings.HasPrefix(e, "(") || strings.HasPrefix(e, "[") {
			return name + e
		}
		return name + "(" + e + ")"
	case "limLow":
		return n.arg("e") + "_" + group(n.arg("lim"))
	case "limUpp":
		return n.arg("e") + "^" + group(n.arg("lim"))
	case "acc":
		chr, ok := n.prop("chr")
		if !ok {
			chr = "\u0302" // a circumflex, Word's default accent
		}
		return n.arg("e") + chr
	case "bar":
		return n.arg("e") + "\u0305"
	case "groupChr":
		chr, ok := n.prop("chr")
		if !ok {
			chr = "\u23DF" // a bottom brace
		}
		return n.arg("e") + chr
	case "m":
		var rows []string
		for _, r := range n.kids {
			if r.name != "mr" {
				continue
			}
			var cells []string
			for _, c := range r.kids {
				if c.name == "e" {
					cells = append(cells, c.render())
				}
			}
			rows = append(rows, strings.Join(cells, ", "))
		}
		return "[" + strings.Join(rows, "; ") + "]"
	case "eqArr":
		var rows []string
		for _, k := range n.kids {
			if k.name == "e" {
				rows = append(rows, k.render())
			}
		}
		return strings.Join(rows, "; ")
	}
	if strings.HasSuffix(n.name, "Pr") {
		return ""
	}
	// m:oMath, m:e, m:r, m:box, m:borderBox, m:phant and the arguments:
	// their children in order.
	var sb strings.Builder
	for _, k := range n.kids {
		sb.WriteString(k.render())
	}
	return sb.String()
}

// group parenthesizes a script or argument longer than one character.
func group(s string) string {
	if utf8.RuneCountInString(s) <= 1 || strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balancedParens(s[1:len(s)-1]) {
		return s
	}
	return "(" + s + ")"
}

// balancedParens tells whether s's parentheses pair up.
func balancedParens(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

var invisibleOps = strings.NewReplacer("\u2061", " ", "\u2062", "", "\u2063", "", "\u2064", "")
