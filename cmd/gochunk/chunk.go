package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sync/errgroup"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/internal/mapfile"
	"github.com/gochunk/gochunk/internal/progress"
	"github.com/gochunk/gochunk/record"
)

func cmdChunk(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk chunk", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var cf chunkFlags
	cf.register(fs)
	var ef embedFlags
	ef.register(fs)
	debugOut := fs.String("debug-out", "", "write, for chunkers that explain themselves (the embedding-based ones), one JSON trace per input to `FILE`: units, similarity curve, smoothed curve, threshold, breakpoints")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "files chunked in parallel (output stays in input order)")
	input := fs.String("input", "auto", "input kind: auto (PDF by the .pdf extension, else text), text, pdf (needs Poppler's pdftotext), elements (layout JSON: gochunk, Unstructured, Docling, PyMuPDF)")
	prog := fs.String("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), always or never")
	embedChunks := fs.Bool("embed-chunks", false, "add each chunk's embedding (--embedder) to its record, as POST /v1/chunk does with embed")
	output := fs.String("output", "records", "what each line holds: records (text, offsets, counts, source) or offsets ({\"start\": B, \"end\": B}, byte offsets, for callers that hold the text; one input only)")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: gochunk chunk [flags] [FILE...|-]

Chunks each FILE (standard input when there is none, or for "-") and writes
one JSON object per chunk to standard output: text, start, end (UTF-8 byte
offsets into that input), start_rune, end_rune (code-point offsets),
token_count (in the --tokenizer unit), chunk_index, source, and spans and
metadata where the chunker sets them.

Flags:
`)
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	cf.embedder = ef.lazy(e)
	b, err := cf.build(registry())
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk chunk:", err)
		return exitCode(err)
	}
	var traces *json.Encoder
	if *debugOut != "" {
		if _, ok := b.chunker.(gochunk.Tracer); !ok {
			fmt.Fprintf(e.stderr, "gochunk chunk: --debug-out: chunker %q has no trace to write\n", b.name)
			return exitUsage
		}
		f, err := os.Create(*debugOut)
		if err != nil {
			fmt.Fprintln(e.stderr, "gochunk chunk:", err)
			return exitInput
		}
		defer f.Close()
		traces = json.NewEncoder(f)
	}
	if err := checkInputMode(*input); err != nil {
		fmt.Fprintln(e.stderr, "gochunk chunk:", err)
		return exitUsage
	}
	if *jobs < 1 {
		fmt.Fprintln(e.stderr, "gochunk chunk: --jobs must be at least 1")
		return exitUsage
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	if *output != "records" && *output != "offsets" {
		fmt.Fprintln(e.stderr, "gochunk chunk: --output: want records or offsets")
		return exitUsage
	}
	offsetsOnly := *output == "offsets"
	var chunkEmbedder gochunk.Embedder
	if *embedChunks {
		if offsetsOnly {
			fmt.Fprintln(e.stderr, "gochunk chunk: --embed-chunks needs --output records")
			return exitUsage
		}
		if chunkEmbedder, err = cf.embedder(); err != nil {
			fmt.Fprintln(e.stderr, "gochunk chunk:", err)
			return exitCode(err)
		}
	}
	if offsetsOnly && len(files) > 1 {
		fmt.Fprintln(e.stderr, "gochunk chunk: --output offsets takes one input: offsets do not say which file they index; run it once per file")
		return exitUsage
	}
	showProgress := *prog == "always" || *prog == "auto" && e.stderrTTY
	if *prog != "auto" && *prog != "always" && *prog != "never" {
		fmt.Fprintln(e.stderr, "gochunk chunk: --progress: want auto, always or never")
		return exitUsage
	}
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && f != "-" {
			total += fi.Size()
		}
	}
	bar := progress.New(e.stderr, "chunking", total, showProgress && total > 0)

	out := bufio.NewWriterSize(e.stdout, 1<<16)

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
				r := chunkFile(ctx, e, name, *input, b, bar, offsetsOnly, traces != nil)
				if chunkEmbedder != nil && r.err == nil {
					r.vectors, r.err = embedAll(ctx, chunkEmbedder, r.chunks)
				}
				results[i] <- r
				return nil
			})
		}
	}()
	code = exitOK
	for i, name := range files {
		r := <-results[i]
		if ctx.Err() != nil {
			break
		}
		fatal := writeResult(e, out, traces, name, r, offsetsOnly, &code)
		if r.release != nil {
			r.release() // the output holds copies now
		}
		<-slots
		if fatal {
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
	return code
}

// result is one input's chunks (or offsets), or its error.
type result struct {
	chunks  []gochunk.Chunk
	offsets []int       // with --output offsets: start and end of each chunk
	vectors [][]float32 // with --embed-chunks: each chunk's embedding
	trace   *gochunk.Trace
	err     error
	warn    string
	release func() // frees the input the chunks' texts point into
}

// chunkFile loads and chunks one input.
func chunkFile(ctx context.Context, e env, name, input string, b *built, bar *progress.Bar, offsetsOnly, trace bool) result {
	// The bar counts input bytes: a PDF's first half as its pages are
	// read, the rest (or a text file's all) once chunked.
	var size, added int64
	if fi, err := os.Stat(name); err == nil && name != "-" {
		size = fi.Size()
	}
	pages := func(done, total int) {
		if want := size * int64(done) / int64(max(total, 1)) / 2; want > added {
			bar.Add(want - added)
			added = want
		}
	}
	defer func() { bar.Add(size - added) }()
	doc, warn, release, err := loadDocument(ctx, e, name, input, b.policy, pages)
	if err != nil {
		release()
		return result{err: err}
	}
	r := result{warn: warn, release: release}
	if o, ok := b.chunker.(gochunk.Offsetter); ok && offsetsOnly {
		r.offsets, r.err = o.Offsets(ctx, doc)
		return r
	}
	if tr, ok := b.chunker.(gochunk.Tracer); ok && trace {
		r.chunks, r.trace, r.err = tr.ChunkTrace(ctx, doc)
	} else {
		r.chunks, r.err = b.chunker.Chunk(ctx, doc)
	}
	return r
}

// writeResult writes one input's chunks (or offsets, or trace) and
// reports its errors; it returns true when writing failed, which ends the
// command.
func writeResult(e env, out io.Writer, traces *json.Encoder, name string, r result, offsetsOnly bool, code *int) bool {
	chunks, offsets, trace, err, warn := r.chunks, r.offsets, r.trace, r.err, r.warn
	if warn != "" {
		fmt.Fprintf(e.stderr, "gochunk chunk: %s: %s\n", name, warn)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "gochunk chunk: %s: %v\n", name, err)
		*code = max(*code, exitInput)
		return false
	}
	if traces != nil && trace != nil {
		if err := traces.Encode(trace); err != nil {
			fmt.Fprintln(e.stderr, "gochunk chunk: --debug-out:", err)
			return true
		}
	}
	if offsetsOnly && offsets == nil {
		for _, c := range chunks {
			offsets = append(offsets, c.Start(), c.End())
		}
	}
	var line []byte
	for k := 0; k+1 < len(offsets); k += 2 {
		line = record.AppendOffsets(line[:0], offsets[k], offsets[k+1])
		if _, err := out.Write(line); err != nil {
			fmt.Fprintln(e.stderr, "gochunk chunk: write:", err)
			return true
		}
	}
	if offsetsOnly {
		return false
	}
	for k, c := range chunks {
		rec := record.FromChunk(c, name)
		if r.vectors != nil {
			rec.Embedding = r.vectors[k]
		}
		if line, err = record.AppendJSON(line[:0], rec); err == nil {
			_, err = out.Write(line)
		}
		if err != nil {
			fmt.Fprintln(e.stderr, "gochunk chunk: write:", err)
			return true
		}
	}
	return false
}

// embedAll embeds the chunks' texts in batches of at most
// embed.DefaultBatchTokens tokens of the chunks' unit, as the server does.
func embedAll(ctx context.Context, em gochunk.Embedder, chunks []gochunk.Chunk) ([][]float32, error) {
	texts := make([]string, len(chunks))
	tokens := make([]int, len(chunks))
	for i, c := range chunks {
		texts[i], tokens[i] = c.Text, c.TokenCount
	}
	out := make([][]float32, len(chunks))
	var first error
	embed.Batches(ctx, em, texts, tokens, embed.DefaultBatchTokens, func(i int, v []float32, err error) {
		if err != nil && first == nil {
			first = fmt.Errorf("embed chunks: %w", err)
		}
		out[i] = v
	})
	return out, first
}

// readInput returns the contents of name ("-": standard input) and a
// function that releases them; the text must not be used after it.
func readInput(stdin io.Reader, name string) (string, func(), error) {
	var data []byte
	release := func() {}
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		var free func() error
		data, free, err = mapfile.Read(name)
		if err == nil {
			release = func() { free() }
		}
	}
	if err != nil {
		return "", release, fmt.Errorf("read: %w", err)
	}
	if len(data) == 0 {
		return "", release, nil
	}
	// The bytes are never written: use them as the string, without a copy
	// of the whole input.
	return unsafe.String(unsafe.SliceData(data), len(data)), release, nil
}
