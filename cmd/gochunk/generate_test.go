package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/npmtest"
)

// sentenceModel is a stub chat model for eval generate: it asks about the
// first whole sentence of the excerpt it is shown and quotes it.
func sentenceModel(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		window := strings.TrimSuffix(strings.TrimPrefix(req.Messages[len(req.Messages)-1].Content, "<excerpt>\n"), "\n</excerpt>")
		content := `{"question": "", "references": []}`
		if i := strings.Index(window, "The "); i >= 0 && strings.Contains(window[i:], ".") {
			s := window[i : i+strings.Index(window[i:], ".")+1]
			q, _ := json.Marshal("What do we learn from: " + strings.TrimPrefix(s, "The ") + "?")
			e, _ := json.Marshal(s)
			content = fmt.Sprintf(`{"question": %s, "references": [%s]}`, q, e)
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}},
			"usage": map[string]any{"prompt_tokens": 80, "completion_tokens": 15}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// From a directory of the user's documents to a data set to an
// evaluation: eval generate writes what eval --dataset reads; --estimate
// asks nothing; a missing model is a usage error.
func TestEvalGenerate(t *testing.T) {
	docs := t.TempDir()
	for k, topic := range []string{"harbour", "orchard"} {
		var b strings.Builder
		for i := range 15 {
			fmt.Fprintf(&b, "The %s record %d says the value is %d units. Some more words follow here to pad it out.\n\n", topic, i, i*13+k)
		}
		os.WriteFile(filepath.Join(docs, topic+".txt"), []byte(b.String()), 0o644)
	}
	url := sentenceModel(t)
	out := filepath.Join(t.TempDir(), "set")
	stdout, errs, code := runCmd(t, "", "eval", "generate", "--out", out, "--questions", "8", "--window", "300", "--min-relevance", "-1",
		"--llm-url", url, "--llm-model", "stub", "--price", "1,2", docs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "8 questions about 2 documents") || !strings.Contains(errs, "of 8 questions kept") || !strings.Contains(errs, "$") {
		t.Errorf("stdout %q, stderr %q", stdout, errs)
	}
	for _, f := range []string{"questions.csv", "harbour.md", "orchard.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	rep, errs, code := runCmd(t, "", "eval", "--dataset", out, "--chunker", "recursive", "--size", "100", "-k", "2")
	if code != 0 || !strings.Contains(rep, "recursive") {
		t.Fatalf("eval on the generated set: exit %d: %s %s", code, rep, errs)
	}
	est, errs, code := runCmd(t, "", "eval", "generate", "--out", out, "--questions", "8", "--window", "300", "--estimate", "--price", "1,2", docs)
	if code != 0 || !strings.Contains(est, "2 documents; 8 to ") || !strings.Contains(est, "prompt tokens") {
		t.Errorf("estimate: exit %d: %q %s", code, est, errs)
	}
	// Asked for more questions than the documents have windows, every
	// window is asked whatever happens: one number, not "N to N".
	est, errs, code = runCmd(t, "", "eval", "generate", "--out", out, "--questions", "500", "--window", "300", "--estimate", docs)
	if m := regexp.MustCompile(`^2 documents; (\d+) requests, (\d+) prompt tokens \(cl100k_base\)\n$`).FindStringSubmatch(est); code != 0 || m == nil {
		t.Errorf("estimate when every window is asked: exit %d: %q %s", code, est, errs)
	}
	if _, errs, code := runCmd(t, "", "eval", "generate", "--out", out, docs); code != 2 || !strings.Contains(errs, "--llm-model") {
		t.Errorf("no model: exit %d: %s", code, errs)
	}
	if _, errs, code := runCmd(t, "", "eval", "generate", docs); code != 2 || !strings.Contains(errs, "--out") {
		t.Errorf("no --out: exit %d: %s", code, errs)
	}
}

// tune --select ranks the families at an equal budget, writes the choice,
// and chunk reads it back with --config.
func TestTuneSelect(t *testing.T) {
	out := filepath.Join(t.TempDir(), "best.json")
	stdout, errs, code := runCmd(t, "", "tune", "--select", "--dataset", tinyDataset(t), "--families", "token,recursive,sentence",
		"--size", "20", "--return-tokens", "40", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "chosen: ") || !strings.Contains(errs, "recall (%)") || !strings.Contains(stdout, "written to "+out) {
		t.Errorf("stdout %q\nstderr %s", stdout, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil || cfg["size"] != float64(20) {
		t.Fatalf("%s: %v", b, err)
	}
	chunks, errs, code := runCmd(t, "Some text. More text here.", "chunk", "--config", out, "-")
	if code != 0 || !strings.Contains(chunks, `"text"`) {
		t.Errorf("chunk --config: exit %d: %s %s", code, chunks, errs)
	}
	if _, errs, code := runCmd(t, "", "tune", "--select", "--dataset", tinyDataset(t)); code != 2 || !strings.Contains(errs, "--out") {
		t.Errorf("no --out: exit %d: %s", code, errs)
	}
	// A time budget already spent: the first family is tried, the rest
	// are named as not tried, and the choice is the one tried.
	stdout, errs, code = runCmd(t, "", "tune", "--select", "--dataset", tinyDataset(t), "--families", "token,recursive,sentence",
		"--size", "20", "--return-tokens", "40", "--time", "1ns", "--out", out)
	if code != 0 || !strings.Contains(errs, "not tried within --time: recursive size=20, sentence size=20") || !strings.Contains(errs, "chosen: token") {
		t.Errorf("--time: exit %d\n%s", code, errs)
	}
}

// The whole path a user takes with their own documents: a directory, a
// generated data set (stub model), Chonkie's chunks of it beside gochunk's
// families in tune --select, the chosen configuration indexed and
// searched.
func TestOwnDocumentsEndToEnd(t *testing.T) {
	docs := t.TempDir()
	for k, topic := range []string{"harbour", "orchard", "quarry"} {
		var b strings.Builder
		for i := range 20 {
			fmt.Fprintf(&b, "The %s ledger entry %d records %d crates moved by the %s crew. Weather and tides were noted too.\n\n", topic, i, i*17+k, topic)
		}
		os.WriteFile(filepath.Join(docs, topic+".md"), []byte(b.String()), 0o644)
	}
	set := filepath.Join(t.TempDir(), "set")
	if _, errs, code := runCmd(t, "", "eval", "generate", "--out", set, "--questions", "12", "--window", "400", "--min-relevance", "-1",
		"--llm-url", sentenceModel(t), "--llm-model", "stub", docs); code != 0 {
		t.Fatalf("eval generate: exit %d: %s", code, errs)
	}
	node, dir := npmtest.Install(t, "npm-chonkie-core", "@chonkiejs/core@0.0.11")
	script := filepath.Join(dir, "chonkie.mjs")
	if err := os.WriteFile(script, []byte(chonkieScript), 0o644); err != nil {
		t.Fatal(err)
	}
	chonkie := t.TempDir()
	if b, err := exec.Command(node, script, set, chonkie, "300").CombinedOutput(); err != nil {
		t.Fatalf("@chonkiejs/core: %v\n%s", err, b)
	}
	best := filepath.Join(t.TempDir(), "best.json")
	_, errs, code := runCmd(t, "", "tune", "--select", "--dataset", set, "--chunks", "chonkie="+filepath.Join(chonkie, "recursive"),
		"--families", "token,recursive,sentence", "--size", "300", "--return-tokens", "600", "--out", best)
	if code != 0 {
		t.Fatalf("tune --select: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "chonkie") || !strings.Contains(errs, "chosen: ") || strings.Contains(errs, "chosen: chonkie") {
		t.Errorf("the ranking does not show Chonkie's chunks beside gochunk's, or chose them:\n%s", errs)
	}
	db := filepath.Join(t.TempDir(), "own.db")
	if _, errs, code := runCmd(t, "", "index", "--store", db, "--config", best, docs); code != 0 {
		t.Fatalf("index --config: exit %d: %s", code, errs)
	}
	out, errs, code := runCmd(t, "", "search", "--store", db, "quarry ledger entry 7")
	if code != 0 || !strings.Contains(out, "quarry") {
		t.Errorf("search: exit %d: %s %s", code, out, errs)
	}
}
