package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/split"
)

func TestParseBudget(t *testing.T) {
	b, err := ParseBudget("a=10,b=3")
	if err != nil || b.Counts["a"] != 10 || b.Counts["b"] != 3 || b.Like != nil {
		t.Errorf("counts: %+v, %v", b, err)
	}
	b, err = ParseBudget("like=semchunk:size=800,tokenizer=cl100k_base")
	if err != nil || b.Like == nil || b.Like.Chunker != "semchunk" || b.Like.Tokenizer != "cl100k_base" || fmt.Sprint(b.Like.Params["size"]) != "800" {
		t.Errorf("like: %+v, %v", b, err)
	}
	for _, bad := range []string{"a=0", "a", "a=x", "like=x:size"} {
		if _, err := ParseBudget(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Under a budget, every candidate makes at most the budget's chunks on
// each corpus, with the smallest size that does.
func TestCompareWithBudget(t *testing.T) {
	var long, short strings.Builder
	for i := range 300 {
		fmt.Fprintf(&long, "Sentence %d of the long corpus says a few words. ", i)
	}
	for i := range 40 {
		fmt.Fprintf(&short, "Line %d of the short one. ", i)
	}
	texts := map[string]string{"long": long.String(), "short": short.String()}
	d := &Dataset{Name: "t", Corpora: []*Corpus{{ID: "long", Text: texts["long"]}, {ID: "short", Text: texts["short"]}},
		Questions: []Question{{Text: "sentence 7", References: []Reference{{Corpus: "long", Start: 0, End: 40}}}}}
	build := func(ctx context.Context, c Candidate) (gochunk.Chunker, string, error) {
		raw, _ := json.Marshal(c.Params)
		cfg := split.DefaultRecursiveConfig()
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, "", err
		}
		ch, err := split.NewRecursive(cfg, nil)
		return ch, "runes", err
	}
	chunks := func(size int, corpus string) int {
		chunker, _, _ := build(context.Background(), Candidate{Params: map[string]any{"size": size}})
		cs, _ := chunker.Chunk(context.Background(), gochunk.Document{ID: corpus, Text: texts[corpus]})
		return len(cs)
	}
	for _, budget := range []*Budget{{Counts: map[string]int{"long": 12, "short": 2}}, {Like: &Candidate{Chunker: "recursive", Params: map[string]any{"size": 900}}}} {
		want, _ := budget.counts(context.Background(), d, build)
		rep, err := Compare(context.Background(), d, []Candidate{{Name: "r", Chunker: "recursive", Params: map[string]any{"size": 100}}}, build, Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		res := rep.Configs[0]
		for corpus, n := range want {
			size := res.BudgetSizes[corpus]
			if got := chunks(size, corpus); got > n || size == 0 {
				t.Errorf("%+v: corpus %s: %d chunks at size %d, budget %d", budget, corpus, got, size, n)
			}
			// One less and the budget is broken: the size is the smallest.
			if size > 16 && chunks(size-1, corpus) <= n {
				t.Errorf("corpus %s: size %d already fits the budget %d: %d is not the smallest", corpus, size-1, n, size)
			}
		}
		if res.PerCorpus["long"].Chunks > want["long"] {
			t.Errorf("evaluated with %d chunks on long, budget %d", res.PerCorpus["long"].Chunks, want["long"])
		}
	}
}
