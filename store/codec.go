package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/record"
)

// row is a chunk as its columns hold it.
type row struct {
	start, end, startRune, endRune, tokens, index int
	text                                          string
	spans, metadata, stats, where                 []byte // JSON, nil when empty
}

// provenance is a chunk's lines, pages and boxes as its column holds them.
type provenance struct {
	Lines  [2]int         `json:"lines,omitzero"`
	Pages  [2]int         `json:"pages,omitzero"`
	Boxes  []record.Box   `json:"boxes,omitempty"`
	Parent *record.Parent `json:"parent,omitempty"`
}

func toRow(r record.Record) (row, error) {
	out := row{start: r.Start, end: r.End, startRune: r.StartRune, endRune: r.EndRune, tokens: r.TokenCount, index: r.ChunkIndex, text: r.Text}
	var err error
	if len(r.Spans) > 1 {
		if out.spans, err = json.Marshal(r.Spans); err != nil {
			return out, err
		}
	}
	if len(r.Metadata) > 0 {
		if out.metadata, err = json.Marshal(r.Metadata); err != nil {
			return out, fmt.Errorf("chunk %d's metadata: %w", r.ChunkIndex, err)
		}
	}
	if r.Stats != (gochunk.Stats{}) {
		if out.stats, err = json.Marshal(r.Stats); err != nil {
			return out, err
		}
	}
	if p := (provenance{r.Lines, r.Pages, r.Boxes, r.Parent}); p.Lines != [2]int{} || p.Pages != [2]int{} || len(p.Boxes) > 0 || p.Parent != nil {
		if out.where, err = json.Marshal(p); err != nil {
			return out, err
		}
	}
	return out, nil
}

// fromColumns fills a hit's record from its JSON columns.
func (h *Hit) fromColumns(spans, metadata, stats, where []byte) error {
	if len(where) > 0 {
		var p provenance
		if err := json.Unmarshal(where, &p); err != nil {
			return fmt.Errorf("stored provenance of %s chunk %d: %w", h.Source, h.ChunkIndex, err)
		}
		h.Lines, h.Pages, h.Boxes, h.Parent = p.Lines, p.Pages, p.Boxes, p.Parent
	}
	if len(spans) > 0 {
		if err := json.Unmarshal(spans, &h.Spans); err != nil {
			return fmt.Errorf("stored spans of %s chunk %d: %w", h.Source, h.ChunkIndex, err)
		}
	}
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &h.Metadata); err != nil {
			return fmt.Errorf("stored metadata of %s chunk %d: %w", h.Source, h.ChunkIndex, err)
		}
	}
	if len(stats) > 0 {
		if err := json.Unmarshal(stats, &h.Stats); err != nil {
			return fmt.Errorf("stored stats of %s chunk %d: %w", h.Source, h.ChunkIndex, err)
		}
	}
	return nil
}

// vectorBlob encodes a vector as little-endian float32s (the IVF
// index's centroids).
func vectorBlob(v []float32) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// vectorText writes a vector in pgvector's text form, [1,2,3].
func vectorText(v []float32) string {
	b := make([]byte, 0, 10*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']'))
}

// metaJSON encodes a document's metadata (nil when empty).
func metaJSON(m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}
