package index

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk/internal/automerge"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// Expand says what a search returns for its hits besides their chunks:
// small chunks are matched, larger spans of their documents returned,
// with exact offsets (LlamaIndex's auto-merging and sentence-window
// retrieval, Docling's expansion to the section).
type Expand struct {
	// Mode is none (the default), parent (the chunk's parent, from an
	// index made with parents), section (from the heading above the chunk
	// to the next of its level) or window (Window chunks on each side).
	Mode   string
	Window int
	// Merge, when 2 or more, lets a parent replace its children among the
	// hits (auto-merging), in the place of the best of them, when Merge or
	// more of them are hits and the parent is the better use of the
	// budget: when its children's combined score is above that of the
	// hits its extra text would displace (see package automerge, whose
	// decision gochunk eval applies too).
	Merge int
	// Budget is the tokens the hits may return in all when merging; 0
	// means K times the largest of the K best chunks, so that merged
	// parents return about what K hits of the chunks' size would.
	Budget int
}

// mergeDepth is how many candidates a merging search ranks, at least: a
// merged parent frees places that further candidates may fill.
const mergeDepth = 50

// merge lets parents replace their children among hits (ranked best
// first; the search asked for k) as automerge.Select decides, and returns
// the hits kept, at most k.
func (s *Searcher) merge(hits []store.Hit, k int, x Expand, span func(id string, start, end int) (string, error)) ([]store.Hit, error) {
	type parentKey struct {
		doc   string
		index int
	}
	ids := map[parentKey]int{}
	var parentTokens []int
	var parents []*store.Hit // a child of each parent, for its span
	cands := make([]automerge.Candidate, len(hits))
	for i := range hits {
		h := &hits[i]
		cands[i] = automerge.Candidate{Score: h.Score, Tokens: h.TokenCount, Parent: -1}
		if h.Parent == nil {
			continue
		}
		key := parentKey{h.Source, h.Parent.Index}
		id, ok := ids[key]
		if !ok {
			id = len(parentTokens)
			ids[key] = id
			parentTokens = append(parentTokens, h.Parent.TokenCount)
			parents = append(parents, h)
		}
		cands[i].Parent = id
	}
	lim := automerge.Limits{Tokens: x.Budget, Count: k}
	if lim.Tokens <= 0 {
		lim.Tokens = automerge.HitsBudget(cands, k)
	}
	var out []store.Hit
	for _, pk := range automerge.Select(cands, parentTokens, lim, x.Merge) {
		h := hits[pk.Candidate]
		if pk.Parent >= 0 {
			p := parents[pk.Parent].Parent
			t, err := span(h.Source, p.Start, p.End)
			if err != nil {
				return nil, err
			}
			e := &store.Expansion{Kind: "merged", Start: p.Start, End: p.End, StartRune: p.StartRune, EndRune: p.EndRune, Text: t}
			for _, c := range pk.Children {
				e.Chunks = append(e.Chunks, hits[c].ChunkIndex)
			}
			h.Expanded = e
		}
		out = append(out, h)
	}
	return out, nil
}

// ParseExpand reads none, parent, section or window:N.
func ParseExpand(s string) (Expand, error) {
	switch s {
	case "", "none", "parent", "section":
		return Expand{Mode: strings.TrimPrefix(s, "none")}, nil
	}
	if n, ok := strings.CutPrefix(s, "window:"); ok {
		w, err := strconv.Atoi(n)
		if err == nil && w >= 1 && w <= 1000 {
			return Expand{Mode: "window", Window: w}, nil
		}
	}
	return Expand{}, fmt.Errorf("expand %q: want none, parent, section or window:N (N from 1 to 1000)", s)
}

// sectionReach is how far before and after a hit expand section looks
// for its section's headings: a section longer than that is cut there.
const sectionReach = 64 << 10

// ErrNoText is returned by an expanding search on a store that keeps no
// document texts, ErrNoParent by one asking for the parents of chunks
// indexed without.
var (
	ErrNoText   = errors.New("the store keeps no document texts to expand hits with: index with --parents (which keeps them)")
	ErrNoParent = errors.New("the store's chunks have no parents: index with --parents to expand to parents")
)

// expand applies x to hits, best first, of which a search asked for k
// (more are candidates for auto-merging).
func (s *Searcher) expand(ctx context.Context, hits []store.Hit, k int, x Expand) ([]store.Hit, error) {
	if x.Mode == "" && x.Merge < 2 {
		return hits, nil
	}
	// span reads bytes [start, end) of a document's stored text, and
	// checks that it is all there.
	span := func(id string, start, end int) (string, error) {
		t, kept, err := s.st.DocumentText(ctx, id, start, end)
		if err != nil {
			return "", err
		}
		if !kept {
			return "", ErrNoText
		}
		if len(t) != end-start {
			return "", fmt.Errorf("the stored text of %s is shorter than its chunks' offsets: re-index it", id)
		}
		return t, nil
	}
	if x.Merge >= 2 {
		var err error
		if hits, err = s.merge(hits, k, x, span); err != nil {
			return nil, err
		}
	}
	if x.Mode == "" {
		return hits, nil
	}
	type spanKey struct {
		doc        string
		start, end int
	}
	seen := map[spanKey]bool{}
	var out []store.Hit
	for _, h := range hits {
		if h.Expanded != nil {
			seen[spanKey{h.Source, h.Expanded.Start, h.Expanded.End}] = true
			out = append(out, h)
			continue
		}
		e := store.Expansion{Kind: x.Mode, Chunks: []int{h.ChunkIndex}}
		switch x.Mode {
		case "parent":
			if h.Parent == nil {
				return nil, fmt.Errorf("chunk %d of %s: %w", h.ChunkIndex, h.Source, ErrNoParent)
			}
			e.Start, e.End, e.StartRune, e.EndRune = h.Parent.Start, h.Parent.End, h.Parent.StartRune, h.Parent.EndRune
		case "window":
			spans, err := s.st.Offsets(ctx, h.Source, h.ChunkIndex-x.Window, h.ChunkIndex+x.Window)
			if err != nil {
				return nil, err
			}
			e.Start, e.End, e.StartRune, e.EndRune = h.Start, h.End, h.StartRune, h.EndRune
			for _, sp := range spans {
				if sp.Start < e.Start {
					e.Start, e.StartRune = sp.Start, sp.StartRune
				}
				if sp.End > e.End {
					e.End, e.EndRune = sp.End, sp.EndRune
				}
			}
		case "section":
			// The section is looked for within sectionReach bytes on each
			// side of the hit, not in the whole document.
			from := max(h.Start-sectionReach, 0)
			t, kept, err := s.st.DocumentText(ctx, h.Source, from, h.End+sectionReach)
			if err != nil {
				return nil, err
			}
			if !kept {
				return nil, ErrNoText
			}
			if len(t) < h.End-from {
				return nil, fmt.Errorf("the stored text of %s is shorter than its chunks' offsets: re-index it", h.Source)
			}
			skip := 0 // a window cut inside a character starts after it
			for skip < len(t) && from+skip < h.Start && !utf8.RuneStart(t[skip]) {
				skip++
			}
			a, b := pipeline.Section(t[skip:], h.Start-from-skip)
			a, b = min(a+skip, h.Start-from), max(b+skip, h.End-from)
			for b < len(t) && !utf8.RuneStart(t[b]) {
				b--
			}
			e.Start, e.End = from+a, from+b
			e.StartRune = h.StartRune - utf8.RuneCountInString(t[a:h.Start-from])
			e.EndRune = h.EndRune + utf8.RuneCountInString(t[h.End-from:b])
		}
		key := spanKey{h.Source, e.Start, e.End}
		if seen[key] {
			continue // a better hit returns this span already
		}
		seen[key] = true
		var err error
		if e.Text, err = span(h.Source, e.Start, e.End); err != nil {
			return nil, err
		}
		h.Expanded = &e
		out = append(out, h)
	}
	return out, nil
}
