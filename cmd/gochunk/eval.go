package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

// evalFlags are the flags eval and tune share.
type evalFlags struct {
	pf        *pipelineflag.Flags
	dataset   string
	stitch    int
	retriever string
	k         int
	cohesion  bool
	configs   pipelineflag.List
	budget    *eval.Budget
	rerank    string
	rerankTop int
	judge     eval.Judge
	returnTok int
	chunks    pipelineflag.List // NAME=DIR: chunks made elsewhere
	expand    string
	merge     int
	random    int // > 0: evaluate that many candidates, drawn with shuffle
	shuffle   func([]eval.Candidate)
	deadline  time.Time // tune --select --time
}

func (f *evalFlags) register(e env, fs *flag.FlagSet) {
	f.pf = pipelineFlags(e)
	f.pf.RegisterChunking(fs)
	fs.StringVar(&f.dataset, "dataset", "", "data set: a Chroma directory (questions.csv), a directory with documents.jsonl and questions.jsonl, or a SQuAD v1.1 / HotpotQA JSON file")
	fs.IntVar(&f.stitch, "stitch", 0, "concatenate this many documents into one, recording the seams as gold boundaries")
	fs.StringVar(&f.retriever, "retriever", "bm25", "bm25 (built in), an embedder name (lexical, static:MODEL, onnx:MODEL, openai:MODEL) for dense retrieval (the lexical embedder fitted to the chunks' IDF), or hybrid:EMBEDDER for both fused by reciprocal rank")
	fs.IntVar(&f.k, "k", 5, "chunks retrieved per question")
	fs.IntVar(&f.returnTok, "return-tokens", 0, "compare at an equal budget: each question gets the best chunks (or parents) that fit in `N` tokens of the chunks' unit, instead of -k")
	fs.Var(&f.chunks, "chunks", "score chunks made elsewhere beside gochunk's: `NAME=DIR`, DIR holding CORPUS.jsonl per corpus, one {\"text\"} per chunk with or without offsets (start/end, start_index/end_index, metadata.start_index, startIndex; code points), as LangChain, LlamaIndex, Chonkie or Docling export them (repeatable); NAME=DIR,DIR2 compares two runs for determinism; with --tokenizer the chunks are measured in its tokens, and with --size checked against it; --budget like=NAME holds gochunk's configurations to their counts")
	fs.StringVar(&f.expand, "expand", "", "with --parents: return each retrieved chunk's `parent` instead of the chunk")
	fs.IntVar(&f.merge, "merge", 0, "with --parents: return a parent in place of `K` (2 or more) of its retrieved children when their scores add up to more than those of the chunks its text would push out of the budget (auto-merging)")
	fs.BoolVar(&f.cohesion, "cohesion", false, "also compute the S2 cohesion score (embeds every sentence with --embedder)")
	fs.Func("budget", "hold every configuration to a number of chunks per corpus, searching its size corpus by corpus: `CORPUS=N,…` or like=CHUNKER:KEY=VALUE,… (as many as that configuration makes, e.g. like=semchunk:size=800)", func(v string) (err error) {
		f.budget, err = eval.ParseBudget(v)
		return err
	})
	fs.StringVar(&f.rerank, "rerank", "", "rerank the retrieved chunks: `api:URL` (a rerank endpoint: Cohere, Jina, TEI, vLLM; key from RERANK_API_KEY), onnx:MODEL (a cross-encoder directory or hub id) or llm (--llm-model, listwise)")
	fs.IntVar(&f.rerankTop, "rerank-top", 20, "chunks retrieved for the reranker to reorder (at least -k)")
	pipelineflag.CountVar(fs, &f.judge.Sample, "judge", -1, "LLM-judged metrics as RAGAS defines them (LLM context precision and recall, faithfulness, answer relevancy with --embedder) on every question, or --judge=N on N spread over the data set; needs --llm-model")
	fs.Func("judge-price", "prices for the judge's cost in the report: `IN,OUT` dollars per million prompt and completion tokens", func(v string) (err error) {
		f.judge.PriceInput, f.judge.PriceOutput, err = eval.ParsePrices(v)
		return err
	})
	fs.Var(&f.configs, "config", "JSON or YAML `FILE` of chunker parameters (and optionally \"chunker\" and \"tokenizer\"); repeat to compare several")
}

// setup loads the data set and makes the retriever factory.
func (f *evalFlags) setup(e env) (*eval.Dataset, eval.Options, error) {
	var opt eval.Options
	if f.dataset == "" {
		return nil, opt, usagef("--dataset is required")
	}
	if f.k < 1 {
		return nil, opt, usagef("-k must be at least 1")
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
	if f.expand != "" && f.expand != "parent" {
		return nil, opt, usagef("--expand: want parent")
	}
	if f.merge < 0 || f.merge == 1 || f.returnTok < 0 {
		return nil, opt, usagef("--merge wants 2 or more children (0: none), --return-tokens a positive budget (0: -k chunks)")
	}
	opt.K, opt.Budget, opt.RerankTop = f.k, f.budget, f.rerankTop
	opt.ReturnTokens, opt.Expand, opt.Merge, opt.Deadline = f.returnTok, f.expand, f.merge, f.deadline
	chat := func() (*llm.Client, error) { return pipeline.NewModel(f.pf.Cfg.LLM) }
	if opt.Reranker, err = eval.NewReranker(f.rerank, eval.RerankerModels{Chat: chat, CrossEncoder: f.pf.Embedder().CrossEncoders(e.ctx)}); err != nil {
		return nil, opt, err
	}
	opt.NewRetriever, err = eval.NewRetriever(f.retriever, func(name string) (embed.Embedder, error) {
		ec := f.pf.Embedder()
		ec.Name, ec.CacheEntries = name, 1<<20
		return pipeline.NewEmbedder(e.ctx, ec)
	})
	if err != nil {
		return nil, opt, err
	}
	if f.cohesion {
		if opt.Cohesion, err = pipeline.NewEmbedder(e.ctx, f.pf.Embedder()); err != nil {
			return nil, opt, err
		}
	}
	if f.judge.Sample != 0 {
		f.judge.Sample, opt.Judge = max(f.judge.Sample, 0), &f.judge
		if f.judge.Model, err = pipeline.NewModel(f.pf.Cfg.LLM); err == nil {
			f.judge.Embedder, err = pipeline.NewEmbedder(e.ctx, f.pf.Embedder())
		}
	}
	return ds, opt, err
}

// candidates returns each chunker of the comma-separated --chunker (or
// each --config file) combined with the axes.
func (f *evalFlags) candidates(axes []eval.Axis) ([]eval.Candidate, error) {
	var bases []eval.Candidate
	paths := f.configs
	if len(paths) == 0 {
		paths = pipelineflag.List{""}
	}
	for _, path := range paths {
		f.pf.Params = path
		name, tok, params, err := f.pf.Chunker()
		if err != nil {
			return nil, err
		}
		for _, n := range strings.Split(name, ",") {
			bases = append(bases, eval.Candidate{Chunker: strings.TrimSpace(n), Tokenizer: tok, Params: params})
		}
	}
	return eval.Grid(bases, axes), nil
}

// run evaluates the candidates and returns the report; the candidates'
// pipelines share the first one's embedder and tokenizers.
func (f *evalFlags) run(e env, ds *eval.Dataset, opt eval.Options, cands []eval.Candidate) (*eval.Report, error) {
	cfg, err := f.pf.Config()
	if err != nil {
		return nil, err
	}
	bar := bar(e, f.pf, "evaluating", int64(len(cands)*len(ds.Questions)))
	defer bar.Finish()
	last := 0
	opt.Progress = func(done, total int) {
		bar.Add(int64(done - last))
		last = done
	}
	mk := pipeline.Chunkers(cfg)
	imported := map[string]*eval.Imported{}
	var importedCands []eval.Candidate
	for _, spec := range f.chunks {
		name, dirs, ok := strings.Cut(spec, "=")
		if !ok || name == "" || dirs == "" {
			return nil, usagef("--chunks %q: want NAME=DIR (or NAME=DIR,DIR2: two runs, compared)", spec)
		}
		dir, rerun, _ := strings.Cut(dirs, ",")
		im, err := eval.ImportChunks(name, dir, ds)
		if err != nil {
			return nil, err
		}
		if rerun != "" {
			again, err := eval.ImportChunks(name, rerun, ds)
			if err != nil {
				return nil, err
			}
			im.CompareRun(again)
		}
		if cfg.Tokenizer != "" {
			counter, err := pipeline.NewTokenizer(e.ctx, cfg.Tokenizer, cfg.Embedder)
			if err != nil {
				return nil, err
			}
			limit := 0
			if f.pf.IsSet("size") {
				_, _, params, _ := f.pf.Chunker()
				limit, _ = params["size"].(int)
			}
			im.Measure(counter, limit)
		}
		imported[name] = im
		importedCands = append(importedCands, eval.Candidate{Name: name, Chunker: "import:" + name})
		if c := im.Card; c.NotFound > 0 || c.WrongOffsets > 0 {
			fmt.Fprintf(e.stderr, "gochunk eval: %s: %d of %d chunks not found in their corpus (dropped), %d with offsets that do not hold their text\n", name, c.NotFound, c.Chunks, c.WrongOffsets)
		}
		if c := im.Card; c.OverLimit > 0 {
			fmt.Fprintf(e.stderr, "gochunk eval: %s: %d of %d chunks over %d %s tokens (the longest %d)\n", name, c.OverLimit, c.Chunks, c.Limit, c.Unit, c.MaxTokens)
		}
		if c := im.Card; c.Deterministic != nil && !*c.Deterministic {
			fmt.Fprintf(e.stderr, "gochunk eval: %s: the two runs differ: %d chunks are in one run only\n", name, c.RunsDiffer)
		}
	}
	// Imported chunks come first, so that the comparisons are against
	// the other library's output.
	cands = append(importedCands, cands...)
	build := func(ctx context.Context, c eval.Candidate) (gochunk.Chunker, string, error) {
		if im, ok := imported[strings.TrimPrefix(c.Chunker, "import:")]; ok && (strings.HasPrefix(c.Chunker, "import:") || len(c.Params) == 0) {
			if im.Card.Unit != "" {
				return im, im.Card.Unit, nil
			}
			return im, "runes", nil
		}
		return mk(ctx, c.Chunker, c.Params, c.Tokenizer)
	}
	return eval.Compare(e.ctx, ds, cands, build, opt)
}

func cmdEval(e env, args []string) int {
	if len(args) > 0 && args[0] == "generate" {
		return cmdEvalGenerate(e, args[1:])
	}
	fs := flagSet(e, "gochunk eval", `Usage: gochunk eval --dataset PATH [flags]

Chunks every document of the data set with each configuration, retrieves
the top -k chunks for every question (BM25, dense or hybrid; optionally
reranked), and reports Chroma's token-level recall, precision, precision_Ω
and IoU per corpus and overall (mean ± std over questions), chunk sizes,
latency, Pk, WindowDiff, purity and NMI where the data set has gold
boundaries or labels, and with --judge LLM-judged RAGAS metrics.

Flags:
`)
	var f evalFlags
	f.register(e, fs)
	var sweeps pipelineflag.List
	fs.Var(&sweeps, "sweep", "`KEY=V1,V2,...` or KEY=LO:HI:STEP: evaluate every value (repeat for a grid), e.g. size=128,256,512")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	csvPath := fs.String("csv", "", "also write the results as CSV to `FILE`")
	htmlPath := fs.String("html", "", "also write a self-contained HTML report with charts to `FILE`")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	rep, _, err := f.evaluate(e, sweeps, "--sweep")
	if err != nil {
		return fail(e, "eval", err)
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{*csvPath, rep.WriteCSV}, {*htmlPath, rep.WriteHTML}} {
		if out.path == "" {
			continue
		}
		if err := writeReport(out.path, out.write); err != nil {
			return fail(e, "eval", err)
		}
	}
	if *asJSON {
		return writeJSON(e, rep)
	}
	if err := rep.WriteTable(e.stdout); err != nil {
		return exitInput
	}
	return exitOK
}

// evaluate parses the axes, loads the data set and evaluates every
// candidate.
func (f *evalFlags) evaluate(e env, specs []string, flagName string) (*eval.Report, []eval.Candidate, error) {
	axes, err := eval.ParseAxes(specs)
	if err != nil {
		return nil, nil, usagef("%s %w", flagName, err)
	}
	cands, err := f.candidates(axes)
	if err != nil {
		return nil, nil, err
	}
	if f.random > 0 && f.random < len(cands) {
		f.shuffle(cands)
		cands = cands[:f.random]
	}
	ds, opt, err := f.setup(e)
	if err != nil {
		return nil, nil, err
	}
	rep, err := f.run(e, ds, opt, cands)
	return rep, cands, err
}

func writeJSON(e env, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return exitInput
	}
	return exitOK
}

func writeReport(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(write(f), f.Close())
}
