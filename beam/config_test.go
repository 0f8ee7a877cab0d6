package chunkbeam

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
	"github.com/gochunk/gochunk/record"
)

// gochunk-beam reads a --config file as gochunk chunk does (through
// pipelineflag, as its main does): the file's parents and context template
// reach every record, and the command line overrides the file.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	var doc strings.Builder
	doc.WriteString("# Guide\n\n")
	for range 30 {
		doc.WriteString("The harbour keeps its boats in rows along the quay. ")
	}
	os.WriteFile(filepath.Join(dir, "guide.md"), []byte(doc.String()), 0o644)
	cfgPath := filepath.Join(t.TempDir(), "best.yaml")
	os.WriteFile(cfgPath, []byte("chunker: recursive\nsize: 60\nparents: 300\ncontext_template: 'GUIDE {{.Title}} | {{.Text}}'\n"), 0o644)
	for _, tc := range []struct {
		args    []string
		parents bool
	}{{[]string{"--config", cfgPath}, true}, {[]string{"--config", cfgPath, "--parents", "0"}, false}} {
		pf := &pipelineflag.Flags{Stderr: io.Discard}
		fs := flag.NewFlagSet("gochunk-beam", flag.ContinueOnError)
		pf.Register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := pf.Config()
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "rec")
		run(t, Options{Input: filepath.Join(dir, "*.md"), Output: out, Config: cfg})
		got := lines(t, out+"-0*-of-*.jsonl")
		if len(got) < 3 {
			t.Fatalf("%v: records %q", tc.args, got)
		}
		for _, l := range got {
			var r record.Record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			if r.TokenCount > 60 || (r.Parent != nil) != tc.parents || !strings.HasPrefix(r.EmbedText, "GUIDE Guide | ") {
				t.Errorf("%v: record %s", tc.args, l)
			}
		}
	}
}

// A JSON line's id is its records' source and its metadata is on each of
// them, as gochunk chunk --jsonl writes them.
func TestJSONLinesMetadataOnRecords(t *testing.T) {
	in := filepath.Join(t.TempDir(), "docs.jsonl")
	os.WriteFile(in, []byte(`{"id": "a", "text": "First document. It has two sentences.", "metadata": {"lang": "en", "url": "https://example.com/a"}}
{"id": "b", "text": "Second one.", "metadata": [1]}
`), 0o644)
	out := filepath.Join(t.TempDir(), "rec")
	run(t, Options{Input: in, JSONL: true, Output: out, Config: pipeline.Config{Chunker: "sentence", Params: json.RawMessage(`{"size": 200}`)}})
	got := lines(t, out+"-0*-of-*.jsonl")
	if len(got) != 1 {
		t.Fatalf("records %q", got)
	}
	for _, l := range got {
		if !strings.Contains(l, `"source":"a"`) || !strings.Contains(l, `"metadata":{"lang":"en","url":"https://example.com/a"}`) {
			t.Errorf("record %s", l)
		}
	}
	if dead := lines(t, out+"-failed-*"); len(dead) != 1 || !strings.Contains(dead[0], `"id":"b"`) || !strings.Contains(dead[0], `\"metadata\" must be an object`) {
		t.Errorf("dead letters %q", dead)
	}
}
