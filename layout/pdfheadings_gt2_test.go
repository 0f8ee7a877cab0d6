package layout

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

// A second ground truth for PDF headings and lists, from producers the
// first (HTML printed by Chromium) does not use: Word documents written
// here (heading styles, headings numbered through numbering.xml, nested
// numbered and bulleted lists with a tab after the marker and a hanging
// indent) and HTML, exported to PDF by LibreOffice, and LaTeX articles
// typeset by pdflatex. Each document's headings (title 1, then one level
// a heading style or sectioning command deeper) and list items (text and
// nesting) are known exactly from its source. Run on demand:
//
//	GOCHUNK_GT_HEADS2=1 go test ./layout -run TestPDFHeadingsGroundTruth2 -v
//
// (GOCHUNK_GT_DIR=DIR keeps the sources and PDFs; GOCHUNK_GT_VERBOSE=1
// logs each miss of the development styles; GOCHUNK_GT_HEADS2_ENGINE=poppler
// reads them with Poppler.) The held-out styles were scored before the
// rules were changed and only their totals are logged. The styles
// (h2Styles): development: docx-word-numbered (Word 2016's defaults:
// headings in a light face, coloured, not bold, numbered 1 / 1.1 / 1.1.1
// through numbering.xml; Symbol, "o" and Wingdings bullets; 1. a. i.),
// docx-bold-body (headings bold at the body's size, the third bold
// italic; justified; en-dash bullets, (a) and (i)), latex-article
// (article 11 pt: \section to \subsubsection, \paragraph run into its
// paragraph, itemize and enumerate three deep), html-libreoffice (HTML
// through LibreOffice's Writer/Web, with bookmarks); held out:
// held-docx-legal (numbered 1. / 1.1 / 1.1.1 in bold at the body's size,
// the first in small capitals, the third italic; (a), (i), A.),
// held-docx-colour-family (headings in another family and colour, a
// little larger; ▪ and – bullets; 1) a) i)), held-latex-twocolumn
// (article 10 pt in two columns), held-html-libreoffice. Each document
// also holds bold lead-ins and bold sentences of their own, which are no
// headings.

// h2Style is how a document of the second set is made.
type h2Style struct {
	name     string
	heldOut  bool
	producer string // "docx" (LibreOffice's export), "html" (LibreOffice's Writer/Web), "latex" (pdflatex)
	outline  bool   // the PDF carries bookmarks (LibreOffice's ExportBookmarks; LaTeX's hyperref)

	// Word documents.
	bodyFont, headFont string
	bodySize           int    // half-points
	titleSize          int    // half-points
	hSize              [3]int // Heading 1..3, half-points
	hBold, hItalic     [3]bool
	hCaps              [3]bool   // small capitals
	hColor             string    // RRGGBB, "" for black
	hNumber            [3]string // numbering.xml's lvlText ("%1", "%1.%2"); "" unnumbered
	justify            bool
	bullets            [3]h2Bullet
	ordered            [3]h2Ordered

	// LaTeX.
	latexClass string // "\documentclass[...]{article}"

	// HTML through LibreOffice: a style of the first ground truth.
	htmlStyle string
}

// h2Bullet is a bulleted list level in Word: the character and its font.
type h2Bullet struct{ char, font, marker string }

// h2Ordered is a numbered list level in Word: its w:numFmt and w:lvlText.
type h2Ordered struct{ fmt, text string }

var h2Styles = []h2Style{
	// Development styles.
	// Word 2016's defaults: headings in a light face, blue, not bold, numbered 1, 1.1, 1.1.1 with a tab.
	{name: "docx-word-numbered", producer: "docx", bodyFont: "Calibri", headFont: "Calibri Light", bodySize: 22, titleSize: 56,
		hSize: [3]int{32, 26, 24}, hColor: "2F5496", hNumber: [3]string{"%1", "%1.%2", "%1.%2.%3"},
		bullets: [3]h2Bullet{{"\uf0b7", "Symbol", "•"}, {"o", "Courier New", "o"}, {"\uf0a7", "Wingdings", "▪"}},
		ordered: [3]h2Ordered{{"decimal", "%1."}, {"lowerLetter", "%2."}, {"lowerRoman", "%3."}}},
	// Headings in bold at the body's size (the third in bold italic), justified text, en-dash bullets, (a) and (i).
	{name: "docx-bold-body", producer: "docx", bodyFont: "Times New Roman", headFont: "Times New Roman", bodySize: 24, titleSize: 32,
		hSize: [3]int{28, 24, 24}, hBold: [3]bool{true, true, true}, hItalic: [3]bool{false, false, true}, justify: true,
		bullets: [3]h2Bullet{{"–", "Times New Roman", "–"}, {"◦", "Times New Roman", "◦"}, {"–", "Times New Roman", "–"}},
		ordered: [3]h2Ordered{{"lowerLetter", "(%1)"}, {"lowerRoman", "(%2)"}, {"decimal", "%3."}}},
	{name: "latex-article", producer: "latex", latexClass: `\documentclass[11pt]{article}`},
	{name: "html-libreoffice", producer: "html", htmlStyle: "sans-numbered", outline: true},
	// Held-out styles.
	// A legal style: numbered 1. / 1.1 / 1.1.1 in bold at the body's size, the first in small capitals; (a), (i), dashes.
	{name: "held-docx-legal", heldOut: true, producer: "docx", bodyFont: "Cambria", headFont: "Cambria", bodySize: 21, titleSize: 28,
		hSize: [3]int{22, 21, 21}, hBold: [3]bool{true, true, false}, hItalic: [3]bool{false, false, true}, hCaps: [3]bool{true, false, false},
		hNumber: [3]string{"%1.", "%1.%2", "%1.%2.%3"}, justify: true,
		bullets: [3]h2Bullet{{"–", "Cambria", "–"}, {"•", "Cambria", "•"}, {"–", "Cambria", "–"}},
		ordered: [3]h2Ordered{{"lowerLetter", "(%1)"}, {"lowerRoman", "(%2)"}, {"upperLetter", "%3."}}},
	// Headings in another family and colour, a little larger; bullets ▪ and –, numbers 1) and a).
	{name: "held-docx-colour-family", heldOut: true, producer: "docx", bodyFont: "Georgia", headFont: "Arial", bodySize: 21, titleSize: 40,
		hSize: [3]int{28, 24, 22}, hBold: [3]bool{true, false, false}, hItalic: [3]bool{false, false, true}, hColor: "1F4E79",
		bullets: [3]h2Bullet{{"▪", "Arial", "▪"}, {"–", "Arial", "–"}, {"•", "Arial", "•"}},
		ordered: [3]h2Ordered{{"decimal", "%1)"}, {"lowerLetter", "%2)"}, {"lowerRoman", "%3)"}}},
	{name: "held-latex-twocolumn", heldOut: true, producer: "latex", latexClass: `\documentclass[10pt,twocolumn]{article}`},
	{name: "held-html-libreoffice", heldOut: true, producer: "html", htmlStyle: "serif-default"},
}

// h2Seeds are the documents made of each style.
var h2Seeds = []uint64{1, 2}

// h2Block is a piece of a generated document.
type h2Block struct {
	kind    string // "title", "heading", "para", "leadin" (bold words open it), "boldpara", "item", "runin" (a heading run into its paragraph)
	level   int    // heading: 1..3 (Word's Heading n; LaTeX section..subsubsection; runin 4); item: 1..3
	text    string // a heading's title without its number; a runin's paragraph
	head    string // a runin's heading
	list    int    // an item's list, counted from 1 in the document
	ordered bool
	num     int // an item's number in its list at its level
}

// h2Gen makes the blocks of a document: a title, sections of paragraphs,
// nested lists and subsections, bold lead-ins and bold sentences that are
// no headings.
func h2Gen(rng *rand.Rand, g *gtText, runIns bool) []h2Block {
	var out []h2Block
	lists := 0
	para := func() {
		var ss []string
		for range 2 + rng.IntN(4) {
			ss = append(ss, g.sentence(rng, 6, 40))
		}
		switch rng.IntN(6) {
		case 0:
			out = append(out, h2Block{kind: "leadin", text: strings.Join(ss, " ")})
		case 1:
			out = append(out, h2Block{kind: "para", text: strings.Join(ss, " ")}, h2Block{kind: "boldpara", text: g.sentence(rng, 5, 12)})
		default:
			out = append(out, h2Block{kind: "para", text: strings.Join(ss, " ")})
		}
	}
	var list func(level int, ordered bool)
	list = func(level int, ordered bool) {
		n := 2 + rng.IntN(3)
		nested := -1
		if level < 3 && rng.Float64() < 0.7/float64(level) {
			nested = rng.IntN(n)
		}
		for k := 1; k <= n; k++ {
			out = append(out, h2Block{kind: "item", level: level, text: g.sentence(rng, 4, 30), list: lists, ordered: ordered, num: k})
			if k-1 == nested {
				list(level+1, ordered)
			}
		}
	}
	newList := func() {
		lists++
		list(1, rng.IntN(2) == 0)
	}
	out = append(out, h2Block{kind: "title", text: g.title(rng)})
	para()
	for range 3 + rng.IntN(2) {
		out = append(out, h2Block{kind: "heading", level: 1, text: g.title(rng)})
		para()
		if rng.IntN(2) == 0 {
			newList()
			para()
		}
		for range 1 + rng.IntN(3) {
			out = append(out, h2Block{kind: "heading", level: 2, text: g.title(rng)})
			para()
			if rng.IntN(5) < 2 {
				newList()
			}
			if rng.IntN(10) < 3 {
				out = append(out, h2Block{kind: "heading", level: 3, text: g.title(rng)})
				para()
			}
			if runIns && rng.IntN(3) == 0 {
				out = append(out, h2Block{kind: "runin", level: 4, head: g.title(rng), text: g.sentence(rng, 8, 30) + " " + g.sentence(rng, 8, 30)})
			}
		}
	}
	return out
}

// h2Truth returns a document's headings (with the numbers they are
// printed with) and list items.
func h2Truth(blocks []h2Block, st h2Style) ([]gtHeading, []gtItem) {
	var hs []gtHeading
	var items []gtItem
	var counters [3]int
	for _, b := range blocks {
		switch b.kind {
		case "title":
			hs = append(hs, gtHeading{b.text, 1})
		case "heading":
			counters[b.level-1]++
			for k := b.level; k < 3; k++ {
				counters[k] = 0
			}
			num := ""
			switch {
			case st.producer == "latex":
				num = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(counters[:b.level])), "."), "[]")
			case st.producer == "docx" && st.hNumber[b.level-1] != "":
				num = st.hNumber[b.level-1]
				for k := range b.level {
					num = strings.Replace(num, fmt.Sprintf("%%%d", k+1), fmt.Sprint(counters[k]), 1)
				}
			}
			text := b.text
			if num != "" {
				text = num + " " + text
			}
			hs = append(hs, gtHeading{text, b.level + 1})
		case "runin":
			hs = append(hs, gtHeading{b.head, b.level + 1})
		case "item":
			items = append(items, gtItem{b.text, h2Marker(st, b), b.level})
		}
	}
	return hs, items
}

// h2Marker is the marker an item is printed with, as far as the source
// tells it.
func h2Marker(st h2Style, b h2Block) string {
	if st.producer == "latex" {
		if !b.ordered {
			return [3]string{"•", "–", "∗"}[b.level-1]
		}
		return [3]string{fmt.Sprintf("%d.", b.num), fmt.Sprintf("(%c)", 'a'+b.num-1), romans[b.num] + "."}[b.level-1]
	}
	if !b.ordered {
		return st.bullets[b.level-1].marker
	}
	o := st.ordered[b.level-1]
	n := fmt.Sprint(b.num)
	switch o.fmt {
	case "lowerLetter":
		n = string(rune('a' + b.num - 1))
	case "upperLetter":
		n = string(rune('A' + b.num - 1))
	case "lowerRoman":
		n = romans[b.num]
	}
	return strings.Replace(o.text, fmt.Sprintf("%%%d", b.level), n, 1)
}

func h2Esc(s string) string {
	var b bytes.Buffer
	_ = h2EscText(&b, s)
	return b.String()
}

func h2EscText(b *bytes.Buffer, s string) error {
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteRune(r)
		}
	}
	return nil
}

// h2Docx writes a Word document of the blocks in style st.
func h2Docx(blocks []h2Block, st h2Style) []byte {
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	run := func(text string, rpr string) string {
		return fmt.Sprintf(`<w:r>%s<w:t xml:space="preserve">%s</w:t></w:r>`, rpr, h2Esc(text))
	}
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + ns + `><w:body>`)
	// Lists: numId 1 numbers the headings; each list after gets its own
	// (restarting at 1), on abstract 2 (bullets) or 3 (numbers).
	type inst struct{ id, abstract int }
	var insts []inst
	listNum := map[int]int{}
	for _, b := range blocks {
		switch b.kind {
		case "title":
			fmt.Fprintf(&doc, `<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr>%s</w:p>`, run(b.text, ""))
		case "heading":
			fmt.Fprintf(&doc, `<w:p><w:pPr><w:pStyle w:val="Heading%d"/></w:pPr>%s</w:p>`, b.level, run(b.text, ""))
		case "para":
			fmt.Fprintf(&doc, `<w:p>%s</w:p>`, run(b.text, ""))
		case "boldpara":
			fmt.Fprintf(&doc, `<w:p>%s</w:p>`, run(b.text, "<w:rPr><w:b/></w:rPr>"))
		case "leadin":
			w := strings.Fields(b.text)
			n := min(len(w)-1, 2+len(w)%2)
			fmt.Fprintf(&doc, `<w:p>%s%s</w:p>`, run(strings.Join(w[:n], " ")+" ", "<w:rPr><w:b/></w:rPr>"), run(strings.Join(w[n:], " "), ""))
		case "item":
			id, ok := listNum[b.list]
			if !ok {
				id = len(insts) + 2
				listNum[b.list] = id
				insts = append(insts, inst{id, 2 + b2i(b.ordered)})
			}
			fmt.Fprintf(&doc, `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr></w:pPr>%s</w:p>`, b.level-1, id, run(b.text, ""))
		}
	}
	doc.WriteString(`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`)

	fonts := func(f string) string {
		return fmt.Sprintf(`<w:rFonts w:ascii="%s" w:hAnsi="%s" w:cs="%s"/>`, f, f, f)
	}
	var styles strings.Builder
	jc := ""
	if st.justify {
		jc = `<w:jc w:val="both"/>`
	}
	fmt.Fprintf(&styles, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles %s><w:docDefaults><w:rPrDefault><w:rPr>%s<w:sz w:val="%d"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>`, ns, fonts(st.bodyFont), st.bodySize)
	fmt.Fprintf(&styles, `<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/><w:pPr>%s</w:pPr></w:style>`, jc)
	fmt.Fprintf(&styles, `<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="240"/><w:jc w:val="left"/></w:pPr><w:rPr>%s<w:sz w:val="%d"/></w:rPr></w:style>`, fonts(st.headFont), st.titleSize)
	for i := range 3 {
		var rpr strings.Builder
		rpr.WriteString(fonts(st.headFont))
		if st.hBold[i] {
			rpr.WriteString("<w:b/>")
		}
		if st.hItalic[i] {
			rpr.WriteString("<w:i/>")
		}
		if st.hCaps[i] {
			rpr.WriteString("<w:smallCaps/>")
		}
		if st.hColor != "" {
			fmt.Fprintf(&rpr, `<w:color w:val="%s"/>`, st.hColor)
		}
		fmt.Fprintf(&rpr, `<w:sz w:val="%d"/>`, st.hSize[i])
		num := ""
		if st.hNumber[i] != "" {
			num = fmt.Sprintf(`<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="1"/></w:numPr>`, i)
		}
		fmt.Fprintf(&styles, `<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/>%s<w:spacing w:before="%d" w:after="60"/><w:jc w:val="left"/><w:outlineLvl w:val="%d"/></w:pPr><w:rPr>%s</w:rPr></w:style>`,
			i+1, i+1, num, 240-60*i, i, rpr.String())
	}
	styles.WriteString(`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="40"/><w:ind w:left="720"/><w:contextualSpacing/></w:pPr></w:style></w:styles>`)

	var num strings.Builder
	fmt.Fprintf(&num, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering %s>`, ns)
	num.WriteString(`<w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="multilevel"/>`)
	for i := range 3 {
		fmt.Fprintf(&num, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading%d"/><w:lvlText w:val="%s"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="%d" w:hanging="%d"/></w:pPr></w:lvl>`,
			i, i+1, h2Or(st.hNumber[i], "%1"), 432+144*i, 432+144*i)
	}
	num.WriteString(`</w:abstractNum><w:abstractNum w:abstractNumId="2"><w:multiLevelType w:val="hybridMultilevel"/>`)
	for i, bl := range st.bullets {
		fmt.Fprintf(&num, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="%s"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="%d" w:hanging="360"/></w:pPr><w:rPr><w:rFonts w:ascii="%s" w:hAnsi="%s" w:hint="default"/></w:rPr></w:lvl>`,
			i, h2Esc(bl.char), 720*(i+1), bl.font, bl.font)
	}
	num.WriteString(`</w:abstractNum><w:abstractNum w:abstractNumId="3"><w:multiLevelType w:val="hybridMultilevel"/>`)
	for i, o := range st.ordered {
		fmt.Fprintf(&num, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="%s"/><w:lvlText w:val="%s"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="%d" w:hanging="360"/></w:pPr></w:lvl>`,
			i, o.fmt, o.text, 720*(i+1))
	}
	num.WriteString(`</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>`)
	for _, in := range insts {
		fmt.Fprintf(&num, `<w:num w:numId="%d"><w:abstractNumId w:val="%d"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>`, in.id, in.abstract)
	}
	num.WriteString(`</w:numbering>`)

	files := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/_rels/document.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>`},
		{"word/document.xml", doc.String()},
		{"word/styles.xml", styles.String()},
		{"word/numbering.xml", num.String()},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, _ := zw.Create(f.name)
		w.Write([]byte(f.body))
	}
	zw.Close()
	return buf.Bytes()
}

func h2Or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// latexEsc escapes TeX's special characters in running text.
func latexEsc(s string) string {
	return strings.NewReplacer(`\`, `\textbackslash{}`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`, `&`, `\&`,
		`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`, `"`, `''`).Replace(s)
}

// h2Latex writes a LaTeX article of the blocks.
func h2Latex(blocks []h2Block, st h2Style) string {
	var sb strings.Builder
	sb.WriteString(st.latexClass + "\n")
	if st.outline {
		sb.WriteString("\\usepackage{hyperref}\n")
	}
	depth := 0 // open lists
	var kinds []bool
	closeTo := func(level int) {
		for depth > level {
			if kinds[depth-1] {
				sb.WriteString("\\end{enumerate}\n")
			} else {
				sb.WriteString("\\end{itemize}\n")
			}
			depth--
			kinds = kinds[:depth]
		}
	}
	lastList := 0
	for _, b := range blocks {
		if b.kind != "item" || b.list != lastList {
			closeTo(0)
		}
		switch b.kind {
		case "title":
			fmt.Fprintf(&sb, "\\title{%s}\n\\author{}\n\\date{}\n\\begin{document}\n\\maketitle\n", latexEsc(b.text))
		case "heading":
			fmt.Fprintf(&sb, "\\%ssection{%s}\n", strings.Repeat("sub", b.level-1), latexEsc(b.text))
		case "runin":
			fmt.Fprintf(&sb, "\\paragraph{%s} %s\n\n", latexEsc(b.head), latexEsc(b.text))
		case "para":
			fmt.Fprintf(&sb, "%s\n\n", latexEsc(b.text))
		case "boldpara":
			fmt.Fprintf(&sb, "\\textbf{%s}\n\n", latexEsc(b.text))
		case "leadin":
			w := strings.Fields(b.text)
			n := min(len(w)-1, 2+len(w)%2)
			fmt.Fprintf(&sb, "\\textbf{%s} %s\n\n", latexEsc(strings.Join(w[:n], " ")), latexEsc(strings.Join(w[n:], " ")))
		case "item":
			lastList = b.list
			closeTo(b.level)
			for depth < b.level {
				if b.ordered {
					sb.WriteString("\\begin{enumerate}\n")
				} else {
					sb.WriteString("\\begin{itemize}\n")
				}
				depth++
				kinds = append(kinds, b.ordered)
			}
			fmt.Fprintf(&sb, "\\item %s\n", latexEsc(b.text))
		}
	}
	closeTo(0)
	sb.WriteString("\\end{document}\n")
	return sb.String()
}

// h2Export converts the given sources to PDF with LibreOffice in one run
// (filter: its PDF export, with or without bookmarks), or skips.
func h2Export(t *testing.T, dir string, outline bool, web bool, srcs []string) {
	t.Helper()
	if len(srcs) == 0 {
		return
	}
	bin, err := exec.LookPath("soffice")
	if err != nil {
		t.Skip("skipping: no LibreOffice (apt-get install libreoffice-writer)")
	}
	filter := "writer_pdf_Export"
	if web {
		filter = "writer_web_pdf_Export"
	}
	filter = fmt.Sprintf(`pdf:%s:{"ExportBookmarks":{"type":"boolean","value":"%v"}}`, filter, outline)
	args := append([]string{"--headless", "--norestore", "-env:UserInstallation=file://" + filepath.Join(dir, "lo-profile"),
		"--convert-to", filter, "--outdir", dir}, srcs...)
	if msg, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Skipf("skipping: LibreOffice cannot export here: %v %.300s", err, msg)
	}
}

// h2Doc is a generated document of the second set and its PDF.
type h2Doc struct {
	gtDoc
	pdf string
}

// h2Make writes the documents of every style and seed and makes their
// PDFs; a producer that is not installed is skipped with a message.
func h2Make(t *testing.T, dir string, g *gtText) map[string][]h2Doc {
	out := map[string][]h2Doc{}
	type batch struct {
		outline, web bool
	}
	batches := map[batch][]string{}
	_, latexErr := exec.LookPath("pdflatex")
	for _, st := range h2Styles {
		for _, seed := range h2Seeds {
			name := fmt.Sprintf("%s-%d", st.name, seed)
			d := h2Doc{gtDoc: gtDoc{name: name}, pdf: filepath.Join(dir, name+".pdf")}
			switch st.producer {
			case "html":
				var hs gtStyle
				for _, s := range gtStyles {
					if s.name == st.htmlStyle {
						hs = s
					}
				}
				gd := genDoc(hs, seed+100, g)
				d.headings, d.items = gd.headings, nil // LibreOffice writes its own markers and nesting
				for _, it := range gd.items {
					d.items = append(d.items, gtItem{it.text, "", it.level})
				}
				src := filepath.Join(dir, name+".html")
				if err := os.WriteFile(src, []byte(gd.html), 0o644); err != nil {
					t.Fatal(err)
				}
				batches[batch{st.outline, true}] = append(batches[batch{st.outline, true}], src)
			case "docx":
				rng := rand.New(rand.NewPCG(seed, 502))
				blocks := h2Gen(rng, g, false)
				d.headings, d.items = h2Truth(blocks, st)
				src := filepath.Join(dir, name+".docx")
				if err := os.WriteFile(src, h2Docx(blocks, st), 0o644); err != nil {
					t.Fatal(err)
				}
				batches[batch{st.outline, false}] = append(batches[batch{st.outline, false}], src)
			case "latex":
				if latexErr != nil {
					t.Logf("%s: no pdflatex (apt-get install texlive-latex-base): not scored", name)
					continue
				}
				rng := rand.New(rand.NewPCG(seed, 503))
				blocks := h2Gen(rng, g, true)
				d.headings, d.items = h2Truth(blocks, st)
				src := filepath.Join(dir, name+".tex")
				if err := os.WriteFile(src, []byte(h2Latex(blocks, st)), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-output-directory", dir, src)
				cmd.Dir = dir
				for range 2 { // twice, as LaTeX does for its references
					if msg, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("pdflatex %s: %v\n%.2000s", src, err, msg)
					}
					cmd = exec.Command(cmd.Path, cmd.Args[1:]...)
					cmd.Dir = dir
				}
			}
			out[st.name] = append(out[st.name], d)
		}
	}
	for b, srcs := range batches {
		h2Export(t, dir, b.outline, b.web, srcs)
	}
	return out
}

// h2Quotes writes quotation marks one way: LaTeX and LibreOffice print
// typographic ones where the source has straight ones.
var h2Quotes = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "''", `"`, "``", `"`)

// h2Norm returns the document and the elements with their quotation
// marks written alike, in lower case (a heading in small capitals is
// printed, and read, in capitals).
func h2Norm(d gtDoc, els []gochunk.Element) (gtDoc, []gochunk.Element) {
	out := d
	out.headings = nil
	for _, h := range d.headings {
		out.headings = append(out.headings, gtHeading{strings.ToLower(h2Quotes.Replace(h.text)), h.level})
	}
	out.items = nil
	for _, it := range d.items {
		out.items = append(out.items, gtItem{strings.ToLower(h2Quotes.Replace(it.text)), it.marker, it.level})
	}
	els = slices.Clone(els)
	for i := range els {
		els[i].Text = strings.ToLower(h2Quotes.Replace(els[i].Text))
	}
	return out, els
}

// TestPDFHeadingsGroundTruth2 scores headings and list items on the
// second ground truth (see above), by style, development and held out
// apart, and fails where a prose control (a bold sentence, a bold
// lead-in) is read as a heading.
func TestPDFHeadingsGroundTruth2(t *testing.T) {
	if os.Getenv("GOCHUNK_GT_HEADS2") == "" {
		t.Skip("skipping: the second ground truth of headings and lists is scored on demand (GOCHUNK_GT_HEADS2=1)")
	}
	g := loadGTText(t)
	dir := gtDir(t)
	docs := h2Make(t, dir, g)
	verbose := os.Getenv("GOCHUNK_GT_VERBOSE") != ""
	poppler := os.Getenv("GOCHUNK_GT_HEADS2_ENGINE") == "poppler"
	var dev, held gtScore
	for _, st := range h2Styles {
		var style gtScore
		for _, d := range docs[st.name] {
			if _, err := os.Stat(d.pdf); err != nil {
				t.Fatalf("%s: no PDF made: %v", d.name, err)
			}
			els := extractElements(t, d.pdf)
			if poppler {
				els = popplerElements(t, d.pdf)
			}
			nd, nels := h2Norm(d.gtDoc, els)
			style.add(scoreDoc(nd, nels, func(f string, a ...any) {
				if !st.heldOut && (verbose || strings.Contains(f, "false heading")) {
					t.Logf(f, a...)
				}
			}))
		}
		if !st.heldOut {
			t.Logf("%s: %v", st.name, style)
			dev.add(style)
		} else {
			held.add(style)
		}
	}
	t.Logf("development styles: %v", dev)
	t.Logf("held-out styles: %v", held)
	var all gtScore
	all.add(dev)
	all.add(held)
	// Two false headings today: "office" split by LibreOffice's ffi
	// ligature ("3.2 Today than when I took of" read apart from "f" and
	// "ice"), and a bold question set as a paragraph of its own (as FAQ
	// headings are set).
	// Poppler's words carry no font weight: its floors are its own.
	floors := h2Floors
	if poppler {
		floors = h2PopplerFloors
	}
	if n := all.headingsFalse; n > floors.falseHeadings {
		t.Errorf("%d false headings, more than %d", n, floors.falseHeadings)
	}
	floor := func(name string, got, of int, want float64) {
		if f := float64(got) / float64(max(of, 1)); f < want {
			t.Errorf("%s: %.3f, below the floor %.2f", name, f, want)
		}
	}
	floor("headings found", all.headingsFound, all.headings, floors.headings)
	floor("list items found", all.itemsFound, all.items, floors.items)
}

// h2Score is what TestPDFHeadingsGroundTruth2 must reach: the shares of
// headings and list items found, and the most false headings.
type h2Score struct {
	headings, items float64
	falseHeadings   int
}

// h2Floors are PDFium's floors, a little under today's (headings
// 199/222, list items 305/331 since LaTeX's bullets are read).
var h2Floors = h2Score{0.85, 0.90, 2}

// h2PopplerFloors are Poppler's (GOCHUNK_GT_HEADS2_ENGINE=poppler), a
// little under today's: headings 133/222, list items 244/331, 7 false
// headings (bold-only headings are out of its reach; a bold line it
// cannot tell from body text is taken by its size alone).
var h2PopplerFloors = h2Score{0.58, 0.72, 7}
