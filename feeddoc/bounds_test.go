package feeddoc

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/htmldoc"
)

func rssOf(body string) []byte {
	return []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>` + body + `</channel></rss>`)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// A description of 100,000 CDATA sections (or of text runs parted by
// comments), 1.5 MB, is read in memory linear in its size: the decoder
// hands over each piece as a token, and joining each one onto the text
// so far allocated 14.7 GB (the sum of every prefix). The bound, 64
// bytes allocated for each byte read, is linear and well above what a
// read takes (the decoder's tokens, the text, one HTML parse of it:
// about 10×), and far below the quadratic cost (about 15,000× here).
func TestTextPiecesLinear(t *testing.T) {
	for name, piece := range map[string]string{"cdata": "<![CDATA[ab ]]>", "comments": "ab <!---->"} {
		t.Run(name, func(t *testing.T) {
			data := rssOf(`<item><title>x</title><description>` + strings.Repeat(piece, 100000) + `</description></item>`)
			var n int
			var err error
			got := allocated(func() {
				e, er := Elements(context.Background(), data)
				n, err = len(e), er
			})
			if err != nil || n < 2 {
				t.Fatalf("%d elements, %v", n, err)
			}
			if limit := 64 * uint64(len(data)); got > limit {
				t.Errorf("%d bytes allocated reading %d bytes, over %d (64×): the text's pieces are joined more than once", got, len(data), limit)
			}
			t.Logf("%d bytes allocated for %d read (%.1f×)", got, len(data), float64(got)/float64(len(data)))
		})
	}
}

// A feed that is not well-formed XML in the ways real feeds are not (a
// bare "&" in a title or a link, an HTML entity or <br> left as HTML
// writes it) is read as a feed, as feed readers read it; one cut short
// is still an error.
func TestLenientXML(t *testing.T) {
	data := rssOf(`<link>https://example.com/?a=1&b=2</link><item><title>Salt & Pepper &copy; 2024 &bogus;</title>` +
		`<link>https://example.com/post?id=1&amp;x=2&y=3</link><description>Tom & Jerry <br>again</description></item>`)
	if !Is(data) {
		t.Error("Is: false")
	}
	els, err := Elements(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	got := joined(els)
	want := "# t\n\nLink: https://example.com/?a=1&b=2\n\n## Salt & Pepper © 2024 &bogus;\n\nLink: https://example.com/post?id=1&x=2&y=3\n\nTom & Jerry again"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if _, err := Elements(context.Background(), data[:len(data)/2]); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("cut short: %v", err)
	}
}

// Elements nested deeper than MaxDepth in an element that is skipped
// (an RSS <image>, an unknown extension) are refused as they are in one
// that is read: skipping them took 340 MB for 2M levels.
func TestDepthInSkipped(t *testing.T) {
	deep := func(n int) []byte {
		return rssOf(`<image>` + strings.Repeat("<a>", n) + strings.Repeat("</a>", n) + `</image><item><title>x</title></item>`)
	}
	// <rss> 1, <channel> 2, <image> 3: MaxDepth-3 <a> reach MaxDepth.
	if _, err := Elements(context.Background(), deep(MaxDepth-3)); err != nil {
		t.Errorf("nested %d deep: %v", MaxDepth, err)
	}
	_, err := Elements(context.Background(), deep(MaxDepth-2))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "nested more than 512 deep") {
		t.Errorf("nested %d deep: %v, want ErrFormat", MaxDepth+1, err)
	}
}

// A description of no markup is read without an HTML parse, as the
// parse reads it: the same paragraph, the same text counted.
func TestPlainParagraph(t *testing.T) {
	for _, s := range []string{
		"hello world", "  lead and trail \n", "a\n\nb\tc\r\nd", "a \u00a0 b", "\u00a0x\u00a0", "naïve café — 日本語", "# not a heading *", "x\u2028y\u3000z",
	} {
		e, ok := plainParagraph(s)
		if !ok {
			t.Errorf("%q: not plain", s)
			continue
		}
		b0 := htmldoc.NewBudget(htmldoc.DefaultLimits(), 1<<20)
		want, err := htmldoc.ElementsWithin(strings.NewReader(s), b0)
		if err != nil || len(want) != 1 {
			t.Fatalf("%q: htmldoc %v, %v", s, want, err)
		}
		if e != want[0] {
			t.Errorf("%q: %+v, htmldoc %+v", s, e, want[0])
		}
		if used, _ := b0.Used(); used != int64(len(e.Text))+2 {
			t.Errorf("%q: htmldoc counts %d, this %d", s, used, len(e.Text)+2)
		}
	}
	for _, s := range []string{"a &amp; b", "a <b>c</b>", "a\x00b", "\uFEFFa", "a\xffb", " \u00a0 "} {
		if _, ok := plainParagraph(s); ok {
			t.Errorf("%q: plain", s)
		}
	}
}

// The text counted against the budget is the text kept: a description
// that the item's full content holds (a WordPress summary) is dropped,
// and counts nothing (the feed is counted as the feed without it is); one
// kept is counted, its table's cells too.
func TestCountedIsKept(t *testing.T) {
	long := strings.Repeat("word ", 200)
	feed := func(desc string) []byte {
		return rssOf(`<item xmlns:content="http://purl.org/rss/1.0/modules/content/"><title>x</title>` + desc +
			`<content:encoded>&lt;p&gt;` + long + `and the rest.&lt;/p&gt;</content:encoded></item>` +
			`<item><title>y</title><description>&lt;p&gt;kept&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;a&lt;/td&gt;&lt;td&gt;b&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</description></item>`)
	}
	used := func(data []byte) (string, int64, int64) {
		b := htmldoc.NewBudget(htmldoc.DefaultLimits(), 1<<20)
		els, err := ElementsWithin(context.Background(), data, b)
		if err != nil {
			t.Fatal(err)
		}
		text, cells := b.Used()
		return joined(els), text, cells
	}
	got, text, cells := used(feed(`<description>` + long + `[…]</description>`))
	want, wantText, wantCells := used(feed(""))
	if got != want {
		t.Errorf("the description held by the content was read:\n%s", got)
	}
	if text != wantText || cells != wantCells || cells != 2 {
		t.Errorf("counted %d bytes of text, %d cells; the feed without the description %d, %d", text, cells, wantText, wantCells)
	}
}
