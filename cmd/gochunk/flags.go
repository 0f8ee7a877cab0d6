package main

import (
	"github.com/gochunk/gochunk/internal/progress"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

// pipelineFlags returns the flags of a pipeline (package pipelineflag),
// writing notices and download progress on the command's stderr.
func pipelineFlags(e env) *pipelineflag.Flags {
	return &pipelineflag.Flags{Stderr: e.stderr, TTY: e.stderrTTY}
}

// bar returns a progress bar on stderr when --progress wants one.
func bar(e env, pf *pipelineflag.Flags, label string, total int64) *progress.Bar {
	return progress.New(e.stderr, label, total, total > 0 && pf.ShowProgress())
}

// pipelineSource is the source of input name ("-": standard input).
func pipelineSource(e env, name string) pipeline.Source {
	return pipeline.Source{Path: name, Reader: e.stdin, Metadata: map[string]any{"source": name}}
}
