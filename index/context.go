package index

import (
	"path/filepath"
	"strings"

	"github.com/gochunk/gochunk"
)

// prefixes returns, for each chunk, the context prepended to its text for
// its embedding: "Title > Heading > Subheading\n\n". The title is the
// document's "title" metadata, else its first top-level markdown heading,
// else its file name; the heading path is the chunk's own ("headings"
// metadata, from the markdown chunker), else, for markdown and HTML, the
// headings above the chunk's start.
func prefixes(d Doc, text string, chunks []gochunk.Chunk) []string {
	markdown := false
	switch strings.ToLower(filepath.Ext(d.Path)) {
	case ".md", ".markdown", ".mdx", ".html", ".htm":
		markdown = true
	}
	if f, _ := d.Metadata["format"].(string); f == "markdown" {
		markdown = true
	}
	heads := atxHeadings(text)
	title, _ := d.Metadata["title"].(string)
	if title == "" && markdown {
		for _, h := range heads {
			if h.level == 1 {
				title = h.title
				break
			}
		}
	}
	if title == "" && d.Path != "" {
		title = strings.TrimSuffix(filepath.Base(d.Path), filepath.Ext(d.Path))
	}
	out := make([]string, len(chunks))
	var stack []heading
	next := 0
	for i, c := range chunks {
		var path []string
		if hs, ok := c.Metadata["headings"].([]string); ok {
			path = hs
		} else if markdown && len(c.Spans) > 0 {
			// The headings at or before the chunk's start, as a stack.
			for next < len(heads) && heads[next].at <= c.Spans[0].Start {
				h := heads[next]
				for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
					stack = stack[:len(stack)-1]
				}
				stack = append(stack, h)
				next++
			}
			for _, h := range stack {
				path = append(path, h.title)
			}
		}
		if len(path) > 0 && path[0] == title {
			path = path[1:]
		}
		parts := append([]string{title}, path...)
		if parts[0] == "" {
			parts = parts[1:]
		}
		if len(parts) > 0 {
			out[i] = strings.Join(parts, " > ") + "\n\n"
		}
	}
	return out
}

type heading struct {
	at, level int
	title     string
}

// atxHeadings finds the markdown "# Title" lines of text, outside fenced
// code blocks.
func atxHeadings(text string) []heading {
	var out []heading
	fenced := false
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text) - at
		}
		line := strings.TrimRight(text[at:at+end], "\r")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fenced = !fenced
		case !fenced && len(line)-len(trimmed) < 4 && strings.HasPrefix(trimmed, "#"):
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			rest := trimmed[level:]
			if level <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				if title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#")); title != "" {
					out = append(out, heading{at: at, level: level, title: title})
				}
			}
		}
		at += end + 1
	}
	return out
}
