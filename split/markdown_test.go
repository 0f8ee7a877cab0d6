package split

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/segment"
)

// The markdown parser reads the lines segment.Lines returns, a few at a
// time: runs of blank lines longer than segment.MaxBlankLines, CRLF,
// white space alone and a text without a final line feed included.
func TestLineReaderMatchesLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	pieces := []string{"text\n", "  \n", "\n", "\r\n", "# Head\n", "tail"}
	for trial := range 200 {
		var b strings.Builder
		for range rng.IntN(3000) {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(50) == 0 {
				p = strings.Repeat("\n", segment.MaxBlankLines+rng.IntN(200))
			}
			b.WriteString(p)
		}
		text := b.String()
		want := segment.Lines(text)
		r := &lineReader{text: text}
		var got []segment.Range
		for i := 0; ; i++ {
			ln, ok := r.at(i)
			if !ok {
				break
			}
			if rng.IntN(3) == 0 { // look ahead, as the parser does
				r.at(i + 1 + rng.IntN(5))
			}
			got = append(got, ln)
			r.release(i)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d lines, segment.Lines %d", trial, len(got), len(want))
		}
	}
}

// sectionText returns about n bytes of markdown: sections of a few
// paragraphs under headings two and three levels deep.
func sectionText(n int) string {
	prose := memoryText(n)
	var b strings.Builder
	for k := 0; b.Len() < n; k++ {
		if k%4 == 0 {
			fmt.Fprintf(&b, "## Part %d\n\n", k/4)
		}
		fmt.Fprintf(&b, "### Section %d\n\n", k)
		start := k * 1500 % (len(prose) - 3000)
		b.WriteString(strings.TrimSpace(strings.ToValidUTF8(prose[start:start+1500], "")))
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestMarkdownLiveHeap bounds the live heap the markdown chunker needs
// per byte of input, chunks included: a metadata map a chunk for its
// heading path, and the text's lines all at once, took 1.73 bytes a byte
// of this text; the chunks of a section now share their path
// (Chunk.Headings) and the parser reads the lines as it goes: 0.67.
func TestMarkdownLiveHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the chunker's")
	}
	cfg := DefaultMarkdownConfig()
	cfg.Size.Size = 400
	m, err := NewMarkdown(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := sectionText(4 << 20)
	var chunks []gochunk.Chunk
	per := leastLivePerByte(t, len(text), 1, func() {
		chunks, err = m.Chunk(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			t.Fatal(err)
		}
	})
	if len(chunks) < 5000 || len(chunks[len(chunks)-1].Headings) != 2 {
		t.Fatalf("%d chunks, the last under %v: the text should make many, under two headings", len(chunks), chunks[len(chunks)-1].Headings)
	}
	if per > 1 {
		t.Errorf("markdown held %.2f bytes a byte of input at its peak (%d chunks); want at most 1", per, len(chunks))
	} else {
		t.Logf("markdown held %.2f bytes a byte of input at its peak (%d chunks)", per, len(chunks))
	}
}
