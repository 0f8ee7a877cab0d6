// Package runeoff converts byte offsets of a string to code-point offsets.
package runeoff

import (
	"unicode/utf8"

	"github.com/gochunk/gochunk/tokenize"
)

// Converter answers byte-to-rune offset queries on one string. Queries that
// move forward or backward a little from the previous one are cheap, so a
// run of nearly increasing queries costs time linear in the string's
// length; a long jump back goes through an Index, built on the first one,
// so no order of queries costs more than one pass plus a block each.
type Converter struct {
	text        string
	ascii       bool
	pos, runeAt int
	index       *Index
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
	if off < c.pos-indexBlock {
		if c.index == nil {
			c.index = NewIndex(c.text)
		}
		c.pos, c.runeAt = off, c.index.Rune(off)
		return c.runeAt
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

// indexBlock is how many bytes of text one count of an Index covers.
const indexBlock = 256

// Index answers how many code points precede a byte offset of a text in
// constant time, in any order of queries: it keeps the count at every
// indexBlock bytes (an int per 256 bytes: 3% of the text), and counts the
// rest of the block only where the block is not all ASCII.
type Index struct {
	text string
	at   []int
}

// NewIndex indexes text in one pass.
func NewIndex(text string) *Index {
	at := make([]int, len(text)/indexBlock+1)
	for i := 1; i < len(at); i++ {
		at[i] = at[i-1] + tokenize.RuneCount(text[(i-1)*indexBlock:i*indexBlock])
	}
	return &Index{text: text, at: at}
}

// Rune returns the number of code points in text[:off].
func (x *Index) Rune(off int) int {
	b := off / indexBlock
	if b+1 < len(x.at) && x.at[b+1]-x.at[b] == indexBlock {
		return x.at[b] + off - b*indexBlock // an ASCII block
	}
	return x.at[b] + tokenize.RuneCount(x.text[b*indexBlock:off])
}

// Count returns the number of code points in text[a:b].
func (x *Index) Count(a, b int) int {
	if k := a / indexBlock; k == b/indexBlock && k+1 < len(x.at) && x.at[k+1]-x.at[k] == indexBlock {
		return b - a // inside one ASCII block
	}
	if b-a < 32 {
		return tokenize.RuneCount(x.text[a:b])
	}
	return x.Rune(b) - x.Rune(a)
}
