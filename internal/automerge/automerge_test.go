package automerge

import (
	"reflect"
	"testing"
)

// picks writes Select's picks as candidate indexes, a parent as -1-p.
func picks(ps []Pick) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Candidate
		if p.Parent >= 0 {
			out[i] = -1 - p.Parent
		}
	}
	return out
}

func TestSelect(t *testing.T) {
	c := func(score float64, tokens, parent int) Candidate { return Candidate{score, tokens, parent} }
	for _, tc := range []struct {
		name    string
		cands   []Candidate
		parents []int
		lim     Limits
		merge   int
		want    []int
	}{
		{
			// Prose: the answer is one chunk; two chunks of a parent of
			// six are among the picks, but the four it would push out
			// score more than its children together.
			name:    "a parent found by two of six children does not displace better candidates",
			cands:   []Candidate{c(10, 100, 0), c(9, 100, 1), c(8, 100, 2), c(7.5, 100, 3), c(7, 100, 0), c(6.5, 100, 4), c(6, 100, 5), c(5, 100, 6)},
			parents: []int{600, 600, 600, 600, 600, 600, 600},
			lim:     Limits{Tokens: 700},
			merge:   2,
			want:    []int{0, 1, 2, 3, 4, 5, 6},
		},
		{
			// Code: most of a parent's children are found, and what it
			// displaces scores little.
			name:    "a parent most of whose children are found replaces them",
			cands:   []Candidate{c(10, 100, 0), c(9, 100, 0), c(8, 100, 0), c(3, 100, 1), c(2.5, 100, 2), c(2, 100, 3), c(1.5, 100, 4), c(1, 100, 0)},
			parents: []int{500, 300, 300, 300, 300},
			lim:     Limits{Tokens: 700},
			merge:   2,
			want:    []int{-1, 3, 4},
		},
		{
			name:    "fewer children than merge: no parent",
			cands:   []Candidate{c(10, 100, 0), c(9, 100, 1), c(1, 100, 2)},
			parents: []int{150, 150, 150},
			lim:     Limits{Tokens: 300},
			merge:   2,
			want:    []int{0, 1, 2},
		},
		{
			name:    "merge below 2 merges nothing",
			cands:   []Candidate{c(10, 100, 0), c(9, 100, 0)},
			parents: []int{200},
			lim:     Limits{Tokens: 300},
			merge:   0,
			want:    []int{0, 1},
		},
		{
			name:    "a parent that does not fit where its first child stands is not taken",
			cands:   []Candidate{c(10, 100, 0), c(9, 100, 0), c(1, 100, -1)},
			parents: []int{400},
			lim:     Limits{Tokens: 300},
			merge:   2,
			want:    []int{0, 1, 2},
		},
		{
			name:  "a candidate that does not fit is passed over for a smaller one",
			cands: []Candidate{c(10, 100, -1), c(9, 250, -1), c(8, 50, -1)},
			lim:   Limits{Tokens: 200},
			want:  []int{0, 2},
		},
		{
			// K hits: the budget is K chunks of the largest size among
			// the K best and the count is K; the parent frees a place
			// that the next candidate fills.
			name:    "a search's k hits",
			cands:   []Candidate{c(10, 100, 0), c(9, 100, 0), c(8, 100, -1), c(1, 50, -1), c(0.5, 50, -1)},
			parents: []int{200},
			lim:     Limits{Tokens: 300, Count: 3},
			merge:   2,
			want:    []int{-1, 2},
		},
	} {
		got := picks(Select(tc.cands, tc.parents, tc.lim, tc.merge))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A merged parent stands for all its children among the candidates, in
// rank order, and is worth their scores: the children further down count
// as evidence.
func TestSelectChildren(t *testing.T) {
	cands := []Candidate{{5, 100, 0}, {4, 100, 1}, {3.5, 100, 0}, {3, 100, 2}, {1, 100, 0}, {0.5, 100, 0}}
	got := Select(cands, []int{300, 100, 100}, Limits{Tokens: 400}, 2)
	if len(got) != 2 || got[0].Parent != 0 || !reflect.DeepEqual(got[0].Children, []int{0, 2, 4, 5}) || got[1].Candidate != 1 {
		t.Errorf("%+v", got)
	}
	// With a count, the children further down than the picks fill count
	// as the parent's too.
	cands = []Candidate{{5, 100, 0}, {4, 100, 0}, {3, 100, 1}, {1, 100, 0}}
	got = Select(cands, []int{300, 100}, Limits{Tokens: 400, Count: 2}, 2)
	if len(got) != 2 || got[0].Parent != 0 || !reflect.DeepEqual(got[0].Children, []int{0, 1, 3}) || got[1].Candidate != 2 {
		t.Errorf("with a count: %+v", got)
	}
}

func TestHitsBudget(t *testing.T) {
	cands := []Candidate{{1, 10, -1}, {1, 30, -1}, {1, 20, -1}, {1, 90, -1}}
	if n := HitsBudget(cands, 3); n != 90 {
		t.Errorf("HitsBudget 3: %d", n)
	}
	if n := HitsBudget(cands, 5); n != 450 {
		t.Errorf("HitsBudget 5: %d", n)
	}
}
