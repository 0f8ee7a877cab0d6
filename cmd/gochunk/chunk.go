package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
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

With --jsonl each input is JSON Lines of {"id", "text", "metadata"}, one
document a line (what gochunk index - and gochunk-beam --jsonl read): each
record's source is its line's id, and its metadata the line's.

Each input's records are written as soon as it is done, in input order;
an input that cannot be read or chunked (or a bad JSON line) is reported
on stderr, the others are written, and the exit status is 1.

Flags:
`)
	pf := pipelineFlags(e)
	pf.Register(fs)
	debugOut := fs.String("debug-out", "", "write, for chunkers that explain themselves (the embedding-based ones), one JSON trace per input to `FILE`: units, similarity curve, smoothed curve, threshold, breakpoints")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "files chunked in parallel (output stays in input order)")
	fs.BoolVar(&pf.Cfg.EmbedChunks, "embed-chunks", false, "add each chunk's embedding (--embedder) to its record, as POST /v1/chunk does with embed")
	jsonl := fs.Bool("jsonl", false, "each input is JSON Lines of {\"id\", \"text\", \"metadata\"}, one document a line: records take the line's id as their source and its metadata")
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
	case offsetsOnly && pf.Cfg.EmbedChunks:
		return fail(e, "chunk", usagef("--embed-chunks needs --output records"))
	case offsetsOnly && len(files) > 1:
		return fail(e, "chunk", usagef("--output offsets takes one input: offsets do not say which file they index; run it once per file"))
	case offsetsOnly && *jsonl:
		return fail(e, "chunk", usagef("--output offsets takes one document: offsets do not say which line of --jsonl they index"))
	}
	if !*jsonl {
		for _, f := range files {
			if ext := strings.ToLower(filepath.Ext(f)); ext == ".jsonl" || ext == ".ndjson" {
				fmt.Fprintf(e.stderr, "gochunk chunk: %s is chunked as text; give --jsonl to read it as documents, one {\"id\", \"text\", \"metadata\"} a line\n", f)
			}
		}
	}
	pf.Cfg.Trace = *debugOut != ""
	pl, err := pf.Build(e.ctx)
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
	// The bar counts input bytes: a PDF's first half as its pages are
	// read, the rest (or a text file's all) once chunked.
	var total int64
	srcs := make([]pipeline.Source, len(files))
	sizes, added := make([]int64, len(files)), make([]int64, len(files))
	for i, f := range files {
		if fi, err := os.Stat(f); err == nil && f != "-" {
			sizes[i] = fi.Size()
			total += sizes[i]
		}
	}
	bar := bar(e, pf, "chunking", total)
	out := bufio.NewWriterSize(e.stdout, 1<<16)
	w := &writer{e: e, out: out, traces: traces}
	if *jsonl {
		err = chunkJSONL(e, pl, w, files, *jobs, bar)
	} else {
		for i, f := range files {
			srcs[i] = pipelineSource(e, f)
			srcs[i].Progress = func(done, pages int) {
				if want := sizes[i] * int64(done) / int64(max(pages, 1)) / 2; want > added[i] {
					bar.Add(want - added[i])
					added[i] = want
				}
			}
		}
		i := 0
		err = pl.Stream(e.ctx, srcs, *jobs, offsetsOnly, func(it pipeline.Item) error {
			if !it.Source.IsAttachment() {
				bar.Add(sizes[i] - added[i])
				i++
			}
			if err := w.write(it, ""); err != nil {
				return err
			}
			// Each file's records go out when it is done: a later file
			// that fails, or takes the process down, loses no other's.
			return out.Flush()
		})
	}
	bar.Finish()
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if w.truncated > 0 {
		em, _ := pl.Embedder(e.ctx) // built already: chunks were embedded
		_, limit := embed.TokenizerOf(em)
		fmt.Fprintf(e.stderr, "gochunk chunk: %d chunks were longer than the embedder's %d tokens: it embedded only their start (size chunks in its tokens: leave --tokenizer out)\n", w.truncated, limit)
	}
	if c := pl.Config().Context; c.Mode == "llm" {
		if c.Estimate {
			est := w.estimate
			fmt.Fprintf(e.stderr, "gochunk chunk: context llm would take %d requests: %d prompt tokens (%d of them a document sent again, which a prompt cache serves) and about %d completion tokens (cl100k_base)\n",
				est.Requests, est.PromptTokens, est.RepeatedTokens, est.CompletionTokens)
		} else {
			u := w.usage
			fmt.Fprintf(e.stderr, "gochunk chunk: context llm: %d requests (%d answered from the cache), %d prompt tokens (%d read from the server's prompt cache), %d completion tokens\n",
				u.Calls, u.CachedCalls, u.PromptTokens, u.CachedPromptTokens, u.CompletionTokens)
		}
	}
	switch {
	case e.ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "gochunk chunk: interrupted")
		return exitInterrupted
	case err != nil:
		return fail(e, "chunk", fmt.Errorf("write: %w", err))
	}
	return w.code
}

// writer writes the results of gochunk chunk in input order.
type writer struct {
	e      env
	out    io.Writer
	traces *json.Encoder
	line   []byte
	code   int
	// usage and estimate add up the results' context llm accounting.
	usage     gochunk.LLMUsage
	estimate  pipeline.ContextEstimate
	truncated int
}

// jsonlBatch bounds the documents of JSON Lines input chunked at once
// (and held in memory): this many, or this many bytes of text.
const (
	jsonlBatchDocs  = 256
	jsonlBatchBytes = 16 << 20
)

// chunkJSONL chunks the documents of JSON Lines files (or standard input),
// a batch at a time, writing the records of each batch as it is done; a
// line that is not a document is reported with its number.
func chunkJSONL(e env, pl *pipeline.Pipeline, w *writer, files []string, jobs int, bar *progress.Bar) error {
	var batch []pipeline.Source
	var where []string
	size := 0
	// written chunks the batch and writes its records; its error (a
	// failed write, or the command interrupted) ends the command.
	var werr error
	written := func() error {
		if len(batch) == 0 {
			return nil
		}
		k := 0
		werr = pl.Stream(e.ctx, batch, jobs, false, func(it pipeline.Item) error {
			name := it.Source.ID
			if !it.Source.IsAttachment() {
				name = where[k]
				bar.Add(int64(len(it.Source.Text)))
				k++
			}
			return w.write(it, name)
		})
		if werr == nil {
			werr = w.out.(*bufio.Writer).Flush()
		}
		batch, where, size = batch[:0], where[:0], 0
		return werr
	}
	for _, name := range files {
		var r io.Reader = e.stdin
		closeFile := func() {}
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintf(e.stderr, "gochunk chunk: %v\n", err)
				w.code = max(w.code, exitInput)
				continue
			}
			r, closeFile = f, func() { f.Close() }
		}
		err := pipeline.ReadJSONLines(e.ctx, r, name, func(src pipeline.Source, err error) error {
			if err != nil {
				fmt.Fprintf(e.stderr, "gochunk chunk: %v\n", err)
				w.code = max(w.code, exitInput)
				return nil
			}
			batch = append(batch, src)
			where = append(where, fmt.Sprintf("%s (id %q)", name, src.ID))
			if size += len(src.Text); len(batch) >= jsonlBatchDocs || size >= jsonlBatchBytes {
				return written()
			}
			return nil
		})
		closeFile()
		if werr == nil && e.ctx.Err() == nil {
			// The documents read before the end, or before a read error
			// that ends this input (not the others).
			written()
		}
		switch {
		case werr != nil:
			return werr
		case e.ctx.Err() != nil:
			return e.ctx.Err()
		case err != nil:
			fmt.Fprintf(e.stderr, "gochunk chunk: %v\n", err)
			w.code = max(w.code, exitInput)
		}
	}
	return nil
}

// write writes one input's records (or offsets, or trace) and reports its
// problems under name (default: its path, else its id); it returns an
// error only when writing failed, which ends the command.
func (w *writer) write(it pipeline.Item, name string) error {
	name = cmp.Or(name, it.Source.Path, it.Source.ID)
	if it.Loaded.Warning != "" {
		fmt.Fprintf(w.e.stderr, "gochunk chunk: %s: %s\n", name, it.Loaded.Warning)
	}
	if it.Err != nil {
		if it.Source.IsAttachment() && w.e.ctx.Err() == nil {
			// An attachment that cannot be read (broken, or of a format
			// gochunk refuses) is skipped with a warning naming it: its
			// message was read, and the run goes on as a success.
			fmt.Fprintf(w.e.stderr, "gochunk chunk: %s: attachment skipped: %s\n", name, strings.TrimPrefix(fileError(name, it.Err), name+": "))
			return nil
		}
		fmt.Fprintf(w.e.stderr, "gochunk chunk: %s\n", fileError(name, it.Err))
		w.code = max(w.code, exitInput)
		return nil
	}
	w.usage.Merge(it.Result.ContextUsage)
	w.truncated += it.Result.Truncated
	w.estimate.Add(it.Result.ContextEstimate)
	if w.traces != nil && it.Result.Trace != nil {
		if err := w.traces.Encode(it.Result.Trace); err != nil {
			return fmt.Errorf("--debug-out: %w", err)
		}
	}
	for k := 0; k+1 < len(it.Offsets); k += 2 {
		w.line = record.AppendOffsets(w.line[:0], it.Offsets[k], it.Offsets[k+1])
		if _, err := w.out.Write(w.line); err != nil {
			return err
		}
	}
	return record.WriteJSONL(w.out, len(it.Result.Chunks), it.Result.AppendJSONL)
}

// fileError is err's message under the name of the file it concerns,
// named once: a reader that names the file itself (layout.ExtractPDF, an
// os error's path) is not named again.
func fileError(name string, err error) string {
	msg := err.Error()
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == name {
		msg = strings.Replace(msg, pe.Error(), pe.Op+": "+pe.Err.Error(), 1)
	}
	return fileMessage(name, msg)
}

// fileMessage is msg under the name of the file it concerns, named once.
// A chunker's "document \"NAME\": " under it (gochunk.WrapDocument) is the
// same name said again, and goes.
func fileMessage(name, msg string) string {
	if name == "" {
		return ": " + msg
	}
	for _, p := range []string{name + ": ", "document " + strconv.Quote(name) + ": "} {
		for strings.HasPrefix(msg, p) {
			msg = msg[len(p):]
		}
	}
	return name + ": " + msg
}
