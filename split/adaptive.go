package split

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// AdaptiveConfig configures the Adaptive chunker.
type AdaptiveConfig struct {
	Size
	MinFraction float64 `json:"min_fraction" doc:"the densest text's chunks are at most this fraction of the size (0.25)"`
	Window      int     `json:"window" doc:"sentences on each side whose density is averaged with a sentence's own (2)"`
}

// DefaultAdaptiveConfig returns a size of 800, chunks down to a quarter of
// it over the densest text, densities averaged over 2 sentences each side.
func DefaultAdaptiveConfig() AdaptiveConfig {
	return AdaptiveConfig{Size: Size{Size: 800}, MinFraction: 0.25, Window: 2}
}

// Adaptive chunks text into whole sentences, with chunk sizes that follow
// the text's information density: where sentences are dense with facts
// (numbers, names, words the document uses once or twice) chunks are
// small, down to MinFraction of Size; over repetitive or boilerplate text
// they grow to Size, the hard maximum. A sentence's density is the share
// of its words that are numbers, capitalised words inside a sentence, or
// rare in the document, averaged with its Window neighbours on each side;
// its rank among the document's sentences puts it in one of three classes,
// whose target sizes are MinFraction of Size, halfway, and Size. Sentences
// are packed greedily while the chunk stays under the mean target of its
// sentences (and, exactly, under Size). A sentence over the size is cut as
// the sentence chunker cuts it.
type Adaptive struct {
	cfg      AdaptiveConfig
	counter  tokenize.Counter
	splitter segment.SentenceSplitter
}

// NewAdaptive returns an Adaptive chunker.
func NewAdaptive(cfg AdaptiveConfig, counter tokenize.Counter) (*Adaptive, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Overlap != 0 {
		return nil, fmt.Errorf("%w: adaptive: overlap is not supported", gochunk.ErrConfig)
	}
	if cfg.MinFraction <= 0 || cfg.MinFraction > 1 {
		return nil, fmt.Errorf("%w: adaptive: min_fraction must be in (0, 1], got %v", gochunk.ErrConfig, cfg.MinFraction)
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("%w: adaptive: window must be at least 0, got %d", gochunk.ErrConfig, cfg.Window)
	}
	return &Adaptive{cfg: cfg, counter: counterOr(counter)}, nil
}

// Chunk implements gochunk.Chunker.
func (a *Adaptive) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	e, err := start(doc, a.counter, a.cfg.Size, nil)
	if err != nil || doc.Text == "" {
		return nil, err
	}
	// Sentences, oversized ones cut into parts that fit.
	parts := *e
	var pieces []pack.Piece
	for _, r := range a.splitter.Split(doc.Text) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("chunking cancelled: %w", err)
		}
		t := pack.Trim(doc.Text, pack.Range{Start: r.Start, End: r.End})
		if t.Start >= t.End {
			continue
		}
		n := e.Count(r.Start, r.End)
		if n <= a.cfg.Size.Size {
			pieces = append(pieces, pack.Piece{Start: r.Start, End: r.End, Size: n})
			continue
		}
		cut, err := parts.Split(ctx, r.Start, r.End, nil)
		if err != nil {
			return nil, err
		}
		for _, c := range cut {
			pieces = append(pieces, pack.Piece{Start: c.Start, End: c.End, Size: e.Count(c.Start, c.End)})
		}
	}
	if len(pieces) == 0 {
		return nil, nil
	}
	for i := range pieces[:len(pieces)-1] {
		if pieces[i+1].Start > pieces[i].End {
			pieces[i].Gap = e.Count(pieces[i].End, pieces[i+1].Start)
		}
	}
	class := a.classes(doc.Text, pieces)
	limits := [3]float64{
		float64(a.cfg.Size.Size) * a.cfg.MinFraction,
		float64(a.cfg.Size.Size) * (1 + a.cfg.MinFraction) / 2,
		float64(a.cfg.Size.Size),
	}
	// Greedy packing against a moving target: the mean of the targets of
	// the chunk's sentences so far; the size is the hard limit, checked
	// exactly.
	var ranges []pack.Range
	for i := 0; i < len(pieces); {
		total, sum, n := pieces[i].Size, limits[class[i]], 1.0
		j := i
		for j+1 < len(pieces) {
			add := pieces[j].Gap + pieces[j+1].Size
			target := (sum + limits[class[j+1]]) / (n + 1)
			if float64(total+add) > target || e.Count(pieces[i].Start, pieces[j+1].End) > a.cfg.Size.Size {
				break
			}
			total, sum, n = total+add, sum+limits[class[j+1]], n+1
			j++
		}
		ranges = append(ranges, pack.Range{Start: pieces[i].Start, End: pieces[j].End})
		i = j + 1
	}
	return e.Build(ctx, ranges, true)
}

// classes sorts the pieces into three density classes: 0 the densest
// third, 2 the sparsest.
func (a *Adaptive) classes(text string, pieces []pack.Piece) []int {
	freq := map[string]int{}
	words := make([][]string, len(pieces))
	for i, p := range pieces {
		words[i] = strings.FieldsFunc(text[p.Start:p.End], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		for _, w := range words[i] {
			freq[strings.ToLower(w)]++
		}
	}
	raw := make([]float64, len(pieces))
	for i, ws := range words {
		dense := 0
		for k, w := range ws {
			r := []rune(w)
			switch {
			case unicode.IsDigit(r[0]):
				dense++
			case k > 0 && unicode.IsUpper(r[0]):
				dense++
			case freq[strings.ToLower(w)] <= 2 && len(r) > 3:
				dense++
			}
		}
		raw[i] = float64(dense) / float64(max(1, len(ws)))
	}
	smooth := make([]float64, len(raw))
	for i := range raw {
		lo, hi := max(0, i-a.cfg.Window), min(len(raw), i+a.cfg.Window+1)
		s := 0.0
		for _, v := range raw[lo:hi] {
			s += v
		}
		smooth[i] = s / float64(hi-lo)
	}
	order := make([]int, len(smooth))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return smooth[order[x]] > smooth[order[y]] })
	class := make([]int, len(smooth))
	for rank, i := range order {
		class[i] = min(2, 3*rank/len(order))
	}
	return class
}
