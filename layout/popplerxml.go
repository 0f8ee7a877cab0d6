package layout

import (
	"bytes"
	"unicode/utf8"
)

// xmlText returns pdftotext's -bbox-layout output as XML can hold it.
// pdftotext writes a PDF's characters as they are, and a PDF whose fonts
// map glyphs to C0 control characters (a subset font without a Unicode
// map often gives its space glyph U+0003) makes output that is not XML:
// such characters become spaces, as a reader sees them, and bytes that
// are not UTF-8 become U+FFFD, so that the page reads as pdftotext's
// text output does. data is returned as it is when it needs neither.
func xmlText(data []byte) []byte {
	clean := utf8.Valid(data)
	for _, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			clean = false
			break
		}
	}
	if clean && !bytes.Contains(data, []byte("\xEF\xBF\xBE")) && !bytes.Contains(data, []byte("\xEF\xBF\xBF")) {
		return data
	}
	data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	out := make([]byte, 0, len(data))
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		switch {
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r':
			out = append(out, ' ')
		case r == 0xFFFE || r == 0xFFFF:
			out = append(out, "\uFFFD"...)
		default:
			out = append(out, data[:n]...)
		}
		data = data[n:]
	}
	return out
}
