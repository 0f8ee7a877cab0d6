package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/gochunk/gochunk/embed"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk/pipeline"
)

func cmdEmbed(e env, args []string) int {
	fs := flagSet(e, "gochunk embed", `Usage: gochunk embed [flags] [FILE|-]

Reads one text per line (standard input when there is no FILE) and writes
one JSON object per line, {"index": i, "embedding": [...]}, in input order.
An empty line gets a zero vector.

Flags:
`)
	pf := pipelineFlags(e)
	pf.RegisterEmbedder(fs)
	batch := fs.Int("batch", 256, "lines embedded per call")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) > 1 {
		return fail(e, "embed", usagef("give at most one FILE"))
	}
	if *batch < 1 {
		return fail(e, "embed", usagef("--batch must be at least 1"))
	}
	ctx := e.ctx
	em, err := pipeline.NewEmbedder(ctx, pf.Embedder())
	if err != nil {
		return fail(e, "embed", err)
	}
	var in io.Reader = e.stdin
	if len(files) == 1 && files[0] != "-" {
		f, err := os.Open(files[0])
		if err != nil {
			return fail(e, "embed", err)
		}
		defer f.Close()
		in = f
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriterSize(e.stdout, 1<<16)
	defer out.Flush()
	enc := json.NewEncoder(out)
	index := 0
	var lines []string
	cut, limit := embed.Truncates(em)
	truncated := 0
	defer func() {
		if truncated > 0 {
			fmt.Fprintf(e.stderr, "gochunk embed: %d of %d lines were longer than the model's %d tokens: it embedded their first %d tokens\n", truncated, index, limit, limit)
		}
	}()
	flush := func() error {
		if len(lines) == 0 {
			return nil
		}
		for _, l := range lines {
			if cut != nil && cut(l) {
				truncated++
			}
		}
		vs, err := em.Embed(ctx, lines)
		if err != nil {
			return err
		}
		for _, v := range vs {
			if err := enc.Encode(struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			}{index, v}); err != nil {
				return err
			}
			index++
		}
		lines = lines[:0]
		return nil
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8.ValidString(line) {
			return fail(e, "embed", fmt.Errorf("line %d: invalid UTF-8", index+len(lines)+1))
		}
		lines = append(lines, line)
		if len(lines) == *batch {
			if err := flush(); err != nil {
				return fail(e, "embed", err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fail(e, "embed", fmt.Errorf("read: %w", err))
	}
	if err := flush(); err != nil {
		return fail(e, "embed", err)
	}
	return exitOK
}
