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
		scores        []float64
		want          []int
		maxTokensBack int
	}{
		{"top k", []int{4, 0, 5, 1}, 2, 0, "", 0, nil, []int{4, 0}, 20},
		{"budget", []int{4, 0, 5, 1}, 2, 30, "", 0, nil, []int{4, 0, 5}, 30},
		{"parents once", []int{4, 0, 3, 1, 5}, 3, 0, "parent", 0, nil, []int{7, 6, 5}, 70},
		{"parents in a budget", []int{4, 0, 3, 1, 5}, 0, 40, "parent", 0, nil, []int{7, 5}, 40},
		{"merge in place of the first child", []int{5, 0, 1, 2, 4}, 0, 45, "", 2, nil, []int{5, 6}, 45},
		// Without a budget, merging returns no more than k chunks of
		// the largest size among the k best.
		{"k hits hold k chunks' tokens", []int{5, 0, 4, 1, 2}, 4, 0, "", 2, nil, []int{5, 0, 4, 1}, 40},
		{"merged parent's other children left out", []int{0, 1, 2, 3}, 4, 0, "", 2, nil, []int{6}, 40},
		{"merge that does not fit is passed over", []int{0, 3, 1, 5}, 0, 30, "", 2, nil, []int{0, 3, 1}, 30},
		// Evidence: parent 6's children (1.0 and 0.1) would displace 4
		// and 5 (0.9 each), so it is not merged; parent 7's (0.9 and
		// 0.9) would displace 5 alone, so it is.
		{"merged only where the children outscore what they displace", []int{0, 3, 4, 1, 5}, 0, 50, "", 2, []float64{1, 0.9, 0.9, 0.1, 0.9}, []int{0, 7, 1}, 45},
	} {
		scores := tc.scores
		if scores == nil {
			scores = rankScores(len(tc.ids))
		}
		got := returned(tc.ids, scores, tc.k, tc.budget, tc.expand, tc.merge, parentOf, tokens)
		sum := 0
		for _, x := range got {
			sum += tokens[x]
		}
		if !slices.Equal(got, tc.want) || sum > tc.maxTokensBack {
			t.Errorf("%s: %v (%d tokens), want %v", tc.name, got, sum, tc.want)
		}
	}
}
