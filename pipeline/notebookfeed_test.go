package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	testNotebook = `{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Results\n", "\n", "Read **this**."]},
 {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}], "source": ["print(6 * 7)"]}],
 "metadata": {"kernelspec": {"language": "python"}}, "nbformat": 4, "nbformat_minor": 5}`
	testNotebookText = "# Results\n\nRead **this**.\n\n```python\nprint(6 * 7)\n```\n\n```text\n42\n```"
	testFeed         = `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><item><title>First</title><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate><description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;.&lt;/p&gt;</description></item></channel></rss>`
	testFeedText     = "# News\n\n## First\n\nPublished: Mon, 01 Jan 2024 00:00:00 GMT\n\nHello world."
)

// A Jupyter notebook and an RSS or Atom feed are read as their structure,
// never chunked as their JSON or XML (issue 50, point 6): by extension
// (.ipynb, .rss, .atom), and by content under a name that says nothing
// or says JSON or XML, from a file, from memory and from a stream. JSON
// that is no notebook and XML that is no feed stay text, byte for byte,
// and so does a notebook or feed named as another text format.
func TestLoadNotebookAndFeed(t *testing.T) {
	p := formatsPipeline(t, Config{})
	ctx := context.Background()
	for _, c := range []struct {
		name, data, want string
	}{
		{"analysis.ipynb", testNotebook, testNotebookText},
		{"analysis.json", testNotebook, testNotebookText},
		{"analysis", testNotebook, testNotebookText},
		{"news.rss", testFeed, testFeedText},
		{"news.atom", `<feed xmlns="http://www.w3.org/2005/Atom"><title>News</title><entry><title>First</title><updated>2024-01-01</updated><content type="html">&lt;p&gt;Hello.&lt;/p&gt;</content></entry></feed>`, "# News\n\n## First\n\nPublished: 2024-01-01\n\nHello."},
		{"news.xml", testFeed, testFeedText},
		{"feed", testFeed, testFeedText},
		// Text stays text.
		{"data.json", `{"about": "nbformat", "cells": 3}`, `{"about": "nbformat", "cells": 3}`},
		{"pom.xml", `<?xml version="1.0"?><project><rss>no</rss></project>`, `<?xml version="1.0"?><project><rss>no</rss></project>`},
		{"notes.md", testFeed, testFeed},
		{"notes.txt", testNotebook, testNotebook},
	} {
		for how, src := range map[string]Source{
			"file":   {Path: writeFile(t, c.name, []byte(c.data))},
			"memory": {File: []byte(c.data), FileName: c.name, ID: c.name},
		} {
			l, err := p.Load(ctx, src)
			if err != nil || l.Text != c.want {
				t.Errorf("%s from %s: %q, %v\nwant %q", c.name, how, l.Text, err, c.want)
			}
		}
	}
	// A stream has no name: read by its content.
	for data, want := range map[string]string{testNotebook: testNotebookText, testFeed: testFeedText} {
		l, err := p.Load(ctx, Source{Path: "-", Reader: strings.NewReader(data), ID: "stdin"})
		if err != nil || l.Text != want {
			t.Errorf("from a stream: %q, %v", l.Text, err)
		}
	}
	l, err := p.Load(ctx, Source{Path: writeFile(t, "analysis.ipynb", []byte(testNotebook))})
	if err != nil || len(l.Elements) != 4 || l.Elements[0].Type != "title" || l.Text[l.Elements[2].Start:l.Elements[2].End] != "```python\nprint(6 * 7)\n```" {
		t.Errorf("elements: %+v, %v", l.Elements, err)
	}
}

// A broken notebook or feed is an error saying what is wrong and what to
// do, not its bytes chunked as text; a notebook of an nbformat gochunk
// does not read is refused by name (a FormatError: 415 from the server).
func TestLoadBrokenNotebookAndFeed(t *testing.T) {
	p := formatsPipeline(t, Config{})
	ctx := context.Background()
	for _, c := range []struct{ name, data, want string }{
		{"cut.ipynb", testNotebook[:len(testNotebook)/2], "JSON is cut short"},
		{"bad.ipynb", "{\n\"nbformat\": 4,\n\"cells\": [,]}", "does not parse at line 3"},
		{"cut.rss", testFeed[:len(testFeed)/2], "XML is cut short"},
		{"cut.atom", `<feed xmlns="http://www.w3.org/2005/Atom"><title>A & B</title>`, "XML is cut short"},
	} {
		l, err := p.Load(ctx, Source{Path: writeFile(t, c.name, []byte(c.data))})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (text %.40q), want an error with %q", c.name, err, l.Text, c.want)
		}
	}
	old := strings.Replace(testNotebook, `"nbformat": 4`, `"nbformat": 2`, 1)
	for how, src := range map[string]Source{
		"file":   {Path: writeFile(t, "old one.ipynb", []byte(old))},
		"stream": {Path: "-", Reader: bytes.NewReader([]byte(old)), ID: "old"},
	} {
		_, err := p.Load(ctx, src)
		var fe *FormatError
		if !errors.Is(err, ErrUnsupportedFormat) || !errors.As(err, &fe) || fe.Format != "a Jupyter notebook of nbformat 2" {
			t.Errorf("nbformat 2 from a %s: %v, want a FormatError", how, err)
			continue
		}
		if how == "file" && !strings.Contains(fe.Advice, "--nbformat 4 'old one.ipynb'") {
			t.Errorf("advice %q does not name the file", fe.Advice)
		}
	}
}

// A feed that is not well-formed XML as real feeds are not (a bare "&" in
// a title or a link) is read as a feed, whatever its name; one that
// cannot be read at all (cut short) is an error when its name says feed
// (.rss, .atom), and text, byte for byte, when only its content chose
// the feed reader (.xml, no name), as it was before feeds were read.
func TestLoadLenientFeed(t *testing.T) {
	p := formatsPipeline(t, Config{})
	ctx := context.Background()
	amp := strings.Replace(testFeed, "<title>First</title>", "<title>A & B</title><link>https://example.com/?a=1&b=2</link>", 1)
	wantAmp := "# News\n\n## A & B\n\nPublished: Mon, 01 Jan 2024 00:00:00 GMT\nLink: https://example.com/?a=1&b=2\n\nHello world."
	cut := testFeed[:len(testFeed)/2]
	for _, c := range []struct{ name, data, want string }{
		{"news.rss", amp, wantAmp},
		{"news.xml", amp, wantAmp},
		{"feed", amp, wantAmp},
		{"cut.xml", cut, cut},
		{"cut", cut, cut},
	} {
		l, err := p.Load(ctx, Source{Path: writeFile(t, c.name, []byte(c.data))})
		if err != nil || l.Text != c.want {
			t.Errorf("%s: %q, %v\nwant %q", c.name, l.Text, err, c.want)
		}
	}
	l, err := p.Load(ctx, Source{Path: "-", Reader: strings.NewReader(cut), ID: "stdin"})
	if err != nil || l.Text != cut {
		t.Errorf("cut short from a stream: %q, %v", l.Text, err)
	}
}

// FuzzLoadNotebookFeed holds notebooks and feeds to the readers'
// contract through the pipeline: whatever the bytes, a document that is
// read has valid UTF-8 text, every element's offsets hold exactly its
// text, and a second read gives the same text and elements.
func FuzzLoadNotebookFeed(f *testing.F) {
	for _, dir := range []string{"../notebookdoc/testdata", "../feeddoc/testdata"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, ".golden") {
				f.Add(b, strings.HasPrefix(dir, "../feeddoc"))
			}
		}
	}
	f.Add([]byte(testNotebook), false)
	f.Add([]byte(testFeed), true)
	ctx := context.Background()
	p, err := New(ctx, Config{}, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, feed bool) {
		name := "doc.ipynb"
		if feed {
			name = "doc.rss"
		}
		l, err := p.Load(ctx, Source{File: data, FileName: name})
		if err != nil {
			return
		}
		if !utf8.ValidString(l.Text) {
			t.Fatalf("%s: text is not valid UTF-8", name)
		}
		for i, e := range l.Elements {
			if e.Excluded {
				continue
			}
			if e.Start < 0 || e.End < e.Start || e.End > len(l.Text) || l.Text[e.Start:e.End] != e.Text {
				t.Fatalf("%s: element %d [%d, %d) does not hold its text %q", name, i, e.Start, e.End, e.Text)
			}
		}
		again, err := p.Load(ctx, Source{File: data, FileName: name})
		if err != nil || again.Text != l.Text || len(again.Elements) != len(l.Elements) {
			t.Fatalf("%s: a second read differs (%v)", name, err)
		}
	})
}
