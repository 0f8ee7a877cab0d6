package htmldoc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/layout"
)

func TestElements(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>Ignored</title><style>p{color:red}</style>
<script>var x = "<p>not text</p>";</script></head>
<body><nav hidden>Menu</nav>
<h1>Chunking  HTML</h1>
<p>Text with <b>bold</b>,
   <a href="#">a link</a> and a line<br>break.</p>
<h2>Lists</h2>
<ul><li>first</li><li>second<ol><li>nested one</li><li>nested two</li></ol></li></ul>
<table><caption>Scores</caption><tr><th>name</th><th>score</th></tr>
<tr><td>a|b</td><td><p>1</p></td></tr><tr><td>c</td></tr></table>
<pre><code>func main() {
	fmt.Println("hi")
}</code></pre>
<div>Loose text <span aria-hidden="true">icon</span>in a div<img alt="a chart"></div>
<footer>The end</footer>
</body></html>`
	els, err := Elements(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range els {
		got = append(got, e.Type+": "+e.Text)
	}
	want := []string{
		"title: # Chunking HTML",
		"paragraph: Text with bold, a link and a line\nbreak.",
		"heading: ## Lists",
		"list_item: - first",
		"list_item: - second",
		"list_item:   1. nested one",
		"list_item:   2. nested two",
		"caption: Scores",
		"table: | name | score |\n|---|---|\n| a\\|b | 1 |\n| c |  |",
		"paragraph: ```\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```",
		"paragraph: Loose text in a div a chart",
		"footer: The end",
	}
	if strings.Join(got, "\n~\n") != strings.Join(want, "\n~\n") {
		t.Errorf("got\n%s\n\nwant\n%s", strings.Join(got, "\n~\n"), strings.Join(want, "\n~\n"))
	}
	text, placed := layout.Assemble(els)
	for _, e := range placed {
		if text[e.Start:e.End] != e.Text {
			t.Fatalf("element %q is not at its offsets", e.Text)
		}
	}
	if strings.Contains(text, "not text") || strings.Contains(text, "Menu") || strings.Contains(text, "color") || strings.Contains(text, "Ignored") {
		t.Errorf("dropped content leaked: %q", text)
	}
}

// A page with a run of nesting deeper than the parser takes is read whole:
// the deepest structure is flattened, no text is lost.
func TestDeepNesting(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><h1>Deep</h1><p>Before the run.</p>")
	for _, depth := range []int{600, 3000} {
		for i := range depth {
			fmt.Fprintf(&b, "<div>level %d ", i)
		}
		b.WriteString("<table><tr><td>cell</td></tr></table>")
		for range depth {
			b.WriteString("</div>")
		}
	}
	for range 300 { // tables add implied elements to the parser's stack
		b.WriteString("<table><tr><td>")
	}
	b.WriteString("inner")
	b.WriteString("<p>After the run.</p></body></html>")
	els, err := Elements(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, e := range els {
		text.WriteString(e.Text)
		text.WriteByte(' ')
	}
	got := text.String()
	for _, want := range []string{"# Deep", "Before the run.", "level 0 ", "level 599 ", "level 2999 ", "cell", "inner", "After the run."} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lost", want)
		}
	}
}
