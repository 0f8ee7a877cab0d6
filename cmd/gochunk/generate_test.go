package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
}
