// Package segment cuts text into sentences, paragraphs and lines while
// keeping exact byte offsets.
//
// Every function returns ranges that partition the text: they are in order,
// the first starts at 0, each starts where the previous ends, and the last
// ends at len(text). Whitespace after a sentence, paragraph or line belongs
// to it, so joining the ranges gives the text back.
package segment

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Range is the byte range text[Start:End].
type Range struct {
	Start, End int
}

// Len returns the range's length in bytes.
func (r Range) Len() int { return r.End - r.Start }

// DefaultAbbreviations are words that a period after does not end a
// sentence (matched case-insensitively, without the final period).
var defaultAbbreviations = []string{
	"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc.al", "al",
	"e.g", "i.e", "cf", "viz", "approx", "fig", "figs", "eq", "eqs", "no", "nos", "vol",
	"vols", "ch", "sec", "p", "pp", "ed", "eds", "inc", "ltd", "co", "corp", "dept",
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
	"gen", "col", "lt", "sgt", "capt", "rev", "hon", "gov", "sen", "rep", "u.s", "u.k", "a.m", "p.m",
}

// DefaultAbbreviations returns a copy of the abbreviations the sentence
// splitter knows by default.
func DefaultAbbreviations() []string {
	return append([]string(nil), defaultAbbreviations...)
}

// Sentences splits text into sentences with the default options.
func Sentences(text string) []Range {
	return SentenceSplitter{}.Split(text)
}

// SentenceSplitter finds sentence boundaries.
//
// With no Delimiters it uses rules: a sentence ends after a run of
// terminators (. ! ? …, the CJK 。！？．, and the full stops of Devanagari,
// Arabic, Armenian, Ethiopic, Myanmar and Khmer), with any closing quotes or
// brackets, when whitespace and a character that can start a sentence
// follow (not a lowercase letter); a period after a known abbreviation
// ("Dr.", "e.g."), after a single capital initial ("J. Smith"), or inside a
// number ("3.14") does not end one; CJK terminators end a sentence without
// a following space; a line break ends one unless KeepLines is set.
//
// With Delimiters it behaves like Chonkie's sentence splitter: the text is
// cut after every occurrence of any delimiter string.
type SentenceSplitter struct {
	// Delimiters, when set, replaces the rules by plain delimiter matching.
	Delimiters []string
	// Abbreviations replaces the default abbreviation list when non-nil.
	Abbreviations []string
	// KeepLines stops single line breaks from ending sentences (blank
	// lines still do).
	KeepLines bool
}

// Split returns the sentence ranges of text.
func (s SentenceSplitter) Split(text string) []Range {
	if text == "" {
		return nil
	}
	var out []Range
	if len(s.Delimiters) == 0 {
		// Sized for prose (a sentence every 100 bytes or so), so a large
		// text does not grow the slice by doubling, leaving its old copies
		// behind.
		out = make([]Range, 0, len(text)/100+1)
	}
	s.each(text, func(r Range) bool {
		out = append(out, r)
		return true
	})
	return out
}

// All returns the ranges Split returns one at a time, for a caller that
// keeps something else of each (a large text's sentences are 16 bytes
// each in Split's slice).
func (s SentenceSplitter) All(text string) iter.Seq[Range] {
	return func(yield func(Range) bool) { s.each(text, yield) }
}

// each calls yield with every sentence range of text, in order, until it
// returns false.
func (s SentenceSplitter) each(text string, yield func(Range) bool) {
	if text == "" {
		return
	}
	if len(s.Delimiters) > 0 {
		eachAfterDelimiters(text, s.Delimiters, yield)
		return
	}
	set := defaultAbbrSet
	if s.Abbreviations != nil {
		set = abbrSet(s.Abbreviations)
	}
	start := 0
	stopped := false
	// cut ends a sentence at at, attaching the white space that follows
	// (leading white space stays with the sentence after it), and returns
	// where that white space ends: the scan resumes there, so a run of
	// blank lines is crossed once, not once per line break.
	cut := func(at int) int {
		end := skipSpace(text, at)
		if end > start && skipSpace(text, start) < end {
			stopped = !yield(Range{start, end})
			start = end
		}
		return end
	}
	for i := 0; i < len(text) && !stopped; {
		// Most bytes cannot start a terminator: skip them without decoding.
		if c := text[i]; !mayEnd[c] {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '\n':
			if !s.KeepLines || blankLineAt(text, i) {
				i = cut(i + size)
				continue
			}
		case '。', '！', '？', '｡', '．', '︒', '﹒', '।', '॥', '؟', '۔', '։', '።', '፧', '፨', '။', '។':
			// Marks that end a sentence whatever follows: the CJK full stops
			// (no space after them), the Devanagari danda, the Arabic
			// question mark and full stop, the Armenian, Ethiopic, Myanmar
			// and Khmer full stops.
			i = cut(skipClosers(text, skipTerminators(text, i)))
			continue
		case '.', '!', '?', '…':
			end := skipClosers(text, skipTerminators(text, i))
			if sentenceEndsAt(text, i, end, set) {
				end = cut(end)
			}
			i = end
			continue
		}
		i += size
	}
	if !stopped && start < len(text) {
		yield(Range{start, len(text)})
	}
}

// mayEnd marks the bytes that can start a terminator or a line break: the
// ASCII ones and the lead bytes of the others (…, the CJK marks, ।, ؟, ۔,
// ։, ።, ။, ។).
var mayEnd = func() (t [256]bool) {
	for _, c := range []byte{'.', '!', '?', '\n', 0xD6, 0xD8, 0xDB, 0xE0, 0xE1, 0xE2, 0xE3, 0xEF} {
		t[c] = true
	}
	return
}()

var defaultAbbrSet = abbrSet(defaultAbbreviations)

func abbrSet(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, a := range list {
		set[strings.ToLower(strings.TrimSuffix(a, "."))] = true
	}
	return set
}

// sentenceEndsAt decides whether the terminator run text[i:end] ends a
// sentence.
func sentenceEndsAt(text string, i, end int, abbr map[string]bool) bool {
	if end >= len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[end:])
	if !unicode.IsSpace(next) {
		return false // "3.14", "e.g.x", "word.Next" (URLs, file names)
	}
	after := skipSpace(text, end)
	if after >= len(text) {
		return true
	}
	if strings.Contains(text[end:after], "\n") {
		return true
	}
	first, _ := utf8.DecodeRuneInString(text[after:])
	if unicode.IsLower(first) {
		return false // "e.g. twice", "... and then"
	}
	if text[i] == '.' && end-i == 1 || text[i] == '.' && strings.TrimRight(text[i:end], "\"')]}’”»") == "." {
		word := lastWord(text[:i])
		if abbr[strings.ToLower(word)] {
			return false
		}
		if n := utf8.RuneCountInString(word); n == 1 {
			r, _ := utf8.DecodeRuneInString(word)
			if unicode.IsUpper(r) {
				return false // an initial: "J. Smith"
			}
		}
	}
	return true
}

// lastWord returns the run of letters and inner periods that ends text.
func lastWord(text string) string {
	j := len(text)
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:j])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		j -= size
	}
	return strings.TrimLeft(text[j:], ".")
}

func skipTerminators(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '.', '!', '?', '…', '。', '！', '？', '｡', '．', '︒', '﹒', '।', '॥', '؟', '۔', '։', '።', '፧', '፨', '။', '។':
			i += size
			continue
		}
		break
	}
	return i
}

func skipClosers(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '"', '\'', ')', ']', '}', '’', '”', '»', '」', '』', '）', '】':
			i += size
			continue
		}
		break
	}
	return i
}

func skipSpace(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f' {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// blankLineAt reports whether the line break at i is followed by another
// line break with only spaces between.
func blankLineAt(text string, i int) bool {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case ' ', '\t', '\r':
			continue
		case '\n':
			return true
		}
		return false
	}
	return false
}

// eachAfterDelimiters calls yield with the ranges of text cut after every
// occurrence of any of delims (the longest where several match), until it
// returns false.
func eachAfterDelimiters(text string, delims []string, yield func(Range) bool) {
	start := 0
	for i := 0; i < len(text); {
		matched := 0
		for _, d := range delims {
			if d != "" && strings.HasPrefix(text[i:], d) && len(d) > matched {
				matched = len(d)
			}
		}
		if matched > 0 {
			i += matched
			if !yield(Range{start, i}) {
				return
			}
			start = i
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	if start < len(text) {
		yield(Range{start, len(text)})
	}
}

// Paragraphs splits text at blank lines (a line break followed by another
// with only spaces between).
func Paragraphs(text string) []Range {
	var out []Range
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && blankLineAt(text, i) {
			end := skipSpace(text, i)
			out = append(out, Range{start, end})
			start = end
			i = end - 1
		}
	}
	if start < len(text) {
		out = append(out, Range{start, len(text)})
	}
	return out
}

// Lines splits text after every line feed, except inside a run of more
// than MaxBlankLines lines of white space alone: the rest of such a run is
// one range, so that a megabyte of blank lines is a few ranges, not a
// million.
func Lines(text string) []Range {
	var out []Range
	start, blank := 0, 0
	for {
		j := strings.IndexByte(text[start:], '\n')
		if j < 0 {
			break
		}
		end := start + j + 1
		if strings.TrimSpace(text[start:end]) != "" {
			blank = 0
		} else if blank++; blank > MaxBlankLines {
			out[len(out)-1].End = end
			start = end
			continue
		}
		out = append(out, Range{start, end})
		start = end
	}
	if start < len(text) {
		out = append(out, Range{start, len(text)})
	}
	return out
}

// MaxBlankLines is how many lines of white space alone in a row Lines
// returns one by one before it joins the rest of the run into one range.
const MaxBlankLines = 64

// HeadingLike reports whether t (a piece of text, white space around it
// ignored) reads as a heading: a markdown heading ("## Results"), or one
// short line of at most ten words that ends without punctuation or with a
// colon ("2.1 Safety Profile", "Ingredients:"), a title that the text
// after it belongs to. Bulleted list items and table rows are not.
func HeadingLike(t string) bool {
	t = strings.TrimSpace(t)
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n > 0 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t') {
		return true
	}
	if t == "" || strings.ContainsRune(t, '\n') || utf8.RuneCountInString(t) > 80 || len(strings.Fields(t)) > 10 {
		return false
	}
	if c := t[0]; c == '-' || c == '*' || c == '+' || c == '>' || c == '|' {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".!?;,)]}\"'…。！？", last)
}
