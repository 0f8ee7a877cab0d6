package main

import (
	"encoding/json"
	"fmt"

	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/internal/textgen"
)

func cmdBench(e env, args []string) int {
	fs := flagSet(e, "gochunk bench", `Usage: gochunk bench [flags] [FILE...]

Chunks the files (or generated prose) with each chunker, repeatedly for at
least --time, and prints throughput (MB/s of input, chunks/s), the number
of chunks, the peak heap in use while chunking, and the memory allocated per
run. One core is used: GOMAXPROCS is set to 1 while measuring.

Flags:
`)
	pf := pipelineFlags(e)
	pf.Register(fs)
	names := fs.String("chunkers", "token,character,recursive,sentence,semchunk,markdown,code", "comma-separated chunkers to measure (--chunker measures one)")
	gen := fs.Int("generate", 10, "MB of generated prose to use when no FILE is given")
	minTime := fs.Duration("time", time.Second, "minimum measuring time per chunker")
	asJSON := fs.Bool("json", false, "print one JSON object per chunker")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	for _, f := range []string{"context", "context-template", "parents"} {
		if pf.IsSet(f) {
			return fail(e, "bench", usagef("--%s: bench measures the chunkers alone; context and parents are measured by chunk, index and eval", f))
		}
	}
	base, err := pf.Build(e.ctx)
	if err != nil {
		return fail(e, "bench", err)
	}
	var docs []gochunk.Document
	for _, f := range files {
		doc, err := base.Load(e.ctx, pipelineSource(e, f))
		defer doc.Release()
		if err != nil {
			return fail(e, "bench", fmt.Errorf("%s: %w", f, err))
		}
		docs = append(docs, doc.Document)
	}
	if len(docs) == 0 && *gen <= 0 {
		return fail(e, "bench", usagef("--generate must be positive"))
	} else if len(docs) == 0 {
		docs = []gochunk.Document{{ID: "generated.md", Text: textgen.Prose(*gen<<20, 1)}}
	}
	list := strings.Split(*names, ",")
	if pf.IsSet("chunker") {
		list = []string{pf.Cfg.Chunker}
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var results []eval.Speed
	for _, name := range list {
		cfg := base.Config()
		pl, err := base.With(e.ctx, strings.TrimSpace(name), cfg.Params, cfg.Tokenizer)
		if err != nil {
			return fail(e, "bench", err)
		}
		r, err := eval.Benchmark(e.ctx, pl.Chunker(), docs, *minTime)
		if err != nil {
			return fail(e, "bench", fmt.Errorf("%s: %w", name, err))
		}
		r.Chunker, r.Tokenizer = pl.Config().Chunker, pl.Counter().Name()
		results = append(results, r)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, r := range results {
			enc.Encode(r)
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "input: %.1f MB in %d document(s), tokenizer %s, one core\n", float64(results[0].Bytes)/1e6, len(docs), results[0].Tokenizer)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chunker\tMB/s\tchunks/s\tchunks\tpeak heap MB\talloc MB/run\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%d\t%.1f\t%.1f\t\n", r.Chunker, r.MBPerSec, r.ChunksPerS, r.Chunks, r.PeakHeapMB, r.AllocPerRun)
	}
	tw.Flush()
	return exitOK
}
