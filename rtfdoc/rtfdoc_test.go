package rtfdoc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

func read(t *testing.T, rtf string) []gochunk.Element {
	t.Helper()
	els, err := Elements(context.Background(), []byte(rtf))
	if err != nil {
		t.Fatalf("%v\n%s", err, rtf)
	}
	return els
}

func joined(els []gochunk.Element) string {
	var parts []string
	for _, e := range els {
		parts = append(parts, e.Text)
	}
	return strings.Join(parts, "\n\n")
}

// Each case is a document as Word, WordPad, LibreOffice or TextEdit
// writes one, cut to what it tests, and the text a reader sees.
func TestElements(t *testing.T) {
	const head = `{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman\fcharset0 Times New Roman;}{\f1\fswiss\fcharset204 Arial Cyr;}{\f2\fnil\fcharset128 MS Mincho;}}` +
		`{\colortbl;\red255\green0\blue0;}{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 heading 2;}}` +
		`{\info{\title Hidden title}{\author Someone}}{\*\generator Riched20 10.0;}`
	for _, c := range []struct {
		name, body, want string
	}{
		{"paragraphs", `\pard Hello, \b world\b0 .\par Second\line line\tab tabbed.\par}`, "Hello, world.\n\nSecond\nline\ttabbed."},
		{"unicode with fallback", `\uc1\pard na\u239?ve \u8364?5 \uc2 \u8212\'97\'97 end\par}`, "naïve €5 — end"},
		{"surrogate pair", `\pard smile \u-10179?\u-8704? done\par}`, "smile 😀 done"},
		{"code page bytes", `\pard caf\'e9 \'93quoted\'94\par}`, "café “quoted”"},
		{"font charset", `\pard\f1 \'cf\'f0\'e8\'e2\'e5\'f2\f0  and caf\'e9\par}`, "Привет and café"},
		{"double-byte font", `\pard\f2 \'82\'b1\'82\'f1\f0  ok\par}`, "こん ok"},
		{"headings by style and outline level", `\pard\s1 Title words\par\pard\s2 Sub\par\pard\outlinelevel2 Third\par\pard Body.\par}`, "# Title words\n\n## Sub\n\n### Third\n\nBody."},
		{"field result kept, instruction skipped", `\pard See {\field{\*\fldinst{HYPERLINK "https://example.com"}}{\fldrslt{our site}}}.\par}`, "See our site."},
		{"hidden text", `\pard shown {\v hidden }again\par}`, "shown again"},
		{"pictures and objects skipped", `\pard before {\pict\pngblip 89504e470d0a1a0a}{\*\shppict{\pict 00ff}}{\nonshppict{\pict 00}} after\par}`, "before  after"},
		{"binary data skipped", `\pard a{\*\blob\bin5 {}\\x} b\par}`, "a b"},
		{"escapes", `\pard braces \{ \} backslash \\ nbsp\~x em\emdash en\endash\par}`, "braces { } backslash \\ nbsp\u00a0x em—en–"},
		{"list items", `{\*\listtable{\list{\listlevel{\leveltext \'01\u8226 ?;}}}}\pard{\listtext\f0 \'b7\tab}First\par{\listtext 2.\tab}Second\par\pard\ilvl1{\listtext o\tab}Nested\par}`, "- First\n\n2. Second\n\n  - Nested"},
		{"table", `\pard Before\par\trowd\cellx2000\cellx4000\pard\intbl Name\cell Qty\cell\row\trowd\cellx2000\cellx4000\pard\intbl Apple|red\cell 3\cell\row\pard After\par}`, "Before\n\n| Name | Qty |\n| --- | --- |\n| Apple\\|red | 3 |\n\nAfter"},
		{"footnote after the body", `\pard Claim{\super\chftn}{\footnote\pard\plain{\super\chftn} Source: a book.}. More.\par}`, "Claim[^1]. More.\n\n[^1]: Source: a book."},
		{"notes numbered, endnotes too, paragraphs a line each", `\pard A{\super\chftn}{\footnote\pard{\super\chftn} One.\par\pard Two.}, B{\super\chftn}{\footnote\ftnalt\pard{\super\chftn} End.}.\par}`, "A[^1], B[^2].\n\n[^1]: One.\nTwo.\n\n[^2]: End."},
		{"comments not read", `\pard Costs{\*\atnid AK}{\*\annotation{\*\atnref 1}\pard Check this.} fell.\par}`, "Costs fell."},
		{"headers and footers skipped", `{\header\pard Page header\par}{\footer\pard Page 1\par}\pard Body only.\par}`, "Body only."},
		{"upr's unicode part", `\pard {\upr{ansi text}{\*\ud{\u1055?\u1088?}}} x\par}`, "Пр x"},
		{"list items written inline (pandoc)", `{\pard\li360\fi-360 \bullet \tx360\tab First\par}{\pard\li720\fi-360 \endash \tx360\tab Nested\par}{\pard\li360\fi-360 2.\tx360\tab Two\par}{\pard Note.\tab not a list\par}}`, "- First\n\n  - Nested\n\n2. Two\n\nNote.\tnot a list"},
		{"footnote marked ignorable (pandoc)", `\pard Claim{\super\chftn}{\*\footnote\chftn\~\plain\pard {\pard The note.\par}}.\par}`, "Claim[^1].\n\n[^1]: The note."},
		{"text box read once", `\pard Before.\par{\shp{\*\shpinst\shpleft0{\sp{\sn shapeType}{\sv 202}}{\shptxt \pard Boxed words\par}}{\shprslt{\*\do\dobxcolumn{\dptxbx{\dptxbxtext\pard Boxed words\par}}}}}\pard After.\par}`, "Before.\n\nBoxed words\n\nAfter."},
		{"cut short", `\pard The end is missing`, "The end is missing"},
		{"text after the last par", `\pard one\par two}`, "one\n\ntwo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := joined(read(t, head+c.body)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestElementTypes(t *testing.T) {
	els := read(t, `{\rtf1{\stylesheet{\s1 heading 1;}}\pard\s1 T\par\pard{\listtext -\tab}i\par\trowd\pard\intbl a\cell b\cell\row\pard p\par}`)
	var types []string
	for _, e := range els {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, " "); got != "title list_item table paragraph" {
		t.Errorf("types %s", got)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Elements(context.Background(), []byte("plain text")); !errors.Is(err, ErrFormat) {
		t.Errorf("not RTF: %v", err)
	}
	deep := `{\rtf1 ` + strings.Repeat("{", MaxDepth+1) + "x"
	if _, err := Elements(context.Background(), []byte(deep)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "deeper than 512") {
		t.Errorf("deep groups: %v", err)
	}
	ok := `{\rtf1 ` + strings.Repeat("{", MaxDepth-1) + "x"
	if _, err := Elements(context.Background(), []byte(ok)); err != nil {
		t.Errorf("groups %d deep: %v", MaxDepth, err)
	}
	big := `{\rtf1 ` + strings.Repeat(`word \par `, 10000) + "}"
	b := htmldoc.NewBudget(htmldoc.Limits{MaxText: 1000}, int64(len(big)))
	if _, err := ElementsWithin(context.Background(), []byte(big), b); !errors.Is(err, htmldoc.ErrTooLarge) {
		t.Errorf("over MaxText: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Elements(ctx, []byte(big)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// Hostile input ends without a panic: every prefix, and a control
	// word's parameter and \bin's count past the end.
	for n := range len(big) / 50 {
		Elements(context.Background(), []byte(big[:n]))
	}
	for _, s := range []string{`{\rtf1\bin99999999999999 x}`, `{\rtf1\u-99999999999 \uc-5 x\'`, `{\rtf1\` + strings.Repeat("a", 100) + ` x}`, `{\rtf1}}}}x`} {
		Elements(context.Background(), []byte(s))
	}
}

func TestIs(t *testing.T) {
	for s, want := range map[string]bool{`{\rtf1\ansi}`: true, "\xEF\xBB\xBF \n{\\rtf1}": true, `{\rt`: false, "rtf": false} {
		if Is([]byte(s)) != want {
			t.Errorf("Is(%q) != %v", s, want)
		}
	}
}

// The shared collection's RTF files read as pandoc reads them: every
// word pandoc finds is found.
func TestSharedRTF(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "eval", "documents", "unstructured")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/eval/documents is absent")
	}
	for name, want := range map[string][]string{
		"fake-doc.rtf":                   {"# My First Heading", "My first paragraph.", "| Column 1 | Column 2 |", "| Row 2, Cell 1 | Row 2, Cell 2 |"},
		"language-docs/eng_spa_mult.rtf": {"All human beings are born free", "Todos los seres humanos nacen libres e iguales en dignidad y derechos y, dotados como están de razón"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		els, err := Elements(context.Background(), data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := joined(els)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q", name, w)
			}
		}
		if strings.ContainsAny(got, `\{}`) {
			t.Errorf("%s: markup left in the text", name)
		}
	}
}

// Any input ends in elements or an error, within its bounds.
func FuzzElements(f *testing.F) {
	for _, s := range []string{`{\rtf1\ansi\pard Hello\par}`, `{\rtf1\uc1\u-10179?\u-8704?}`, `{\rtf1\trowd\pard\intbl a\cell b\cell\row}`, `{\rtf1{\*\x{\bin3 }}}}`, `{\rtf1\ansicpg932\'82\'a0\'82}`, `{\rtf1{\upr{a}{\*\ud{b}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := htmldoc.NewBudget(htmldoc.Limits{}, int64(len(data)))
		els, err := ElementsWithin(context.Background(), data, b)
		if err != nil {
			return
		}
		for _, e := range els {
			if !utf8.ValidString(e.Text) {
				t.Fatalf("invalid UTF-8 in %q", e.Text)
			}
		}
	})
}

// BenchmarkElements reads 2 MB of RTF as Word writes it: styled runs,
// \uN characters, a table every 50 paragraphs.
func BenchmarkElements(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{\rtf1\ansi\ansicpg1252\uc1{\fonttbl{\f0\froman\fcharset0 Times;}}{\stylesheet{\s1 heading 1;}}`)
	for i := 0; sb.Len() < 2<<20; i++ {
		if i%50 == 0 {
			sb.WriteString(`\pard\s1 Section\par\trowd\cellx2000\cellx4000\pard\intbl Name\cell Qty\cell\row\pard`)
		}
		sb.WriteString(`\pard\plain\f0\fs24 The {\b quick} brown fox caf\'e9 na\u239?ve jumps over the {\i lazy} dog.\par` + "\n")
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Elements(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}
