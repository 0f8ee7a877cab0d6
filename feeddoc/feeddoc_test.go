package feeddoc

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// joined is the document's text as layout.Assemble makes it: the
// elements' texts, trimmed (a list item keeps its indentation), joined by
// blank lines.
func joined(els []gochunk.Element) string {
	var parts []string
	for _, e := range els {
		t := strings.TrimRight(e.Text, " \t\r\n")
		if e.Type != "list_item" {
			t = strings.TrimSpace(t)
		}
		if t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// The feeds of testdata (RSS 2.0 with content:encoded, Atom with text,
// html and xhtml constructs, RSS 1.0 in ISO-8859-1) read as their golden
// text.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !Is(data) {
				t.Error("Is: false")
			}
			els, err := Elements(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			sb.WriteString(joined(els) + "\n\n---- elements: type and level\n")
			for _, e := range els {
				sb.WriteString(e.Type + " " + string(rune('0'+e.Level)) + "\n")
			}
			golden := f + ".golden"
			if *update {
				os.WriteFile(golden, []byte(sb.String()), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if sb.String() != string(want) {
				t.Errorf("got\n%s\nwant\n%s", sb.String(), want)
			}
		})
	}
	if n == 0 {
		t.Fatal("no feeds in testdata")
	}
}

func TestIs(t *testing.T) {
	for data, want := range map[string]bool{
		`<rss version="2.0"><channel/></rss>`:                                                                 true,
		"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE rss>\n<rss/>":                             true,
		`<feed xmlns="http://www.w3.org/2005/Atom"/>`:                                                         true,
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"/>`: true,
		`<feed/>`: false, // no Atom namespace
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>`: false, // RDF, not RSS
		`<?xml version="1.0"?><project><name>x</name></project>`:             false,
		`<html><body>rss</body></html>`:                                      false,
		`plain text`:                                                         false,
		``:                                                                   false,
	} {
		if Is([]byte(data)) != want {
			t.Errorf("Is(%q) = %v", data, !want)
		}
	}
}

func TestItems(t *testing.T) {
	for _, c := range []struct{ name, feed, want string }{
		{"summary kept when the content does not hold it",
			`<rss><channel><item><title>T</title><description>Short note.</description><content:encoded xmlns:content="http://purl.org/rss/1.0/modules/content/">&lt;p&gt;Body.&lt;/p&gt;</content:encoded></item></channel></rss>`,
			"## T\n\nShort note.\n\nBody."},
		{"content's headings placed under the item's",
			`<feed xmlns="http://www.w3.org/2005/Atom"><title>F</title><entry><title>E</title><content type="html">&lt;h3&gt;A&lt;/h3&gt;&lt;h4&gt;B&lt;/h4&gt;</content></entry></feed>`,
			"# F\n\n## E\n\n### A\n\n#### B"},
		{"HTML entities undeclared",
			`<rss><channel><title>A&nbsp;&mdash;&nbsp;B</title></channel></rss>`,
			"# A — B"},
		{"a video's Media RSS description, as plain text",
			`<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/"><entry><title>Clip</title><media:group><media:title>Clip</media:title><media:description>Line one &lt;b&gt;
line two

Second paragraph.</media:description></media:group></entry></feed>`,
			"## Clip\n\nLine one <b>\nline two\n\nSecond paragraph."},
		{"a podcast's iTunes summary",
			`<rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><item><title>Ep 1</title><itunes:summary>We talk.</itunes:summary></item></channel></rss>`,
			"## Ep 1\n\nWe talk."},
		{"Atom 0.3: escaped and base64 titles and content, a title's # kept",
			`<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>#1 &lt;news&gt;</title><entry><title type="text/html" mode="escaped">Example &lt;b&gt;Atom&lt;/b&gt;</title><summary mode="base64" type="text/html">
PHA+SGk8L3A+</summary></entry><entry><title mode="base64">RXhhbXBsZSA8Yj5BdG9tPC9iPg==</title><content type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Inline <i>markup</i>.</p></div></content></entry></feed>`,
			"# #1 <news>\n\n## Example Atom\n\nHi\n\n## Example <b>Atom</b>\n\nInline markup."},
		{"an empty feed",
			`<rss version="2.0"><channel></channel></rss>`,
			""},
	} {
		t.Run(c.name, func(t *testing.T) {
			els, err := Elements(context.Background(), []byte(c.feed))
			if err != nil {
				t.Fatal(err)
			}
			if got := joined(els); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// A broken feed is an error that says what is wrong and what to do: XML
// cut short, XML that does not parse (at which line), a root that is no
// feed's.
func TestErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/blog.rss")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"truncated", string(good[:len(good)/2]), []string{"not a readable RSS or Atom feed", "cut short", "saved or downloaded whole"}},
		{"syntax", "<rss>\n<channel>\n<title>a</titel>\n</channel></rss>", []string{"does not parse at line 3", "xmllint --noout"}},
		{"junk after the root", "<rss><channel/></rss><rss>", []string{"cut short"}},
		{"not a feed", "<project/>", []string{"root element is <project>"}},
		{"no element", "<?xml version=\"1.0\"?>", []string{"holds no XML element"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Elements(context.Background(), []byte(c.data))
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("%v, want ErrFormat", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// The text is counted against the reader limits; nesting and an item's
// elements are bounded; a cancelled context stops the read.
func TestBoundsAndCancel(t *testing.T) {
	item := `<item><title>Title</title><description>` + strings.Repeat("word ", 200) + `</description></item>`
	feed := `<rss><channel>` + strings.Repeat(item, 100) + `</channel></rss>`
	b := htmldoc.NewBudget(htmldoc.Limits{MaxText: 10_000, MinText: 1}, int64(len(feed)))
	if _, err := ElementsWithin(context.Background(), []byte(feed), b); !errors.Is(err, htmldoc.ErrTooLarge) {
		t.Errorf("over MaxText: %v", err)
	}
	deep := `<rss><channel><item><description>` + strings.Repeat("<x>", MaxDepth+1) + strings.Repeat("</x>", MaxDepth+1) + `</description></item></channel></rss>`
	if _, err := Elements(context.Background(), []byte(deep)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("nested too deep: %v", err)
	}
	wide := `<rss><channel><item><title>t</title>` + strings.Repeat("<x/>", MaxItemElements) + `</item></channel></rss>`
	if _, err := Elements(context.Background(), []byte(wide)); !errors.Is(err, htmldoc.ErrTooLarge) {
		t.Errorf("an item of too many elements: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Elements(ctx, []byte(feed)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func FuzzElements(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, ".golden") {
			f.Add(b)
		}
	}
	f.Add([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div><p>x</p></div></content></entry></feed>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		els, err := Elements(context.Background(), data)
		if err != nil {
			return
		}
		for _, e := range els {
			if !utf8.ValidString(e.Text) || strings.TrimSpace(e.Text) == "" {
				t.Fatalf("element %q: empty or invalid UTF-8", e.Text)
			}
		}
	})
}
