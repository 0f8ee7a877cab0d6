package pipelineflag

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
)

// What File writes for a run, read back with --config, is that run's
// configuration: the settings given on the command line (of every kind of
// flag: numbers, durations, sizes with units, modes, templates) and the
// chunker's; --progress is not written.
func TestFileRoundTrip(t *testing.T) {
	args := []string{"--parents", "300", "--context-template", "T {{.Title}} {{.Text}}", "--embedder", "static:org/model", "--llm-timeout", "3m",
		"--invalid-utf8", "repair", "--cache-limit", "1GiB", "--progress", "never", "--offline", "--input", "html", "--size", "999"}
	var f Flags
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	file := f.File("recursive", "cl100k_base", map[string]any{"size": 200})
	if _, ok := file["progress"]; ok {
		t.Errorf("--progress written: %v", file)
	}
	b, _ := json.Marshal(file)
	path := filepath.Join(t.TempDir(), "best.json")
	os.WriteFile(path, b, 0o644)

	g := Flags{Stderr: io.Discard}
	gs := flag.NewFlagSet("chunk", flag.ContinueOnError)
	g.Register(gs)
	if err := gs.Parse([]string{"--config", path}); err != nil {
		t.Fatal(err)
	}
	cfg, err := g.Config()
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if cfg.Chunker != "recursive" || cfg.Tokenizer != "cl100k_base" || string(cfg.Params) != `{"size":200}` || cfg.Parents != 300 ||
		cfg.Context.Mode != "template" || cfg.Context.Template != "T {{.Title}} {{.Text}}" || cfg.Embedder.Name != "static:org/model" ||
		cfg.LLM.Timeout != 3*time.Minute || cfg.InvalidUTF8 != gochunk.Repair || cfg.LLM.CacheBytes != 1<<30 || cfg.Embedder.DiskCacheBytes != 1<<30 ||
		!cfg.Embedder.Offline || cfg.Input != "html" {
		t.Errorf("%s read back as %+v", b, cfg)
	}
}

// serve's --config (Layer) takes the same keys for what serve has (the
// tokenizer, the embedder, …), hands back a chunking run's configuration
// (the chunker, its parameters, context, parents) for ChunkingConfig, and
// says why the settings of a chunking run serve does not make are not its.
func TestLayerNamesChunkingKeys(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f.RegisterResources(fs)
	fs.String("config", "", "")
	fs.Parse(nil)
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("tokenizer: cl100k_base\nembedder: static:org/model\n"), 0o644)
	if chunking, err := Layer(fs, path, func(string) string { return "" }); err != nil || chunking != nil || f.Cfg.Tokenizer != "cl100k_base" || f.Cfg.Embedder.Name != "static:org/model" {
		t.Errorf("resource keys: %v, %v, %+v", chunking, err, f.Cfg)
	}
	os.WriteFile(path, []byte("tokenizer: cl100k_base\nchunker: markdown\nsize: 300\nheading_path: false\nparents: 3000\ncontext: headings\n"), 0o644)
	chunking, err := Layer(fs, path, func(string) string { return "" })
	if err != nil || len(chunking) != 5 {
		t.Fatalf("chunking keys: %v, %v", chunking, err)
	}
	c, err := ChunkingConfig(path, chunking)
	if err != nil || c.Chunker != "markdown" || string(c.Params) != `{"heading_path":false,"size":300}` || c.Parents != 3000 || c.Context.Mode != "headings" {
		t.Errorf("ChunkingConfig: %+v (params %s), %v", c, c.Params, err)
	}
	if _, err := ChunkingConfig(path, map[string]any{"size": 300, "bogus": 1}); err == nil || !strings.Contains(err.Error(), `unknown setting "bogus"`) {
		t.Errorf("ChunkingConfig of a key recursive does not have: %v", err)
	}
	for body, want := range map[string]string{"input: pdf\n": `"input" is a setting of a chunking run`, "prot: 1\n": `unknown setting "prot"`} {
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := Layer(fs, path, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
	}
}
