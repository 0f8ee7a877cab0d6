package layout

import (
	"cmp"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
)

// Ground truth for PDF headings and lists: HTML documents whose structure
// is known exactly (headings h1–h4, some at the body's size in bold, some
// numbered; nested bulleted and numbered lists; paragraphs of real text;
// a few tables), in several styles, printed to PDF by headless Chromium
// and read back by the PDFium reader.

// gtHeading and gtItem are a document's true headings and list items.
type gtHeading struct {
	text  string
	level int
}

type gtItem struct {
	text, marker string
	level        int
}

type gtDoc struct {
	name     string
	style    gtStyle
	html     string
	headings []gtHeading
	items    []gtItem
}

// gtStyle is how a generated document looks.
type gtStyle struct {
	name    string
	heldOut bool      // not tuned to: its figures are reported apart
	font    string    // CSS font-family
	size    string    // the body's font size
	hsize   [4]string // h1..h4 font-size
	hweight [4]string // h1..h4 font-weight
	hitalic [4]bool
	number  string    // "", "decimal" (1., 1.2, 1.2.3) or "appendix" (A., A.1, A.1.1)
	columns bool      // two columns
	justify bool      // paragraphs justified
	ul      [3]string // list-style-type by nesting level
	ol      [3]string
	hmargin string // headings' CSS margin; "" for 0.9em above, 0.5em below
	leadIns bool   // paragraphs opening with a few bold words, bold sentences: not headings
}

var gtStyles = []gtStyle{
	{name: "serif-default", font: "'DejaVu Serif', serif", size: "12pt",
		hsize: [4]string{"2em", "1.5em", "1.17em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		justify: true, ul: [3]string{"'• '", "'◦ '", "'▪ '"}, ol: [3]string{"decimal", "lower-alpha", "lower-roman"}},
	{name: "sans-numbered", font: "'DejaVu Sans', sans-serif", size: "10.5pt",
		hsize: [4]string{"1.6em", "1.3em", "1.1em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		number: "decimal", ul: [3]string{"'• '", "'– '", "'◦ '"}, ol: [3]string{"decimal", "decimal", "lower-alpha"}},
	{name: "sans-bold-body", font: "'DejaVu Sans', sans-serif", size: "11pt",
		hsize: [4]string{"1.5em", "1.2em", "1em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		hitalic: [4]bool{false, false, false, true}, ul: [3]string{"'• '", "'◦ '", "'▪ '"}, ol: [3]string{"decimal", "lower-alpha", "lower-roman"}},
	{name: "serif-two-columns", font: "'DejaVu Serif', serif", size: "10pt",
		hsize: [4]string{"1.7em", "1.3em", "1.1em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		number: "appendix", columns: true, justify: true, ul: [3]string{"'• '", "'◦ '", "'▪ '"}, ol: [3]string{"decimal", "lower-alpha", "lower-roman"}},
	{name: "sans-tight-leadins", font: "'DejaVu Sans', sans-serif", size: "10pt",
		hsize: [4]string{"1.4em", "1.1em", "1em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		hmargin: "0.6em 0 0.1em", leadIns: true, ul: [3]string{"'• '", "'– '", "'◦ '"}, ol: [3]string{"paren", "lower-alpha", "lower-roman"}},
	// Chromium's own disc, circle and square: drawn as shapes, not text.
	{name: "sans-native-bullets", font: "'DejaVu Sans', sans-serif", size: "11pt",
		hsize: [4]string{"1.8em", "1.4em", "1.15em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		ul: [3]string{"disc", "circle", "square"}, ol: [3]string{"decimal", "lower-alpha", "lower-roman"}},
	// Held out: not looked at while the rules were written.
	{name: "held-sans-report", heldOut: true, font: "'DejaVu Sans Condensed', 'DejaVu Sans', sans-serif", size: "11pt",
		hsize: [4]string{"1.4em", "1.15em", "1em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "600"},
		hitalic: [4]bool{false, false, false, true}, number: "decimal", ul: [3]string{"'▪ '", "'– '", "'◦ '"}, ol: [3]string{"decimal", "lower-roman", "lower-alpha"}},
	{name: "held-serif-columns", heldOut: true, font: "'DejaVu Serif', serif", size: "9.5pt",
		hsize: [4]string{"1.5em", "1.2em", "1.05em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		columns: true, justify: true, ul: [3]string{"'• '", "'▪ '", "'– '"}, ol: [3]string{"decimal", "lower-alpha", "decimal"}},
	{name: "held-serif-tight", heldOut: true, font: "'DejaVu Serif', serif", size: "11pt",
		hsize: [4]string{"1.3em", "1.1em", "1em", "1em"}, hweight: [4]string{"bold", "bold", "bold", "bold"},
		hitalic: [4]bool{false, false, true, false}, number: "decimal", hmargin: "0.5em 0 0.15em", leadIns: true,
		ul: [3]string{"'▪ '", "'• '", "'– '"}, ol: [3]string{"lower-alpha", "paren", "lower-roman"}},
}

// gtText is a pool of real sentences: the development corpora where they
// are present, else the Go distribution's package documentation.
type gtText struct {
	sentences []string
	used      map[string]bool
}

var sentenceEnd = regexp.MustCompile(`([.!?])\s+`)

func loadGTText(t *testing.T) *gtText {
	t.Helper()
	var texts []string
	for _, name := range []string{"state_of_the_union", "wikitexts"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name+".md"))
		if err != nil {
			continue
		}
		s := string(data)
		if name == "wikitexts" { // tokenized: " , " and " @-@ "
			s = strings.NewReplacer(" @-@ ", "-", " @,@ ", ",", " @.@ ", ".", " , ", ", ", " . ", ". ", " ; ", "; ", " : ", ": ", " 's", "'s", "<unk>", "").Replace(s)
		}
		texts = append(texts, s)
	}
	if len(texts) == 0 {
		t.Log("the development corpora (../shared/eval/chroma) are absent: sentences from the Go distribution's package documentation")
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Skipf("skipping: no text to write documents with (no corpora, no go env GOROOT: %v)", err)
		}
		root := filepath.Join(strings.TrimSpace(string(out)), "src")
		var sb strings.Builder
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "doc.go" || sb.Len() > 400_000 {
				return nil
			}
			data, _ := os.ReadFile(p)
			for _, l := range strings.Split(string(data), "\n") {
				if c, ok := strings.CutPrefix(l, "// "); ok && !strings.HasPrefix(c, "\t") && !strings.HasPrefix(c, " ") {
					sb.WriteString(c + " ")
				} else {
					sb.WriteString("\n")
				}
			}
			return nil
		})
		texts = append(texts, sb.String())
	}
	g := &gtText{used: map[string]bool{}}
	for _, text := range texts {
		for _, para := range strings.Split(text, "\n") {
			para = strings.TrimSpace(para)
			if para == "" || strings.ContainsAny(para[:1], "=#|*-[<") {
				continue
			}
			for _, s := range sentenceEnd.Split(para, -1) {
				s = strings.Join(strings.Fields(s), " ")
				n := len(strings.Fields(s))
				if n < 5 || n > 40 || !utf8.ValidString(s) || strings.ContainsAny(s, "<>&[]{}()") {
					continue
				}
				r, _ := utf8.DecodeRuneInString(s)
				if !unicode.IsUpper(r) {
					continue
				}
				if !strings.ContainsAny(s[len(s)-1:], ".!?") {
					s += "."
				}
				g.sentences = append(g.sentences, s)
			}
		}
	}
	if len(g.sentences) < 200 {
		t.Skipf("skipping: only %d sentences to write documents with", len(g.sentences))
	}
	return g
}

// sentence returns a sentence of between lo and hi words not given before.
func (g *gtText) sentence(rng *rand.Rand, lo, hi int) string {
	for range 1000 {
		s := g.sentences[rng.IntN(len(g.sentences))]
		if n := len(strings.Fields(s)); n >= lo && n <= hi && !g.used[s] {
			g.used[s] = true
			return s
		}
	}
	return g.sentences[rng.IntN(len(g.sentences))]
}

// title returns a few words of a sentence, capitalised, without
// punctuation, not given before.
func (g *gtText) title(rng *rand.Rand) string {
	for {
		w := strings.Fields(g.sentences[rng.IntN(len(g.sentences))])
		n := 2 + rng.IntN(5)
		if len(w) < n {
			continue
		}
		i := rng.IntN(len(w) - n + 1)
		var ws []string
		for _, x := range w[i : i+n] {
			if x = strings.TrimFunc(x, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); x != "" {
				ws = append(ws, x)
			}
		}
		if len(ws) < 2 {
			continue
		}
		r, size := utf8.DecodeRuneInString(ws[0])
		ws[0] = string(unicode.ToUpper(r)) + ws[0][size:]
		s := strings.Join(ws, " ")
		if !g.used[s] {
			g.used[s] = true
			return s
		}
	}
}

var romans = []string{"", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"}

// olMarker is how Chromium writes item k's marker in a list of type typ.
func olMarker(typ string, k int) string {
	switch typ {
	case "lower-alpha":
		return string(rune('a'+k-1)) + "."
	case "lower-roman":
		return romans[k] + "."
	case "paren":
		return fmt.Sprint(k) + ")"
	}
	return fmt.Sprint(k) + "."
}

// ulMarker is the bullet Chromium draws for a list-style-type (disc,
// circle and square as shapes, a string as text).
func ulMarker(typ string) string {
	switch typ {
	case "disc":
		return "•"
	case "circle":
		return "◦"
	case "square":
		return "▪"
	}
	return strings.TrimSpace(strings.Trim(typ, "'"))
}

// genDoc writes one document of style st from seed.
func genDoc(st gtStyle, seed uint64, g *gtText) gtDoc {
	rng := rand.New(rand.NewPCG(seed, 50))
	d := gtDoc{name: fmt.Sprintf("%s-%d", st.name, seed), style: st}
	var sb strings.Builder
	var hcss strings.Builder
	for i := range 4 {
		style := "normal"
		if st.hitalic[i] {
			style = "italic"
		}
		fmt.Fprintf(&hcss, "h%d{font-size:%s;font-weight:%s;font-style:%s;margin:%s}", i+1, st.hsize[i], st.hweight[i], style, cmp.Or(st.hmargin, "0.9em 0 0.5em"))
	}
	cols := ""
	if st.columns {
		cols = "column-count:2;column-gap:1cm;"
	}
	align := "left"
	if st.justify {
		align = "justify"
	}
	fmt.Fprintf(&sb, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>@page{size:A4;margin:2cm}body{font-family:%s;font-size:%s;margin:0}.doc{%s}p{text-align:%s;margin:0.5em 0}@counter-style paren{system:extends decimal;suffix:") "}%stable{border-collapse:collapse;margin:0.6em 0}td,th{border:1px solid #444;padding:2px 6px}li{margin:0.15em 0}</style></head><body>`,
		st.font, st.size, cols, align, hcss.String())
	heading := func(level int, num string) {
		text := g.title(rng)
		if num != "" {
			text = num + " " + text
		}
		d.headings = append(d.headings, gtHeading{text, level})
		fmt.Fprintf(&sb, "<h%d>%s</h%d>", level, html.EscapeString(text), level)
	}
	para := func() {
		var ss []string
		for range 2 + rng.IntN(4) {
			ss = append(ss, g.sentence(rng, 6, 40))
		}
		text := html.EscapeString(strings.Join(ss, " "))
		lead := 0
		if st.leadIns {
			lead = rng.IntN(4)
		}
		if lead == 1 { // a few bold words open the paragraph
			w := strings.Fields(text)
			n := min(len(w)-1, 2+rng.IntN(2))
			text = "<b>" + strings.Join(w[:n], " ") + "</b> " + strings.Join(w[n:], " ")
		}
		fmt.Fprintf(&sb, "<p>%s</p>", text)
		if lead == 2 { // a bold sentence of its own after the paragraph
			fmt.Fprintf(&sb, "<p><b>%s</b></p>", html.EscapeString(g.sentence(rng, 5, 12)))
		}
	}
	var list func(level int)
	list = func(level int) {
		ordered := rng.IntN(2) == 0
		tag, typ := "ul", st.ul[level-1]
		if ordered {
			tag, typ = "ol", st.ol[level-1]
		}
		fmt.Fprintf(&sb, `<%s style="list-style-type:%s">`, tag, typ)
		n := 2 + rng.IntN(3)
		nested := -1
		if level < 3 && rng.Float64() < 0.6/float64(level) {
			nested = rng.IntN(n)
		}
		for k := 1; k <= n; k++ {
			text := g.sentence(rng, 4, 28)
			marker := ulMarker(typ)
			if ordered {
				marker = olMarker(typ, k)
			}
			d.items = append(d.items, gtItem{text, marker, level})
			fmt.Fprintf(&sb, "<li>%s", html.EscapeString(text))
			if k-1 == nested {
				list(level + 1)
			}
			sb.WriteString("</li>")
		}
		fmt.Fprintf(&sb, "</%s>", tag)
	}
	table := func() {
		sb.WriteString("<table>")
		rows, cols := 3+rng.IntN(3), 3+rng.IntN(2)
		for r := range rows {
			sb.WriteString("<tr>")
			for c := range cols {
				cell := fmt.Sprint(rng.IntN(9000) + 100)
				if c == 0 || r == 0 {
					w := strings.Fields(g.sentence(rng, 5, 40))
					cell = strings.Trim(w[rng.IntN(len(w))], ",.;:")
				}
				fmt.Fprintf(&sb, "<td>%s</td>", html.EscapeString(cell))
			}
			sb.WriteString("</tr>")
		}
		sb.WriteString("</table>")
	}
	number := func(parts ...int) string {
		var s string
		switch st.number {
		case "decimal":
			s = fmt.Sprint(parts[0])
		case "appendix":
			s = string(rune('A' + parts[0] - 1))
		default:
			return ""
		}
		for _, p := range parts[1:] {
			s += fmt.Sprintf(".%d", p)
		}
		if len(parts) == 1 {
			s += "."
		}
		return s
	}
	sb.WriteString(`<div class="doc">`)
	heading(1, "")
	para()
	for i := 1; i <= 3+rng.IntN(2); i++ {
		heading(2, number(i))
		para()
		if rng.IntN(2) == 0 {
			list(1)
			para()
		}
		for j := 1; j <= 1+rng.IntN(3); j++ {
			heading(3, number(i, j))
			para()
			if rng.IntN(5) < 2 {
				list(1)
			}
			if rng.IntN(10) < 3 {
				heading(4, number(i, j, 1))
				para()
			}
		}
		if rng.IntN(4) == 0 {
			table()
			para()
		}
	}
	sb.WriteString("</div></body></html>")
	d.html = sb.String()
	return d
}

// gtScore is what the reader found of a document's structure.
type gtScore struct {
	headings, headingsFound, headingsLevel, headingsFalse  int
	items, itemsFound, itemsMarker, itemsLevel, itemsFalse int
}

func (s *gtScore) add(o gtScore) {
	s.headings += o.headings
	s.headingsFound += o.headingsFound
	s.headingsLevel += o.headingsLevel
	s.headingsFalse += o.headingsFalse
	s.items += o.items
	s.itemsFound += o.itemsFound
	s.itemsMarker += o.itemsMarker
	s.itemsLevel += o.itemsLevel
	s.itemsFalse += o.itemsFalse
}

func (s gtScore) String() string {
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	return fmt.Sprintf("headings %d/%d found (%.0f%%), %d with their level (%.0f%%), %d false; list items %d/%d found (%.0f%%), %d with their marker, %d with their level (%.0f%%), %d false",
		s.headingsFound, s.headings, pct(s.headingsFound, s.headings), s.headingsLevel, pct(s.headingsLevel, s.headings), s.headingsFalse,
		s.itemsFound, s.items, pct(s.itemsFound, s.items), s.itemsMarker, s.itemsLevel, pct(s.itemsLevel, s.items), s.itemsFalse)
}

// normText collapses white space and drops hyphens (a word hyphenated
// at a line's end is joined as the reader judges it).
func normText(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "-", "")), " ")
}

// splitMarker cuts a list item's text into its marker and its text.
func splitMarker(s string) (string, string) {
	s = normText(s)
	m, rest, _ := strings.Cut(s, " ")
	return m, rest
}

// scoreDoc matches the elements read against a document's truth: a
// heading is found when a heading (or the title) has its text, a list
// item when a list item has its text after the marker.
func scoreDoc(d gtDoc, els []gochunk.Element, log func(string, ...any)) gtScore {
	var s gtScore
	heads := map[string][]int{} // text → levels read
	items := map[string][]gochunk.Element{}
	for _, e := range els {
		switch e.Type {
		case "title", "heading":
			heads[normText(e.Text)] = append(heads[normText(e.Text)], e.Level)
		case "list_item":
			_, text := splitMarker(e.Text)
			items[text] = append(items[text], e)
		}
	}
	s.headings, s.items = len(d.headings), len(d.items)
	for _, h := range d.headings {
		key := normText(h.text)
		levels := heads[key]
		if len(levels) == 0 {
			log("%s: heading %d %q not found", d.name, h.level, h.text)
			continue
		}
		s.headingsFound++
		if levels[0] == h.level {
			s.headingsLevel++
		} else {
			log("%s: heading %q read at level %d, want %d", d.name, h.text, levels[0], h.level)
		}
		heads[key] = levels[1:]
	}
	for text, levels := range heads {
		s.headingsFalse += len(levels)
		for range levels {
			log("%s: false heading %q", d.name, text)
		}
	}
	for _, it := range d.items {
		key := normText(it.text)
		got := items[key]
		if len(got) == 0 {
			log("%s: list item %d %s %q not found", d.name, it.level, it.marker, it.text)
			continue
		}
		s.itemsFound++
		e := got[0]
		items[key] = got[1:]
		if m, _ := splitMarker(e.Text); m == it.marker {
			s.itemsMarker++
		} else {
			log("%s: list item %q marker %q, want %q", d.name, it.text, m, it.marker)
		}
		if e.Level == it.level {
			s.itemsLevel++
		} else {
			log("%s: list item %q read at level %d, want %d", d.name, it.text, e.Level, it.level)
		}
	}
	for text, got := range items {
		s.itemsFalse += len(got)
		for range got {
			log("%s: false list item %q", d.name, text)
		}
	}
	return s
}

// gtDir is where the documents are printed: a temporary directory, or
// $GOCHUNK_GT_DIR to keep them to look at.
func gtDir(t *testing.T) string {
	if d := os.Getenv("GOCHUNK_GT_DIR"); d != "" {
		return d
	}
	return t.TempDir()
}

// gtSeeds are the documents made of each style.
var gtSeeds = []uint64{1, 2}

// TestPDFStructureGroundTruth prints documents of known structure with
// Chromium, reads them back, and counts the headings (text and level)
// and list items (text, marker and nesting level) found. The styles
// held out were not looked at while the rules were written; their figures
// are logged apart. A floor a little under today's figures fails a
// regression.
func TestPDFStructureGroundTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: prints a dozen PDFs with Chromium")
	}
	g := loadGTText(t)
	dir := gtDir(t)
	verbose := os.Getenv("GOCHUNK_GT_VERBOSE") != ""
	var dev, held gtScore
	for _, st := range gtStyles {
		var style gtScore
		for _, seed := range gtSeeds {
			d := genDoc(st, seed, g)
			path := printPDF(t, dir, d.name, d.html)
			els := extractElements(t, path)
			s := scoreDoc(d, els, func(f string, a ...any) {
				if verbose && !st.heldOut {
					t.Logf(f, a...)
				}
			})
			style.add(s)
		}
		t.Logf("%s: %v", st.name, style)
		if st.heldOut {
			held.add(style)
		} else {
			dev.add(style)
		}
	}
	t.Logf("development styles: %v", dev)
	t.Logf("held-out styles: %v", held)
	var all gtScore
	all.add(dev)
	all.add(held)
	floor := func(name string, got, of int, want float64) {
		if f := float64(got) / float64(max(of, 1)); f < want {
			t.Errorf("%s: %.3f, below the floor %.2f", name, f, want)
		}
	}
	floor("headings found", all.headingsFound, all.headings, gtFloors.headings)
	floor("headings with their level", all.headingsLevel, all.headings, gtFloors.headingLevels)
	floor("list items found", all.itemsFound, all.items, gtFloors.items)
	floor("list items with their level", all.itemsLevel, all.items, gtFloors.itemLevels)
}

// gtFloors are the figures TestPDFStructureGroundTruth must reach.
var gtFloors = struct{ headings, headingLevels, items, itemLevels float64 }{0.92, 0.90, 0.95, 0.93}

// Where a PDF has an outline (bookmarks), its titles make the lines they
// match headings at the outline's levels: headings set exactly as the
// body text (same size, same weight), which no look tells apart, are
// found at their levels when Chromium prints the document's outline, and
// not without it.
func TestPDFOutlineHeadings(t *testing.T) {
	g := loadGTText(t)
	st := gtStyle{name: "plain-headings", font: "'DejaVu Sans', sans-serif", size: "11pt",
		hsize: [4]string{"1em", "1em", "1em", "1em"}, hweight: [4]string{"normal", "normal", "normal", "normal"},
		ul: [3]string{"'• '", "'◦ '", "'▪ '"}, ol: [3]string{"decimal", "lower-alpha", "lower-roman"}}
	d := genDoc(st, 7, g)
	dir := gtDir(t)
	for _, outline := range []bool{false, true} {
		var flags []string
		name := d.name
		if outline {
			flags, name = []string{"--generate-pdf-document-outline"}, name+"-outline"
		}
		path := printPDF(t, dir, name, d.html, flags...)
		els := extractElements(t, path)
		s := scoreDoc(d, els, t.Logf)
		t.Logf("outline %v: %v", outline, s)
		switch {
		case outline && (s.headingsLevel != s.headings || s.headingsFalse > 0):
			t.Errorf("with the outline: %d of %d headings found at their level, %d false; want all, none false", s.headingsLevel, s.headings, s.headingsFalse)
		case !outline && s.headingsFound == s.headings:
			t.Errorf("without the outline all %d headings were found: the test tells nothing", s.headings)
		}
	}
}
