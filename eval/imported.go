package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/tokenize"
)

// Imported holds chunks made elsewhere (LangChain, LlamaIndex, Chonkie,
// Docling…), located in a data set's corpora so that they are scored like
// gochunk's, and the report card of what was read.
type Imported struct {
	Name   string
	chunks map[string][]gochunk.Chunk
	Card   ReportCard
}

// ReportCard checks imported chunks against the contract gochunk's own
// chunkers keep (see package chunktest): every chunk's text is the
// corpus's text at its offsets (given offsets that do not hold are
// counted; text that is nowhere in the corpus, invented or rewritten, is
// counted and dropped), and the chunks cover the corpus's text.
type ReportCard struct {
	Chunks int `json:"chunks"`
	// Offsets counts the chunks whose given offsets hold their text;
	// WrongOffsets those whose given offsets do not (they are then
	// located by their text); Located those without offsets found by
	// their text; NotFound those whose text is not in the corpus.
	Offsets      int `json:"offsets_exact"`
	WrongOffsets int `json:"offsets_wrong"`
	Located      int `json:"located_by_text"`
	NotFound     int `json:"not_found"`
	// Uncovered is the share of the corpora's non-space characters no
	// chunk holds (text lost).
	Uncovered float64 `json:"uncovered"`
	// MaxRunes is the longest chunk, in code points.
	MaxRunes int `json:"max_runes"`
	// Unit, MaxTokens and OverLimit are set by Measure: the longest chunk
	// in that unit (an embedder's tokens), and how many chunks are over
	// Limit when one is given.
	Unit      string `json:"unit,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	OverLimit int    `json:"over_limit"`
	// Deterministic and RunsDiffer are set by CompareRun: whether a second
	// run of the same library gave the same chunks, and how many chunks
	// are not in both.
	Deterministic *bool `json:"deterministic,omitempty"`
	RunsDiffer    int   `json:"runs_differ,omitempty"`
}

// Measure counts every imported chunk with counter (the embedder's
// tokenizer, to check a size limit the chunks were made for): the chunks'
// sizes become counter's, and the report card says the longest and, for
// a limit above 0, how many are over it.
func (im *Imported) Measure(counter tokenize.Counter, limit int) {
	im.Card.Unit, im.Card.Limit, im.Card.MaxTokens, im.Card.OverLimit = counter.Name(), limit, 0, 0
	for _, chunks := range im.chunks {
		for i := range chunks {
			n := counter.Count(chunks[i].Text)
			chunks[i].TokenCount = n
			im.Card.MaxTokens = max(im.Card.MaxTokens, n)
			if limit > 0 && n > limit {
				im.Card.OverLimit++
			}
		}
	}
}

// CompareRun checks determinism against a second run of the same library
// on the same corpora: the report card says whether both runs gave the
// same chunks (the same spans, corpus by corpus) and how many are in one
// run only.
func (im *Imported) CompareRun(other *Imported) {
	differ := 0
	for id, chunks := range im.chunks {
		count := map[gochunk.Span]int{}
		for _, c := range chunks {
			count[c.Spans[0]]++
		}
		for _, c := range other.chunks[id] {
			count[c.Spans[0]]--
		}
		for _, n := range count {
			differ += max(n, -n)
		}
	}
	same := differ == 0
	im.Card.Deterministic, im.Card.RunsDiffer = &same, differ
}

// importedLine is a chunk as other libraries export it: its text, and
// offsets in code points under any of their names (start/end, LangChain's
// metadata start_index, Chonkie's start_index/end_index in Python and
// startIndex/endIndex in JavaScript).
type importedLine struct {
	Text         string `json:"text"`
	PageContent  string `json:"page_content"`
	Start        *int   `json:"start"`
	End          *int   `json:"end"`
	StartIndex   *int   `json:"start_index"`
	EndIndex     *int   `json:"end_index"`
	StartIndexJS *int   `json:"startIndex"`
	Metadata     struct {
		StartIndex *int `json:"start_index"`
	} `json:"metadata"`
}

// ImportChunks reads chunks made elsewhere for the corpora of d: the file
// dir/CORPUS.jsonl (the corpus's id, "/" written as "__") holds one JSON
// object per chunk, {"text": …} with or without offsets. A chunk is
// placed by its offsets when they hold its text, else found by its text,
// searching on from the chunk before (overlaps allowed), else counted as
// not found. A corpus without a file is an error.
func ImportChunks(name, dir string, d *Dataset) (*Imported, error) {
	im := &Imported{Name: name, chunks: map[string][]gochunk.Chunk{}}
	nonSpace, uncovered := 0, 0
	for _, c := range d.Corpora {
		path := filepath.Join(dir, strings.ReplaceAll(c.ID, "/", "__")+".jsonl")
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("chunks %s: %w", name, err)
		}
		chunks, err := im.read(f, c, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		im.chunks[c.ID] = chunks
		covered := make([]bool, len(c.Text))
		for _, ch := range chunks {
			for i := ch.Spans[0].Start; i < ch.Spans[0].End; i++ {
				covered[i] = true
			}
		}
		for i, r := range c.Text {
			if !unicode.IsSpace(r) {
				nonSpace++
				if !covered[i] {
					uncovered++
				}
			}
		}
	}
	if nonSpace > 0 {
		im.Card.Uncovered = float64(uncovered) / float64(nonSpace)
	}
	return im, nil
}

func (im *Imported) read(f *os.File, c *Corpus, path string) ([]gochunk.Chunk, error) {
	conv := runeoff.New(c.Text)
	var bytesAt []int32 // byte offset of every code point, built when offsets are given
	byteAt := func(runeOff int) (int, bool) {
		if bytesAt == nil {
			bytesAt = make([]int32, 0, len(c.Text)+1)
			for i := range c.Text {
				bytesAt = append(bytesAt, int32(i))
			}
			bytesAt = append(bytesAt, int32(len(c.Text)))
		}
		if runeOff < 0 || runeOff >= len(bytesAt) {
			return 0, false
		}
		return int(bytesAt[runeOff]), true
	}
	var chunks []gochunk.Chunk
	cursor := 0 // where the search for the next chunk starts
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l importedLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		text := l.Text
		if text == "" {
			text = l.PageContent
		}
		if text == "" {
			continue
		}
		im.Card.Chunks++
		start := -1
		if s := firstOf(l.Start, l.StartIndex, l.StartIndexJS, l.Metadata.StartIndex); s != nil {
			if b, ok := byteAt(*s); ok && strings.HasPrefix(c.Text[b:], text) {
				start = b
				im.Card.Offsets++
			} else {
				im.Card.WrongOffsets++
			}
		}
		if start < 0 {
			if i := strings.Index(c.Text[cursor:], text); i >= 0 {
				start = cursor + i
			} else if i := strings.Index(c.Text, text); i >= 0 {
				start = i // out of order
			}
			if start < 0 {
				im.Card.NotFound++
				continue
			}
			if firstOf(l.Start, l.StartIndex, l.StartIndexJS, l.Metadata.StartIndex) == nil {
				im.Card.Located++
			}
		}
		end := start + len(text)
		// The next chunk is searched for from this one's start plus one,
		// so that overlapping chunks are found where they are.
		cursor = min(start+1, len(c.Text))
		for cursor < len(c.Text) && !utf8RuneStart(c.Text[cursor]) {
			cursor++
		}
		sr, er := conv.Rune(start), conv.Rune(end)
		im.Card.MaxRunes = max(im.Card.MaxRunes, er-sr)
		chunks = append(chunks, gochunk.Chunk{Text: c.Text[start:end], Index: len(chunks), TokenCount: er - sr,
			Spans: []gochunk.Span{{Start: start, End: end, StartRune: sr, EndRune: er}}})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return chunks, nil
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func firstOf(ps ...*int) *int {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

// Chunk returns the imported chunks of doc's corpus (doc.ID).
func (im *Imported) Chunk(_ context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, ok := im.chunks[doc.ID]
	if !ok {
		return nil, errors.New("no imported chunks for corpus " + doc.ID)
	}
	return chunks, nil
}
