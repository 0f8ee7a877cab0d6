package eval

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk/embed"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func q(refs ...Reference) Question { return Question{Text: "q", References: refs} }

func ref(c string, s, e int) Reference { return Reference{Corpus: c, Start: s, End: e} }

func chunk(c string, spans ...Range) ChunkRef { return ChunkRef{Corpus: c, Spans: spans} }

func TestRetrievalScores(t *testing.T) {
	tests := []struct {
		name              string
		q                 Question
		got               []ChunkRef
		recall, prec, iou float64
	}{
		{"partial overlap", q(ref("a", 10, 20)), []ChunkRef{chunk("a", Range{0, 15})}, 0.5, 5.0 / 15, 5.0 / 20},
		// Chroma sums reference lengths without merging them.
		{"overlapping references", q(ref("a", 0, 10), ref("a", 5, 15)), []ChunkRef{chunk("a", Range{0, 20})}, 15.0 / 20, 15.0 / 20, 15.0 / 20},
		{"chunk covering two references", q(ref("a", 0, 5), ref("a", 10, 15)), []ChunkRef{chunk("a", Range{0, 20})}, 1, 0.5, 0.5},
		{"reference split across two chunks", q(ref("a", 5, 15)), []ChunkRef{chunk("a", Range{0, 10}), chunk("a", Range{10, 20})}, 1, 0.5, 0.5},
		{"half of a split reference", q(ref("a", 5, 15)), []ChunkRef{chunk("a", Range{0, 10})}, 0.5, 0.5, 5.0 / 15},
		{"multi-span chunk", q(ref("a", 5, 10), ref("a", 30, 35)), []ChunkRef{chunk("a", Range{0, 10}, Range{30, 40})}, 1, 0.5, 0.5},
		// A chunk of another corpus counts in the precision denominator.
		{"other corpus", q(ref("a", 0, 10)), []ChunkRef{chunk("b", Range{0, 10}), chunk("a", Range{0, 10})}, 1, 0.5, 0.5},
		// Overlapping retrieved chunks count twice in the denominator.
		{"overlapping chunks", q(ref("a", 0, 10)), []ChunkRef{chunk("a", Range{0, 10}), chunk("a", Range{5, 15})}, 1, 10.0 / 20, 10.0 / 20},
		{"nothing retrieved", q(ref("a", 0, 10)), nil, 0, 0, 0},
		{"miss", q(ref("a", 0, 10)), []ChunkRef{chunk("a", Range{20, 30})}, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := RetrievalScores(tc.q, tc.got)
			if !near(sc.Recall, tc.recall) || !near(sc.Precision, tc.prec) || !near(sc.IoU, tc.iou) {
				t.Errorf("got recall %.4f precision %.4f iou %.4f, want %.4f %.4f %.4f", sc.Recall, sc.Precision, sc.IoU, tc.recall, tc.prec, tc.iou)
			}
		})
	}
}

func TestPrecisionOmega(t *testing.T) {
	chunks := []ChunkRef{chunk("a", Range{0, 12}), chunk("a", Range{12, 30}), chunk("a", Range{30, 40}), chunk("b", Range{0, 40})}
	if got := PrecisionOmega(q(ref("a", 10, 20)), chunks); !near(got, 10.0/30) {
		t.Errorf("omega = %v, want 1/3", got)
	}
	// A chunk that only touches a reference counts as containing it, as in
	// Chroma's code: [20,30) touches [10,20).
	touch := []ChunkRef{chunk("a", Range{10, 20}), chunk("a", Range{20, 30})}
	if got := PrecisionOmega(q(ref("a", 10, 20)), touch); !near(got, 0.5) {
		t.Errorf("touching omega = %v, want 0.5", got)
	}
	// Reference parts outside every chunk are in the denominator.
	if got := PrecisionOmega(q(ref("a", 35, 50)), []ChunkRef{chunk("a", Range{30, 40})}); !near(got, 5.0/20) {
		t.Errorf("uncovered omega = %v, want 0.25", got)
	}
	// A multi-span chunk brings all its spans.
	if got := PrecisionOmega(q(ref("a", 0, 10)), []ChunkRef{chunk("a", Range{0, 10}, Range{20, 30})}); !near(got, 0.5) {
		t.Errorf("multi-span omega = %v, want 0.5", got)
	}
}

func TestRangeOps(t *testing.T) {
	if got := unionRanges([]Range{{5, 8}, {0, 3}, {3, 4}, {7, 10}}); !slices.Equal(got, []Range{{0, 4}, {5, 10}}) {
		t.Errorf("union %v", got)
	}
	if got := difference([]Range{{0, 10}, {20, 30}}, Range{5, 25}); !slices.Equal(got, []Range{{0, 5}, {25, 30}}) {
		t.Errorf("difference %v", got)
	}
	if got := difference([]Range{{0, 10}}, Range{3, 6}); !slices.Equal(got, []Range{{0, 3}, {6, 10}}) {
		t.Errorf("difference inside %v", got)
	}
	if _, ok := intersect(Range{0, 5}, Range{5, 9}); !ok {
		t.Error("touching ranges must intersect (Chroma's convention)")
	}
	if _, ok := intersect(Range{0, 5}, Range{6, 9}); ok {
		t.Error("disjoint ranges intersect")
	}
}

func TestBoundaryMetrics(t *testing.T) {
	// n = 100, gold boundary at 50: k = 25. No hypothesis boundary: the 25
	// windows starting in [25, 50) straddle the gold boundary.
	if got := Pk([]int{0, 50}, []int{0}, 100); !near(got, 25.0/75) {
		t.Errorf("Pk = %v, want 1/3", got)
	}
	if got := WindowDiff([]int{0, 50}, []int{0}, 100); !near(got, 25.0/75) {
		t.Errorf("WindowDiff = %v", got)
	}
	if got := Pk([]int{0, 50}, []int{0, 50}, 100); got != 0 {
		t.Errorf("perfect Pk = %v", got)
	}
	// A near-miss extra boundary: Pk only sees the 2 windows that contain
	// the extra boundary and not the gold one; WindowDiff every window
	// whose boundary counts differ (25 of them).
	if pk, wd := Pk([]int{50}, []int{50, 52}, 100), WindowDiff([]int{50}, []int{50, 52}, 100); !near(pk, 2.0/75) || !near(wd, 25.0/75) {
		t.Errorf("Pk %v WindowDiff %v", pk, wd)
	}
	perfect := []Assignment{{"c1", "x", 10}, {"c2", "y", 10}}
	if Purity(perfect) != 1 || !near(NMI(perfect), 1) {
		t.Errorf("perfect purity %v nmi %v", Purity(perfect), NMI(perfect))
	}
	mixed := []Assignment{{"c1", "x", 10}, {"c1", "y", 10}}
	if Purity(mixed) != 0.5 || NMI(mixed) != 0 {
		t.Errorf("mixed purity %v nmi %v", Purity(mixed), NMI(mixed))
	}
	cs := [][]int{{0, 1}, {2}, {3, 4, 5}}
	sim := func(i, j int) float64 { return float64(i + j) }
	if got := Cohesion(cs, sim); !near(got, (1.0+(7+8+9)/3.0)/2) {
		t.Errorf("cohesion %v", got)
	}
}

func TestStatPopulationStd(t *testing.T) {
	s := stat([]float64{1, 2, 3, 4})
	if !near(s.Mean, 2.5) || !near(s.Std, math.Sqrt(1.25)) {
		t.Errorf("%+v", s)
	}
}

func TestBM25(t *testing.T) {
	b := NewBM25()
	docs := []string{"the cat sat on the mat", "dogs chase cats", "stock markets fell sharply", "the the the"}
	if err := b.Index(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	got, _ := b.Search(context.Background(), "Did the markets fall? Stock prices.", 2)
	if len(got) == 0 || got[0] != 2 {
		t.Errorf("markets query: %v", got)
	}
	got, _ = b.Search(context.Background(), "cat mat", 5)
	if !slices.Equal(got, []int{0}) {
		t.Errorf("cat query: %v", got)
	}
	if got := topK(4, 2, func(y func(int, float64)) { y(3, 1); y(1, 1); y(2, 0.5); y(0, 1) }); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("ties must go to the lower index: %v", got)
	}
}

func TestValidateSkips(t *testing.T) {
	d := &Dataset{Name: "t", Corpora: []*Corpus{{ID: "a", Text: "héllo world"}}, Questions: []Question{
		{Text: "ok", References: []Reference{{Corpus: "a", Start: 0, End: 5, Content: "héllo"}}},
		{Text: "none"},
		{Text: "outside", References: []Reference{{Corpus: "a", Start: 5, End: 50}}},
		{Text: "mismatch", References: []Reference{{Corpus: "a", Start: 0, End: 5, Content: "hello"}}},
		{Text: "unknown", References: []Reference{{Corpus: "zz", Start: 0, End: 1}}},
	}}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(d.Questions) != 1 || len(d.Skipped) != 4 {
		t.Errorf("%d kept, %d skipped: %+v", len(d.Questions), len(d.Skipped), d.Skipped)
	}
	empty := &Dataset{Name: "e", Corpora: []*Corpus{{ID: "a", Text: "x"}}, Questions: []Question{{Text: "none"}}}
	if err := empty.Validate(); err == nil {
		t.Error("a data set with no usable question must be an error")
	}
}

func chromaDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "eval", "chroma")
	if _, err := os.Stat(filepath.Join(dir, "questions.csv")); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", dir)
	}
	return dir
}

// Every reference of the shared Chroma data round-trips: its code-point
// offsets select exactly its content.
func TestLoadChroma(t *testing.T) {
	d, err := Load(chromaDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Questions) != 276 || len(d.Skipped) != 0 || len(d.Corpora) != 3 {
		t.Fatalf("%d questions, %d skipped (%v), %d corpora", len(d.Questions), len(d.Skipped), d.Skipped, len(d.Corpora))
	}
	n := 0
	for _, q := range d.Questions {
		for _, r := range q.References {
			c := d.Corpus(r.Corpus)
			if got := string([]rune(c.Text)[r.Start:r.End]); got != r.Content {
				t.Fatalf("reference [%d,%d) of %s: %q != %q", r.Start, r.End, r.Corpus, got, r.Content)
			}
			n++
		}
	}
	if n < 276 {
		t.Errorf("only %d references", n)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "questions.csv"), []byte("question,references,corpus_id\nq,\"[{\"\"content\"\": \"\"x\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 1}]\",missing\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing corpus: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "nope")); err == nil {
		t.Error("missing path: no error")
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("empty directory: no error")
	}
}

func TestSQuADAndHotpot(t *testing.T) {
	squad := `{"data":[{"title":"T","paragraphs":[
	 {"context":"Paris is in France.","qas":[{"id":"1","question":"Where is Paris?","answers":[{"text":"France","answer_start":12},{"text":"France","answer_start":12}]}]},
	 {"context":"Café au lait.","qas":[{"id":"2","question":"What?","answers":[{"text":"lait","answer_start":8}]}]}]}]}`
	d, err := ParseSQuAD("s", []byte(squad))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil || len(d.Questions) != 2 || len(d.Questions[0].References) != 1 {
		t.Fatalf("%v %+v", err, d.Questions)
	}
	c := d.Corpora[0]
	r := d.Questions[1].References[0]
	if got := string([]rune(c.Text)[r.Start:r.End]); got != "lait" || !slices.Equal(c.Boundaries, []int{0, 21}) {
		t.Errorf("offset mapping: %q boundaries %v", got, c.Boundaries)
	}
	hotpot := `[{"_id":"h1","question":"Which?","answer":"x","supporting_facts":[["B",1]],
	 "context":[["A",["A one. ","A two."]],["B",["B one. ","B two."]]]}]`
	h, err := ParseHotpotQA("h", []byte(hotpot))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	hr := h.Questions[0].References[0]
	if got := string([]rune(h.Corpora[0].Text)[hr.Start:hr.End]); got != "B two." {
		t.Errorf("supporting fact %q", got)
	}
	if len(h.Corpora[0].Labels) != 2 || h.Corpora[0].Labels[1].Label != "B" {
		t.Errorf("labels %+v", h.Corpora[0].Labels)
	}
}

func TestStitch(t *testing.T) {
	d := &Dataset{Name: "d", Corpora: []*Corpus{{ID: "x", Text: "ab"}, {ID: "y", Text: "日本"}, {ID: "z", Text: "end"}}, Questions: []Question{
		{Text: "q", References: []Reference{{Corpus: "y", Start: 1, End: 2, Content: "本"}}},
	}}
	s := Stitch(d, 2)
	if len(s.Corpora) != 2 || s.Corpora[0].Text != "ab\n\n日本" || !slices.Equal(s.Corpora[0].Boundaries, []int{0, 4}) {
		t.Fatalf("%+v", s.Corpora[0])
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	r := s.Questions[0].References[0]
	if r.Corpus != "stitched-0" || r.Start != 5 || utf8.RuneCountInString(s.Corpora[0].Text) != 6 {
		t.Errorf("%+v", r)
	}
}

// BenchmarkScoreChroma measures scoring alone (retrieval with BM25 and the
// four metrics for the 276 questions), after chunking.
func BenchmarkScoreChroma(b *testing.B) {
	dir := filepath.Join("..", "..", "shared", "eval", "chroma")
	if _, err := os.Stat(dir); err != nil {
		b.Skip("shared data absent")
	}
	d, err := Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	var refs []ChunkRef
	for _, c := range d.Corpora {
		runes := []rune(c.Text)
		for s := 0; s < len(runes); s += 800 {
			e := min(s+800, len(runes))
			texts = append(texts, string(runes[s:e]))
			refs = append(refs, ChunkRef{Corpus: c.ID, Spans: []Range{{s, e}}})
		}
	}
	for b.Loop() {
		bm := NewBM25()
		bm.Index(context.Background(), texts)
		for _, q := range d.Questions {
			ids, _ := bm.Search(context.Background(), q.Text, 5)
			got := make([]ChunkRef, len(ids))
			for i, id := range ids {
				got[i] = refs[id]
			}
			RetrievalScores(q, got)
			PrecisionOmega(q, refs)
		}
	}
}

// Hybrid retrieval fuses BM25's and dense retrieval's rankings: a text
// first in either is in the fused top; NewRetriever builds each kind.
func TestHybridAndFittedDense(t *testing.T) {
	ctx := context.Background()
	texts := []string{
		"the cat sat on the mat", "stock markets fell sharply", "a cat and a dog", "bond yields rose today",
		"the the the the cat", "rare zebra sighting reported",
	}
	em := embed.NewLexical(embed.LexicalConfig{})
	for _, name := range []string{"bm25", "lexical", "hybrid:lexical"} {
		mk, err := NewRetriever(name, func(string) (embed.Embedder, error) { return em, nil })
		if err != nil {
			t.Fatal(err)
		}
		r := mk()
		if err := r.Index(ctx, texts); err != nil {
			t.Fatal(err)
		}
		ids, err := r.Search(ctx, "zebra sighting", 2)
		if err != nil || len(ids) == 0 || ids[0] != 5 {
			t.Errorf("%s (%s): %v, %v", name, r.Name(), ids, err)
		}
	}
	// Fitted to the collection, a rare word outweighs a common one.
	d := &Dense{Embedder: em}
	d.Index(ctx, texts)
	ids, _ := d.Search(ctx, "the zebra", 1)
	if len(ids) != 1 || ids[0] != 5 {
		t.Errorf("fitted dense: %v, want the zebra text first", ids)
	}
	if _, err := NewRetriever("hybrid:nope", func(string) (embed.Embedder, error) { return nil, errors.New("no such embedder") }); err == nil {
		t.Error("an unknown embedder was accepted")
	}
}

func TestPairedBootstrap(t *testing.T) {
	a := make([]QuestionScores, 50)
	b := make([]QuestionScores, 50)
	for i := range a {
		a[i].IoU = float64(i%7) / 10
		b[i].IoU = a[i].IoU + 0.1
	}
	d, lo, hi, ok := PairedBootstrap(a, b, "iou", 500, 1)
	if !ok || math.Abs(d-0.1) > 1e-9 || math.Abs(lo-0.1) > 1e-9 || math.Abs(hi-0.1) > 1e-9 {
		t.Errorf("constant shift: %v [%v, %v] %v", d, lo, hi, ok)
	}
	// Noise around no difference: the interval holds 0.
	for i := range b {
		b[i].IoU = a[i].IoU + float64(i%5-2)/100
	}
	d, lo, hi, _ = PairedBootstrap(a, b, "iou", 2000, 1)
	if lo > 0 || hi < 0 || lo > d || d > hi {
		t.Errorf("no difference: %v [%v, %v]", d, lo, hi)
	}
	if _, _, _, ok := PairedBootstrap(a, b[:10], "iou", 100, 1); ok {
		t.Error("different questions compared")
	}
}
