package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
)

// Budget holds the number of chunks of each corpus, so that
// configurations are compared at equal budgets: for each candidate and
// each corpus, the size parameter is searched so that the candidate makes
// at most as many chunks as the budget allows (the smallest such size).
type Budget struct {
	// Counts are the budgets by corpus id; a corpus absent is not
	// constrained.
	Counts map[string]int
	// Like, when set, gives Counts: what this configuration makes on each
	// corpus.
	Like *Candidate
	// Param is the parameter searched: "size" unless set; Min and Max
	// bound it (16 and 1<<16 unless set).
	Param    string
	Min, Max int
}

// ParseBudget reads a budget: "CORPUS=N,CORPUS=N" or
// "like=CHUNKER[:KEY=VALUE,…]" (for example like=semchunk:size=800).
func ParseBudget(s string) (*Budget, error) {
	if rest, ok := strings.CutPrefix(s, "like="); ok {
		name, params, _ := strings.Cut(rest, ":")
		c := Candidate{Chunker: name, Name: rest, Params: map[string]any{}}
		for _, kv := range strings.Split(params, ",") {
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("budget %q: want like=CHUNKER:KEY=VALUE,…", s)
			}
			c.Params[k] = parseValue(v)
		}
		if k, ok := c.Params["tokenizer"].(string); ok {
			c.Tokenizer = k
			delete(c.Params, "tokenizer")
		}
		return &Budget{Like: &c}, nil
	}
	b := &Budget{Counts: map[string]int{}}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("budget %q: want CORPUS=N,… (N chunks at most) or like=CHUNKER:KEY=VALUE,…", s)
		}
		b.Counts[k] = n
	}
	return b, nil
}

// parseValue reads a parameter value as a sweep value is read: a number
// kept exact, a boolean, or a string.
func parseValue(v string) any {
	var x any
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	if dec.Decode(&x) == nil && !dec.More() {
		return x
	}
	return v
}

// counts returns the budget of each corpus, chunking with Like if set.
func (b *Budget) counts(ctx context.Context, d *Dataset, build Build) (map[string]int, error) {
	if b.Like == nil {
		return b.Counts, nil
	}
	ch, _, err := build(ctx, *b.Like)
	if err != nil {
		return nil, fmt.Errorf("budget like %s: %w", b.Like.Name, err)
	}
	out := map[string]int{}
	for _, c := range d.Corpora {
		chunks, err := ch.Chunk(ctx, gochunk.Document{ID: c.ID, Text: c.Text, Elements: c.Elements})
		if err != nil {
			return nil, fmt.Errorf("budget like %s: corpus %q: %w", b.Like.Name, c.ID, err)
		}
		out[c.ID] = len(chunks)
	}
	return out, nil
}

// fit finds, for each budgeted corpus, the smallest value of the budget's
// parameter with which the candidate makes at most the budget's chunks,
// and returns the chunker of each corpus and the values chosen.
func (b *Budget) fit(ctx context.Context, d *Dataset, c Candidate, counts map[string]int, build Build) (map[string]gochunk.Chunker, map[string]int, []string, error) {
	param, lo0, hi0 := cmpOr(b.Param, "size"), b.Min, b.Max
	if lo0 <= 0 {
		lo0 = 16
	}
	if hi0 <= 0 {
		hi0 = 1 << 16
	}
	with := func(v int) Candidate {
		c2 := c
		c2.Params = maps.Clone(c.Params)
		if c2.Params == nil {
			c2.Params = map[string]any{}
		}
		c2.Params[param] = v
		return c2
	}
	chunkers, values := map[string]gochunk.Chunker{}, map[string]int{}
	var warnings []string
	for _, corpus := range d.Corpora {
		budget, ok := counts[corpus.ID]
		if !ok {
			continue
		}
		count := func(v int) (gochunk.Chunker, int, error) {
			ch, _, err := build(ctx, with(v))
			if err != nil {
				return nil, 0, err
			}
			chunks, err := ch.Chunk(ctx, gochunk.Document{ID: corpus.ID, Text: corpus.Text, Elements: corpus.Elements})
			return ch, len(chunks), err
		}
		lo, hi := lo0, hi0
		best, _, err := count(hi)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("budget: corpus %q: %w", corpus.ID, err)
		}
		for lo < hi { // the chunk count falls as the size grows
			mid := lo + (hi-lo)/2
			ch, n, err := count(mid)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("budget: corpus %q, %s %d: %w", corpus.ID, param, mid, err)
			}
			if n <= budget {
				hi, best = mid, ch
			} else {
				lo = mid + 1
			}
		}
		if _, n, _ := count(hi); n > budget {
			warnings = append(warnings, fmt.Sprintf("corpus %q: %d chunks even at %s %d, over its budget of %d", corpus.ID, n, param, hi, budget))
		}
		chunkers[corpus.ID], values[corpus.ID] = best, hi
	}
	return chunkers, values, warnings, nil
}
