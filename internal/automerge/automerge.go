// Package automerge decides which parents replace their children among a
// search's hits (auto-merging), within a budget of returned tokens. It is
// the one decision that gochunk search, POST /v1/search (package index)
// and gochunk eval (package eval) apply.
//
// LlamaIndex's AutoMergingRetriever replaces a parent's retrieved children
// by the parent when they are more than a ratio of its children. That
// looks at the parent alone: it ignores what the parent's extra text
// pushes out of what a question gets back. Here both plans, with the
// parent and without, are filled from the same ranked candidates within
// the same budget, and a parent replaces its children only when its
// evidence (the scores of its children among the candidates) is above
// that of the candidates its extra tokens displace: on code, where an
// answer spans a function's neighbouring chunks, the children agree and
// the parent is taken; on prose, where an answer is a sentence or two, a
// parent found by a few of its children would push out candidates that
// score as well, and is not.
package automerge

// Candidate is one retrieved chunk, in the order of the ranking (best
// first).
type Candidate struct {
	// Score is the retriever's score (higher is better; BM25, cosine
	// similarity or a fused reciprocal-rank score), the candidate's
	// evidence; below 0 it counts as 0. Only scores of one ranking are
	// compared with each other.
	Score float64
	// Tokens is the chunk's size in the unit of the budget.
	Tokens int
	// Parent is the index of the chunk's parent in the parents' list, or
	// -1 when it has none.
	Parent int
}

// evidence is the candidate's score, or 0 for a negative one.
func (c Candidate) evidence() float64 { return max(c.Score, 0) }

// Limits bound what is returned: at most Tokens tokens (0: no bound) and
// at most Count items (0: no bound). A search's K hits are both: Count K,
// and Tokens K times the largest of the K best candidates (see
// HitsBudget), so that merged parents return about what K hits of the
// chunks' size would.
type Limits struct {
	Tokens int
	Count  int
}

// HitsBudget returns the budget of a search that asks for k hits: k
// times the largest of the k best candidates.
func HitsBudget(cands []Candidate, k int) int {
	n := 0
	for _, c := range cands[:min(k, len(cands))] {
		n = max(n, c.Tokens)
	}
	return k * n
}

// Pick is one returned item: a candidate (Parent -1), or a parent in the
// place of its best candidate child (Candidate), standing for Children.
type Pick struct {
	Candidate int
	Parent    int
	// Children are the candidates a parent stands for, in rank order
	// (those its plan would otherwise have returned and those further
	// down); nil for a chunk.
	Children []int
}

// Select returns what a ranking gives back within lim, best first: the
// candidates that fit (one that does not fit what is left is passed over,
// a smaller one further down may), with a parent in place of its children
// where that is the better use of the budget. parentTokens gives each
// parent's size; merge (2 or more) is the fewest children that must be
// among the picks before their parent is considered, and below 2 nothing
// is merged.
//
// A parent is considered, in the order of its best child, when merge of
// its children are picked. The plan with it puts the parent in the place
// of its first child, leaves its other children out and fills the rest
// from the ranking; the parent must fit where its first child stands. It
// is taken when the scores of all its children among the candidates add
// up to more than the scores of the candidates that plan no longer
// returns (its children aside), less those of any it returns in their
// stead. So a parent whose children are a few of many, or whose extra
// text would push out candidates that score as well as its children, is
// not taken; one most of whose text the ranking found is.
func Select(cands []Candidate, parentTokens []int, lim Limits, merge int) []Pick {
	base := fill(cands, parentTokens, lim, nil)
	if merge < 2 {
		return base.picks
	}
	worth := make([]float64, len(parentTokens))
	for _, c := range cands {
		if c.Parent >= 0 && c.Parent < len(worth) {
			worth[c.Parent] += c.evidence()
		}
	}
	merged := map[int]bool{}
	tried := map[int]bool{}
	for i := 0; i < len(cands); i++ {
		p := cands[i].Parent
		if p < 0 || p >= len(parentTokens) || tried[p] {
			continue
		}
		n := 0
		for _, pk := range base.picks {
			if pk.Parent < 0 && cands[pk.Candidate].Parent == p {
				n++
			}
		}
		if n < merge {
			continue
		}
		tried[p] = true
		merged[p] = true
		alt := fill(cands, parentTokens, lim, merged)
		if alt.ok && worth[p] > displaced(cands, base, alt, p) {
			base = alt
			continue
		}
		delete(merged, p)
	}
	return base.picks
}

// plan is what fill returns: the picks, and whether every parent asked
// for found its place.
type plan struct {
	picks []Pick
	ok    bool
}

// displaced returns the scores of the chunks that plan base returns and
// alt, with parent p merged, does not (p's children aside), less those of
// the chunks that alt returns and base does not.
func displaced(cands []Candidate, base, alt plan, p int) float64 {
	in := func(pl plan) map[int]bool {
		m := map[int]bool{}
		for _, pk := range pl.picks {
			if pk.Parent < 0 {
				m[pk.Candidate] = true
			}
		}
		return m
	}
	inBase, inAlt := in(base), in(alt)
	d := 0.0
	for i := range inBase {
		if !inAlt[i] && cands[i].Parent != p {
			d += cands[i].evidence()
		}
	}
	for i := range inAlt {
		if !inBase[i] {
			d -= cands[i].evidence()
		}
	}
	return d
}

// fill walks the ranking and picks what fits, each parent in merged in
// the place of its first candidate child.
func fill(cands []Candidate, parentTokens []int, lim Limits, merged map[int]bool) plan {
	pl := plan{ok: true}
	used := 0
	at := map[int]int{} // where a merged parent stands among the picks
	for i, c := range cands {
		if lim.Count > 0 && len(pl.picks) >= lim.Count {
			// Full: a merged parent's children further down still count
			// as its evidence, in its Children.
			if p := c.Parent; merged[p] && p >= 0 {
				if k, ok := at[p]; ok {
					pl.picks[k].Children = append(pl.picks[k].Children, i)
				}
			}
			continue
		}
		p := c.Parent
		if p >= 0 && merged[p] {
			if k, ok := at[p]; ok {
				pl.picks[k].Children = append(pl.picks[k].Children, i)
				continue
			}
			t := parentTokens[p]
			if lim.Tokens > 0 && used+t > lim.Tokens {
				pl.ok = false // the parent does not fit where its first child stands
				continue
			}
			at[p] = len(pl.picks)
			pl.picks = append(pl.picks, Pick{Candidate: i, Parent: p, Children: []int{i}})
			used += t
			continue
		}
		if lim.Tokens > 0 && used+c.Tokens > lim.Tokens {
			continue
		}
		pl.picks = append(pl.picks, Pick{Candidate: i, Parent: -1})
		used += c.Tokens
	}
	for p := range merged {
		if _, ok := at[p]; !ok {
			pl.ok = false
		}
	}
	return pl
}
