package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/pipeline"
)

// cmdEvalGenerate is gochunk eval generate: a question data set from the
// user's own documents.
func cmdEvalGenerate(e env, args []string) int {
	fs := flagSet(e, "gochunk eval generate", `Usage: gochunk eval generate --out DIR --llm-model MODEL [flags] FILE|DIR...

Writes a data set of questions about your documents that gochunk eval reads
(--dataset DIR), in the format of Chroma's evaluation: each document's text
as CORPUS.md and questions.csv, whose references are excerpts located in
that text (code points). A chat model (--llm-url, --llm-model) is shown
windows of each document, drawn with --seed and spread over it, and asked
with a versioned prompt for a question and the excerpts that answer it.
An excerpt not found word for word in the text drops its question (or,
with --approximate, is first looked for ignoring white space, quote and
dash spelling). Questions whose excerpts are poorly related to them, and
near-duplicates, are dropped as Chroma does, with --embedder. Answers are
cached with --llm-cache, so an interrupted run resumes where it stopped.

Flags:
`)
	pf := pipelineFlags(e)
	pf.RegisterResources(fs)
	out := fs.String("out", "", "directory to write the data set to (required)")
	var cfg eval.GenerateConfig
	fs.IntVar(&cfg.Questions, "questions", 50, "questions to keep, shared among the documents by their length")
	fs.IntVar(&cfg.Window, "window", 4000, "code points of a document shown in one request")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the windows drawn")
	fs.IntVar(&cfg.MaxRequests, "max-requests", 0, "most requests to make (default: three per question)")
	fs.BoolVar(&cfg.Approximate, "approximate", false, "find an excerpt not copied exactly by a match that ignores runs of white space and the spelling of quotes and dashes, instead of dropping its question")
	fs.Float64Var(&cfg.MinRelevance, "min-relevance", 0.36, "drop a question when an excerpt's embedding is less similar to the question's than this (cosine; Chroma's value, for OpenAI's embeddings; the lexical embedder scores lower; negative: keep all)")
	fs.Float64Var(&cfg.MaxSimilarity, "max-similarity", 0.78, "drop a question more similar than this to one kept before it (cosine; Chroma's value; 1: keep near-duplicates)")
	var prices struct{ in, out float64 }
	estimate := fs.Bool("estimate", false, "print the requests and prompt tokens the run would take, and ask nothing")
	fs.Func("price", "prices for the cost in the estimate and the report: `IN,OUT` dollars per million prompt and completion tokens", func(v string) (err error) {
		prices.in, prices.out, err = eval.ParsePrices(v)
		return err
	})
	paths, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if *out == "" {
		return fail(e, "eval generate", usagef("--out is required"))
	}
	if len(paths) == 0 {
		return fail(e, "eval generate", usagef("give the files or directories to ask questions about"))
	}
	if cfg.MinRelevance == 0 {
		cfg.MinRelevance = -1e-9 // 0 given: keep every question whose excerpts are not opposed to it
	}
	pcfg, err := pf.Config()
	if err != nil {
		return fail(e, "eval generate", err)
	}
	pl, err := pipeline.New(e.ctx, pipeline.Config{Input: pcfg.Input, PDFEngine: pcfg.PDFEngine, PDFNotice: pcfg.PDFNotice, Attachments: pcfg.Attachments}, pipeline.Options{})
	if err != nil {
		return fail(e, "eval generate", err)
	}
	corpora, err := generateCorpora(e, pl, paths)
	if err != nil {
		return fail(e, "eval generate", err)
	}
	if *estimate {
		est, err := eval.EstimateGenerate(corpora, cfg)
		if err != nil {
			return fail(e, "eval generate", err)
		}
		fmt.Fprintf(e.stdout, "%d documents; %s, %s (cl100k_base)", len(corpora),
			countRange(est.MinRequests, est.MaxRequests, "request", "requests"),
			countRange(est.MinPromptTokens, est.MaxPromptTokens, "prompt token", "prompt tokens"))
		if prices.in > 0 {
			lo, hi := fmt.Sprintf("$%.4f", float64(est.MinPromptTokens)*prices.in/1e6), fmt.Sprintf("$%.4f", float64(est.MaxPromptTokens)*prices.in/1e6)
			if lo == hi {
				fmt.Fprintf(e.stdout, ", %s for the prompts", lo)
			} else {
				fmt.Fprintf(e.stdout, ", %s to %s for the prompts", lo, hi)
			}
		}
		fmt.Fprintln(e.stdout)
		return exitOK
	}
	if cfg.Model, err = pipeline.NewModel(pcfg.LLM); err != nil {
		return fail(e, "eval generate", err)
	}
	if cfg.Model == nil {
		return fail(e, "eval generate", usagef("give --llm-model (and --llm-url for a server other than OpenAI)"))
	}
	if cfg.Embedder, err = pipeline.NewEmbedder(e.ctx, pf.Embedder()); err != nil {
		return fail(e, "eval generate", err)
	}
	cfg.Progress = func(p eval.GenerateProgress) {
		fmt.Fprintf(e.stderr, "gochunk eval generate: %d requests, %d of %d questions kept\n", p.Requests, p.Kept, p.Target)
	}
	qs, st, err := eval.Generate(e.ctx, corpora, cfg)
	report := func() {
		fmt.Fprintf(e.stderr, "gochunk eval generate: %d requests (%d answered from the cache, %d failed), %d prompt and %d completion tokens",
			st.Requests, st.Usage.CachedCalls, st.Failed, st.Usage.PromptTokens, st.Usage.CompletionTokens)
		if prices.in > 0 || prices.out > 0 {
			fmt.Fprintf(e.stderr, ", $%.4f", float64(st.Usage.PromptTokens)*prices.in/1e6+float64(st.Usage.CompletionTokens)*prices.out/1e6)
		}
		fmt.Fprintf(e.stderr, "; dropped: %d answers not the JSON asked for, %d with an excerpt not in the text, %d with excerpts unrelated to the question, %d duplicates; %d excerpts found approximately\n",
			st.Garbage, st.NotFound, st.Irrelevant, st.Duplicates, st.Repaired)
	}
	if err != nil {
		report()
		return fail(e, "eval generate", err)
	}
	if err := eval.WriteChroma(*out, corpora, qs); err != nil {
		return fail(e, "eval generate", err)
	}
	report()
	fmt.Fprintf(e.stdout, "%d questions about %d documents written to %s (gochunk eval --dataset %s)\n", len(qs), len(corpora), *out, *out)
	return exitOK
}

// generateCorpora reads the documents under paths as corpora, named by
// their file names (made unique).
func generateCorpora(e env, pl *pipeline.Pipeline, paths []string) ([]*eval.Corpus, error) {
	var corpora []*eval.Corpus
	used := map[string]int{}
	for _, root := range paths {
		err := index.Files{Root: root}.Docs(e.ctx, func(d index.Doc) error {
			if d.Err != nil {
				return d.Err
			}
			l, err := pl.Load(e.ctx, pipeline.Source{Path: d.Path})
			if err != nil {
				return fmt.Errorf("%s: %w", d.Path, err)
			}
			text := strings.Clone(l.Document.Text)
			l.Release()
			if strings.TrimSpace(text) == "" {
				return nil
			}
			id := strings.TrimSuffix(filepath.Base(d.Path), filepath.Ext(d.Path))
			id = strings.Map(func(r rune) rune {
				if r == '/' || r == '\\' {
					return '_'
				}
				return r
			}, id)
			if id == "" || id == "." || id == ".." {
				id = "document"
			}
			used[id]++
			if n := used[id]; n > 1 {
				id = fmt.Sprintf("%s-%d", id, n)
			}
			corpora = append(corpora, &eval.Corpus{ID: id, Text: text})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(corpora) == 0 {
		return nil, errors.New("no document with text found")
	}
	return corpora, nil
}

// countRange words a count that lies between lo and hi: "26 requests" when
// the two agree, "8 to 24 requests" when they do not.
func countRange(lo, hi int, one, many string) string {
	unit := many
	if hi == 1 {
		unit = one
	}
	if lo == hi {
		return fmt.Sprintf("%d %s", lo, unit)
	}
	return fmt.Sprintf("%d to %d %s", lo, hi, unit)
}
