package eval

import (
	"slices"
	"testing"
)

// Candidates are named by their chunker and what varies between them:
// the axes, the parameters their configuration files set differently,
// then size and overlap.
func TestGridNames(t *testing.T) {
	bases := []Candidate{
		{Chunker: "adaptive", Params: map[string]any{"size": 800, "target": 0.35}},
		{Chunker: "adaptive", Params: map[string]any{"size": 800, "target": 0.5}},
		{Chunker: "semchunk", Params: map[string]any{"size": 800}},
	}
	var names []string
	for _, c := range Grid(bases, []Axis{{Key: "overlap", Values: []any{0, 10}}}) {
		names = append(names, c.Name)
	}
	want := []string{
		"adaptive overlap=0 target=0.35 size=800", "adaptive overlap=10 target=0.35 size=800",
		"adaptive overlap=0 target=0.5 size=800", "adaptive overlap=10 target=0.5 size=800",
		"semchunk overlap=0 size=800", "semchunk overlap=10 size=800",
	}
	if !slices.Equal(names, want) {
		t.Errorf("names\n got %q\nwant %q", names, want)
	}
	one := Grid([]Candidate{{Chunker: "recursive", Params: map[string]any{"size": 400, "separators": []string{"\n"}}}}, nil)
	if len(one) != 1 || one[0].Name != "recursive size=400" {
		t.Errorf("one candidate: %+v", one)
	}
}
