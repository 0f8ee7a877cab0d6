package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/record"
)

func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func decodeLines(t *testing.T, out string) []record.Record {
	t.Helper()
	var recs []record.Record
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r record.Record
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("bad JSONL line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestChunkOutputFields(t *testing.T) {
	text := "Héllo wörld. " + strings.Repeat("Some more words follow here. ", 20)
	path := writeFile(t, "doc.txt", text)
	out, errs, code := runCmd(t, "", "chunk", path, "--chunker", "sentence", "--size", "60")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := decodeLines(t, out)
	if len(recs) < 2 {
		t.Fatalf("%d chunks", len(recs))
	}
	for i, r := range recs {
		if r.ChunkIndex != i || r.Source != path || r.TokenCount > 60 || r.TokenCount != utf8.RuneCountInString(r.Text) {
			t.Errorf("record %d: %+v", i, r)
		}
		if text[r.Start:r.End] != r.Text {
			t.Errorf("record %d: text does not match byte offsets", i)
		}
		if string([]rune(text)[r.StartRune:r.EndRune]) != r.Text {
			t.Errorf("record %d: text does not match rune offsets", i)
		}
	}
}

func TestChunkStdinAndConfig(t *testing.T) {
	cfg := writeFile(t, "c.yaml", "chunker: character\nseparator: \"|\"\nsize: 4\ntokenizer: words\n")
	out, errs, code := runCmd(t, "a b c|d e|f g h i j", "chunk", "--config", cfg, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := decodeLines(t, out)
	var got []string
	for _, r := range recs {
		got = append(got, r.Text)
		if r.Source != "-" {
			t.Errorf("source = %q", r.Source)
		}
	}
	if strings.Join(got, "/") != "a b c|/d e|/f g h i/j" {
		t.Errorf("chunks %q", got)
	}
	// Flags override the config file.
	out, _, code = runCmd(t, "a b c|d e|f g h i j", "chunk", "--config", cfg, "--size", "100")
	if code != 0 || len(decodeLines(t, out)) != 1 {
		t.Errorf("--size did not override the config: exit %d, %q", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	good := writeFile(t, "good.txt", "fine text")
	bad := writeFile(t, "bad.txt", "bad \xff utf8")
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown chunker", []string{"chunk", "--chunker", "nope", good}, 2, "unknown chunker"},
		{"unknown tokenizer", []string{"chunk", "--tokenizer", "gpt9", good}, 2, "unknown tokenizer"},
		{"zero size", []string{"chunk", "--size", "0", good}, 2, `"size" of recursive: want an integer from 1 to 1073741824, got 0`},
		{"overlap too big", []string{"chunk", "--size", "10", "--overlap", "10", good}, 2, "overlap"},
		{"unknown parameter", []string{"chunk", "--config", writeFile(t, "x.json", `{"sise": 3}`), good}, 2, "sise"},
		{"missing config", []string{"chunk", "--config", "/nonexistent.yaml", good}, 2, "config"},
		{"bad flag", []string{"chunk", "--frobnicate", good}, 2, "frobnicate"},
		{"unknown command", []string{"frob"}, 2, "unknown command"},
		{"missing file", []string{"chunk", "/nonexistent/file.txt"}, 1, "no such file"},
		{"invalid utf-8", []string{"chunk", bad}, 1, bad + ": invalid UTF-8 at byte 4"}, // the file named once
		{"one bad file among good", []string{"chunk", good, bad, good}, 1, "invalid UTF-8"},
		{"help", []string{"chunk", "--help"}, 0, "Usage"},
		{"repair", []string{"chunk", "--invalid-utf8", "repair", bad}, 0, "replaced"},
		{"extract invalid utf-8", []string{"extract", bad}, 1, bad + ": invalid UTF-8 at byte 4"},
		{"extract repair", []string{"extract", "--invalid-utf8", "repair", bad}, 0, "replaced"},
		{"extract bad policy", []string{"extract", "--invalid-utf8", "guess", bad}, 2, `invalid_utf8 "guess"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCmd(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errs, tc.err)
			}
			if code == 2 && out != "" {
				t.Errorf("usage error wrote to stdout: %q", out)
			}
		})
	}
	// The good files of a mixed run are still chunked, in order.
	out, _, _ := runCmd(t, "", "chunk", good, bad, good)
	if recs := decodeLines(t, out); len(recs) != 2 || recs[0].Source != good {
		t.Errorf("mixed run output: %q", out)
	}
}

func TestFlagsAfterFiles(t *testing.T) {
	p := writeFile(t, "a.txt", strings.Repeat("word ", 50))
	out, errs, code := runCmd(t, "", "chunk", p, "--size", "20", "--tokenizer", "words")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := len(decodeLines(t, out)); n != 3 {
		t.Errorf("%d chunks, want 3", n)
	}
}

func TestEmptyInput(t *testing.T) {
	out, errs, code := runCmd(t, "", "chunk", "-")
	if code != 0 || out != "" {
		t.Errorf("empty input: exit %d, out %q, err %q", code, out, errs)
	}
}

func TestChunkersList(t *testing.T) {
	out, _, code := runCmd(t, "", "chunkers", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	var list []struct {
		Name   string
		Params []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range list {
		names[c.Name] = true
		if len(c.Params) < 2 {
			t.Errorf("%s lists %d parameters", c.Name, len(c.Params))
		}
	}
	for _, want := range []string{"token", "character", "recursive", "sentence", "semchunk", "markdown", "code"} {
		if !names[want] {
			t.Errorf("chunker %q not listed", want)
		}
	}
	if out, _, _ := runCmd(t, "", "chunkers"); !strings.Contains(out, "keep_separator") {
		t.Errorf("text listing lacks parameters: %q", out)
	}
}

func TestBench(t *testing.T) {
	out, errs, code := runCmd(t, "", "bench", "--generate", "1", "--time", "1ms", "--chunkers", "recursive,token", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("output %q", out)
	}
	var r eval.Speed
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil || r.Chunker != "recursive" || r.MBPerSec <= 0 || r.Chunks == 0 {
		t.Errorf("result %+v, %v", r, err)
	}
	// What bench does not measure is refused, not ignored.
	if _, errs, code := runCmd(t, "", "bench", "--generate", "1", "--parents", "100"); code != 2 || !strings.Contains(errs, "--parents") {
		t.Errorf("bench --parents: exit %d, %q", code, errs)
	}
}

func TestEmbed(t *testing.T) {
	out, errs, code := runCmd(t, "The cat sat.\n\nStocks fell sharply.\n", "embed")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		var r struct {
			Index     int
			Embedding []float32
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Index != i || len(r.Embedding) != 1024 {
			t.Errorf("line %d: %v %+v", i, err, r.Index)
		}
	}
	if _, _, code := runCmd(t, "", "embed", "--embedder", "word2vec"); code != 2 {
		t.Errorf("unknown embedder: exit %d", code)
	}
	if _, _, code := runCmd(t, "", "embed", "/nonexistent.txt"); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
	if _, errs, code := runCmd(t, "", "embed", "--embedder", "static:/nonexistent-model-dir", "--offline"); code != 1 || !strings.Contains(errs, "bad model") {
		t.Errorf("missing model: exit %d, %s", code, errs)
	}
}

func TestSemanticChunkersCLI(t *testing.T) {
	text := "Pasta dough needs flour and eggs. Knead the pasta dough well. Boil the pasta in salted water.\n\n" +
		"Jupiter is the largest planet. The planet Jupiter has a red storm. Saturn is the next giant planet.\n\n" +
		"The football match ended in a draw. The football striker scored. Football fans sang in the stadium."
	path := writeFile(t, "three.txt", text)
	for _, name := range []string{"semantic", "savgol", "hierarchical", "dp", "cluster"} {
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		out, errs, code := runCmd(t, "", "chunk", "--chunker", name, "--size", "120", "--embedder", "lexical", "--debug-out", trace, path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		for _, r := range decodeLines(t, out) {
			if r.TokenCount > 120 || text[r.Start:r.End] != r.Text {
				t.Errorf("%s: bad record %+v", name, r)
			}
		}
		b, err := os.ReadFile(trace)
		if err != nil || !strings.Contains(string(b), `"breakpoints"`) {
			t.Errorf("%s: trace %q %v", name, b, err)
		}
	}
	if _, errs, code := runCmd(t, "", "chunk", "--chunker", "recursive", "--debug-out", filepath.Join(t.TempDir(), "x"), path); code != 2 {
		t.Errorf("--debug-out with a rule-based chunker: exit %d %s", code, errs)
	}
	if _, _, code := runCmd(t, "", "chunk", "--chunker", "dp", "--embedder", "word2vec", path); code != 2 {
		t.Errorf("unknown embedder: exit %d", code)
	}
	// A rule-based chunker never loads the embedder.
	if _, errs, code := runCmd(t, "", "chunk", "--chunker", "recursive", "--embedder", "static:/no/such/model", path); code != 0 {
		t.Errorf("rule-based chunker loaded the embedder: %s", errs)
	}
	page := filepath.Join(t.TempDir(), "inspect.html")
	if _, errs, code := runCmd(t, "", "inspect", "--chunker", "savgol", "--size", "120", "--out", page, path); code != 0 {
		t.Fatalf("inspect: %s", errs)
	}
	b, _ := os.ReadFile(page)
	for _, want := range []string{"window.GOCHUNK_DATA", `"curve":`, "Jupiter"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("inspect page lacks %q", want)
		}
	}
	for _, ref := range []string{`src="http`, `href="http`, "url(http"} {
		if strings.Contains(string(b), ref) {
			t.Errorf("inspect page refers to the network: %s", ref)
		}
	}
}

// fakeChat answers every chat completion with content.
func fakeChat(t *testing.T, content string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 42, "completion_tokens": 7},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLLMChunkersCLI(t *testing.T) {
	text := strings.Repeat("Cats purr. Dogs bark. Birds sing. ", 20)
	path := writeFile(t, "t.txt", text)
	srv := fakeChat(t, `{"split_after": [2]}`)
	out, errs, code := runCmd(t, "", "chunk", "--chunker", "llm-split", "--llm-url", srv.URL, "--llm-model", "m", "--size", "200", "--config", writeFile(t, "c.json", `{"piece_size": 20}`), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := decodeLines(t, out)
	if len(recs) < 2 {
		t.Fatalf("%d chunks", len(recs))
	}
	if u := recs[0].Stats.LLM; u == nil || u.Calls < 1 || u.PromptTokens < 42 {
		t.Errorf("accounting %+v", recs[0].Stats)
	}
	prop := fakeChat(t, `{"propositions": [{"text": "Cats purr.", "sources": [1]}]}`)
	out, errs, code = runCmd(t, "", "chunk", "--chunker", "propositions", "--llm-url", prop.URL, "--llm-model", "m", path)
	if code != 0 || !strings.Contains(out, `"derived":true`) {
		t.Fatalf("propositions: exit %d: %s %.200s", code, errs, out)
	}
	// No model: a usage error. Endpoint down: status 1, a reason, no chunks.
	if _, _, code := runCmd(t, "", "chunk", "--chunker", "llm-split", path); code != 2 {
		t.Errorf("no --llm-model: exit %d", code)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	out, errs, code = runCmd(t, "", "chunk", "--chunker", "llm-split", "--llm-url", url, "--llm-model", "m", path)
	if code != 1 || out != "" || !strings.Contains(errs, "unavailable") {
		t.Errorf("endpoint down: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// run runs the command line args in-process without signals.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// Without --out, inspect writes its page under the system's temporary
// directory and says where, never into the working directory.
func TestInspectWritesToTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path := writeFile(t, "doc.txt", "First paragraph about ships.\n\nSecond paragraph about trains.\n")
	_, errs, code := runCmd(t, "", "inspect", "--chunker", "recursive", "--size", "40", path)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	if _, err := os.Stat("inspect.html"); err == nil {
		os.Remove("inspect.html")
		t.Fatal("inspect wrote inspect.html into the working directory")
	}
	pages, _ := filepath.Glob(filepath.Join(tmp, "gochunk-inspect-*.html"))
	if len(pages) != 1 {
		t.Fatalf("pages under TMPDIR: %v (stderr %q)", pages, errs)
	}
	if !strings.Contains(errs, pages[0]) {
		t.Errorf("stderr %q does not name the page %s", errs, pages[0])
	}
	if b, _ := os.ReadFile(pages[0]); !strings.Contains(string(b), "window.GOCHUNK_DATA") {
		t.Errorf("the page holds no chunks")
	}
}
