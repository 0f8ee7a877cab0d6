package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
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

// The report card measures imported chunks in a tokenizer's units against
// a limit, and compares two runs of the same library for determinism.
func TestReportCardSizesAndRuns(t *testing.T) {
	d := &Dataset{Corpora: []*Corpus{{ID: "c", Text: "One two three. Four five. Six seven eight nine."}}}
	write := func(lines string) string {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(lines), 0o644)
		return dir
	}
	run1 := write("{\"text\": \"One two three.\"}\n{\"text\": \"Four five.\"}\n{\"text\": \"Six seven eight nine.\"}\n")
	run2 := write("{\"text\": \"One two three.\"}\n{\"text\": \"Four five. Six\"}\n{\"text\": \"seven eight nine.\"}\n")
	im, err := ImportChunks("x", run1, d)
	if err != nil {
		t.Fatal(err)
	}
	words, err := tokenize.New("words")
	if err != nil {
		t.Fatal(err)
	}
	im.Measure(words, 3)
	if c := im.Card; c.Unit != "words" || c.MaxTokens != 4 || c.OverLimit != 1 || c.Limit != 3 {
		t.Errorf("sizes: %+v", c)
	}
	chunks, _ := im.Chunk(context.Background(), gochunk.Document{ID: "c"})
	if chunks[2].TokenCount != 4 {
		t.Errorf("the chunks' sizes are not in words: %d", chunks[2].TokenCount)
	}
	same, _ := ImportChunks("x", run1, d)
	im.CompareRun(same)
	if c := im.Card; c.Deterministic == nil || !*c.Deterministic || c.RunsDiffer != 0 {
		t.Errorf("identical runs: %+v", c)
	}
	other, _ := ImportChunks("x", run2, d)
	im.CompareRun(other)
	if c := im.Card; c.Deterministic == nil || *c.Deterministic || c.RunsDiffer != 4 {
		t.Errorf("differing runs: deterministic %v, %d differ, want false and 4", *c.Deterministic, c.RunsDiffer)
	}
}
