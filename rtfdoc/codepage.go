package rtfdoc

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// charsetCP returns the code page of a font's \fcharsetN (0 for the
// document's own, \ansicpg).
func charsetCP(charset int) int {
	switch charset {
	case 77:
		return 10000
	case 128:
		return 932
	case 129:
		return 949
	case 134:
		return 936
	case 136:
		return 950
	case 161:
		return 1253
	case 162:
		return 1254
	case 163:
		return 1258
	case 177:
		return 1255
	case 178:
		return 1256
	case 186:
		return 1257
	case 204:
		return 1251
	case 222:
		return 874
	case 238:
		return 1250
	case 254:
		return 437
	case 255:
		return 850
	}
	return 0 // ANSI, default, symbol: the document's code page
}

// codePages are the code pages RTF names by number.
var codePages = map[int]encoding.Encoding{
	437: charmap.CodePage437, 850: charmap.CodePage850, 852: charmap.CodePage852,
	855: charmap.CodePage855, 858: charmap.CodePage858, 860: charmap.CodePage860,
	862: charmap.CodePage862, 863: charmap.CodePage863, 865: charmap.CodePage865,
	866: charmap.CodePage866, 874: charmap.Windows874,
	1250: charmap.Windows1250, 1251: charmap.Windows1251, 1252: charmap.Windows1252,
	1253: charmap.Windows1253, 1254: charmap.Windows1254, 1255: charmap.Windows1255,
	1256: charmap.Windows1256, 1257: charmap.Windows1257, 1258: charmap.Windows1258,
	10000: charmap.Macintosh, 10007: charmap.MacintoshCyrillic,
	20866: charmap.KOI8R, 21866: charmap.KOI8U, 28591: charmap.ISO8859_1,
	28592: charmap.ISO8859_2, 28595: charmap.ISO8859_5, 28597: charmap.ISO8859_7,
	932: japanese.ShiftJIS, 936: simplifiedchinese.GBK, 949: korean.EUCKR,
	950: traditionalchinese.Big5,
}

// Decode returns bytes of Windows code page cp (1252, 1251, 932, 65001
// ...) as UTF-8: Windows-1252 for a code page it does not know, and
// U+FFFD for bytes the code page has no character for.
func Decode(cp int, b []byte) string {
	if cp == 65001 && utf8.Valid(b) {
		return string(b)
	}
	enc, ok := codePages[cp]
	if !ok {
		enc = charmap.Windows1252
	}
	if cm, ok := enc.(*charmap.Charmap); ok {
		// A single-byte code page: a character a byte, no decoder made.
		var sb strings.Builder
		sb.Grow(len(b) * 2)
		for _, c := range b {
			sb.WriteRune(cm.DecodeByte(c))
		}
		return sb.String()
	}
	s, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return strings.ToValidUTF8(string(s), "\uFFFD")
}
