package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// levelsText is a document long enough for parents of a few chunks.
func levelsText() string {
	var b strings.Builder
	b.WriteString("# Guide\n\n")
	for s := range 4 {
		b.WriteString("## Part " + string(rune('A'+s)) + "\n\n")
		for range 12 {
			b.WriteString("The harbour keeps its boats in rows along the quay. ")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// A --config file says the whole pipeline: a chunker's parameters beside
// parents, context and a context template (JSON or YAML), which chunk and
// index read alike; flags given override it.
func TestConfigFileWholePipeline(t *testing.T) {
	doc := writeFile(t, "guide.md", levelsText())
	dir := t.TempDir()
	cfg := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	parents := cfg("parents.json", `{"chunker": "recursive", "size": 60, "parents": 300}`)
	out, errs, code := runCmd(t, "", "chunk", "--config", parents, doc)
	if code != 0 {
		t.Fatalf("parents: exit %d: %s", code, errs)
	}
	recs := decodeLines(t, out)
	if len(recs) < 4 || recs[0].Parent == nil {
		t.Fatalf("parents: %d records, first parent %v", len(recs), recs[0].Parent)
	}
	for _, r := range recs {
		if r.TokenCount > 60 || r.Parent == nil || r.Parent.TokenCount > 300 {
			t.Errorf("record %d: %d tokens, parent %+v", r.ChunkIndex, r.TokenCount, r.Parent)
		}
	}
	// The command line overrides the file.
	out, errs, code = runCmd(t, "", "chunk", "--config", parents, "--parents", "0", "--size", "80", doc)
	longest := 0
	for _, r := range decodeLines(t, out) {
		longest = max(longest, r.TokenCount)
		if r.Parent != nil {
			t.Errorf("--parents 0 over the file: record %d has a parent", r.ChunkIndex)
		}
	}
	if code != 0 || longest <= 60 || longest > 80 {
		t.Errorf("--parents 0 --size 80 over the file: exit %d, longest chunk %d: %s", code, longest, errs)
	}

	for name, body := range map[string]string{
		"template.json":   `{"chunker": "recursive", "size": 60, "context_template": "GUIDE {{.Title}} | {{.Text}}"}`,
		"template.yaml":   "chunker: recursive\nsize: 60\ncontext:\n  mode: template\n  template: 'GUIDE {{.Title}} | {{.Text}}'\n",
		"template-hyphen": `{"chunker": "recursive", "size": 60, "context-template": "GUIDE {{.Title}} | {{.Text}}"}`,
	} {
		out, errs, code := runCmd(t, "", "chunk", "--config", cfg(name, body), doc)
		recs := decodeLines(t, out)
		if code != 0 || len(recs) == 0 || !strings.HasPrefix(recs[0].EmbedText, "GUIDE Guide | ") {
			t.Errorf("%s: exit %d, %s", name, code, errs)
			continue
		}
		// --context on the command line wins over the file's template.
		out, _, _ = runCmd(t, "", "chunk", "--config", cfg(name, body), "--context", "headings", doc)
		if recs := decodeLines(t, out); len(recs) == 0 || strings.HasPrefix(recs[0].EmbedText, "GUIDE") || recs[0].EmbedText == "" {
			t.Errorf("%s with --context headings: %+v", name, recs)
		}
	}

	// index reads it alike: the store is indexed with two levels, so a
	// search can return parents.
	db := filepath.Join(t.TempDir(), "s.db")
	if _, errs, code := runCmd(t, "", "index", "--no-embed", "--store", db, "--config", parents, doc); code != 0 {
		t.Fatalf("index --config: exit %d: %s", code, errs)
	}
	out, errs, code = runCmd(t, "", "search", "--store", db, "--mode", "keyword", "--expand", "parent", "--json", "harbour")
	if code != 0 || !strings.Contains(out, `"parent"`) {
		t.Errorf("search --expand parent of a store indexed with the file's parents: exit %d\n%s\n%s", code, out, errs)
	}
}

// A key that is neither a parameter of the chunker nor a setting of the
// pipeline is refused, naming it and both kinds of valid keys.
func TestConfigFileUnknownKey(t *testing.T) {
	p := writeFile(t, "bad.json", `{"chunker": "recursive", "size": 300, "parnets": 3000}`)
	for _, cmd := range [][]string{{"chunk", "--config", p, "-"}, {"index", "--no-embed", "--store", filepath.Join(t.TempDir(), "s.db"), "--config", p, "-"}} {
		_, errs, code := runCmd(t, "some text", cmd...)
		if code != 2 || !strings.Contains(errs, `unknown setting "parnets"`) || !strings.Contains(errs, "separators") || !strings.Contains(errs, "parents") || !strings.Contains(errs, "context_template") {
			t.Errorf("%s: exit %d: %s", cmd[0], code, errs)
		}
	}
	for body, want := range map[string]string{
		`{"chunker": "recursive", "parents": "many"}`:       `parents "many"`,
		`{"chunker": "recursive", "context": 7}`:            `context "7"`,
		`{"chunker": "recursive", "context": {"mod": "x"}}`: `unknown field "mod"`,
		`{"chunker": "recursive", "embedder": ["a", "b"]}`:  "want a single value",
		`{"chunker": "recursive", "input": "pdff"}`:         "pdff",
	} {
		_, errs, code := runCmd(t, "some text", "chunk", "--config", writeFile(t, "c.json", body), "-")
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d: %s", body, code, errs)
		}
	}
}

// eval reads the same file: its parents and context vary with the
// configuration; two files that disagree on a setting the evaluation
// shares are refused.
func TestConfigFileEval(t *testing.T) {
	dir := tinyDataset(t)
	a := writeFile(t, "a.json", `{"chunker": "sentence", "size": 30, "parents": 90, "context": "headings"}`)
	b := writeFile(t, "b.json", `{"chunker": "token", "size": 20}`)
	out, errs, code := runCmd(t, "", "eval", "--dataset", dir, "--return-tokens", "60", "--merge", "2", "--config", a, "--config", b, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct{ Configs []struct{ Name string } }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Configs) != 2 {
		t.Fatalf("report %v %s", err, out)
	}
	if n := rep.Configs[0].Name; !strings.Contains(n, "parents=90") || !strings.Contains(n, "context=headings") {
		t.Errorf("first configuration %q, want its file's parents and context", n)
	}
	c := writeFile(t, "c.json", `{"chunker": "token", "size": 20, "embedder": "static:some/model"}`)
	d := writeFile(t, "d.json", `{"chunker": "token", "size": 30, "embedder": "lexical"}`)
	if _, errs, code := runCmd(t, "", "eval", "--dataset", dir, "--config", c, "--config", d); code != 2 || !strings.Contains(errs, "embedder") || !strings.Contains(errs, "differs") {
		t.Errorf("two embedders: exit %d: %s", code, errs)
	}
}

// tune --select writes the whole configuration it measured: chunk and
// index given that file run it, parents and context included.
func TestTuneSelectWritesWholeConfig(t *testing.T) {
	out := filepath.Join(t.TempDir(), "best.json")
	_, errs, code := runCmd(t, "", "tune", "--select", "--dataset", tinyDataset(t), "--families", "token,sentence",
		"--size", "20", "--parents", "60", "--context", "headings", "--return-tokens", "40", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil || cfg["size"] != float64(20) || cfg["parents"] != float64(60) || cfg["context"] != "headings" {
		t.Fatalf("written %s: %v", b, err)
	}
	if _, ok := cfg["progress"]; ok {
		t.Errorf("written %s: --progress is not the pipeline's", b)
	}
	chunks, errs, code := runCmd(t, levelsText(), "chunk", "--config", out, "-")
	recs := decodeLines(t, chunks)
	if code != 0 || len(recs) == 0 || recs[0].Parent == nil || recs[0].EmbedText == "" {
		t.Errorf("chunk --config %s: exit %d: %s", b, code, errs)
	}
}
