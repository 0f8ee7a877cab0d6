package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/pipeline"
)

// benchResult is one line of 'gochunk bench' output.
type benchResult struct {
	Chunker     string  `json:"chunker"`
	Tokenizer   string  `json:"tokenizer"`
	Bytes       int     `json:"bytes"`
	Runs        int     `json:"runs"`
	Chunks      int     `json:"chunks"`
	MBPerSec    float64 `json:"mb_per_s"`
	ChunksPerS  float64 `json:"chunks_per_s"`
	PeakHeapMB  float64 `json:"peak_heap_mb"`
	AllocPerRun float64 `json:"alloc_mb_per_run"`
}

func cmdBench(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk bench", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var pf pipelineFlags
	pf.register(fs)
	names := fs.String("chunkers", "token,character,recursive,sentence,semchunk,markdown,code", "comma-separated chunkers to measure (--chunker measures one)")
	gen := fs.Int("generate", 10, "MB of generated prose to use when no FILE is given")
	minTime := fs.Duration("time", time.Second, "minimum measuring time per chunker")
	asJSON := fs.Bool("json", false, "print one JSON object per chunker")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: gochunk bench [flags] [FILE...]

Chunks the files (or generated prose) with each chunker, repeatedly for at
least --time, and prints throughput (MB/s of input, chunks/s), the number
of chunks, the peak heap in use while chunking, and the memory allocated per
run. One core is used: GOMAXPROCS is set to 1 while measuring.

Flags:
`)
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	var docs []gochunk.Document
	total := 0
	loader, err := pipeline.New(e.ctx, pipeline.Config{Input: "text"}, pipeline.Options{})
	if err != nil {
		return fail(e, "bench", err)
	}
	for _, f := range files {
		doc, err := loader.Load(e.ctx, pipelineSource(e, f))
		defer doc.Release()
		if err != nil {
			return fail(e, "bench", fmt.Errorf("%s: %w", f, err))
		}
		docs = append(docs, doc.Document)
		total += len(doc.Text)
	}
	if len(docs) == 0 {
		if *gen <= 0 {
			fmt.Fprintln(e.stderr, "gochunk bench: --generate must be positive")
			return exitUsage
		}
		text := textgen.Prose(*gen<<20, 1)
		docs = []gochunk.Document{{ID: "generated.md", Text: text}}
		total = len(text)
	}
	list := strings.Split(*names, ",")
	if pf.set("chunker") {
		list = []string{pf.cfg.Chunker}
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var results []benchResult
	for _, name := range list {
		pf.fs.Set("chunker", strings.TrimSpace(name))
		pl, err := pf.build(e)
		if err != nil {
			return fail(e, "bench", err)
		}
		r, err := measure(e.ctx, pl, docs, *minTime)
		if err != nil {
			fmt.Fprintf(e.stderr, "gochunk bench: %s: %v\n", name, err)
			return exitInput
		}
		r.Bytes = total
		results = append(results, r)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, r := range results {
			enc.Encode(r)
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "input: %.1f MB in %d document(s), tokenizer %s, one core\n", float64(total)/1e6, len(docs), results[0].Tokenizer)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chunker\tMB/s\tchunks/s\tchunks\tpeak heap MB\talloc MB/run\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%d\t%.1f\t%.1f\t\n", r.Chunker, r.MBPerSec, r.ChunksPerS, r.Chunks, r.PeakHeapMB, r.AllocPerRun)
	}
	tw.Flush()
	return exitOK
}

// measure runs b over docs until minTime has passed (at least once) and
// samples the heap while it runs.
func measure(ctx context.Context, pl *pipeline.Pipeline, docs []gochunk.Document, minTime time.Duration) (benchResult, error) {
	runtime.GC()
	base := heapInUse()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)

	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if h := heapInUse(); h > peak {
				peak = h
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()

	runs, chunks := 0, 0
	start := time.Now()
	for runs == 0 || time.Since(start) < minTime {
		chunks = 0
		for _, d := range docs {
			cs, err := pl.Chunker().Chunk(ctx, d)
			if err != nil {
				close(stop)
				wg.Wait()
				return benchResult{}, err
			}
			chunks += len(cs)
		}
		runs++
	}
	elapsed := time.Since(start).Seconds()
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&ms1)
	bytes := 0
	for _, d := range docs {
		bytes += len(d.Text)
	}
	return benchResult{
		Chunker:     pl.Config().Chunker,
		Tokenizer:   pl.Counter().Name(),
		Runs:        runs,
		Chunks:      chunks,
		MBPerSec:    float64(bytes*runs) / elapsed / 1e6,
		ChunksPerS:  float64(chunks*runs) / elapsed,
		PeakHeapMB:  float64(peak-min(peak, base)) / 1e6,
		AllocPerRun: float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(runs) / 1e6,
	}, nil
}

func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
