package pipelineflag

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Numbers in configuration files keep their exact value on their way to
// the chunker's JSON configuration.
func TestReadParamsExactNumbers(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"c.yaml": "seed: 9007199254740993\nthreshold: 0.1\n",
		"c.json": `{"seed": 9007199254740993, "threshold": 0.1}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		params, err := ReadParams(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(params)
		if !strings.Contains(string(b), `"seed":9007199254740993`) || !strings.Contains(string(b), `"threshold":0.1`) {
			t.Errorf("%s: %s", name, b)
		}
	}
	if _, err := ReadParams(filepath.Join(dir, "none.yaml")); err == nil {
		t.Error("a missing file read")
	}
}

// The flags fill a configuration: the chunker's parameters from --config,
// overridden by --size, the chunker from the file unless given.
func TestFlagsConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("chunker: sentence\nsize: 100\nmin_sentences_per_chunk: 2\n"), 0o644)
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &Flags{}
	f.Register(fs)
	if err := fs.Parse([]string{"--config", file, "--size", "300", "--embedder", "lexical"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Chunker != "sentence" || !strings.Contains(string(cfg.Params), `"size":300`) || !strings.Contains(string(cfg.Params), `"min_sentences_per_chunk":2`) {
		t.Errorf("config %s %s", cfg.Chunker, cfg.Params)
	}
	if !f.IsSet("size") || f.IsSet("chunker") || f.ShowProgress() {
		t.Error("IsSet or ShowProgress")
	}
	p, err := f.Build(context.Background())
	if err != nil || p.Config().Chunker != "sentence" {
		t.Fatalf("build: %v", err)
	}
}

func TestCountVar(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
		ok   bool
	}{
		{nil, 0, true},
		{[]string{"--judge"}, -1, true},
		{[]string{"--judge=7"}, 7, true},
		{[]string{"--judge=0"}, 0, true},
		{[]string{"--judge=many"}, 0, false},
		{[]string{"--judge=-3"}, 0, false},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := 0
		CountVar(fs, &n, "judge", -1, "")
		err := fs.Parse(c.args)
		if (err == nil) != c.ok || (c.ok && n != c.want) {
			t.Errorf("%v: %d, %v", c.args, n, err)
		}
	}
}
