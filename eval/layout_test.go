package eval

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
)

func TestProximityAndLayoutConsistency(t *testing.T) {
	el := func(page int, x0, y0, x1, y1 float64) gochunk.Element {
		return gochunk.Element{Page: page, BBox: [4]float64{x0, y0, x1, y1}, PageWidth: 300, PageHeight: 400}
	}
	a, b, c := el(1, 0, 0, 10, 10), el(1, 300, 400, 310, 410), el(2, 0, 0, 10, 10)
	// Centres 500 apart on a page whose diagonal is 500: d = 1.
	if got := Proximity(a, b); !near(got, 0.5) {
		t.Errorf("proximity = %v, want 0.5", got)
	}
	if Proximity(a, a) != 1 || Proximity(a, c) != 0 {
		t.Errorf("same box %v, other page %v", Proximity(a, a), Proximity(a, c))
	}
	els := []gochunk.Element{a, b, c}
	got := LayoutConsistency([][]int{{0, 1}, {2}, {0, 1, 2}}, func(i, j int) float64 { return Proximity(els[i], els[j]) })
	if want := (0.5 + (0.5+0+0)/3) / 2; !near(got, want) {
		t.Errorf("layout consistency = %v, want %v", got, want)
	}
}

// A JSONL data set of layout elements: text assembled from them, labels
// taken from them, and layout consistency, purity and NMI reported.
func TestElementsDataset(t *testing.T) {
	dir := t.TempDir()
	doc := `{"id": "paper", "elements": [
 {"type": "title", "text": "Ice", "page": 1, "bbox": [10, 10, 100, 30], "page_width": 600, "page_height": 800, "label": "ice"},
 {"type": "paragraph", "text": "Glaciers carve valleys. Ice flows slowly downhill.", "page": 1, "bbox": [10, 40, 290, 90], "page_width": 600, "page_height": 800, "label": "ice"},
 {"type": "header", "text": "Running header", "page": 1, "bbox": [10, 0, 200, 8], "page_width": 600, "page_height": 800, "excluded": true},
 {"type": "paragraph", "text": "Compilers parse code. Linkers resolve symbols.", "page": 1, "bbox": [310, 40, 590, 90], "page_width": 600, "page_height": 800, "label": "code"}]}`
	os.WriteFile(filepath.Join(dir, "documents.jsonl"), []byte(strings.ReplaceAll(doc, "\n", "")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "questions.jsonl"), []byte(`{"question": "What carves valleys?", "references": [{"doc_id": "paper", "start": 5, "end": 28, "content": "Glaciers carve valleys."}]}`+"\n"), 0o644)
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := d.Corpora[0]
	if !strings.HasPrefix(c.Text, "Ice\n\nGlaciers") || strings.Contains(c.Text, "Running") || len(c.Labels) != 3 {
		t.Fatalf("text %q, labels %+v", c.Text, c.Labels)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	s2, err := layout.NewS2(layout.S2Config{Size: 12, SpatialWeight: 1, SemanticWeight: 1, PageDistance: 1, Neighbors: 8, Window: 256, Seed: 1}, tokenize.Words{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := split.NewRecursive(split.DefaultRecursiveConfig(), tokenize.Words{})
	for _, ch := range []gochunk.Chunker{s2, rec} {
		res, err := Evaluate(context.Background(), d, Config{Name: "x", Chunker: ch}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := res.Boundary
		if b.LayoutConsistency == nil || b.Purity == nil || b.NMI == nil {
			t.Fatalf("%T: boundary metrics missing: %+v", ch, b)
		}
		if *b.LayoutConsistency <= 0 || *b.LayoutConsistency > 1 {
			t.Errorf("%T: layout consistency %v", ch, *b.LayoutConsistency)
		}
		if res.Overall.Recall != 1 {
			t.Errorf("%T: recall %v", ch, res.Overall.Recall)
		}
	}
	// Elements whose offsets do not hold their text are an error.
	bad := `{"id": "x", "text": "abc", "elements": [{"text": "zz", "start": 0, "end": 2, "page": 1, "bbox": [0,0,1,1]}]}`
	os.WriteFile(filepath.Join(dir, "documents.jsonl"), []byte(bad+"\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "element 0") {
		t.Errorf("bad element offsets: %v", err)
	}
	overlap := `{"id": "x", "text": "abc", "elements": [{"text": "ab", "start": 0, "end": 2, "page": 1}, {"text": "bc", "start": 1, "end": 3, "page": 1}]}`
	os.WriteFile(filepath.Join(dir, "documents.jsonl"), []byte(overlap+"\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping elements: %v", err)
	}
}

func TestChunkElements(t *testing.T) {
	// Elements listed out of text order, one excluded; a chunk of two
	// spans touching three elements, one of them twice.
	els := []gochunk.Element{{Start: 20, End: 30}, {Start: 0, End: 10}, {Excluded: true}, {Start: 10, End: 20}}
	chunks := []gochunk.Chunk{
		{Spans: []gochunk.Span{{Start: 2, End: 12}, {Start: 15, End: 25}}},
		{Spans: []gochunk.Span{{Start: 29, End: 30}}},
	}
	got := chunkElements(els, chunks)
	if want := [][]int{{1, 3, 0}, {0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
