package msgdoc

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// prebuffer is the dictionary's first content in compressed RTF
// (MS-OXRTFCP 2.1.2.1).
const prebuffer = "{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"

const (
	compressed   = 0x75465A4C // "LZFu"
	uncompressed = 0x414C454D // "MELA"
)

// errRTF reports compressed RTF that cannot be read.
var errRTF = errors.New("compressed RTF")

// decompressRTF returns the RTF that compressed RTF (PR_RTF_COMPRESSED,
// MS-OXRTFCP) holds, at most limit bytes of it.
func decompressRTF(data []byte, limit int) ([]byte, error) {
	if len(data) < 16 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header", errRTF, len(data))
	}
	rawSize := int(binary.LittleEndian.Uint32(data[4:8]))
	kind := binary.LittleEndian.Uint32(data[8:12])
	body := data[16:]
	if compSize := int(binary.LittleEndian.Uint32(data[0:4])); compSize >= 12 && compSize-12 < len(body) {
		body = body[:compSize-12]
	}
	if rawSize > limit {
		return nil, fmt.Errorf("%w: it declares %d bytes of RTF, more than the %d it may expand to", errRTF, rawSize, limit)
	}
	switch kind {
	case uncompressed:
		return body[:min(len(body), rawSize)], nil
	case compressed:
	default:
		return nil, fmt.Errorf("%w: unknown compression %#x", errRTF, kind)
	}
	var dict [4096]byte
	copy(dict[:], prebuffer)
	w := len(prebuffer)
	out := make([]byte, 0, rawSize)
	for i := 0; i < len(body); {
		flags := body[i]
		i++
		for bit := 0; bit < 8 && i < len(body); bit++ {
			if flags&(1<<bit) == 0 {
				c := body[i]
				i++
				out = append(out, c)
				dict[w] = c
				w = (w + 1) & 4095
			} else {
				if i+2 > len(body) {
					return out, nil // cut short: what was read
				}
				ref := int(binary.BigEndian.Uint16(body[i : i+2]))
				i += 2
				off, n := ref>>4, ref&15+2
				if off == w {
					return out, nil // the end marker
				}
				for k := range n {
					c := dict[(off+k)&4095]
					out = append(out, c)
					dict[w] = c
					w = (w + 1) & 4095
				}
			}
			if len(out) > limit {
				return nil, fmt.Errorf("%w: it expands past %d bytes", errRTF, limit)
			}
		}
	}
	return out, nil
}
