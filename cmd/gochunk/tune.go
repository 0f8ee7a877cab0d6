package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gochunk/gochunk/eval"
)

// parseRange parses "KEY=LO:HI:STEP" (inclusive, numeric) or
// "KEY=V1,V2,...".
func parseRange(s string) (string, []any, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return "", nil, fmt.Errorf("--param %q: want KEY=LO:HI:STEP or KEY=V1,V2,...", s)
	}
	if parts := strings.Split(v, ":"); len(parts) == 3 {
		lo, err1 := strconv.ParseFloat(parts[0], 64)
		hi, err2 := strconv.ParseFloat(parts[1], 64)
		step, err3 := strconv.ParseFloat(parts[2], 64)
		if err1 != nil || err2 != nil || err3 != nil || step <= 0 || hi < lo || (hi-lo)/step > 10000 {
			return "", nil, fmt.Errorf("--param %q: bad range", s)
		}
		var vals []any
		for x := lo; x <= hi+step*1e-9; x += step {
			if x == float64(int(x)) {
				vals = append(vals, int(x))
			} else {
				vals = append(vals, x)
			}
		}
		return k, vals, nil
	}
	return k, parseValues(v), nil
}

func metricOf(m eval.Metrics, name string) (float64, bool) {
	switch name {
	case "recall":
		return m.Recall, true
	case "precision":
		return m.Precision, true
	case "precision_omega":
		return m.PrecisionOmega, true
	case "iou":
		return m.IoU, true
	}
	return 0, false
}

func cmdTune(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk tune", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var f evalFlags
	f.register(fs)
	var params listFlag
	fs.Var(&params, "param", "`KEY=LO:HI:STEP` or KEY=V1,V2,...: a parameter's range (repeat for several)")
	objective := fs.String("objective", "iou", "metric to maximise: recall, precision, precision_omega or iou")
	minRecall := fs.Float64("min-recall", 0, "only consider configurations with at least this recall (a fraction)")
	random := fs.Int("random", 0, "evaluate this many configurations drawn at random from the grid instead of all of it")
	seed := fs.Uint64("seed", 1, "seed of --random")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: gochunk tune --dataset PATH --param KEY=RANGE [flags]

Searches a chunker's parameters over the grid of --param ranges (or a
random sample of it) and prints the configuration that maximises
--objective among those with recall at least --min-recall, as JSON ready
for --config. The table of every configuration tried goes to stderr.

Flags:
`)
		fs.PrintDefaults()
	}
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(e.stderr, "gochunk tune:", err)
		return exitCode(err)
	}
	if _, ok := metricOf(eval.Metrics{}, *objective); !ok {
		return fail(usageError{fmt.Errorf("--objective %q: want recall, precision, precision_omega or iou", *objective)})
	}
	if len(params) == 0 {
		return fail(usageError{fmt.Errorf("give at least one --param")})
	}
	var sweeps []string
	for _, p := range params {
		k, vals, err := parseRange(p)
		if err != nil {
			return fail(usageError{err})
		}
		var parts []string
		for _, v := range vals {
			b, _ := json.Marshal(v)
			parts = append(parts, string(b))
		}
		sweeps = append(sweeps, k+"="+strings.Join(parts, ","))
	}
	cands, err := f.expand(sweeps)
	if err != nil {
		return fail(err)
	}
	if *random > 0 && *random < len(cands) {
		r := rand.New(rand.NewPCG(*seed, *seed^0x5bd1e995))
		r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		cands = cands[:*random]
	}
	ctx := e.ctx
	ds, opt, err := f.setup(ctx, e)
	if err != nil {
		return fail(err)
	}
	rep, err := f.run(ctx, e, ds, opt, cands)
	if err != nil {
		return fail(err)
	}
	order := make([]int, len(rep.Configs))
	for i := range order {
		order[i] = i
	}
	score := func(i int) float64 { v, _ := metricOf(rep.Configs[i].Overall, *objective); return v }
	sort.SliceStable(order, func(a, b int) bool { return score(order[a]) > score(order[b]) })
	tw := tabwriter.NewWriter(e.stderr, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "config\trecall\tprecision\tprecision Ω\tIoU\t\n")
	best := -1
	for _, i := range order {
		o := rep.Configs[i].Overall
		mark := ""
		if o.Recall >= *minRecall && best < 0 {
			best = i
			mark = "  <- best"
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", rep.Configs[i].Name, o.Recall, o.Precision, o.PrecisionOmega, o.IoU, mark)
	}
	tw.Flush()
	if best < 0 {
		return fail(fmt.Errorf("no configuration reaches recall %.3f", *minRecall))
	}
	out := map[string]any{"chunker": cands[best].chunker, "tokenizer": cands[best].tokenizer}
	for k, v := range cands[best].params {
		out[k] = v
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return exitInput
	}
	return exitOK
}
