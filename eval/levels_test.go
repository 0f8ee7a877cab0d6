package eval

import (
	"slices"
	"testing"
)

func TestReturned(t *testing.T) {
	// Chunks 0-5 (10 tokens each); parents 6 (of 0, 1, 2: 35 tokens) and
	// 7 (of 3, 4: 25 tokens); chunk 5 has none.
	parentOf := []int{6, 6, 6, 7, 7, -1}
	tokens := []int{10, 10, 10, 10, 10, 10, 35, 25}
	for _, tc := range []struct {
		name          string
		ids           []int
		k, budget     int
		expand        string
		merge         int
		want          []int
		maxTokensBack int
	}{
		{"top k", []int{4, 0, 5, 1}, 2, 0, "", 0, []int{4, 0}, 20},
		{"budget", []int{4, 0, 5, 1}, 2, 30, "", 0, []int{4, 0, 5}, 30},
		{"parents once", []int{4, 0, 3, 1, 5}, 3, 0, "parent", 0, []int{7, 6, 5}, 70},
		{"parents in a budget", []int{4, 0, 3, 1, 5}, 0, 40, "parent", 0, []int{7, 5}, 40},
		{"merge in place of the first child", []int{5, 0, 4, 1, 2}, 4, 0, "", 2, []int{5, 6, 4}, 55},
		{"merged parent's other children left out", []int{0, 1, 2, 3}, 2, 0, "", 2, []int{6, 3}, 45},
		{"merge that does not fit is passed over", []int{0, 3, 1, 5}, 0, 30, "", 2, []int{0, 3, 5}, 30},
	} {
		got := returned(tc.ids, tc.k, tc.budget, tc.expand, tc.merge, parentOf, tokens)
		sum := 0
		for _, x := range got {
			sum += tokens[x]
		}
		if !slices.Equal(got, tc.want) || sum > tc.maxTokensBack {
			t.Errorf("%s: %v (%d tokens), want %v", tc.name, got, sum, tc.want)
		}
	}
}
