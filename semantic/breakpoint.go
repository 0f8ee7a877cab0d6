package semantic

import (
	"context"
	"fmt"

	"gochunk"
	"gochunk/internal/signal"
	"gochunk/tokenize"
)

// BreakpointConfig configures the Breakpoint chunker.
type BreakpointConfig struct {
	Size         int     `json:"size" doc:"maximum chunk size in tokens of the --tokenizer unit (a hard limit)"`
	BufferSize   int     `json:"buffer_size" doc:"sentences on each side joined to a sentence before embedding it, for context"`
	Threshold    string  `json:"threshold_type" doc:"breakpoint rule: percentile, stddev, iqr, gradient or absolute"`
	Amount       float64 `json:"threshold_amount" doc:"the rule's parameter: a percentile (0-100) for percentile and gradient, a number of standard deviations for stddev, an IQR multiple for iqr, a cosine distance for absolute; 0 means the rule's default (95, 3, 1.5, 95, 0.5)"`
	NumberChunks int     `json:"number_of_chunks" doc:"aim at this many chunks instead (the percentile is interpolated from it, as LangChain does); 0 to use threshold_type"`
	MinChunkSize int     `json:"min_chunk_size" doc:"a breakpoint that would leave a chunk under this many tokens is skipped"`
	Sentences
}

// DefaultBreakpointConfig returns a size of 512, a buffer of 1, the 95th
// percentile rule, as LangChain's SemanticChunker.
func DefaultBreakpointConfig() BreakpointConfig {
	return BreakpointConfig{Size: 512, BufferSize: 1, Threshold: "percentile"}
}

var defaultAmounts = map[string]float64{"percentile": 95, "stddev": 3, "iqr": 1.5, "gradient": 95, "absolute": 0.5}

// Breakpoint is the breakpoint chunker of Greg Kamradt's "5 levels of text
// splitting", LangChain's SemanticChunker and the article's first method:
// each sentence is embedded with BufferSize neighbours on each side, the
// cosine distance between consecutive buffered sentences is computed, and
// a chunk ends after every sentence whose distance to the next is above a
// threshold: a percentile of the distances, the mean plus some standard
// deviations, the mean plus a multiple of the interquartile range, a
// percentile of the distances' gradient, or an absolute distance.
type Breakpoint struct {
	base
	cfg BreakpointConfig
}

// NewBreakpoint returns a Breakpoint chunker; a nil embedder means the
// built-in lexical one.
func NewBreakpoint(cfg BreakpointConfig, counter tokenize.Counter, e gochunk.Embedder) (*Breakpoint, error) {
	b, err := newBase("semantic", cfg.Size, cfg.Sentences, counter, e)
	if err != nil {
		return nil, err
	}
	if _, ok := defaultAmounts[cfg.Threshold]; !ok {
		return nil, fmt.Errorf("%w: threshold_type %q: want percentile, stddev, iqr, gradient or absolute", gochunk.ErrConfig, cfg.Threshold)
	}
	if cfg.Amount == 0 {
		cfg.Amount = defaultAmounts[cfg.Threshold]
	}
	if (cfg.Threshold == "percentile" || cfg.Threshold == "gradient") && (cfg.Amount < 0 || cfg.Amount > 100) {
		return nil, fmt.Errorf("%w: threshold_amount %v: a percentile is between 0 and 100", gochunk.ErrConfig, cfg.Amount)
	}
	if cfg.BufferSize < 0 || cfg.NumberChunks < 0 || cfg.MinChunkSize < 0 {
		return nil, fmt.Errorf("%w: buffer_size, number_of_chunks and min_chunk_size must not be negative", gochunk.ErrConfig)
	}
	return &Breakpoint{base: b, cfg: cfg}, nil
}

// Chunk implements gochunk.Chunker.
func (c *Breakpoint) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.ChunkTrace(ctx, d)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer: the curve is the cosine distance
// after each sentence.
func (c *Breakpoint) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	p, err := c.prepare(ctx, d)
	if err != nil || len(p.units) == 0 {
		return nil, nil, err
	}
	tr := p.trace()
	n := len(p.units)
	if n < 2 {
		tr.Breakpoints = []int{0}
		chunks, err := p.build(ctx, tr.Breakpoints)
		return chunks, tr, err
	}
	texts := p.windows(c.cfg.BufferSize)
	vs, err := p.embed(ctx, p.embedder(), texts)
	if err != nil {
		return nil, nil, err
	}
	dist := cosines(vs)
	for i := range dist {
		dist[i] = 1 - dist[i]
	}
	tr.CurveName, tr.Curve = "cosine distance", dist
	values, thr := c.threshold(dist)
	tr.Threshold = &thr
	if c.cfg.Threshold == "gradient" && c.cfg.NumberChunks == 0 {
		tr.Smoothed = values
	}
	var endsAfter []int
	last := 0 // start of the current chunk
	for i, v := range values {
		if v <= thr {
			continue
		}
		if c.cfg.MinChunkSize > 0 && p.engine.Count(p.units[last].Start, p.units[i].End) < c.cfg.MinChunkSize {
			continue
		}
		endsAfter = append(endsAfter, i)
		last = i + 1
	}
	tr.Breakpoints = startsFrom(endsAfter, n)
	chunks, err := p.build(ctx, tr.Breakpoints)
	return chunks, tr, err
}

// threshold returns the values compared with the threshold (the distances,
// or their gradient) and the threshold.
func (c *Breakpoint) threshold(dist []float64) ([]float64, float64) {
	if c.cfg.NumberChunks > 0 {
		// LangChain: interpolate the percentile linearly between 100 (one
		// chunk) and 0 (a chunk per sentence).
		x1, x2 := float64(len(dist)), 1.0
		x := max(min(float64(c.cfg.NumberChunks), x1), x2)
		y := 0.0
		if x1 != x2 {
			y = 0 + (100-0)/(x2-x1)*(x-x1)
		}
		return dist, signal.Percentile(dist, max(0, min(100, y)))
	}
	a := c.cfg.Amount
	switch c.cfg.Threshold {
	case "stddev":
		m, s := signal.MeanStd(dist)
		return dist, m + a*s
	case "iqr":
		m, _ := signal.MeanStd(dist)
		return dist, m + a*(signal.Percentile(dist, 75)-signal.Percentile(dist, 25))
	case "gradient":
		g := signal.Gradient(dist)
		return g, signal.Percentile(g, a)
	case "absolute":
		return dist, a
	}
	return dist, signal.Percentile(dist, a)
}
