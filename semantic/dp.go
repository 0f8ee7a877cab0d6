package semantic

import (
	"context"
	"fmt"
	"github.com/gochunk/gochunk/internal/params"
	"math"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/signal"
	"github.com/gochunk/gochunk/tokenize"
)

// DPConfig configures the DP chunker. Its JSON names are those of the
// reference server's chunking_config, with size as the hard maximum.
type DPConfig struct {
	Size         int     `json:"size" range:"1,1073741824" doc:"max_size: the hard maximum chunk size in tokens of the --tokenizer unit; segments over it are never considered"`
	OptimalSize  int     `json:"optimal_size" range:"0,1073741824" doc:"target chunk size: no size penalty up to it (0 means min(470, size))"`
	LambdaSize   float64 `json:"lambda_size" range:"0,1000000" doc:"size penalty at max_size, growing linearly from optimal_size"`
	ChunkPenalty float64 `json:"chunk_penalty" range:"0,1000000" doc:"constant penalty per chunk, against over-splitting"`
	Similarity   string  `json:"similarity" doc:"what the reward compares at each gap: blocks (block_size sentences each side, at the gaps where a topic may end) or sentences (each sentence with the next, the reference server's)"`
	BlockSize    int     `json:"block_size" range:"0,4096" doc:"sentences on each side of a gap with similarity=blocks"`
	Reward       string  `json:"reward" doc:"how similarities become rewards: zscore (standardised: a gap below the mean costs the chunk that spans it) or minmax (scaled to [0, 1], the reference server's)"`
	Sentences
}

// DefaultDPConfig returns the reference server's sizes and size penalty
// (max_size 512, optimal_size 470, lambda_size 5.0) with rewards that find
// topics: standardised block similarities at the gaps where a topic may
// end, and a chunk penalty of 0.5, so that a gap half a standard deviation
// below the mean pays for a new chunk, the cut-off of Hearst's TextTiling
// that the breakpoint chunker uses too.
func DefaultDPConfig() DPConfig {
	return DPConfig{Size: 512, LambdaSize: 5.0, ChunkPenalty: 0.5, Similarity: "blocks", BlockSize: 6, Reward: "zscore",
		Sentences: Sentences{Structure: StructureAuto, MinSize: DefaultMinSize}}
}

// ReferenceDPConfig returns the reference server's algorithm and
// defaults: min-max normalised similarities of neighbouring sentences,
// max_size 512, optimal_size 470, lambda_size 5.0, chunk_penalty 1.0.
func ReferenceDPConfig() DPConfig {
	return DPConfig{Size: 512, LambdaSize: 5.0, ChunkPenalty: 1.0, Similarity: "sentences", BlockSize: 6, Reward: "minmax",
		Sentences: Sentences{Structure: StructureNone}}
}

// Validate checks the configuration as the reference server does for a
// document's chunking_config.
func (c DPConfig) Validate() error {
	switch {
	case c.Size <= 0:
		return fmt.Errorf("%w: max_size must be positive, got %d", gochunk.ErrConfig, c.Size)
	case c.OptimalSize < 0:
		return fmt.Errorf("%w: optimal_size must not be negative, got %d", gochunk.ErrConfig, c.OptimalSize)
	case c.OptimalSize > c.Size:
		return fmt.Errorf("%w: optimal_size (%d) must not exceed max_size (%d)", gochunk.ErrConfig, c.OptimalSize, c.Size)
	case c.LambdaSize < 0 || math.IsNaN(c.LambdaSize) || math.IsInf(c.LambdaSize, 0):
		return fmt.Errorf("%w: lambda_size must be a non-negative number", gochunk.ErrConfig)
	case c.ChunkPenalty < 0 || math.IsNaN(c.ChunkPenalty) || math.IsInf(c.ChunkPenalty, 0):
		return fmt.Errorf("%w: chunk_penalty must be a non-negative number", gochunk.ErrConfig)
	case c.Similarity != "" && c.Similarity != "blocks" && c.Similarity != "sentences":
		return fmt.Errorf("%w: similarity %q: want blocks or sentences", gochunk.ErrConfig, c.Similarity)
	case c.Reward != "" && c.Reward != "zscore" && c.Reward != "minmax":
		return fmt.Errorf("%w: reward %q: want zscore or minmax", gochunk.ErrConfig, c.Reward)
	case c.Similarity == "blocks" && c.BlockSize <= 0:
		return fmt.Errorf("%w: block_size must be positive, got %d", gochunk.ErrConfig, c.BlockSize)
	}
	return nil
}

// DP is the dynamic-programming segmentation of the reference Go
// semantic-chunking server: sentences (long ones cut greedily to max_size)
// are embedded once, the cosine similarities of neighbours are min-max
// normalised to [0, 1], and the segmentation maximising
//
//	Σ over chunks [i, j) of  reward(i, j) − sizePenalty(i, j) − chunk_penalty
//
// is found with dp[j] = max over i of dp[i] + reward(i, j) − ..., where
// reward is the sum of the normalised similarities of the adjacent pairs in
// the chunk (O(1) from prefix sums) and sizePenalty is 0 up to optimal_size,
// rises linearly to lambda_size at max_size, and forbids larger chunks.
// Only segments within max_size are tried, so the cost is O(n · window).
// Each chunk's metadata holds num_sentences.
type DP struct {
	base
	cfg DPConfig
}

// NewDP returns a DP chunker; a nil embedder means the built-in lexical one.
func NewDP(cfg DPConfig, counter tokenize.Counter, e gochunk.Embedder) (*DP, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if cfg.OptimalSize == 0 {
		cfg.OptimalSize = min(470, cfg.Size)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b, err := newBase("dp", cfg.Size, cfg.Sentences, counter, e)
	if err != nil {
		return nil, err
	}
	return &DP{base: b, cfg: cfg}, nil
}

// Chunk implements gochunk.Chunker.
func (c *DP) Chunk(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, error) {
	chunks, _, err := c.chunk(ctx, d, false)
	return chunks, err
}

// ChunkTrace implements gochunk.Tracer: the curve is the normalised
// similarity after each sentence.
func (c *DP) ChunkTrace(ctx context.Context, d gochunk.Document) ([]gochunk.Chunk, *gochunk.Trace, error) {
	return c.chunk(ctx, d, true)
}

// chunk is Chunk, and with tracing ChunkTrace.
func (c *DP) chunk(ctx context.Context, d gochunk.Document, tracing bool) ([]gochunk.Chunk, *gochunk.Trace, error) {
	p, err := c.prepare(ctx, d)
	if err != nil || len(p.units) == 0 {
		return nil, nil, err
	}
	tr := p.trace(tracing)
	var sim []float64
	if c.cfg.Similarity == "blocks" {
		var err error
		if sim, err = p.gapSims(ctx, c.cfg.BlockSize); err != nil {
			return nil, nil, err
		}
		if tracing {
			tr.CurveName, tr.Curve = "block similarity", append([]float64(nil), sim...)
		}
	} else {
		vs, err := p.embed(ctx, p.embedder(), p.unitTexts())
		if err != nil {
			return nil, nil, err
		}
		sim = cosines(vs)
	}
	levels := p.levels()
	cands := p.candidates(p.b.structure, levels)
	c.rewards(sim, cands)
	if tracing && tr.Curve == nil {
		tr.CurveName, tr.Curve = "normalised similarity", sim
	}
	tokens := make([]int, len(p.units))
	for i, u := range p.units {
		tokens[i] = u.Size + u.Gap
	}
	starts, err := c.segment(ctx, sim, tokens)
	if err != nil {
		return nil, nil, gochunk.WrapDocument(d.ID, err)
	}
	tr.Breakpoints = starts
	chunks, err := p.build(ctx, starts)
	return chunks, tr, err
}

// noCut is the reward of a gap where no topic may end (Structure): the DP
// cuts there only when the size limit leaves no other choice.
const noCut = 1e6

// rewards turns the similarities at the gaps into the DP's rewards, in
// place: min-max normalised, or standardised over the gaps in cands; gaps
// not in cands get noCut.
func (c *DP) rewards(sim []float64, cands []int) {
	if c.cfg.Reward == "minmax" {
		signal.MinMax(sim)
	} else {
		vals := make([]float64, len(cands))
		for k, g := range cands {
			vals[k] = sim[g]
		}
		m, sd := signal.MeanStd(vals)
		for i := range sim {
			if sd > 0 {
				sim[i] = (sim[i] - m) / sd
			} else {
				sim[i] = 0
			}
		}
	}
	if len(cands) < len(sim) {
		ok := make([]bool, len(sim))
		for _, g := range cands {
			ok[g] = true
		}
		for i := range sim {
			if !ok[i] {
				sim[i] = noCut
			}
		}
	}
}

// segment runs the DP over n sentences with adjacent similarities sim
// (n-1 values) and token counts; it returns the chunk starts.
func (c *DP) segment(ctx context.Context, sim []float64, tokens []int) ([]int, error) {
	n := len(tokens)
	prefSim := make([]float64, n+1) // prefSim[k] = sim[0] + ... + sim[k-1]
	for k := 1; k < n; k++ {
		prefSim[k] = prefSim[k-1] + sim[k-1]
	}
	prefSim[n] = prefSim[max(n-1, 0)]
	prefTok := make([]int, n+1)
	for k, t := range tokens {
		prefTok[k+1] = prefTok[k] + t
	}
	dp := make([]float64, n+1)
	from := make([]int, n+1)
	for j := 1; j <= n; j++ {
		if j%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dp[j] = math.Inf(-1)
		for i := j - 1; i >= 0; i-- {
			tok := prefTok[j] - prefTok[i]
			if tok > c.cfg.Size && i < j-1 {
				break // longer segments only grow
			}
			reward := 0.0
			if j-1 > i {
				reward = prefSim[j-1] - prefSim[i]
			}
			score := dp[i] + reward - c.sizePenalty(tok) - c.cfg.ChunkPenalty
			if score > dp[j] {
				dp[j], from[j] = score, i
			}
		}
	}
	var starts []int
	for j := n; j > 0; j = from[j] {
		starts = append(starts, from[j])
	}
	for l, r := 0, len(starts)-1; l < r; l, r = l+1, r-1 {
		starts[l], starts[r] = starts[r], starts[l]
	}
	return starts, nil
}

// sizePenalty is the hinge penalty of a chunk of tok tokens. A single
// sentence is always allowed (it fits by construction).
func (c *DP) sizePenalty(tok int) float64 {
	if tok <= c.cfg.OptimalSize {
		return 0
	}
	if tok > c.cfg.Size || c.cfg.Size == c.cfg.OptimalSize {
		return c.cfg.LambdaSize
	}
	return c.cfg.LambdaSize * float64(tok-c.cfg.OptimalSize) / float64(c.cfg.Size-c.cfg.OptimalSize)
}
