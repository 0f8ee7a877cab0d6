package htmldoc

import (
	"strings"
	"testing"
)

// An XHTML page (an EPUB's chapter) is read as an XML parser reads it:
// its self-closing tags of elements that are not void close themselves.
// HTML's parser took "<title/>" and "<script/>" for start tags and read
// the rest of the page as their text: nothing was read.
func TestXHTMLSelfClosingTags(t *testing.T) {
	const head = `<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<html xmlns="http://www.w3.org/1999/xhtml">`
	for _, tc := range []struct{ name, page, want string }{
		{"empty title", head + `<head><title/></head><body><p>Chapter one.</p></body></html>`, "Chapter one."},
		{"script with a source", head + `<head><title>T</title><script type="text/javascript" src="a.js"/></head><body><p>Chapter one.</p></body></html>`, "Chapter one."},
		{"anchor in a word, void elements, a comment", head + `<body><p>admir<a id="page_130"/>able<br/>next <!-- <p/> --><span title="a/>b">kept</span></p><div/><p>Two.</p></body></html>`,
			"admirable\nnext kept\nTwo."},
		{"no XML declaration, the namespace", `<html xmlns="http://www.w3.org/1999/xhtml"><head><title/></head><body><p>Read.</p></body></html>`, "Read."},
	} {
		got := textOf(t, []byte(tc.page))
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// Plain HTML is parsed as HTML.
	if got := textOf(t, []byte(`<p>one<a name="x"/>two</p>`)); !strings.Contains(got, "onetwo") {
		t.Errorf("HTML: got %q", got)
	}
}
