package tokenize

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer patterns of the byte-level BPE tokenizers gochunk
// knows, written out as code: each function returns the end of the piece
// its pattern matches at i, the first alternative that matches with the
// backtracking of a regular expression engine (regexp2, as tiktoken and
// Hugging Face's tokenizers match them), without running one.
// FuzzPretokenizers compares them with the patterns on random text.
const (
	// cl100kPattern is cl100k_base's pattern, and Llama 3's.
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// qwenPattern is Qwen2's and Qwen3's: cl100k_base's with one digit a
	// piece.
	qwenPattern  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// gpt2Pattern is GPT-2's (and RoBERTa's, and a ByteLevel
	// pre-tokenizer's with use_regex).
	gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
)

// pieceEnd returns the end of the pre-token that starts at i (< len(text)).
type pieceEnd func(text string, i int) int

// pretokenizers maps each pattern above to its code.
var pretokenizers = map[string]pieceEnd{
	cl100kPattern: cl100kPiece,
	qwenPattern:   qwenPiece,
	o200kPattern:  o200kPiece,
	gpt2Pattern:   gpt2Piece,
}

// Character classes of the ASCII characters.
const (
	cLetter = 1 << iota
	cNumber
	cSpace   // \s
	cNewline // \r or \n
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			t[c] = cLetter
		case '0' <= c && c <= '9':
			t[c] = cNumber
		case c == '\r' || c == '\n':
			t[c] = cSpace | cNewline
		case asciiSpace[c]:
			t[c] = cSpace
		}
	}
	return
}()

// class returns the class of the character at i and its length.
func class(text string, i int) (uint8, rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return asciiClass[c], rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	switch {
	case unicode.IsLetter(r):
		return cLetter, r, size
	case unicode.IsNumber(r):
		return cNumber, r, size
	case unicode.IsSpace(r):
		return cSpace, r, size
	}
	return 0, r, size
}

// other reports a character of [^\s\p{L}\p{N}].
func other(c uint8) bool { return c&(cLetter|cNumber|cSpace) == 0 }

// run returns the end of the run of characters from i whose class has a
// bit of want.
func run(text string, i int, want uint8) int {
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiClass[c]&want == 0 {
				return i
			}
			i++
			continue
		}
		c, _, size := class(text, i)
		if c&want == 0 {
			return i
		}
		i += size
	}
	return i
}

// otherRun returns the end of the run of [^\s\p{L}\p{N}] from i.
func otherRun(text string, i int) int {
	for i < len(text) {
		c, _, size := class(text, i)
		if !other(c) {
			return i
		}
		i += size
	}
	return i
}

// contraction returns the length of the contraction at i ('s, 't, 're,
// 've, 'm, 'll, 'd), 0 for none. With fold, letters match in either case,
// as (?i:...) does: by Unicode simple case folding, so U+017F (long s)
// is an s.
func contraction(text string, i int, fold bool) int {
	if i >= len(text) || text[i] != '\'' {
		return 0
	}
	is := func(j int, want byte) (int, bool) { // the length of a letter want at j
		if j >= len(text) {
			return 0, false
		}
		c := text[j]
		if c == want || fold && c == want-'a'+'A' {
			return 1, true
		}
		if fold && want == 's' && c == 0xC5 && j+1 < len(text) && text[j+1] == 0xBF { // U+017F
			return 2, true
		}
		return 0, false
	}
	for _, alt := range [...]string{"s", "t", "re", "ve", "m", "ll", "d"} {
		j := i + 1
		ok := true
		for k := 0; k < len(alt) && ok; k++ {
			var n int
			n, ok = is(j, alt[k])
			j += n
		}
		if ok {
			return j - i
		}
	}
	return 0
}

// spaceEnd returns the end of the white space alternatives shared by the
// patterns at i, white space: \s*[\r\n]+ (when newlines), then
// \s+(?!\S), then \s+.
func spaceEnd(text string, i int, newlines bool) int {
	k := run(text, i, cSpace)
	if newlines {
		// \s* gives characters back until [\r\n]+ matches: the piece ends
		// after the run's last line break.
		for j := k - 1; j >= i; j-- {
			if c := text[j]; c == '\r' || c == '\n' {
				return j + 1
			}
		}
	}
	if k == len(text) {
		return k
	}
	// \s+ gives back its last character, followed by white space.
	_, last := utf8.DecodeLastRuneInString(text[:k])
	if k-last > i {
		return k - last
	}
	return k
}

// cl100kPiece is cl100kPattern's piece at i.
func cl100kPiece(text string, i int) int { return cl100kFamily(text, i, 3) }

// qwenPiece is qwenPattern's piece at i.
func qwenPiece(text string, i int) int { return cl100kFamily(text, i, 1) }

func cl100kFamily(text string, i, digits int) int {
	if n := contraction(text, i, true); n > 0 {
		return i + n
	}
	c, r, size := class(text, i)
	switch {
	case c&cLetter != 0:
		return run(text, i+size, cLetter)
	case c&cNumber != 0:
		j := i + size
		for n := 1; n < digits && j < len(text); n++ {
			d, _, s := class(text, j)
			if d&cNumber == 0 {
				break
			}
			j += s
		}
		return j
	}
	// [^\r\n\p{L}\p{N}]\p{L}+
	j := i + size
	if c&cNewline == 0 && j < len(text) {
		if d, _, s := class(text, j); d&cLetter != 0 {
			return run(text, j+s, cLetter)
		}
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	start := i
	if r == ' ' {
		start = j
	}
	if start < len(text) {
		if d, _, _ := class(text, start); other(d) {
			return run(text, otherRun(text, start), cNewline)
		}
	}
	return spaceEnd(text, i, true)
}

// gpt2Piece is gpt2Pattern's piece at i.
func gpt2Piece(text string, i int) int {
	if n := contraction(text, i, false); n > 0 {
		return i + n
	}
	c, r, size := class(text, i)
	start, d := i, c
	if r == ' ' && i+size < len(text) {
		start = i + size
		d, _, _ = class(text, start)
	}
	switch {
	case d&cLetter != 0:
		return run(text, start, cLetter)
	case d&cNumber != 0:
		return run(text, start, cNumber)
	case other(d):
		return otherRun(text, start)
	}
	return spaceEnd(text, i, false)
}

// o200k's letter classes: upper [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and
// lower [\p{Ll}\p{Lm}\p{Lo}\p{M}].
const (
	oUpper = 1 << iota
	oLower
)

// o200kLetter returns the letter classes of the character at i, and its
// length.
func o200kLetter(text string, i int) (uint8, int) {
	if c := text[i]; c < utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z':
			return oLower, 1
		case 'A' <= c && c <= 'Z':
			return oUpper, 1
		}
		return 0, 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	switch {
	case unicode.IsMark(r) || unicode.In(r, unicode.Lm, unicode.Lo):
		return oUpper | oLower, size
	case unicode.In(r, unicode.Lu, unicode.Lt):
		return oUpper, size
	case unicode.Is(unicode.Ll, r):
		return oLower, size
	}
	return 0, size
}

// o200kRun returns the end of the run from i of characters of class want.
func o200kRun(text string, i int, want uint8) int {
	for i < len(text) {
		c, size := o200kLetter(text, i)
		if c&want == 0 {
			return i
		}
		i += size
	}
	return i
}

// o200kPiece is o200kPattern's piece at i.
func o200kPiece(text string, i int) int {
	c, r, size := class(text, i)
	// The two letter alternatives, each first with the optional prefix
	// [^\r\n\p{L}\p{N}] and then without it.
	prefixed := c&(cLetter|cNumber|cNewline) == 0
	starts := [2]int{i, i}
	if prefixed {
		starts[0] = i + size
	}
	for _, s := range starts {
		// upper* lower+: upper* gives characters back until lower+ matches.
		k := o200kRun(text, s, oUpper)
		end := -1
		if k < len(text) {
			if l, _ := o200kLetter(text, k); l&oLower != 0 {
				end = o200kRun(text, k, oLower)
			}
		}
		for j := k; end < 0 && j > s; {
			_, n := utf8.DecodeLastRuneInString(text[:j])
			j -= n
			if l, _ := o200kLetter(text, j); l&oLower != 0 {
				end = j + n
			}
		}
		if end >= 0 {
			return end + contraction(text, end, true)
		}
	}
	for _, s := range starts {
		// upper+ lower*
		if k := o200kRun(text, s, oUpper); k > s {
			end := o200kRun(text, k, oLower)
			return end + contraction(text, end, true)
		}
	}
	if c&cNumber != 0 {
		j := i + size
		for n := 1; n < 3 && j < len(text); n++ {
			d, _, s := class(text, j)
			if d&cNumber == 0 {
				break
			}
			j += s
		}
		return j
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
	start := i
	if r == ' ' {
		start = i + size
	}
	if start < len(text) {
		if d, _, _ := class(text, start); other(d) {
			j := otherRun(text, start)
			for j < len(text) && (text[j] == '\r' || text[j] == '\n' || text[j] == '/') {
				j++
			}
			return j
		}
	}
	return spaceEnd(text, i, true)
}
