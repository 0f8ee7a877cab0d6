package htmldoc

import (
	"bytes"
	"strings"
)

// isXHTML tells whether a page is XHTML: it starts with an XML
// declaration or declares XHTML's namespace in its first 1,024 bytes (as
// EPUB's chapters and .xhtml files do).
func isXHTML(data []byte) bool {
	head := bytes.TrimLeft(data[:min(len(data), 1024)], " \t\r\n")
	return bytes.HasPrefix(head, []byte("<?xml")) || bytes.Contains(head, []byte(`"http://www.w3.org/1999/xhtml"`))
}

// closeEmpty returns an XHTML page with its self-closing tags of
// elements that are not void ("<title/>", "<script src='a.js'/>", "<a
// id='p12'/>") written as a start and an end tag, as an XML parser (an
// e-book reader's) reads them: HTML's parser takes them for start tags,
// and a "<title/>" or "<script/>" then swallows the rest of the page as
// its text. Comments and CDATA sections are left as they are; data is
// returned itself when it has no such tag.
func closeEmpty(data []byte) []byte {
	var out []byte // nil until a tag is rewritten
	done := 0      // data[:done] is in out
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := data[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			k := bytes.Index(rest[4:], []byte("-->"))
			if k < 0 {
				i = len(data)
				continue
			}
			i += 4 + k + 3
			continue
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			k := bytes.Index(rest, []byte("]]>"))
			if k < 0 {
				i = len(data)
				continue
			}
			i += k + 3
			continue
		case len(rest) < 2 || !isLetter(rest[1]):
			i++
			continue
		}
		// A start tag: its name, then its attributes up to the '>'
		// outside quotes.
		n := 1
		for n < len(rest) && isNameByte(rest[n]) {
			n++
		}
		name := rest[1:n]
		k, quote := n, byte(0)
		for ; k < len(rest); k++ {
			c := rest[k]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			}
			if quote == 0 && c == '>' {
				break
			}
		}
		if k >= len(rest) {
			break // a tag cut short: left to the parser
		}
		local := name
		if c := bytes.LastIndexByte(local, ':'); c >= 0 {
			local = local[c+1:]
		}
		if rest[k-1] == '/' && !voidElements[strings.ToLower(string(local))] {
			out = append(out, data[done:i+k-1]...)
			out = append(out, "></"...)
			out = append(out, name...)
			out = append(out, '>')
			done = i + k + 1
		}
		i += k + 1
	}
	if out == nil {
		return data
	}
	return append(out, data[done:]...)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':'
}
