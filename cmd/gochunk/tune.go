package main

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

func cmdTune(e env, args []string) int {
	fs := flagSet(e, "gochunk tune", `Usage: gochunk tune --dataset PATH --param KEY=RANGE [flags]

Searches a chunker's parameters over the grid of --param ranges (or a
random sample of it) and prints the configuration that maximises
--objective among those with recall at least --min-recall, as JSON ready
for --config. The table of every configuration tried goes to stderr.

Flags:
`)
	var f evalFlags
	f.register(e, fs)
	var params pipelineflag.List
	fs.Var(&params, "param", "`KEY=LO:HI:STEP` or KEY=V1,V2,...: a parameter's range (repeat for several)")
	objective := fs.String("objective", "iou", "metric to maximise: recall, precision, precision_omega or iou")
	minRecall := fs.Float64("min-recall", 0, "only consider configurations with at least this recall (a fraction)")
	fs.IntVar(&f.random, "random", 0, "evaluate this many configurations drawn at random from the grid instead of all of it")
	seed := fs.Uint64("seed", 1, "seed of --random")
	htmlPath := fs.String("html", "", "also write an HTML report to `FILE`: the objective against each configuration's number of chunks, the best marked, and the charts of eval --html")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if _, ok := (eval.Metrics{}).Metric(*objective); !ok {
		return fail(e, "tune", usagef("--objective %q: want recall, precision, precision_omega or iou", *objective))
	}
	if len(params) == 0 {
		return fail(e, "tune", usagef("give at least one --param"))
	}
	r := rand.New(rand.NewPCG(*seed, *seed^0x5bd1e995))
	f.shuffle = func(c []eval.Candidate) { r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] }) }
	rep, cands, err := f.evaluate(e, params, "--param")
	if err != nil {
		return fail(e, "tune", err)
	}
	best, order := rep.Best(*objective, *minRecall)
	rep.WriteRanking(e.stderr, order, best)
	if *htmlPath != "" {
		if err := writeReport(*htmlPath, func(w io.Writer) error {
			return rep.WriteHTMLOptions(w, eval.HTMLOptions{Objective: *objective, Best: best})
		}); err != nil {
			return fail(e, "tune", err)
		}
	}
	if best < 0 {
		return fail(e, "tune", fmt.Errorf("no configuration reaches recall %.3f", *minRecall))
	}
	out := map[string]any{"chunker": cands[best].Chunker, "tokenizer": cands[best].Tokenizer}
	for k, v := range cands[best].Params {
		out[k] = v
	}
	return writeJSON(e, out)
}
