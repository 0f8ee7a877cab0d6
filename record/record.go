// Package record holds the one wire shape of a chunk: the JSON Lines of
// gochunk chunk and the chunk objects of the HTTP API are the same Record,
// written by AppendJSON byte for byte as encoding/json's Encoder with
// SetEscapeHTML(false) writes it, several times faster: strings are
// escaped with a table, numbers appended without reflection.
package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/swar"
)

// Record is one chunk as gochunk writes it: its text, byte and code-point
// offsets (those of the first and last span), token count, index, source
// (a file name or a document id), the spans of a chunk of several, where
// it lies in its source (lines, or pages and boxes), the text its
// embedding is made of when that is not the chunk's own, the chunker's
// metadata and, when asked for, its embedding.
type Record struct {
	Text       string         `json:"text"`
	Start      int            `json:"start"`
	End        int            `json:"end"`
	StartRune  int            `json:"start_rune"`
	EndRune    int            `json:"end_rune"`
	TokenCount int            `json:"token_count"`
	ChunkIndex int            `json:"chunk_index"`
	Source     string         `json:"source"`
	Spans      []gochunk.Span `json:"spans,omitempty"`
	// Lines are the first and last line (1-based) of a text document the
	// chunk covers; Pages the first and last page of a laid-out one (a
	// PDF), and Boxes the bounding boxes of its elements there.
	Lines [2]int `json:"lines,omitzero"`
	Pages [2]int `json:"pages,omitzero"`
	Boxes []Box  `json:"boxes,omitempty"`
	// Parent is the larger span the chunk is part of when the pipeline
	// makes two levels (see pipeline.Config.Parents).
	Parent *Parent `json:"parent,omitempty"`
	// EmbedText is what is embedded and keyword-indexed for the chunk
	// when context was added to it (see pipeline.ContextConfig); empty
	// means the chunk's Text.
	EmbedText string         `json:"embed_text,omitempty"`
	Stats     gochunk.Stats  `json:"stats,omitzero"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Embedding []float32      `json:"embedding,omitempty"`
}

// Box is a region of a page a chunk covers: the bounding box (x0, y0, x1,
// y1 in the page's units, y growing downwards) of a layout element the
// chunk overlaps.
type Box struct {
	Page int        `json:"page"`
	BBox [4]float64 `json:"bbox"`
}

// Parent is a chunk's parent: its index among its document's parents,
// its byte and code-point offsets and its size in the chunks' unit. Its
// text is the document's between the offsets.
type Parent struct {
	Index      int `json:"index"`
	Start      int `json:"start"`
	End        int `json:"end"`
	StartRune  int `json:"start_rune"`
	EndRune    int `json:"end_rune"`
	TokenCount int `json:"token_count"`
}

// Embedded returns the text the chunk's embedding is made of.
func (r Record) Embedded() string {
	if r.EmbedText != "" {
		return r.EmbedText
	}
	return r.Text
}

// FromChunk returns the record of chunk c of the input named source. The
// chunk's heading path (Chunk.Headings) is in the record's metadata under
// "headings", unless its metadata sets that key itself.
func FromChunk(c gochunk.Chunk, source string) Record {
	r := Record{Text: c.Text, TokenCount: c.TokenCount, ChunkIndex: c.Index, Source: source, Stats: c.Stats, Metadata: c.Metadata}
	if _, set := c.Metadata["headings"]; len(c.Headings) > 0 && !set {
		r.Metadata = make(map[string]any, len(c.Metadata)+1)
		maps.Copy(r.Metadata, c.Metadata)
		r.Metadata["headings"] = c.Headings
	}
	if len(c.Spans) > 0 {
		first, last := c.Spans[0], c.Spans[len(c.Spans)-1]
		r.Start, r.StartRune, r.End, r.EndRune = first.Start, first.StartRune, last.End, last.EndRune
	}
	if len(c.Spans) > 1 {
		r.Spans = c.Spans
	}
	return r
}

// MarshalJSON returns AppendJSON's bytes without the newline.
func (r Record) MarshalJSON() ([]byte, error) {
	b, err := AppendJSON(nil, r)
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}

// AppendJSON appends r as one JSON line (with its newline) to dst.
func AppendJSON(dst []byte, r Record) ([]byte, error) {
	dst = append(dst, `{"text":`...)
	dst = AppendString(dst, r.Text)
	dst = appendInt(dst, `,"start":`, r.Start)
	dst = appendInt(dst, `,"end":`, r.End)
	dst = appendInt(dst, `,"start_rune":`, r.StartRune)
	dst = appendInt(dst, `,"end_rune":`, r.EndRune)
	dst = appendInt(dst, `,"token_count":`, r.TokenCount)
	dst = appendInt(dst, `,"chunk_index":`, r.ChunkIndex)
	dst = append(dst, `,"source":`...)
	dst = AppendString(dst, r.Source)
	if len(r.Spans) > 0 {
		dst = append(dst, `,"spans":[`...)
		for i, s := range r.Spans {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendInt(dst, `{"start":`, s.Start)
			dst = appendInt(dst, `,"end":`, s.End)
			dst = appendInt(dst, `,"start_rune":`, s.StartRune)
			dst = appendInt(dst, `,"end_rune":`, s.EndRune)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if r.Lines != [2]int{} {
		dst = appendInt(dst, `,"lines":[`, r.Lines[0])
		dst = appendInt(dst, `,`, r.Lines[1])
		dst = append(dst, ']')
	}
	if r.Pages != [2]int{} {
		dst = appendInt(dst, `,"pages":[`, r.Pages[0])
		dst = appendInt(dst, `,`, r.Pages[1])
		dst = append(dst, ']')
	}
	if p := r.Parent; p != nil {
		dst = appendInt(dst, `,"parent":{"index":`, p.Index)
		dst = appendInt(dst, `,"start":`, p.Start)
		dst = appendInt(dst, `,"end":`, p.End)
		dst = appendInt(dst, `,"start_rune":`, p.StartRune)
		dst = appendInt(dst, `,"end_rune":`, p.EndRune)
		dst = appendInt(dst, `,"token_count":`, p.TokenCount)
		dst = append(dst, '}')
	}
	var err error
	if len(r.Boxes) > 0 {
		dst = append(dst, `,"boxes":`...)
		if dst, err = appendValue(dst, r.Boxes); err != nil {
			return dst, err
		}
	}
	if r.EmbedText != "" {
		dst = append(dst, `,"embed_text":`...)
		dst = AppendString(dst, r.EmbedText)
	}
	if r.Stats.LLM != nil {
		dst = append(dst, `,"stats":`...)
		if dst, err = appendValue(dst, r.Stats); err != nil {
			return dst, err
		}
	} else if r.Stats.Sentences != 0 {
		dst = appendInt(dst, `,"stats":{"num_sentences":`, r.Stats.Sentences)
		dst = append(dst, '}')
	}
	if len(r.Metadata) > 0 {
		dst = append(dst, `,"metadata":`...)
		if dst, err = appendValue(dst, r.Metadata); err != nil {
			return dst, err
		}
	}
	if len(r.Embedding) > 0 {
		dst = append(dst, `,"embedding":[`...)
		for i, x := range r.Embedding {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendFloat32(dst, x); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}', '\n'), nil
}

// appendValue appends v as encoding/json writes it, without escaping HTML.
func appendValue(dst []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}

// AppendOffsets appends {"start":start,"end":end} and a newline to dst.
func AppendOffsets(dst []byte, start, end int) []byte {
	dst = appendInt(dst, `{"start":`, start)
	dst = appendInt(dst, `,"end":`, end)
	return append(dst, '}', '\n')
}

// appendFloat32 appends x as encoding/json writes a float32.
func appendFloat32(dst []byte, x float32) ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("record: unsupported value %v in an embedding", x)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 32)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

func appendInt(dst []byte, key string, v int) []byte {
	return strconv.AppendInt(append(dst, key...), int64(v), 10)
}

// special marks the bytes a JSON string may not hold as they are (control
// characters, the quote and the backslash) and the non-ASCII ones, whose
// characters are checked: invalid UTF-8 and U+2028 and U+2029 (escaped by
// encoding/json for JavaScript) are rewritten.
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	for c := utf8.RuneSelf; c < 0x100; c++ {
		t[c] = true
	}
	return
}()

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, as encoding/json does without
// HTML escaping: invalid UTF-8 becomes U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time up to the next that needs a look: a
		// control character, a quote, a backslash or a non-ASCII byte.
		for i+8 <= len(s) {
			x := swar.Load(s, i)
			look := swar.Below(x&^swar.High, 0x20) | swar.Zero(x^'"'*swar.Low) | swar.Zero(x^'\\'*swar.Low) | x&swar.High
			if look != 0 {
				i += bits.TrailingZeros64(look) / 8
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if !special[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
				i++
				start = i
				continue
			}
			if r == '\u2028' || r == '\u2029' {
				dst = append(append(dst, s[start:i]...), `\u202`...)
				dst = append(dst, hex[r&0xF])
			} else {
				i += size
				continue
			}
			i += size
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		i++
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}
