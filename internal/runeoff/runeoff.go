// Package runeoff converts byte offsets of a string to code-point offsets.
package runeoff

import (
	"unicode/utf8"

	"github.com/gochunk/gochunk/tokenize"
)

// Converter answers byte-to-rune offset queries on one string. Queries that
// move forward or backward a little from the previous one are cheap, so a
// run of nearly increasing queries costs time linear in the string's length.
type Converter struct {
	text        string
	ascii       bool
	pos, runeAt int
}

// New returns a converter for text.
func New(text string) *Converter {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	return &Converter{text: text, ascii: ascii}
}

// Rune returns the number of code points in text[:off]. off must be a
// character boundary in [0, len(text)].
func (c *Converter) Rune(off int) int {
	if c.ascii {
		return off
	}
	if off < c.pos && off < c.pos-off {
		c.pos, c.runeAt = 0, 0
	}
	if c.pos < off {
		c.runeAt += tokenize.RuneCount(c.text[c.pos:off])
		c.pos = off
	}
	for c.pos > off {
		_, n := utf8.DecodeLastRuneInString(c.text[:c.pos])
		c.pos -= n
		c.runeAt--
	}
	return c.runeAt
}
