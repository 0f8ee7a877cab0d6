package index

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/store"
)

// A merging search returns about what its K hits of the chunks' size
// would: a parent larger than that does not replace two of its children
// among two hits (counting alone merged it), it does among six, and it
// does among two when Expand.Budget leaves room for it.
func TestMergeWithinBudget(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("# Zoo\n\n")
	for _, tp := range []string{"lion", "zebra", "otter"} {
		fmt.Fprintf(&sb, "## %s\n\n%s\n\n%s\n\n", tp, paragraph(tp, 6), paragraph("keeper feeds the "+tp, 3))
	}
	write(t, dir, "zoo.md", sb.String())
	search := indexParents(t, sqliteStore(t), dir, 120, 700)
	run := func(k int, x Expand) (hits []store.Hit, merged int, tokens int) {
		t.Helper()
		hits, err := search.SearchExpand(ctx, store.Query{Text: "zebra", K: k, Mode: store.Keyword}, x)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Expanded != nil && h.Expanded.Kind == "merged" {
				merged++
				tokens += h.Parent.TokenCount
			} else {
				tokens += h.TokenCount
			}
		}
		return hits, merged, tokens
	}
	plain, _, _ := run(2, Expand{})
	largest := max(plain[0].TokenCount, plain[1].TokenCount)
	if plain[0].Parent == nil || plain[0].Parent.TokenCount <= 2*largest {
		t.Fatalf("the test needs a parent larger than two hits: %+v", plain[0].Parent)
	}
	if hits, merged, tokens := run(2, Expand{Merge: 2}); merged != 0 || len(hits) != 2 || tokens > 2*largest {
		t.Errorf("k 2, merge 2: %d hits, %d merged, %d tokens; want the two chunks (a parent of %d tokens does not fit %d)",
			len(hits), merged, tokens, plain[0].Parent.TokenCount, 2*largest)
	}
	if hits, merged, _ := run(6, Expand{Merge: 2}); merged != 1 || len(hits) >= 6 {
		t.Errorf("k 6, merge 2: %d hits, %d merged; want the zebra section's parent in place of its children", len(hits), merged)
	}
	if _, merged, tokens := run(2, Expand{Merge: 2, Budget: 2000}); merged != 1 || tokens > 2000 {
		t.Errorf("k 2, merge 2, budget 2000: %d merged, %d tokens; want the parent", merged, tokens)
	}
}
