package pipeline

import "github.com/gochunk/gochunk"

// Heading is a heading of a document: where its line or element starts in
// the document's text (bytes), its level (1 the highest) and its title.
type Heading struct {
	Start int    `json:"start"`
	Level int    `json:"level"`
	Title string `json:"title"`
}

// Headings returns a document's headings as the headings context and
// expansion to the section read them: a laid-out document's title (level
// 1) and heading (level 2) elements, else the markdown ("# Title",
// outside fenced code) and MediaWiki ("== Title ==") heading lines of its
// text.
func Headings(text string, elements []gochunk.Element) []Heading {
	heads := elementHeadings(elements)
	if len(elements) == 0 {
		heads = textHeadings(text)
	}
	out := make([]Heading, len(heads))
	for i, h := range heads {
		out[i] = Heading{Start: h.at, Level: h.level, Title: h.title}
	}
	return out
}
