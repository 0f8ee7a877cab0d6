package split

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math"
	"slices"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// AdaptiveConfig configures the Adaptive chunker.
type AdaptiveConfig struct {
	Size   int     `json:"size" range:"1,1073741824" doc:"maximum chunk size, in tokens of the --tokenizer unit; no chunk is larger"`
	Target float64 `json:"target" range:"0,1" doc:"the size chunks aim at, as a fraction of size: chunks grow or shrink around it to end at paragraph breaks (0.5)"`
	// Density weighs sentence length as a sign of where the text's
	// substance is; 0 turns it off.
	Density float64 `json:"density" range:"0,10" doc:"how strongly sizes follow the text's density, read from sentence lengths: chunks of long sentences shrink, runs of short ones (headings, list items, table rows, interjections) grow; 0 turns it off (1.5)"`
	// Cohesion weighs how alike the text is across a chunk's end; 0 turns
	// it off.
	Cohesion float64 `json:"cohesion" range:"0,10" doc:"cost of ending a chunk where the text on both sides shares its words (TF-IDF cosine of half a target each side), so that chunks end where the topic shifts; 0 turns it off (0.6)"`
}

// DefaultAdaptiveConfig returns a size of 800, chunks aimed at half of it,
// a density weight of 1.5 and a cohesion weight of 0.6.
func DefaultAdaptiveConfig() AdaptiveConfig {
	return AdaptiveConfig{Size: 800, Target: 0.5, Density: 1.5, Cohesion: 0.6}
}

// The cost of ending a chunk at each kind of break, against the cost of a
// chunk's size: ((size - target) / target)².
const (
	costParagraph = 0   // a blank line
	costLine      = 0.1 // a line break
	costSentence  = 0.3 // a sentence end inside a line
	costCut       = 1   // inside a sentence longer than the size
)

// Text of many tiny sentences ("ok." lines) would make the search slow:
// it tries every start of a chunk for every end. Sentences shorter than
// 1/unitsPerTarget of the target are joined with the next ones into units
// of at least that size (a chunk may then end only between units), and
// the search puts at most maxPiecesPerChunk units in one chunk, so that
// it runs in linear time.
const (
	unitsPerTarget    = 64
	maxPiecesPerChunk = 1024
)

// Adaptive cuts text where its structure says, into chunks whose sizes
// follow it: the whole segmentation is chosen at once, by dynamic
// programming over sentence ends, to keep chunks near a target size
// (Target of Size) while ending them at paragraph breaks rather than line
// breaks, and at line breaks rather than sentence ends. A chunk may grow
// to Size, the hard maximum, to reach a paragraph break, or stop short of
// the target at one; a sentence is cut only when it is longer than Size
// (as the sentence chunker cuts it). Unlike greedy packing, which fills
// every chunk and leaves the remainder of a paragraph to the next, it
// spreads the text of a stretch between breaks evenly over its chunks.
// With a Density weight, sizes also follow the text's density, read from
// its sentence lengths: chunks are smaller over long sentences and larger
// over runs of short ones (headings, list items, table rows), where
// questions find fewer answers. With a Cohesion weight, an end costs more
// where the text on its two sides shares its words, so that chunks end
// where the topic shifts. docs/adaptive-chunking.md measures each on
// Chroma's evaluation.
type Adaptive struct {
	cfg      AdaptiveConfig
	counter  tokenize.Counter
	splitter segment.SentenceSplitter
}

// NewAdaptive returns an Adaptive chunker.
func NewAdaptive(cfg AdaptiveConfig, counter tokenize.Counter) (*Adaptive, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := (Size{Size: cfg.Size}).validate(); err != nil {
		return nil, err
	}
	if !(cfg.Target > 0 && cfg.Target <= 1) {
		return nil, fmt.Errorf("%w: adaptive: target must be a fraction of size in (0, 1], got %v", gochunk.ErrConfig, cfg.Target)
	}
	if !(cfg.Density >= 0 && cfg.Density <= 10) {
		return nil, fmt.Errorf("%w: adaptive: density must be a weight in [0, 10] (0 turns it off), got %v", gochunk.ErrConfig, cfg.Density)
	}
	if !(cfg.Cohesion >= 0 && cfg.Cohesion <= 10) {
		return nil, fmt.Errorf("%w: adaptive: cohesion must be a weight in [0, 10] (0 turns it off), got %v", gochunk.ErrConfig, cfg.Cohesion)
	}
	return &Adaptive{cfg: cfg, counter: counterOr(counter)}, nil
}

// Chunk implements gochunk.Chunker. A text over 4 GiB is refused: the
// search keeps its units' offsets in 32 bits.
func (a *Adaptive) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	if len(doc.Text) > math.MaxUint32 {
		return nil, fmt.Errorf("%w: adaptive: the text is %d bytes; it chunks at most 4 GiB at once (split the document, or use the recursive chunker)", gochunk.ErrConfig, len(doc.Text))
	}
	e, err := start(doc, a.counter, Size{Size: a.cfg.Size}, nil)
	if err != nil || doc.Text == "" {
		return nil, err
	}
	pieces, err := a.pieces(ctx, e)
	if err != nil || pieces.n == 0 {
		return nil, err
	}
	units := a.units(pieces)
	var coh *cohesionWindows
	if a.cfg.Cohesion > 0 {
		window := max(int(a.cfg.Target*float64(a.cfg.Size)/2), 1)
		if coh, err = newCohesion(ctx, e.Text, func() unitSource { u := units().plain(); return &u }, window); err != nil {
			return nil, err
		}
	}
	ranges, err := a.segment(ctx, e, units, pieces.n, coh)
	if err != nil {
		return nil, err
	}
	return e.Build(ctx, ranges, true)
}

// unit is a piece of the text the search puts into chunks: a sentence
// without its surrounding white space, a part of one over the size, or,
// after units, a run of tiny ones. Its size and the size of the white
// space after it (gap) are in the size unit. 16 bytes, where a pack.Piece
// takes 32: half a million of them at 30 MB of mixed text.
type unit struct {
	start, end, size, gap uint32
}

func (u unit) piece() pack.Piece {
	return pack.Piece{Start: int(u.start), End: int(u.end), Size: int(u.size), Gap: int(u.gap)}
}

// breakKind is the kind of break after a unit: what ending a chunk there
// costs (breakCost).
type breakKind uint8

const (
	breakParagraph breakKind = iota // a blank line
	breakLine                       // a line break
	breakSentence                   // a sentence end inside a line
	breakCut                        // inside a sentence longer than the size
	breakEnd                        // the end of the text
)

// breakCost is the cost of ending a chunk at each kind of break.
var breakCost = [...]float64{breakParagraph: costParagraph, breakLine: costLine, breakSentence: costSentence, breakCut: costCut, breakEnd: 0}

// pieceBlock is the number of pieces in a block of a pieceList.
const pieceBlock = 1 << 12

// pieceList holds pieces and the kind of break after each in blocks, so
// that it grows without copying them: a slice grown by append holds both
// copies while it grows, and a quarter more room than it needs after (the
// pieces take 17 bytes a sentence, about 8.5 MB at 30 MB of mixed text),
// and counting the sentences first to size it took a pass of the sentence
// splitter. The first block grows as a slice does, so that a short text
// takes little.
type pieceList struct {
	units [][]unit
	kinds [][]breakKind
	n     int
}

func (l *pieceList) add(u unit, kind breakKind) {
	b := l.n / pieceBlock
	if b == len(l.units) {
		c := pieceBlock
		if b == 0 {
			c = 64
		}
		l.units, l.kinds = append(l.units, make([]unit, 0, c)), append(l.kinds, make([]breakKind, 0, c))
	}
	l.units[b], l.kinds[b] = append(l.units[b], u), append(l.kinds[b], kind)
	l.n++
}

// at returns piece i.
func (l *pieceList) at(i int) *unit { return &l.units[uint(i)/pieceBlock][uint(i)%pieceBlock] }

// kind returns the kind of break after piece i.
func (l *pieceList) kind(i int) *breakKind { return &l.kinds[uint(i)/pieceBlock][uint(i)%pieceBlock] }

// pieces returns the text's sentences without their surrounding white
// space, those over the size cut into parts that fit, measured, and the
// kind of break after each.
func (a *Adaptive) pieces(ctx context.Context, e *pack.Engine) (*pieceList, error) {
	text := e.Text
	pieces := &pieceList{}
	add := func(r pack.Range, size int, kind breakKind) {
		pieces.add(unit{start: uint32(r.Start), end: uint32(r.End), size: uint32(size)}, kind)
	}
	var err error
	for s := range a.splitter.All(text) {
		if err = ctx.Err(); err != nil {
			err = fmt.Errorf("chunking cancelled: %w", err)
			break
		}
		r := pack.Trim(text, pack.Range{Start: s.Start, End: s.End})
		if r.Start >= r.End {
			continue // white space only: it is part of the gap between its neighbours
		}
		if n := e.CountUpTo(r.Start, r.End, a.cfg.Size); n <= a.cfg.Size {
			add(r, n, breakSentence)
			continue
		}
		var cut []pack.Range
		if cut, err = e.Split(ctx, r.Start, r.End, nil); err != nil {
			break
		}
		n := pieces.n
		for _, c := range cut {
			if c = pack.Trim(text, c); c.Start < c.End {
				add(c, e.Size(c), breakCut) // measured by Split when it made c
			}
		}
		if pieces.n > n {
			*pieces.kind(pieces.n - 1) = breakSentence
		}
	}
	if err != nil {
		return nil, err
	}
	for i := range pieces.n {
		p, kind := pieces.at(i), pieces.kind(i)
		if i+1 == pieces.n {
			*kind = breakEnd
			break
		}
		// Between two pieces is only white space: its size is the gap, its
		// line breaks say what kind of break it is.
		end, next := int(p.end), int(pieces.at(i+1).start)
		between := text[end:next]
		if between != "" {
			p.gap = uint32(e.Count(end, next))
		}
		if *kind == breakCut {
			continue
		}
		switch lines := strings.Count(between, "\n"); {
		case lines >= 2:
			*kind = breakParagraph
		case lines == 1:
			*kind = breakLine
		}
	}
	return pieces, nil
}

// unitizer hands out the units the search chooses chunks of, in order:
// runs of tiny pieces joined into units of at least 1/unitsPerTarget of
// the target size (never over the size), the rest as they are. A unit
// ends with the break of its last piece, and its density mass is its
// pieces' (see Adaptive.units). It reads the pieces as it goes, so that
// the units need no memory of their own: they are read three times (for
// cohesion's IDF, as its windows slide, and by the search), and the
// chunks the search chose are read again for their ranges.
type unitizer struct {
	pieces *pieceList
	least  int // 0: no joining
	limit  int
	mean   float64 // of the density's logs
	dense  bool    // with a density weight
	i      int     // the next piece
}

// units returns a function that makes a unitizer of pieces: the
// search's units of Adaptive's text. The density mass of a piece is its
// size times its density, the log of its size less the mean of those
// logs over the text (by size, so that the text's density is zero); 0
// throughout without a density weight. A chunk's density is its units'
// mass over its size, and the search rewards Density times it. That
// makes chunks smaller where density is high and larger where it is low:
// on Chroma's evaluation (docs/adaptive-chunking.md) 1 to 11 % of the
// characters of sentences under 64 characters (headings, list items,
// table rows, interjections) are inside some question's reference,
// against 21 to 49 % of those of 64 to 255. Pieces are measured before
// tiny ones are joined into units, so that a heading keeps its density.
func (a *Adaptive) units(pieces *pieceList) func() unitizer {
	z := unitizer{pieces: pieces, limit: a.cfg.Size}
	if least := int(a.cfg.Target * float64(a.cfg.Size) / unitsPerTarget); least > 1 {
		z.least = least
	}
	if a.cfg.Density != 0 {
		mean, total := 0.0, 0.0
		for _, b := range pieces.units {
			for _, p := range b {
				mean += float64(p.size) * log1pSize(p.size)
				total += float64(p.size)
			}
		}
		if total != 0 {
			z.mean, z.dense = mean/total, true
		}
	}
	return func() unitizer { return z }
}

// plain returns z without density mass: the units alone, for the
// passes that do not read it (a logarithm a piece).
func (z unitizer) plain() unitizer {
	z.dense = false
	return z
}

// mass is piece p's density mass.
func (z *unitizer) mass(p unit) float64 {
	return float64(p.size) * (log1pSize(p.size) - z.mean)
}

// log1pSmall holds math.Log1p of the sizes under its length, which most
// pieces' are: the density reads one a piece.
var log1pSmall = func() (t [1024]float64) {
	for i := range t {
		t[i] = math.Log1p(float64(i))
	}
	return
}()

// log1pSize returns math.Log1p(size).
func log1pSize(size uint32) float64 {
	if size < uint32(len(log1pSmall)) {
		return log1pSmall[size]
	}
	return math.Log1p(float64(size))
}

// nextUnit returns the next unit, the kind of break after it and its
// density mass (0 without a density weight); false after the last.
func (z *unitizer) nextUnit() (u unit, kind breakKind, mass float64, ok bool) {
	if z.i >= z.pieces.n {
		return unit{}, 0, 0, false
	}
	u, kind = *z.pieces.at(z.i), *z.pieces.kind(z.i)
	if z.dense {
		mass = z.mass(u)
	}
	for z.i++; z.i < z.pieces.n; z.i++ {
		p := *z.pieces.at(z.i)
		if size := int(u.size); size >= z.least || size+int(u.gap)+int(p.size) > z.limit {
			break
		}
		u.end, u.size, u.gap = p.end, u.size+u.gap+p.size, p.gap
		kind = *z.pieces.kind(z.i)
		if z.dense {
			mass += z.mass(p)
		}
	}
	return u, kind, mass, true
}

// next returns the next unit (a unitSource).
func (z *unitizer) next() (unit, bool) {
	u, _, _, ok := z.nextUnit()
	return u, ok
}

// bestRing holds what the search looks back at of the last
// maxPiecesPerChunk units: a power of two above it.
const bestRing = 2048

// segment chooses the chunks: the ranges of consecutive units of least
// total cost, none over the size. Sizes are the units' sizes and the
// gaps between them added up, exact for an additive counter; with another
// each chunk is counted (once, for Build too), and one over the size (a
// token merging across a boundary) is packed again greedily, exactly.
// The cost of ending a chunk after a unit is its break's, plus Cohesion
// times coh's value there when coh is set. It reads the units once, as it
// goes, keeping two bytes a unit (where the best chunk ending there
// starts); the units it looks back at, the running sums of their density
// mass and the best costs are rings. pieces bounds the number of units.
func (a *Adaptive) segment(ctx context.Context, e *pack.Engine, units func() unitizer, pieces int, coh *cohesionWindows) ([]pack.Range, error) {
	const mask = bestRing - 1
	target := max(a.cfg.Target*float64(a.cfg.Size), 1)
	var best [bestRing]float64 // best[i&mask]: the least cost of the first i units
	// ring[k&mask]: unit k's size and gap, and the density mass of units
	// 0 to k.
	var ring [bestRing]struct {
		size, gap uint32
		mass      float64
	}
	back := make([]uint16, 1, pieces+1) // the best chunk ending at i is units [i-back[i], i)
	z := units()
	dense := z.dense
	n := 0
	for i := 1; ; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chunking cancelled: %w", err)
			}
		}
		u, kind, m, ok := z.nextUnit()
		if !ok {
			break
		}
		n = i
		if i > 1 {
			m += ring[(i-2)&mask].mass
		}
		ring[(i-1)&mask].size, ring[(i-1)&mask].gap, ring[(i-1)&mask].mass = u.size, u.gap, m
		cost := breakCost[kind]
		if coh != nil && i < coh.n {
			cost += a.cfg.Cohesion * coh.next()
		}
		bestI, from := math.Inf(1), 0
		denseI := m
		size := -int(u.gap) // sizes and gaps of units [j, i), but the last gap
		for j := i - 1; j >= max(0, i-maxPiecesPerChunk); j-- {
			size += int(ring[j&mask].size) + int(ring[j&mask].gap)
			if size > a.cfg.Size && j < i-1 {
				break
			}
			d := (float64(size) - target) / target
			c := best[j&mask] + d*d + cost
			if dense && size > 0 {
				denseJ := 0.0
				if j > 0 {
					denseJ = ring[(j-1)&mask].mass
				}
				c -= a.cfg.Density * (denseI - denseJ) / float64(size)
			}
			if c < bestI {
				bestI, from = c, j
			}
		}
		best[i&mask] = bestI
		back = append(back, uint16(i-from))
	}
	// The chunks are units [j, i) for each end i, back from the last.
	var ends []int
	for i := n; i > 0; i -= int(back[i]) {
		ends = append(ends, i)
	}
	slices.Reverse(ends)
	_, runes := e.Counter.(tokenize.Runes)
	additive := tokenize.IsAdditive(e.Counter)
	out := make([]pack.Range, 0, len(ends))
	var chunk []pack.Piece
	z = units().plain()
	for _, i := range ends {
		chunk = chunk[:0]
		for range int(back[i]) {
			u, _ := z.next()
			chunk = append(chunk, u.piece())
		}
		last := chunk[len(chunk)-1]
		r := pack.Range{Start: chunk[0].Start, End: last.End}
		size := -last.Gap
		for _, p := range chunk {
			size += p.Size + p.Gap
		}
		switch {
		case runes: // Build measures runes by their offsets
		case additive:
			e.Measure(r, size)
		default:
			if size = e.Count(r.Start, r.End); size > a.cfg.Size {
				out = e.Merge(chunk, out)
				continue
			}
			e.Measure(r, size)
		}
		out = append(out, r)
	}
	return out, nil
}
