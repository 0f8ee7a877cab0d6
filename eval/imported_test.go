package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gochunk/gochunk"
)

// Chunks made elsewhere are placed by their offsets where those hold,
// else by their text (overlaps included); what is nowhere in the corpus
// is counted and dropped, and what no chunk holds is reported.
func TestImportChunks(t *testing.T) {
	d := &Dataset{Corpora: []*Corpus{{ID: "a/b.md", Text: "Café au lait. Tea time. Water, please. The end."}}}
	dir := t.TempDir()
	lines := `{"text": "Café au lait.", "start": 0, "end": 13}
{"text": "Tea time.", "start_index": 99}
{"page_content": "time. Water,", "metadata": {"start_index": 18}}
{"text": "Water, please."}
{"text": "Invented by a model."}
`
	os.WriteFile(filepath.Join(dir, "a__b.md.jsonl"), []byte(lines), 0o644)
	im, err := ImportChunks("other", dir, d)
	if err != nil {
		t.Fatal(err)
	}
	want := ReportCard{Chunks: 5, Offsets: 2, WrongOffsets: 1, Located: 1, NotFound: 1, MaxRunes: 14}
	got := im.Card
	got.Uncovered = 0
	if got != want {
		t.Errorf("card %+v, want %+v", got, want)
	}
	if u := im.Card.Uncovered; u <= 0 || u > 0.2 {
		t.Errorf("uncovered %.3f: \"The end.\" is in no chunk", u)
	}
	chunks, err := im.Chunk(context.Background(), gochunk.Document{ID: "a/b.md"})
	if err != nil || len(chunks) != 4 {
		t.Fatalf("%d chunks, %v", len(chunks), err)
	}
	text := d.Corpora[0].Text
	for _, c := range chunks {
		sp := c.Spans[0]
		if text[sp.Start:sp.End] != c.Text || sp.EndRune-sp.StartRune != len([]rune(c.Text)) {
			t.Errorf("chunk %q at %+v", c.Text, sp)
		}
	}
	if chunks[2].Text != "time. Water," || chunks[2].Spans[0].StartRune != 18 {
		t.Errorf("the overlapping chunk: %+v", chunks[2])
	}
	if _, err := ImportChunks("other", t.TempDir(), d); err == nil {
		t.Error("a corpus without its file imported")
	}
}
