package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gochunk/gochunk"
)

// Candidate is one chunker configuration of a comparison or a parameter
// search.
type Candidate struct {
	// Name labels the candidate in reports: the chunker and the values
	// that differ between candidates.
	Name      string
	Chunker   string
	Tokenizer string
	// Params are the chunker's parameters; numbers may be json.Number, so
	// they keep their exact value.
	Params map[string]any
}

// Axis is a parameter to vary and its values. The keys "chunker" and
// "tokenizer" vary those instead of a parameter.
type Axis struct {
	Key    string
	Values []any
}

// ParseAxis parses "KEY=V1,V2,..." (values are JSON numbers or booleans
// where they parse as such, strings otherwise) or "KEY=LO:HI:STEP", an
// inclusive numeric range.
func ParseAxis(s string) (Axis, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return Axis{}, fmt.Errorf("%q: want KEY=V1,V2,... or KEY=LO:HI:STEP", s)
	}
	if parts := strings.Split(v, ":"); len(parts) == 3 {
		var r [3]float64
		for i, p := range parts {
			x, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return Axis{}, fmt.Errorf("%q: %q is not a number", s, p)
			}
			r[i] = x
		}
		lo, hi, step := r[0], r[1], r[2]
		if step <= 0 || hi < lo || (hi-lo)/step > 10000 {
			return Axis{}, fmt.Errorf("%q: want LO ≤ HI and a positive STEP giving at most 10000 values", s)
		}
		a := Axis{Key: k}
		for i := 0; lo+float64(i)*step <= hi+step*1e-9; i++ {
			// lo + i·step, rounded to 12 significant digits: 0.3 + 3×0.2
			// is 0.9, not 0.8999999999999999.
			x, _ := strconv.ParseFloat(strconv.FormatFloat(lo+float64(i)*step, 'g', 12, 64), 64)
			if x == float64(int(x)) {
				a.Values = append(a.Values, int(x))
			} else {
				a.Values = append(a.Values, x)
			}
		}
		return a, nil
	}
	a := Axis{Key: k}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		dec := json.NewDecoder(strings.NewReader(part))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil || dec.More() {
			x = part
		}
		a.Values = append(a.Values, x)
	}
	return a, nil
}

// ParseAxes parses every spec with ParseAxis.
func ParseAxes(specs []string) ([]Axis, error) {
	var axes []Axis
	for _, s := range specs {
		a, err := ParseAxis(s)
		if err != nil {
			return nil, err
		}
		axes = append(axes, a)
	}
	return axes, nil
}

// Grid returns every base candidate combined with every combination of
// the axes' values (their cartesian product), each named by its chunker
// and the values that vary between candidates, then size and overlap.
func Grid(bases []Candidate, axes []Axis) []Candidate {
	varying := map[string]bool{}
	if len(bases) > 1 {
		varying["chunker"] = true
	}
	// A parameter the bases (configuration files) set differently names
	// them too.
	for _, b := range bases {
		for k, v := range b.Params {
			for _, o := range bases {
				if w, ok := o.Params[k]; !ok || fmt.Sprint(w) != fmt.Sprint(v) {
					varying[k] = true
				}
			}
		}
	}
	combos := []map[string]any{{}}
	for _, a := range axes {
		varying[a.Key] = true
		var next []map[string]any
		for _, c := range combos {
			for _, v := range a.Values {
				m := maps.Clone(c)
				m[a.Key] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	var out []Candidate
	for _, b := range bases {
		for _, combo := range combos {
			c := b
			c.Params = maps.Clone(b.Params)
			if c.Params == nil {
				c.Params = map[string]any{}
			}
			for k, v := range combo {
				switch k {
				case "chunker":
					c.Chunker = fmt.Sprint(v)
				case "tokenizer":
					c.Tokenizer = fmt.Sprint(v)
				default:
					c.Params[k] = v
				}
			}
			out = append(out, c)
		}
	}
	keys := slices.Sorted(maps.Keys(varying))
	for _, extra := range []string{"size", "overlap"} {
		if !varying[extra] {
			keys = append(keys, extra)
		}
	}
	for i := range out {
		out[i].Name = out[i].label(keys)
	}
	return out
}

func (c Candidate) label(keys []string) string {
	parts := []string{c.Chunker}
	for _, k := range keys {
		switch k {
		case "chunker":
		case "tokenizer":
			parts = append(parts, "tokenizer="+c.Tokenizer)
		default:
			if v, ok := c.Params[k]; ok {
				b, _ := json.Marshal(v)
				parts = append(parts, k+"="+strings.Trim(string(b), `"`))
			}
		}
	}
	return strings.Join(parts, " ")
}

// Metric returns the overall metric named recall, precision,
// precision_omega or iou.
func (m Metrics) Metric(name string) (float64, bool) {
	switch name {
	case "recall":
		return m.Recall, true
	case "precision":
		return m.Precision, true
	case "precision_omega":
		return m.PrecisionOmega, true
	case "iou":
		return m.IoU, true
	case "hit_rate":
		return m.HitRate, true
	}
	return 0, false
}

// Best returns the index of the configuration of r with the highest
// objective metric among those whose recall is at least minRecall, and
// the indexes of all configurations from best to worst; best is -1 when
// none reaches minRecall.
func (r *Report) Best(objective string, minRecall float64) (best int, order []int) {
	order = make([]int, len(r.Configs))
	for i := range order {
		order[i] = i
	}
	score := func(i int) float64 { v, _ := r.Configs[i].Overall.Metric(objective); return v }
	sort.SliceStable(order, func(a, b int) bool { return score(order[a]) > score(order[b]) })
	for _, i := range order {
		if r.Configs[i].Overall.Recall >= minRecall {
			return i, order
		}
	}
	return -1, order
}

// Build makes the chunker of a candidate and names its size unit.
type Build func(ctx context.Context, c Candidate) (chunker gochunk.Chunker, tokenizer string, err error)

// Compare evaluates every candidate on d, building each with build, and
// returns the report. opt.Progress, when set, hears the questions scored
// over all candidates.
func Compare(ctx context.Context, d *Dataset, cands []Candidate, build Build, opt Options) (*Report, error) {
	if opt.K <= 0 {
		opt.K = 5
	}
	rep := &Report{Dataset: d.Name, Questions: len(d.Questions), Skipped: d.Skipped, K: opt.K}
	var budget map[string]int
	if opt.Budget != nil {
		var err error
		if budget, err = opt.Budget.counts(ctx, d, build); err != nil {
			return nil, err
		}
		rep.Budget = budget
	}
	progress := opt.Progress
	ownDone := false // one configuration of gochunk's (not imported) evaluated
	for i, c := range cands {
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) && ownDone {
			for _, left := range cands[i:] {
				rep.NotTried = append(rep.NotTried, left.Name)
			}
			break
		}
		ch, tok, err := build(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		o := opt
		if progress != nil {
			o.Progress = func(done, total int) { progress(i*total+done, len(cands)*total) }
		}
		cfg := Config{Name: c.Name, Chunker: ch, ChunkerName: c.Chunker, Tokenizer: tok, Params: c.Params}
		var sizes map[string]int
		var warnings []string
		im, imported := ch.(*Imported)
		if budget != nil && !imported { // imported chunks are as they were made
			if cfg.ByCorpus, sizes, warnings, err = opt.Budget.fit(ctx, d, c, budget, build); err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
		}
		res, err := Evaluate(ctx, d, cfg, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		res.BudgetSizes, res.Warnings = sizes, append(res.Warnings, warnings...)
		if imported {
			card := im.Card
			res.ReportCard = &card
		} else {
			ownDone = true
		}
		rep.Retriever = res.Retriever
		rep.Configs = append(rep.Configs, res)
	}
	rep.Comparisons = rep.compare()
	return rep, nil
}

// Comparison is a configuration's difference from the report's first one
// (the baseline) on a metric, with its 95 % paired bootstrap confidence
// interval over questions.
type Comparison struct {
	Config   string  `json:"config"`
	Baseline string  `json:"baseline"`
	Metric   string  `json:"metric"`
	Diff     float64 `json:"diff"`
	Lo       float64 `json:"ci_low"`
	Hi       float64 `json:"ci_high"`
}

// compare compares every configuration with the first on every metric.
func (r *Report) compare() []Comparison {
	var out []Comparison
	if len(r.Configs) < 2 || len(r.Configs[0].Scores) == 0 {
		return nil
	}
	base := r.Configs[0]
	for _, c := range r.Configs[1:] {
		for _, m := range []string{"recall", "precision", "precision_omega", "iou", "hit_rate"} {
			d, lo, hi, ok := PairedBootstrap(base.Scores, c.Scores, m, 2000, 1)
			if ok {
				out = append(out, Comparison{c.Name, base.Name, m, d, lo, hi})
			}
		}
	}
	return out
}

// PairedBootstrap returns the mean difference b − a of a metric over the
// same questions and its 95 % confidence interval by the paired bootstrap
// (resampling questions with replacement, n times, with a fixed seed); ok
// is false when a and b do not score the same questions.
func PairedBootstrap(a, b []QuestionScores, metric string, n int, seed uint64) (diff, lo, hi float64, ok bool) {
	if len(a) == 0 || len(a) != len(b) {
		return 0, 0, 0, false
	}
	get := func(q QuestionScores) float64 {
		switch metric {
		case "recall":
			return q.Recall
		case "precision":
			return q.Precision
		case "precision_omega":
			return q.PrecisionOmega
		case "hit_rate":
			return q.Hit()
		}
		return q.IoU
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = get(b[i]) - get(a[i])
		diff += d[i]
	}
	diff /= float64(len(d))
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, n)
	for k := range means {
		s := 0.0
		for range d {
			s += d[rng.IntN(len(d))]
		}
		means[k] = s / float64(len(d))
	}
	slices.Sort(means)
	return diff, means[int(0.025*float64(n))], means[min(n-1, int(0.975*float64(n)))], true
}
