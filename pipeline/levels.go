package pipeline

import (
	"context"
	"fmt"
	"sort"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/tokenize"
)

// sectionLevel is the deepest heading that parents never cross: a title
// or a level-1 or level-2 heading starts a new parent.
const sectionLevel = 2

// groupParents groups a document's chunks into parents of at most size
// tokens (counter), sections first: a parent is a run of consecutive
// chunks (in order of their start) that crosses no heading of level
// sectionLevel or above, and is the span from its first chunk's start to
// its last chunk's end, counted whole. A chunk larger than size alone is
// its own parent. It returns the parents and each chunk's parent.
func groupParents(ctx context.Context, doc gochunk.Document, chunks []gochunk.Chunk, counter tokenize.Counter, size int) ([]record.Parent, []int, error) {
	order := make([]int, 0, len(chunks))
	for i, c := range chunks {
		if len(c.Spans) > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return chunks[order[a]].Spans[0].Start < chunks[order[b]].Spans[0].Start })
	var bounds []int // offsets where a section starts
	var heads []heading
	if len(doc.Elements) > 0 {
		heads = elementHeadings(doc.Elements)
	} else {
		heads = textHeadings(doc.Text)
	}
	for _, h := range heads {
		if h.level <= sectionLevel {
			bounds = append(bounds, h.at)
		}
	}
	of := make([]int, len(chunks))
	for i := range of {
		of[i] = -1
	}
	// Sizes through the pack engine, as the chunkers measure: an
	// additive counter's parent grows by the count of what is added, any
	// other's is counted whole, but never past size.
	eng := &pack.Engine{Text: doc.Text, Counter: counter, Limit: size}
	eng.Init()
	additive := tokenize.IsAdditive(counter)
	var parents []record.Parent
	var cur record.Parent
	open := false
	nextBound := 0
	closeParent := func() {
		if open {
			parents = append(parents, cur)
			open = false
		}
	}
	for n, i := range order {
		if n%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("parents cancelled: %w", err)
			}
		}
		sp := chunks[i].Spans
		first, last := sp[0], sp[len(sp)-1]
		// A section starts between the parent's start and this chunk's.
		crosses := false
		for nextBound < len(bounds) && bounds[nextBound] <= first.Start {
			crosses = crosses || open && bounds[nextBound] > cur.Start
			nextBound++
		}
		if open && !crosses {
			end, endRune := cur.End, cur.EndRune
			if last.End > end {
				end, endRune = last.End, last.EndRune
			}
			var tokens int
			if additive {
				tokens = cur.TokenCount + eng.Count(cur.End, end)
			} else {
				tokens = eng.CountUpTo(cur.Start, end, size)
			}
			if tokens <= size {
				cur.End, cur.EndRune, cur.TokenCount = end, endRune, tokens
				of[i] = cur.Index
				continue
			}
		}
		closeParent()
		cur = record.Parent{Index: len(parents), Start: first.Start, StartRune: first.StartRune, End: last.End, EndRune: last.EndRune,
			TokenCount: eng.Count(first.Start, last.End)}
		open = true
		of[i] = cur.Index
	}
	closeParent()
	return parents, of, nil
}

// Section returns the span of text's section around offset at: from the
// last heading at or before at (markdown or MediaWiki, as the headings
// context reads them) to the next heading of the same or a higher level,
// or the whole text when no heading comes before at.
func Section(text string, at int) (start, end int) {
	heads := textHeadings(text)
	k := sort.Search(len(heads), func(i int) bool { return heads[i].at > at }) - 1
	if k < 0 {
		end = len(text)
		if len(heads) > 0 {
			end = heads[0].at
		}
		return 0, end
	}
	start, end = heads[k].at, len(text)
	for _, h := range heads[k+1:] {
		if h.level <= heads[k].level {
			end = h.at
			break
		}
	}
	return start, end
}
