// Command gochunk-beam chunks a corpus on Apache Beam: the records of
// gochunk chunk, sharded, from files matched by --input (or JSON Lines of
// {"id", "text", "metadata"} with --jsonl). Prism, Beam's runner in
// process, is the default; --runner flink, spark or dataflow (with Beam's
// usual --endpoint, --project, --region, --temp_location, …) run it on a
// cluster. The chunking flags are gochunk chunk's.
//
//	gochunk-beam --input 'docs/*.md' --output out/records --chunker markdown --size 400
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"

	"github.com/gochunk/gochunk/beam"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

func main() {
	// gochunk chunk's flags, but its --input (the kind of input, here told
	// by each file's extension), which is the glob here.
	pf := &pipelineflag.Flags{Stderr: os.Stderr}
	chunkFlags := flag.NewFlagSet("gochunk", flag.ContinueOnError)
	pf.Register(chunkFlags)
	chunkFlags.VisitAll(func(f *flag.Flag) {
		if flag.CommandLine.Lookup(f.Name) == nil && f.Name != "input" {
			flag.CommandLine.Var(f.Value, f.Name, f.Usage)
		}
	})
	var opt chunkbeam.Options
	flag.StringVar(&opt.Input, "input", "", "glob of the documents (text, markdown, HTML, PDF), or of JSON Lines files with --jsonl")
	flag.BoolVar(&opt.JSONL, "jsonl", false, "the input files are JSON Lines of {\"id\", \"text\", \"metadata\"}")
	flag.StringVar(&opt.Output, "output", "", "prefix of the record shards, PREFIX-SSSSS-of-NNNNN.jsonl")
	flag.IntVar(&opt.Shards, "shards", 4, "number of record shards")
	flag.StringVar(&opt.DeadLetter, "dead_letter", "", "prefix of the failed documents' shards (default PREFIX-failed)")
	flag.StringVar(&opt.Store, "store", "", "also write every document's chunks into this store (a postgres:// URL, as gochunk index; then --output may be left out)")
	flag.BoolVar(&pf.Cfg.EmbedChunks, "embed-chunks", false, "add each chunk's embedding (--embedder), batched per bundle")
	if flag.Lookup("runner").Value.String() == "" {
		flag.Set("runner", "prism")
	}
	flag.Parse()
	// The chunking flags' own set must know which were given (a --size
	// overrides the --config file).
	flag.Visit(func(f *flag.Flag) {
		if chunkFlags.Lookup(f.Name) != nil && f.Name != "input" {
			chunkFlags.Set(f.Name, f.Value.String())
		}
	})
	beam.Init()
	if opt.Input == "" || opt.Output == "" && opt.Store == "" {
		fmt.Fprintln(os.Stderr, "gochunk-beam: give --input GLOB and --output PREFIX (or --store)")
		os.Exit(2)
	}
	cfg, err := pf.Config()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gochunk-beam:", err)
		os.Exit(2)
	}
	cfg.Embedder.Notice, cfg.Embedder.Progress = nil, nil
	opt.Config = cfg
	p, s := beam.NewPipelineWithRoot()
	if err := chunkbeam.Build(s, opt); err != nil {
		fmt.Fprintln(os.Stderr, "gochunk-beam:", err)
		os.Exit(2)
	}
	if err := beamx.Run(context.Background(), p); err != nil {
		fmt.Fprintln(os.Stderr, "gochunk-beam:", err)
		os.Exit(1)
	}
}
