package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
)

// embedFlags are the flags that choose an embedder.
type embedFlags struct {
	name, url, cacheDir  string
	dimensions           int
	offline              bool
	onnxBackend, onnxLib string
	onnxCUDA             bool
	onnxPooling          string
}

func (f *embedFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "embedder", "lexical", "embedder: lexical (built in), static:MODEL (Model2Vec directory or hub id), onnx:MODEL, openai:MODEL")
	fs.StringVar(&f.url, "embed-url", "", "base URL of an OpenAI-compatible API for openai:MODEL (default https://api.openai.com/v1; key from OPENAI_API_KEY)")
	fs.IntVar(&f.dimensions, "embed-dimensions", 0, "ask an openai:MODEL for vectors of this length")
	fs.StringVar(&f.cacheDir, "hf-cache", "", "Hugging Face cache directory for downloaded models (default $HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)")
	fs.BoolVar(&f.offline, "offline", false, "never download models (as HF_HUB_OFFLINE=1)")
	fs.StringVar(&f.onnxBackend, "onnx-backend", "go", "how onnx:MODEL runs: go (pure Go) or ort (ONNX Runtime: faster; needs a binary built with -tags ORT and libonnxruntime)")
	fs.StringVar(&f.onnxLib, "onnx-library", "", "path of libonnxruntime for --onnx-backend ort (default: the system's)")
	fs.BoolVar(&f.onnxCUDA, "onnx-cuda", false, "run --onnx-backend ort on a CUDA GPU")
	fs.StringVar(&f.onnxPooling, "onnx-pooling", "", "how onnx:MODEL pools token vectors: cls, mean or last (Qwen3-Embedding and other decoder models); default: the model's 1_Pooling/config.json")
}

// lazy returns a function that builds the embedder on first use only, so
// that commands load a model only when a chunker needs it.
func (f *embedFlags) lazy(e env) func() (gochunk.Embedder, error) {
	var once sync.Once
	var em gochunk.Embedder
	var err error
	return func() (gochunk.Embedder, error) {
		once.Do(func() {
			var x embed.Embedder
			x, err = f.build(e.ctx, e)
			if err == nil {
				em = embed.NewCached(x, embed.CacheOptions{})
			}
		})
		return em, err
	}
}

// build loads the embedder, drawing download progress on stderr when it
// is a terminal.
func (f *embedFlags) build(ctx context.Context, e env) (embed.Embedder, error) {
	var mu sync.Mutex
	opt := embed.Options{BaseURL: f.url, Dimensions: f.dimensions, CacheDir: f.cacheDir, Offline: f.offline,
		ONNXBackend: f.onnxBackend, ONNXRuntimeLibrary: f.onnxLib, ONNXCUDA: f.onnxCUDA, ONNXPooling: f.onnxPooling}
	if e.stderrTTY {
		opt.Progress = func(done, total int64, file string) {
			mu.Lock()
			defer mu.Unlock()
			if total > 0 {
				fmt.Fprintf(e.stderr, "\rdownloading %s: %.1f / %.1f MB", file, float64(done)/1e6, float64(total)/1e6)
				if done >= total {
					fmt.Fprintln(e.stderr)
				}
			}
		}
	}
	em, err := embed.New(ctx, f.name, opt)
	if err != nil {
		if errors.Is(err, embed.ErrName) {
			return nil, usageError{err}
		}
		return nil, err
	}
	return em, nil
}

func cmdEmbed(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk embed", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var ef embedFlags
	ef.register(fs)
	batch := fs.Int("batch", 256, "lines embedded per call")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: gochunk embed [flags] [FILE|-]

Reads one text per line (standard input when there is no FILE) and writes
one JSON object per line, {"index": i, "embedding": [...]}, in input order.
An empty line gets a zero vector.

Flags:
`)
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) > 1 {
		fmt.Fprintln(e.stderr, "gochunk embed: give at most one FILE")
		return exitUsage
	}
	if *batch < 1 {
		fmt.Fprintln(e.stderr, "gochunk embed: --batch must be at least 1")
		return exitUsage
	}
	ctx := e.ctx
	em, err := ef.build(ctx, e)
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk embed:", err)
		return exitCode(err)
	}
	var in io.Reader = e.stdin
	if len(files) == 1 && files[0] != "-" {
		f, err := os.Open(files[0])
		if err != nil {
			fmt.Fprintln(e.stderr, "gochunk embed:", err)
			return exitInput
		}
		defer f.Close()
		in = f
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriterSize(e.stdout, 1<<16)
	defer out.Flush()
	index := 0
	var lines []string
	flush := func() error {
		if len(lines) == 0 {
			return nil
		}
		vs, err := em.Embed(ctx, lines)
		if err != nil {
			return err
		}
		for _, v := range vs {
			b, err := json.Marshal(struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			}{index, v})
			if err != nil {
				return err
			}
			out.Write(b)
			out.WriteByte('\n')
			index++
		}
		lines = lines[:0]
		return nil
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8Valid(line) {
			fmt.Fprintf(e.stderr, "gochunk embed: line %d: invalid UTF-8\n", index+len(lines)+1)
			return exitInput
		}
		lines = append(lines, line)
		if len(lines) == *batch {
			if err := flush(); err != nil {
				fmt.Fprintln(e.stderr, "gochunk embed:", err)
				return exitInput
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(e.stderr, "gochunk embed: read:", err)
		return exitInput
	}
	if err := flush(); err != nil {
		fmt.Fprintln(e.stderr, "gochunk embed:", err)
		return exitInput
	}
	return exitOK
}
