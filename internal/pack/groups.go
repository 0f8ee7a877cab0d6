package pack

import (
	"context"
	"sort"
	"strings"

	"github.com/gochunk/gochunk"
)

// PackGroups turns groups of items into chunks of at most Limit tokens,
// for the clustering chunkers whose chunks gather items that need not be
// next to each other. items are in text order, each with its Size in
// tokens; a group lists item indexes (PackGroups sorts it). A group's
// items are taken in order while the sum of their sizes plus one token per
// boundary fits, then the chunk is measured exactly and shrunk while over
// the limit. Items next to each other share a span; spans are trimmed and
// their texts joined by a newline. An item alone over the limit once
// trimmed is cut with Split. Chunks come out in order of their first span,
// indexed, with the item indexes each holds.
func (e *Engine) PackGroups(ctx context.Context, items []Piece, groups [][]int) ([]gochunk.Chunk, [][]int, error) {
	conv := e.converter()
	type packed struct {
		chunk gochunk.Chunk
		ids   []int
	}
	var out []packed
	var spans []gochunk.Span
	var parts []string
	build := func(ids []int) gochunk.Chunk {
		spans, parts = nil, parts[:0]
		for k := 0; k < len(ids); {
			j := k
			for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
				j++
			}
			r := Trim(e.Text, Range{Start: items[ids[k]].Start, End: items[ids[j]].End})
			if r.End > r.Start {
				spans = append(spans, gochunk.Span{Start: r.Start, End: r.End, StartRune: conv.Rune(r.Start), EndRune: conv.Rune(r.End)})
				parts = append(parts, e.Text[r.Start:r.End])
			}
			k = j + 1
		}
		text := strings.Join(parts, "\n")
		return gochunk.Chunk{Text: text, Spans: spans, TokenCount: e.Counter.Count(text)}
	}
	for gi, g := range groups {
		if gi%1024 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		sort.Ints(g)
		for start := 0; start < len(g); {
			end, est := start+1, items[g[start]].Size
			for end < len(g) && est+items[g[end]].Size+1 <= e.Limit {
				est += items[g[end]].Size + 1
				end++
			}
			c, end := e.fitGroup(g, start, end, items, build)
			if e.KeepWithNext != nil && end < len(g) {
				// Leave the items that head what follows them for the next
				// chunk, unless they are all this chunk holds.
				k := end
				for k-1 > start && e.KeepWithNext(g[k-1]) && g[k] == g[k-1]+1 {
					k--
				}
				if k < end {
					c, end = build(g[start:k]), k
				}
			}
			ids := g[start:end]
			start = end
			switch {
			case len(c.Spans) == 0:
			case c.TokenCount <= e.Limit:
				out = append(out, packed{c, ids})
			default: // one item that counts more once trimmed
				sub, err := e.Split(ctx, c.Spans[0].Start, c.Spans[0].End, nil)
				if err != nil {
					return nil, nil, err
				}
				for _, r := range sub {
					if r = Trim(e.Text, r); r.End > r.Start {
						t := e.Text[r.Start:r.End]
						s := gochunk.Span{Start: r.Start, End: r.End, StartRune: conv.Rune(r.Start), EndRune: conv.Rune(r.End)}
						out = append(out, packed{gochunk.Chunk{Text: t, TokenCount: e.Counter.Count(t), Spans: []gochunk.Span{s}}, ids})
					}
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].chunk.Spans[0].Start < out[j].chunk.Spans[0].Start })
	chunks, ids := make([]gochunk.Chunk, len(out)), make([][]int, len(out))
	for i, p := range out {
		chunks[i], ids[i] = p.chunk, p.ids
		chunks[i].Index = i
	}
	return chunks, ids, nil
}

// fitGroup returns the chunk of the most items of g from start, at most to
// end (the estimate), whose text fits the limit, and its end; one item
// when none more fits. The estimate counts the items' sizes, not what lies
// between them (white space, lines of indentation): when that could push
// the text over the limit, or when the whole text is over it, the count
// gallops from the first item and then bisects, so that the texts
// measured stay near the size of the chunk that fits and a chunk costs a
// logarithmic number of counts, not one per item taken back.
func (e *Engine) fitGroup(g []int, start, end int, items []Piece, build func([]int) gochunk.Chunk) (gochunk.Chunk, int) {
	est, gaps := 0, 0
	for k := start; k < end; k++ {
		est += items[g[k]].Size + 1
		if k > start && g[k] == g[k-1]+1 {
			gaps += items[g[k]].Start - items[g[k-1]].End
		}
	}
	hi := end
	if est+gaps <= e.Limit || end-start == 1 {
		c := build(g[start:end])
		if end-start == 1 || c.TokenCount <= e.Limit {
			return c, end
		}
		hi = end - 1
	}
	fit, fitEnd := build(g[start:start+1]), start+1
	for step := 1; fitEnd+step <= hi; step *= 2 {
		c := build(g[start : fitEnd+step])
		if c.TokenCount > e.Limit {
			hi = fitEnd + step - 1
			break
		}
		fit, fitEnd = c, fitEnd+step
	}
	for lo := fitEnd + 1; lo <= hi; {
		mid := (lo + hi) / 2
		if c := build(g[start:mid]); c.TokenCount <= e.Limit {
			fit, fitEnd, lo = c, mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return fit, fitEnd
}
