package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

func cmdTune(e env, args []string) int {
	fs := flagSet(e, "gochunk tune", `Usage: gochunk tune --dataset PATH --param KEY=RANGE [flags]
       gochunk tune --select --dataset PATH --out FILE [flags]

Searches a chunker's parameters over the grid of --param ranges (or a
random sample of it) and prints the configuration that maximises
--objective among those with recall at least --min-recall, as JSON ready
for --config (the chunker, its parameters and the run's settings). The table of every configuration tried goes to stderr.

With --select, tries the chunker families of --families (simplest first)
at one equal budget (--return-tokens, or --budget), ranks them with the
95 % paired bootstrap interval of each one's difference from the best,
recommends the simplest family the best is not significantly better than,
and writes it to --out as a --config file for chunk, index, eval and
gochunk-beam: the chunker, its parameters and the settings it was
measured with (tokenizer, embedder, context, parents).

Flags:
`)
	var f evalFlags
	f.register(e, fs)
	var params pipelineflag.List
	fs.Var(&params, "param", "`KEY=LO:HI:STEP` or KEY=V1,V2,...: a parameter's range (repeat for several)")
	objective := fs.String("objective", "iou", "metric to maximise: recall, precision, precision_omega or iou (with --select the default is recall)")
	minRecall := fs.Float64("min-recall", 0, "only consider configurations with at least this recall (a fraction)")
	fs.IntVar(&f.random, "random", 0, "evaluate this many configurations drawn at random from the grid instead of all of it")
	seed := fs.Uint64("seed", 1, "seed of --random")
	sel := fs.Bool("select", false, "choose among chunker families (--families) at an equal budget, and write the choice to --out")
	families := fs.String("families", "token,recursive,sentence,semchunk,markdown,adaptive,semantic", "with --select: the chunkers to try, simplest first (ties go to the earlier)")
	outPath := fs.String("out", "", "with --select: write the chosen configuration to `FILE` (JSON, for --config)")
	budgetTime := fs.Duration("time", 0, "with --select: start no family after this long (e.g. 10m); those left are named, the choice is among those tried")
	htmlPath := fs.String("html", "", "also write an HTML report to `FILE`: the objective against each configuration's number of chunks, the best marked, and the charts of eval --html")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if _, ok := (eval.Metrics{}).Metric(*objective); !ok {
		return fail(e, "tune", usagef("--objective %q: want recall, precision, precision_omega or iou", *objective))
	}
	if *sel {
		obj := *objective
		set := false
		fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == "objective" })
		if !set {
			obj = "recall" // at an equal budget, what a question gets back is what counts
		}
		var deadline time.Time
		if *budgetTime > 0 {
			deadline = time.Now().Add(*budgetTime)
		}
		return tuneSelect(e, &f, *families, obj, *minRecall, *outPath, params, deadline)
	}
	if len(f.chunks) > 0 {
		return fail(e, "tune", usagef("--chunks is for eval and tune --select; tune searches gochunk's parameters"))
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
	c := cands[best]
	return writeJSON(e, f.pf.File(c.Chunker, c.Tokenizer, c.Params))
}

// tuneSelect is tune --select: the families evaluated at one budget, the
// simplest one the best is not significantly better than written out.
func tuneSelect(e env, f *evalFlags, families, objective string, minRecall float64, outPath string, params pipelineflag.List, deadline time.Time) int {
	if outPath == "" {
		return fail(e, "tune", usagef("--select needs --out FILE for the configuration chosen"))
	}
	if f.pf.IsSet("chunker") {
		return fail(e, "tune", usagef("--select tries --families; --chunker is not used with it"))
	}
	if f.budget == nil && f.returnTok == 0 {
		f.returnTok = 1000
		fmt.Fprintln(e.stderr, "gochunk tune: --select compares at an equal budget: each question gets 1000 tokens of chunks (set --return-tokens or --budget)")
	}
	f.pf.Cfg.Chunker = families
	f.deadline = deadline
	rep, cands, err := f.evaluate(e, params, "--param")
	if err != nil {
		return fail(e, "tune", err)
	}
	sel, err := eval.Select(rep, objective, minRecall)
	if err != nil {
		return fail(e, "tune", err)
	}
	sel.Write(e.stderr)
	if len(rep.NotTried) > 0 {
		fmt.Fprintf(e.stderr, "not tried within --time: %s\n", strings.Join(rep.NotTried, ", "))
	}
	// The report puts chunks imported with --chunks first; the candidates
	// are gochunk's configurations after them.
	c := cands[sel.Chosen-len(f.chunks)]
	// The whole configuration evaluated: the chunker chosen, its
	// parameters, and the settings of the run (tokenizer, embedder,
	// context, parents, …), so that --config FILE runs what was measured.
	b, err := json.MarshalIndent(f.pf.File(c.Chunker, c.Tokenizer, c.Params), "", "  ")
	if err == nil {
		err = os.WriteFile(outPath, append(b, '\n'), 0o644)
	}
	if err != nil {
		return fail(e, "tune", err)
	}
	fmt.Fprintf(e.stdout, "%s written to %s (gochunk chunk --config %s, gochunk index --config %s)\n", rep.Configs[sel.Chosen].Name, outPath, outPath, outPath)
	return exitOK
}
