package eval

import (
	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/automerge"
	"github.com/gochunk/gochunk/record"
)

// Leveled is implemented by chunkers that make two levels (see
// pipeline.Config.Parents): Parents returns the parents of a document's
// chunks and each chunk's parent. An evaluation can then return parents
// for the chunks it retrieves (Options.Expand, Options.Merge).
type Leveled interface {
	Parents(doc gochunk.Document, chunks []gochunk.Chunk) ([]record.Parent, []int, error)
}

// returned turns a question's retrieved chunks, best first (scores gives
// the retriever's score of each), into what it gets back: the top k of
// them, or with a budget of returned tokens the best that fit in it (one
// that does not fit what is left is passed over); with expand "parent"
// each chunk's parent instead (once); with merge 2 or more, a parent in
// place of its children where automerge.Select finds it the better use of
// the budget (the same decision as gochunk search's): without a budget,
// k items and k times the largest of the k best chunks' tokens. parentOf gives each chunk's
// parent (an index of the same list, or -1) and tokens each item's size.
func returned(ids []int, scores []float64, k, budget int, expand string, merge int, parentOf, tokens []int) []int {
	if budget <= 0 && expand == "" && merge < 2 {
		return ids[:min(k, len(ids))]
	}
	if expand == "parent" {
		return returnedParents(ids, k, budget, parentOf, tokens)
	}
	cands := make([]automerge.Candidate, len(ids))
	for i, id := range ids {
		p := -1
		if id < len(parentOf) {
			p = parentOf[id]
		}
		s := 0.0
		if i < len(scores) {
			s = scores[i]
		}
		cands[i] = automerge.Candidate{Score: s, Tokens: tokens[id], Parent: p}
	}
	lim := automerge.Limits{Tokens: budget}
	if budget <= 0 {
		lim = automerge.Limits{Tokens: automerge.HitsBudget(cands, k), Count: k}
	}
	var out []int
	for _, pk := range automerge.Select(cands, tokens, lim, merge) {
		if pk.Parent >= 0 {
			out = append(out, pk.Parent)
		} else {
			out = append(out, ids[pk.Candidate])
		}
	}
	return out
}

// returnedParents returns each retrieved chunk's parent in its place
// (once; a chunk without one stands for itself), the top k or the best
// that fit in budget.
func returnedParents(ids []int, k, budget int, parentOf, tokens []int) []int {
	var out []int
	used := 0
	in := map[int]bool{}
	for _, id := range ids {
		if budget <= 0 && len(out) >= k {
			break
		}
		item := id
		if id < len(parentOf) && parentOf[id] >= 0 {
			item = parentOf[id]
		}
		if in[item] {
			continue
		}
		if budget > 0 && used+tokens[item] > budget {
			continue // does not fit what is left: a smaller one further down may
		}
		out = append(out, item)
		in[item] = true
		used += tokens[item]
	}
	return out
}
