package main

import (
	"fmt"
	"os"

	"github.com/gochunk/gochunk/inspect"
)

func cmdInspect(e env, args []string) int {
	fs := flagSet(e, "gochunk inspect", `Usage: gochunk inspect [flags] FILE

Chunks FILE and writes a self-contained HTML page (no network needed to view
it), under the system's temporary directory unless --out names the file, showing the text coloured by chunk and, for the embedding-based chunkers,
the similarity curve with its smoothing, threshold and breakpoints, so you
can see why each chunk ended.

Flags:
`)
	pf := pipelineFlags(e)
	pf.Register(fs)
	out := fs.String("out", "", "the HTML `FILE` to write (- for standard output; default: a new file under the system's temporary directory)")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		return fail(e, "inspect", usagef("give one FILE"))
	}
	pf.Cfg.Trace = true
	pl, err := pf.Build(e.ctx)
	if err != nil {
		return fail(e, "inspect", err)
	}
	doc, err := pl.Load(e.ctx, pipelineSource(e, files[0]))
	defer doc.Release()
	if err != nil {
		return fail(e, "inspect", err)
	}
	res, err := pl.Chunk(e.ctx, doc.Document)
	if err != nil {
		return fail(e, "inspect", err)
	}
	w := e.stdout
	if *out != "-" {
		var f *os.File
		if *out == "" {
			f, err = os.CreateTemp("", "gochunk-inspect-*.html")
		} else {
			f, err = os.Create(*out)
		}
		if err != nil {
			return fail(e, "inspect", fmt.Errorf("the page cannot be written (give --out FILE, or - for standard output): %w", err))
		}
		defer f.Close()
		w = f
		*out = f.Name()
	}
	title := fmt.Sprintf("%s: %s, %s %s", files[0], pl.Config().Chunker, pl.Counter().Name(), pl.Config().Params)
	if err := inspect.WriteHTML(w, title, doc.Text, pl.Counter().Name(), res.Chunks, res.Trace); err != nil {
		return fail(e, "inspect", err)
	}
	if *out != "-" {
		fmt.Fprintf(e.stderr, "wrote %s: %d chunks\n", *out, len(res.Chunks))
	}
	return exitOK
}
