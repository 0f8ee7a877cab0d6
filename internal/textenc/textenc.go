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
	s := data[:min(len(data), sample)]
	if bytes.IndexByte(s, 0) >= 0 {
		return "", nil, false // UTF-16 or 32, or not text: no legacy encoding has NULs
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
		return "", nil, false
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
