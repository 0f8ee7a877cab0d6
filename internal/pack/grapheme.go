package pack

import (
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// cluster returns the byte length of the grapheme cluster (Unicode UAX
// #29: a character with its combining marks, an emoji ZWJ sequence, a flag,
// a Hangul syllable, CR LF) that starts at i.
func cluster(text string, i int) int {
	if c := text[i]; c < utf8.RuneSelf && (i+1 == len(text) || text[i+1] < utf8.RuneSelf && !(c == '\r' && text[i+1] == '\n')) {
		return 1 // ASCII followed by ASCII: a cluster of one byte
	}
	g, _, _, _ := uniseg.FirstGraphemeClusterInString(text[i:], -1)
	return len(g)
}

// asciiBoundary reports whether p, inside text, lies between two ASCII
// characters that are not a carriage return and a line feed: a cluster
// boundary, known without calling clusterBoundary.
func asciiBoundary(text string, p int) bool {
	c, d := text[p-1], text[p]
	return c|d < utf8.RuneSelf && !(c == '\r' && d == '\n')
}

// plainCluster reports a character whose grapheme cluster break property
// is Other or Control (Latin letters and symbols below the combining
// marks at U+0300, most general punctuation: dashes, quotes, ellipses):
// text always breaks between two of them, except CR LF, which are ASCII.
func plainCluster(r rune) bool {
	return r < 0x300 || 0x2010 <= r && r <= 0x2027 || 0x2030 <= r && r <= 0x205E
}

// clusterBoundary reports whether p is a grapheme cluster boundary of
// text. Clusters are found from a little before p (a cluster is short), so
// only a run of regional indicators (flags) longer than that could be
// paired differently than from the text's start.
func clusterBoundary(text string, p int) bool {
	if p <= 0 || p >= len(text) {
		return true
	}
	if !utf8.RuneStart(text[p]) {
		return false
	}
	if text[p-1] < utf8.RuneSelf && text[p] < utf8.RuneSelf {
		return !(text[p-1] == '\r' && text[p] == '\n')
	}
	prev, size := utf8.DecodeLastRuneInString(text[:p])
	next, nsize := utf8.DecodeRuneInString(text[p:])
	if plainCluster(prev) && plainCluster(next) {
		return true // between two plain characters: no rule joins them
	}
	// No rule looks past the character at p: the text after it is left
	// out, so that a cluster of thousands of characters (prepended marks
	// join whatever follows them) is not read to its end at each of its
	// positions.
	text = text[:p+nsize]
	// Whether p breaks depends on the characters on both sides, except
	// after a zero-width joiner (an emoji sequence), a regional indicator
	// (flags pair up from the run's start) and in the Indic scripts
	// (conjuncts): elsewhere the cluster starting at the character before
	// p says it.
	if prev != 0x200D && (prev < 0x1F1E6 || prev > 0x1F1FF) && (prev < 0x0900 || prev > 0x0DFF) {
		g, _, _, _ := uniseg.FirstGraphemeClusterInString(text[p-size:], -1)
		return len(g) == size
	}
	s := max(0, p-64)
	for s > 0 && !utf8.RuneStart(text[s]) {
		s--
	}
	state := -1
	for s < p {
		var g string
		g, _, _, state = uniseg.FirstGraphemeClusterInString(text[s:], state)
		s += len(g)
	}
	return s == p
}
