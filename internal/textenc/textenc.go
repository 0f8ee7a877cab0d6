// Package textenc recognises the legacy encoding of text that is not
// UTF-8 (Windows-1252, Shift_JIS, GB18030, Big5, EUC-KR, KOI8-R, …) and
// decodes it, for files that declare no encoding.
//
// Recognition is ICU's statistical detector (github.com/saintfish/chardet,
// a Go port of ICU's CharsetDetector): byte patterns valid in a
// multi-byte encoding and the frequencies of a language's common
// characters. It is a guess, so callers say that they guessed.
package textenc

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// sample is how much of the text the detector reads: enough for its
// statistics, bounded for large files.
const sample = 64 << 10

// minConfidence is the least confidence (0-100) of ICU's detector taken
// as an answer, and minLead how far ahead of the next encoding it must
// be. ICU rates a text of a recognised language in its encoding 45 and
// above (Cyrillic's single-byte encodings 45, Latin and CJK 75-100), and
// the encodings it is not 1-30.
const (
	minConfidence = 40
	minLead       = 15
)

// Detect names the encoding data is most likely written in, when it is
// not UTF-8 and the detector is confident of one whose decoder this
// package has, and returns it. ok is false for valid UTF-8 (nothing to
// decode) and where no encoding is recognised.
func Detect(data []byte) (name string, enc encoding.Encoding, ok bool) {
	if utf8.Valid(data) {
		return "", nil, false
	}
	// The sample starts before the first byte that is not UTF-8, so that a
	// text whose first 64 KiB are ASCII is judged by its other letters.
	from := max(0, firstInvalid(data)-sample/4)
	for from > 0 && !utf8.RuneStart(data[from]) {
		from--
	}
	s := data[from:min(len(data), from+sample)]
	if bytes.IndexByte(s, 0) >= 0 {
		return "", nil, false // UTF-16 or 32, or not text: no legacy encoding has NULs
	}
	if valid, invalid := utf8Sequences(s); valid >= invalid {
		// UTF-8 with stray bytes (a Latin-1 "café" pasted into a UTF-8
		// file), not a legacy text: decoding it would garble every
		// correct character.
		return "", nil, false
	}
	results, err := chardet.NewTextDetector().DetectAll(s)
	if err != nil {
		return "", nil, false
	}
	if len(results) == 0 {
		return "", nil, false
	}
	best := results[0]
	if best.Confidence < minConfidence || len(results) > 1 && best.Confidence-results[1].Confidence < minLead {
		// ICU's detector wants a few dozen characters of a language; a
		// short CJK text (a CSV of names) is told by its bytes.
		return byCommonCharacters(s)
	}
	name = best.Charset
	if strings.HasPrefix(name, "UTF-") {
		return "", nil, false // UTF-16 and 32 are read by their marks
	}
	switch name {
	case "ISO-8859-1":
		// What a text in Latin-1 is read as everywhere: its superset
		// (curly quotes and dashes in 0x80-0x9F), as browsers do.
		name = "windows-1252"
	case "GB-18030":
		name = "gb18030"
	}
	enc, err = htmlindex.Get(name)
	if err != nil || !decodesCleanly(enc, s) {
		return "", nil, false
	}
	return canonical(enc, name), enc, true
}

// firstInvalid returns the index of the first byte of data that is not
// UTF-8, or len(data).
func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// utf8Sequences counts the multi-byte UTF-8 sequences in s and the bytes
// that are not UTF-8 (a sequence cut by the sample's end counts as
// neither).
func utf8Sequences(s []byte) (valid, invalid int) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if !utf8.FullRune(s[i:]) {
				return valid, invalid
			}
			invalid++
		case n > 1:
			valid++
		}
		i += n
	}
	return valid, invalid
}

// decodesCleanly reports whether the sample decodes without replacement
// characters (the last, perhaps cut, few bytes aside).
func decodesCleanly(e encoding.Encoding, s []byte) bool {
	out, err := e.NewDecoder().Bytes(s)
	if err != nil {
		return false
	}
	bad := strings.Count(string(out), "\uFFFD")
	return bad <= 1 // a multi-byte character cut by the sample's end
}

// canonical returns the encoding's WHATWG name where it has one.
func canonical(e encoding.Encoding, fallback string) string {
	if n, err := htmlindex.Name(e); err == nil {
		return n
	}
	return fallback
}

// Decode returns data decoded from enc as UTF-8; bytes enc cannot decode
// become U+FFFD.
func Decode(data []byte, enc encoding.Encoding) (string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", err
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), nil
}

// doubleByte is a CJK encoding of one- and two-byte characters: its name,
// its two-byte characters' lead and trail bytes, and which of them are
// its common ones (kana, punctuation and the first level of characters:
// the ones everyday text is mostly made of).
type doubleByte struct {
	name   string
	lead   func(b byte) bool
	trail  func(b byte) bool
	common func(lead, trail byte) bool
}

func in(b, lo, hi byte) bool { return b >= lo && b <= hi }

var doubleBytes = []doubleByte{
	{"shift_jis", func(b byte) bool { return in(b, 0x81, 0x9F) || in(b, 0xE0, 0xFC) },
		func(b byte) bool { return in(b, 0x40, 0x7E) || in(b, 0x80, 0xFC) },
		func(l, _ byte) bool { return in(l, 0x81, 0x83) || in(l, 0x88, 0x98) }},
	{"euc-jp", func(b byte) bool { return in(b, 0xA1, 0xFE) || b == 0x8E },
		func(b byte) bool { return in(b, 0xA1, 0xFE) },
		func(l, _ byte) bool { return in(l, 0xA1, 0xA5) || in(l, 0xB0, 0xCF) }},
	{"gbk", func(b byte) bool { return in(b, 0x81, 0xFE) },
		func(b byte) bool { return in(b, 0x40, 0x7E) || in(b, 0x80, 0xFE) },
		func(l, t byte) bool { return (in(l, 0xA1, 0xA3) || in(l, 0xB0, 0xD7)) && t >= 0xA1 }},
	{"big5", func(b byte) bool { return in(b, 0x81, 0xFE) },
		func(b byte) bool { return in(b, 0x40, 0x7E) || in(b, 0xA1, 0xFE) },
		func(l, _ byte) bool { return in(l, 0xA1, 0xC6) }},
	{"euc-kr", func(b byte) bool { return in(b, 0x81, 0xFE) },
		func(b byte) bool { return in(b, 0x41, 0x5A) || in(b, 0x61, 0x7A) || in(b, 0x81, 0xFE) },
		func(l, t byte) bool { return (in(l, 0xA1, 0xA3) || in(l, 0xB0, 0xC8)) && t >= 0xA1 }},
}

// byCommonCharacters names the CJK encoding s is written in when its
// bytes tell one clearly, though too few for ICU's statistics: of the
// encodings s decodes in without an error, the one whose two-byte
// characters are nearly all (90%) among its common characters, where in
// every other they are at most 60% (Japanese in Shift_JIS read as GBK
// gives rare characters), and at least half of them in runs of two or
// more, as CJK words are. Encodings whose common characters share their
// bytes (EUC-JP, GBK and EUC-KR's) stay unrecognised.
func byCommonCharacters(s []byte) (string, encoding.Encoding, bool) {
	const minChars = 4
	bestShare, secondShare := 0.0, 0.0
	var best *doubleByte
	var bestEnc encoding.Encoding
	for k := range doubleBytes {
		d := &doubleBytes[k]
		chars, common, inRuns := 0, 0, 0
		end, alone := -1, false // where the last two-byte character ended, and whether it stood alone
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x80 || !d.lead(c) || i+1 >= len(s) {
				continue // ASCII, a one-byte character, or cut by the end
			}
			if !d.trail(s[i+1]) {
				chars = -1 // no character of this encoding
				break
			}
			chars++
			if d.common(c, s[i+1]) {
				common++
			}
			if i == end { // it follows the last one: both are in a run
				inRuns++
				if alone {
					inRuns++
				}
				alone = false
			} else {
				alone = true
			}
			i++
			end = i + 1
		}
		// CJK words are runs of two-byte characters; a Western text's
		// curly apostrophe between two letters (O’Brien in Windows-1252)
		// can read as a two-byte character too, but always alone.
		if chars < minChars || 2*inRuns < chars {
			continue
		}
		enc, err := htmlindex.Get(d.name)
		if err != nil || !decodesCleanly(enc, s) {
			continue
		}
		share := float64(common) / float64(chars)
		switch {
		case share > bestShare:
			secondShare, bestShare, best, bestEnc = bestShare, share, d, enc
		case share > secondShare:
			secondShare = share
		}
	}
	if best == nil || bestShare < 0.9 || secondShare > 0.6 {
		return "", nil, false
	}
	return canonical(bestEnc, best.name), bestEnc, true
}
