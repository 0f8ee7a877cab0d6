package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"sort"
	"strings"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/internal/progress"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// evalFlags are the flags eval and tune share.
type evalFlags struct {
	cf        chunkFlags
	ef        embedFlags
	dataset   string
	stitch    int
	retriever string
	k         int
	cohesion  bool
	progress  string
	configs   listFlag
}

func (f *evalFlags) register(fs *flag.FlagSet) {
	f.cf.registerChunker(fs)
	f.ef.register(fs)
	fs.StringVar(&f.dataset, "dataset", "", "data set: a Chroma directory (questions.csv), a directory with documents.jsonl and questions.jsonl, or a SQuAD v1.1 / HotpotQA JSON file")
	fs.IntVar(&f.stitch, "stitch", 0, "concatenate this many documents into one, recording the seams as gold boundaries")
	fs.StringVar(&f.retriever, "retriever", "bm25", "bm25 (built in), or an embedder name (lexical, static:MODEL, onnx:MODEL, openai:MODEL) for dense retrieval")
	fs.IntVar(&f.k, "k", 5, "chunks retrieved per question")
	fs.BoolVar(&f.cohesion, "cohesion", false, "also compute the S2 cohesion score (embeds every sentence with --embedder)")
	fs.StringVar(&f.progress, "progress", "auto", "progress bar on stderr: auto, always or never")
	fs.Var(&f.configs, "config", "JSON or YAML `FILE` of chunker parameters (and optionally \"chunker\" and \"tokenizer\"); repeat to compare several")
}

// setup loads the data set and makes the retriever factory.
func (f *evalFlags) setup(ctx context.Context, e env) (*eval.Dataset, eval.Options, error) {
	var opt eval.Options
	if f.dataset == "" {
		return nil, opt, usageError{fmt.Errorf("--dataset is required")}
	}
	if f.k < 1 {
		return nil, opt, usageError{fmt.Errorf("-k must be at least 1")}
	}
	ds, err := eval.Load(f.dataset)
	if err != nil {
		return nil, opt, err
	}
	if f.stitch > 1 {
		ds = eval.Stitch(ds, f.stitch)
		if err := ds.Validate(); err != nil {
			return nil, opt, err
		}
	}
	opt.K = f.k
	if f.retriever != "bm25" {
		ef := f.ef
		ef.name = f.retriever
		em, err := ef.build(ctx, e)
		if err != nil {
			return nil, opt, err
		}
		cached := embed.NewCached(em, embed.CacheOptions{Entries: 1 << 20})
		opt.NewRetriever = func() eval.Retriever { return &eval.Dense{Embedder: cached} }
	}
	if f.cohesion {
		em, err := f.ef.build(ctx, e)
		if err != nil {
			return nil, opt, err
		}
		opt.Cohesion = em
	}
	return ds, opt, nil
}

// candidate is one chunker configuration to evaluate.
type candidate struct {
	name, chunker, tokenizer string
	params                   map[string]any
}

func (c candidate) label(varying []string) string {
	parts := []string{c.chunker}
	for _, k := range varying {
		switch k {
		case "chunker":
		case "tokenizer":
			parts = append(parts, "tokenizer="+c.tokenizer)
		default:
			if v, ok := c.params[k]; ok {
				b, _ := json.Marshal(v)
				parts = append(parts, k+"="+strings.Trim(string(b), `"`))
			}
		}
	}
	return strings.Join(parts, " ")
}

// run evaluates the candidates and returns the report.
func (f *evalFlags) run(ctx context.Context, e env, ds *eval.Dataset, opt eval.Options, cands []candidate) (*eval.Report, error) {
	reg := registry()
	f.cf.embedder = f.ef.lazy(e)
	rep := &eval.Report{Dataset: ds.Name, Questions: len(ds.Questions), Skipped: ds.Skipped, K: opt.K}
	show := f.progress == "always" || f.progress == "auto" && e.stderrTTY
	bar := progress.New(e.stderr, "evaluating", int64(len(cands)*len(ds.Questions)), show)
	for _, c := range cands {
		b, err := f.cf.buildFrom(reg, c.chunker, c.tokenizer, c.params)
		if err != nil {
			return nil, err
		}
		o := opt
		last := 0
		o.Progress = func(done, total int) {
			bar.Add(int64(done - last))
			last = done
		}
		res, err := eval.Evaluate(ctx, ds, eval.Config{Name: c.name, Chunker: b.chunker, ChunkerName: c.chunker, Tokenizer: b.counter.Name(), Params: c.params}, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		rep.Retriever = res.Retriever
		rep.Configs = append(rep.Configs, res)
	}
	bar.Finish()
	return rep, nil
}

// parseValues parses "a,b,c" into JSON values where they parse (numbers,
// booleans), strings otherwise.
func parseValues(s string) []any {
	var out []any
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		// Numbers stay exact (json.Number), as in configuration files.
		dec := json.NewDecoder(strings.NewReader(part))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			v = part
		}
		out = append(out, v)
	}
	return out
}

// expand builds the candidates: each chunker of the comma-separated
// --chunker (or each --config file), times the cartesian product of the
// sweeps.
func (f *evalFlags) expand(sweeps []string) ([]candidate, error) {
	type base struct {
		chunker, tok string
		params       map[string]any
	}
	var bases []base
	if len(f.configs) > 0 {
		for _, path := range f.configs {
			cf := f.cf
			cf.config = path
			name, tok, params, err := cf.resolve()
			if err != nil {
				return nil, err
			}
			bases = append(bases, base{name, tok, params})
		}
	} else {
		name, tok, params, err := f.cf.resolve()
		if err != nil {
			return nil, err
		}
		for _, n := range strings.Split(name, ",") {
			bases = append(bases, base{strings.TrimSpace(n), tok, maps.Clone(params)})
		}
	}
	varying := map[string]bool{}
	if len(bases) > 1 {
		varying["chunker"] = true
	}
	type axis struct {
		key    string
		values []any
	}
	var axes []axis
	for _, s := range sweeps {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, usageError{fmt.Errorf("--sweep %q: want KEY=V1,V2,...", s)}
		}
		axes = append(axes, axis{k, parseValues(v)})
		varying[k] = true
	}
	var out []candidate
	for _, b := range bases {
		combos := []map[string]any{{}}
		for _, a := range axes {
			var next []map[string]any
			for _, c := range combos {
				for _, v := range a.values {
					m := maps.Clone(c)
					m[a.key] = v
					next = append(next, m)
				}
			}
			combos = next
		}
		for _, combo := range combos {
			c := candidate{chunker: b.chunker, tokenizer: b.tok, params: maps.Clone(b.params)}
			for k, v := range combo {
				switch k {
				case "chunker":
					c.chunker = fmt.Sprint(v)
				case "tokenizer":
					c.tokenizer = fmt.Sprint(v)
				default:
					c.params[k] = v
				}
			}
			out = append(out, c)
		}
	}
	keys := make([]string, 0, len(varying))
	for k := range varying {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, extra := range []string{"size", "overlap"} {
		if !varying[extra] {
			keys = append(keys, extra)
		}
	}
	for i := range out {
		out[i].name = out[i].label(keys)
	}
	return out, nil
}

func cmdEval(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk eval", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var f evalFlags
	f.register(fs)
	var sweeps listFlag
	fs.Var(&sweeps, "sweep", "`KEY=V1,V2,...`: evaluate every value (repeat for a grid), e.g. size=128,256,512")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	csvPath := fs.String("csv", "", "also write the results as CSV to `FILE`")
	htmlPath := fs.String("html", "", "also write a self-contained HTML report with charts to `FILE`")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: gochunk eval --dataset PATH [flags]

Chunks every document of the data set with each configuration, retrieves
the top -k chunks for every question (BM25 by default, or dense retrieval
with an embedder), and reports Chroma's token-level recall, precision,
precision_Ω and IoU per corpus and overall (mean ± standard deviation over
questions), chunk sizes and timings, and Pk, WindowDiff, purity and NMI
where the data set has gold boundaries or labels.

Flags:
`)
		fs.PrintDefaults()
	}
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	ctx := e.ctx
	cands, err := f.expand(sweeps)
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk eval:", err)
		return exitCode(err)
	}
	ds, opt, err := f.setup(ctx, e)
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk eval:", err)
		return exitCode(err)
	}
	rep, err := f.run(ctx, e, ds, opt, cands)
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk eval:", err)
		return exitCode(err)
	}
	if *csvPath != "" {
		if err := writeReport(*csvPath, rep.WriteCSV); err != nil {
			fmt.Fprintln(e.stderr, "gochunk eval:", err)
			return exitInput
		}
	}
	if *htmlPath != "" {
		if err := writeReport(*htmlPath, rep.WriteHTML); err != nil {
			fmt.Fprintln(e.stderr, "gochunk eval:", err)
			return exitInput
		}
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitInput
		}
		return exitOK
	}
	if err := rep.WriteTable(e.stdout); err != nil {
		return exitInput
	}
	return exitOK
}

func writeReport(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
