package eval

import (
	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/record"
)

// Leveled is implemented by chunkers that make two levels (see
// pipeline.Config.Parents): Parents returns the parents of a document's
// chunks and each chunk's parent. An evaluation can then return parents
// for the chunks it retrieves (Options.Expand, Options.Merge).
type Leveled interface {
	Parents(doc gochunk.Document, chunks []gochunk.Chunk) ([]record.Parent, []int, error)
}

// returned turns a question's retrieved chunks, best first, into what it
// gets back: the top k of them, or with a budget of returned tokens the
// best that fit in it (one that does not fit what is left is passed over); with expand "parent" each chunk's parent instead
// (once); with merge 2 or more, a parent in place of merge or more of its
// children, where the first of them stood (auto-merging). parentOf gives
// each chunk's parent (an index of the same list, or -1) and tokens each
// item's size.
func returned(ids []int, k, budget int, expand string, merge int, parentOf, tokens []int) []int {
	if budget <= 0 && expand == "" && merge < 2 {
		return ids[:min(k, len(ids))]
	}
	var out []int
	used := 0
	in := map[int]bool{}     // items in out
	count := map[int]int{}   // children of a parent in out
	merged := map[int]bool{} // parents merged in
	full := func() bool { return budget <= 0 && len(out) >= k }
	for _, id := range ids {
		if full() {
			break
		}
		p := -1
		if id < len(parentOf) {
			p = parentOf[id]
		}
		if p >= 0 && merged[p] {
			continue // its parent is returned already
		}
		item := id
		if expand == "parent" && p >= 0 {
			item = p
		}
		if in[item] {
			continue
		}
		next, nextUsed := append(append([]int(nil), out...), item), used+tokens[item]
		if merge >= 2 && expand != "parent" && p >= 0 {
			if count[p]+1 >= merge {
				// The parent takes the place of the first of its children.
				var kept []int
				nextUsed = 0
				placed := false
				for _, x := range next {
					if x != item && (x >= len(parentOf) || parentOf[x] != p) {
						kept = append(kept, x)
						nextUsed += tokens[x]
					} else if !placed {
						kept = append(kept, p)
						nextUsed += tokens[p]
						placed = true
					}
				}
				next = kept
			}
		}
		if budget > 0 && nextUsed > budget {
			continue // does not fit what is left: a smaller one further down may
		}
		out, used = next, nextUsed
		in = map[int]bool{}
		for _, x := range out {
			in[x] = true
		}
		if p >= 0 && item == id {
			count[p]++
			if merge >= 2 && count[p] >= merge {
				merged[p] = true
			}
		}
	}
	return out
}
