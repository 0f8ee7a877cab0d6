package htmldoc

import "testing"

// Links written one against the other (a menu, tags, a label and its
// value) are separate words, in the text and in table cells; punctuation
// after a link and anchors without a target inside a word (a book's print
// page marks) are not set apart. The cost: letters written right after a
// link ("<a>link</a>s") are set apart too (wikis put them in the link).
func TestAdjacentLinks(t *testing.T) {
	for _, tc := range []struct{ page, want string }{
		{`<nav><a href="/">AutoGen</a><a href="/docs">Docs</a><a href="/api">API</a></nav>`, "AutoGen Docs API"},
		{`<p><a href="/f">Founded</a><span>April 4, 1975</span></p>`, "Founded April 4, 1975"},
		{`<p>Shares<a href="/q">MSFT</a></p>`, "Shares MSFT"},
		{`<p>See <a href="/x">the report</a>, then <a href="/y">link</a>s.</p>`, "See the report, then link s."},
		{`<p>wholly admir<span><a id="page_130"></a></span>able game</p>`, "wholly admirable game"},
		{`<p><a name="top">Intro</a>duction</p>`, "Introduction"},
		{`<table><tr><th>Tags</th></tr><tr><td><a href="/a">Computing</a><a href="/b">History</a></td></tr></table>`, "| Tags |\n|---|\n| Computing History |"},
	} {
		if got := textOf(t, []byte(tc.page)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.page, got, tc.want)
		}
	}
}
