package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/progress"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/record"
)

func cmdChunk(e env, args []string) int {
	fs := flagSet(e, "gochunk chunk", `Usage: gochunk chunk [flags] [FILE...|-]

Chunks each FILE (standard input when there is none, or for "-") and writes
one JSON object per chunk to standard output: text, start, end (UTF-8 byte
offsets into that input), start_rune, end_rune (code-point offsets),
token_count (in the --tokenizer unit), chunk_index, source, and spans,
stats and metadata where the chunker sets them.

Flags:
`)
	var pf pipelineFlags
	pf.register(fs)
	debugOut := fs.String("debug-out", "", "write, for chunkers that explain themselves (the embedding-based ones), one JSON trace per input to `FILE`: units, similarity curve, smoothed curve, threshold, breakpoints")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "files chunked in parallel (output stays in input order)")
	prog := fs.String("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), always or never")
	fs.BoolVar(&pf.cfg.EmbedChunks, "embed-chunks", false, "add each chunk's embedding (--embedder) to its record, as POST /v1/chunk does with embed")
	output := fs.String("output", "records", "what each line holds: records (text, offsets, counts, source) or offsets ({\"start\": B, \"end\": B}, byte offsets, for callers that hold the text; one input only)")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	offsetsOnly := *output == "offsets"
	switch {
	case *output != "records" && !offsetsOnly:
		return fail(e, "chunk", usagef("--output: want records or offsets"))
	case *jobs < 1:
		return fail(e, "chunk", usagef("--jobs must be at least 1"))
	case *prog != "auto" && *prog != "always" && *prog != "never":
		return fail(e, "chunk", usagef("--progress: want auto, always or never"))
	case offsetsOnly && pf.cfg.EmbedChunks:
		return fail(e, "chunk", usagef("--embed-chunks needs --output records"))
	case offsetsOnly && len(files) > 1:
		return fail(e, "chunk", usagef("--output offsets takes one input: offsets do not say which file they index; run it once per file"))
	}
	pf.cfg.Trace = *debugOut != ""
	pl, err := pf.build(e)
	if err != nil {
		return fail(e, "chunk", err)
	}
	var traces *json.Encoder
	if *debugOut != "" {
		if _, ok := pl.Chunker().(gochunk.Tracer); !ok {
			return fail(e, "chunk", usagef("--debug-out: chunker %q has no trace to write", pl.Config().Chunker))
		}
		f, err := os.Create(*debugOut)
		if err != nil {
			return fail(e, "chunk", err)
		}
		defer f.Close()
		traces = json.NewEncoder(f)
	}
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && f != "-" {
			total += fi.Size()
		}
	}
	bar := progress.New(e.stderr, "chunking", total, total > 0 && (*prog == "always" || *prog == "auto" && e.stderrTTY))
	out := bufio.NewWriterSize(e.stdout, 1<<16)
	w := &writer{e: e, out: out, traces: traces}

	// A bounded window of files is in flight: a file is started only when
	// fewer than 2×jobs files wait to be written, so memory does not grow
	// with the number of files, and output stays in input order.
	results := make([]chan result, len(files))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, 2**jobs)
	ctx := e.ctx
	var workers errgroup.Group
	workers.SetLimit(*jobs)
	go func() {
		for i, name := range files {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				results[i] <- result{err: ctx.Err()}
				continue
			}
			workers.Go(func() error {
				results[i] <- chunkFile(e, pl, name, bar, offsetsOnly)
				return nil
			})
		}
	}()
	for i, name := range files {
		r := <-results[i]
		if ctx.Err() != nil {
			break
		}
		err := w.write(name, r)
		r.loaded.Release() // the output holds copies now
		<-slots
		if err != nil {
			fmt.Fprintln(e.stderr, "gochunk chunk: write:", err)
			return exitInput
		}
	}
	if ctx.Err() != nil {
		out.Flush()
		fmt.Fprintln(e.stderr, "gochunk chunk: interrupted")
		return exitInterrupted
	}
	workers.Wait()
	bar.Finish()
	if err := out.Flush(); err != nil {
		fmt.Fprintln(e.stderr, "gochunk chunk: write:", err)
		return exitInput
	}
	return w.code
}

// result is one input's chunks (or offsets), or its error.
type result struct {
	loaded  pipeline.Loaded
	res     pipeline.Result
	offsets []int // with --output offsets: start and end of each chunk
	err     error
}

// chunkFile loads and chunks one input. The bar counts input bytes: a
// PDF's first half as its pages are read, the rest (or a text file's all)
// once chunked.
func chunkFile(e env, pl *pipeline.Pipeline, name string, bar *progress.Bar, offsetsOnly bool) result {
	var size, added int64
	if fi, err := os.Stat(name); err == nil && name != "-" {
		size = fi.Size()
	}
	defer func() { bar.Add(size - added) }()
	src := pipelineSource(e, name)
	src.Progress = func(done, total int) {
		if want := size * int64(done) / int64(max(total, 1)) / 2; want > added {
			bar.Add(want - added)
			added = want
		}
	}
	var r result
	if r.loaded, r.err = pl.Load(e.ctx, src); r.err != nil {
		return r
	}
	if offsetsOnly {
		r.offsets, r.err = pl.Offsets(e.ctx, r.loaded.Document)
	} else {
		r.res, r.err = pl.Run(e.ctx, r.loaded.Document)
	}
	return r
}

// writer writes the results of gochunk chunk in input order.
type writer struct {
	e      env
	out    io.Writer
	traces *json.Encoder
	line   []byte
	code   int
}

// write writes one input's records (or offsets, or trace) and reports its
// problems; it returns an error only when writing failed, which ends the
// command.
func (w *writer) write(name string, r result) error {
	if r.loaded.Warning != "" {
		fmt.Fprintf(w.e.stderr, "gochunk chunk: %s: %s\n", name, r.loaded.Warning)
	}
	if r.err != nil {
		fmt.Fprintf(w.e.stderr, "gochunk chunk: %s: %v\n", name, r.err)
		w.code = max(w.code, exitInput)
		return nil
	}
	if w.traces != nil && r.res.Trace != nil {
		if err := w.traces.Encode(r.res.Trace); err != nil {
			return fmt.Errorf("--debug-out: %w", err)
		}
	}
	for k := 0; k+1 < len(r.offsets); k += 2 {
		w.line = record.AppendOffsets(w.line[:0], r.offsets[k], r.offsets[k+1])
		if _, err := w.out.Write(w.line); err != nil {
			return err
		}
	}
	return record.WriteJSONL(w.out, len(r.res.Chunks), r.res.AppendJSONL)
}
