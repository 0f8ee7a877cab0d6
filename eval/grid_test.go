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

// Ranges of decimals step exactly: 0.3:0.9:0.2 is 0.3, 0.5, 0.7 and 0.9.
func TestParseAxisDecimalRange(t *testing.T) {
	a, err := ParseAxis("target=0.3:0.9:0.2")
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{0.3, 0.5, 0.7, 0.9}; !slices.Equal(a.Values, want) {
		t.Errorf("values %v, want %v", a.Values, want)
	}
	a, _ = ParseAxis("size=100:300:100")
	if want := []any{100, 200, 300}; !slices.Equal(a.Values, want) {
		t.Errorf("values %v, want %v", a.Values, want)
	}
}
