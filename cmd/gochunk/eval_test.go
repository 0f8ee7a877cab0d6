package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk/internal/onnxtest"
)

// tinyDataset writes a generic-format data set: two documents, three
// questions.
func tinyDataset(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	docs := `{"id": "cats", "text": "Cats sleep most of the day. They purr when content. A cat's whiskers sense motion.\n\nKittens open their eyes after a week."}
{"id": "money", "text": "Markets fell on Monday. Interest rates rose again. Investors moved to bonds as stocks dropped."}
`
	qs := `{"question": "When do kittens open their eyes?", "references": [{"doc_id": "cats", "start": 84, "end": 121, "content": "Kittens open their eyes after a week."}]}
{"question": "What did interest rates do?", "references": [{"doc_id": "money", "start": 24, "end": 50}]}
{"question": "What do whiskers sense?", "references": [{"doc_id": "cats", "start": 52, "end": 82}]}
`
	os.WriteFile(filepath.Join(dir, "documents.jsonl"), []byte(docs), 0o644)
	os.WriteFile(filepath.Join(dir, "questions.jsonl"), []byte(qs), 0o644)
	return dir
}

func TestEvalJSON(t *testing.T) {
	dir := tinyDataset(t)
	csvPath, htmlPath := filepath.Join(t.TempDir(), "r.csv"), filepath.Join(t.TempDir(), "r.html")
	out, errs, code := runCmd(t, "", "eval", "--dataset", dir, "--chunker", "sentence,recursive", "--sweep", "size=40,400", "-k", "1", "--json", "--csv", csvPath, "--html", htmlPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Questions int
		K         int
		Configs   []struct {
			Name      string
			Overall   map[string]float64            `json:"overall"`
			PerCorpus map[string]map[string]float64 `json:"per_corpus"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 3 || rep.K != 1 || len(rep.Configs) != 4 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range rep.Configs {
		for _, m := range []map[string]float64{c.Overall, c.PerCorpus["cats"], c.PerCorpus["money"]} {
			for _, key := range []string{"recall", "precision", "precision_omega", "iou"} {
				v, ok := m[key]
				if !ok || v < 0 || v > 1 {
					t.Errorf("%s: %s = %v (present %v)", c.Name, key, v, ok)
				}
			}
			if m["chunks"] < 1 {
				t.Errorf("%s: chunks %v", c.Name, m["chunks"])
			}
		}
	}
	if !strings.Contains(rep.Configs[0].Name, "size=40") {
		t.Errorf("config name %q", rep.Configs[0].Name)
	}
	if b, _ := os.ReadFile(csvPath); strings.Count(string(b), "\n") != 1+4*3 {
		t.Errorf("csv:\n%s", b)
	}
	if b, _ := os.ReadFile(htmlPath); !strings.Contains(string(b), "<svg") || strings.Contains(string(b), "http://") || strings.Contains(string(b), "https://") {
		t.Error("html report is not a self-contained page with charts")
	}
}

func TestEvalTable(t *testing.T) {
	out, errs, code := runCmd(t, "", "eval", "--dataset", tinyDataset(t), "--size", "60", "--retriever", "lexical", "--stitch", "2", "--cohesion")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"recall", "precision Ω", "IoU", "retriever dense:lexical", "Pk", "purity", "cohesion"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	if _, _, code := runCmd(t, "", "eval"); code != 2 {
		t.Errorf("no dataset: exit %d", code)
	}
	if _, errs, code := runCmd(t, "", "eval", "--dataset", "/nonexistent"); code != 1 || !strings.Contains(errs, "bad data set") {
		t.Errorf("missing dataset: exit %d %s", code, errs)
	}
	if _, _, code := runCmd(t, "", "eval", "--dataset", tinyDataset(t), "--sweep", "size"); code != 2 {
		t.Errorf("bad sweep: exit %d", code)
	}
	if _, _, code := runCmd(t, "", "eval", "--dataset", tinyDataset(t), "--chunker", "nope"); code != 2 {
		t.Errorf("unknown chunker: exit %d", code)
	}
}

func TestTune(t *testing.T) {
	out, errs, code := runCmd(t, "", "tune", "--dataset", tinyDataset(t), "--chunker", "sentence", "--param", "size=20:60:20", "--objective", "iou", "-k", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var best map[string]any
	if err := json.Unmarshal([]byte(out), &best); err != nil || best["chunker"] != "sentence" || best["size"] == nil {
		t.Fatalf("best config %q: %v", out, err)
	}
	if !strings.Contains(errs, "<- best") || strings.Count(errs, "sentence size=") != 3 {
		t.Errorf("table:\n%s", errs)
	}
	// The best config is usable as --config.
	cfg := filepath.Join(t.TempDir(), "best.json")
	os.WriteFile(cfg, []byte(out), 0o644)
	if _, errs, code := runCmd(t, "some text to chunk", "chunk", "--config", cfg); code != 0 {
		t.Errorf("best config rejected by chunk: %s", errs)
	}
	if _, _, code := runCmd(t, "", "tune", "--dataset", tinyDataset(t), "--param", "size=20:60:20", "--min-recall", "1.5"); code != 1 {
		t.Errorf("impossible recall: exit %d", code)
	}
	if _, _, code := runCmd(t, "", "tune", "--dataset", tinyDataset(t), "--param", "size=60:20:20"); code != 2 {
		t.Errorf("bad range: exit %d", code)
	}
}

// judgeServer is an OpenAI-compatible chat server on loopback that judges
// every passage useful and every claim supported.
func judgeServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		sys, user := req.Messages[0].Content, req.Messages[1].Content
		var ans any
		switch {
		case strings.Contains(sys, "You judge retrieved passages"):
			ans = map[string]any{"useful": slices.Repeat([]bool{true}, strings.Count(user, "<|start_passage_"))}
		case strings.Contains(sys, "You check statements"):
			ans = map[string]any{"claims": []any{map[string]any{"claim": "c", "supported": true}}}
		case strings.Contains(sys, "You answer questions"):
			ans = map[string]any{"answer": "Cats sleep a lot."}
		default:
			ans = map[string]any{"questions": []string{"how much do cats sleep"}, "noncommittal": false}
		}
		b, _ := json.Marshal(ans)
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": string(b)}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 5}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestEvalJudge(t *testing.T) {
	out, errs, code := runCmd(t, "", "eval", "--dataset", tinyDataset(t), "--size", "60", "-k", "2", "--judge",
		"--llm-url", judgeServer(t), "--llm-model", "judge", "--judge-price", "1,2", "--llm-rpm", "6000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"LLM context precision", "answer relevancy", "3 questions", "model calls", "$0."} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`bm25 .* 1\.00 ± 0\.00 +1\.00 ± 0\.00 +1\.00 ± 0\.00`).MatchString(out) {
		t.Errorf("every chunk useful and every claim supported should score 1:\n%s", out)
	}
	if _, errs, code := runCmd(t, "", "eval", "--dataset", tinyDataset(t), "--judge=2"); code != 2 || !strings.Contains(errs, "--llm-model") {
		t.Errorf("--judge without a model: exit %d: %s", code, errs)
	}
	if _, errs, code := runCmd(t, "", "eval", "--dataset", tinyDataset(t), "--judge=2", "--judge-price", "cheap"); code != 2 || !strings.Contains(errs, "IN,OUT") {
		t.Errorf("bad prices: exit %d: %s", code, errs)
	}
}

// --rerank onnx:DIR reorders the retrieved chunks by a cross-encoder: a
// model that scores only the word "sleep" puts the sleeping sentence first
// for both questions (BM25 retrieves both sentences, which share "cats"),
// so the reranked recall is exactly 0.5 (the sleep question found, the
// purr question lost) where the retrieval's is 1.
func TestEvalRerankONNX(t *testing.T) {
	// The model first: without python3-onnx the test skips at once,
	// before downloading ONNX Runtime's library.
	model := t.TempDir()
	onnxtest.Build(t, filepath.Join("..", "..", "embed", "testdata", "lexical_cross_encoder.py"), filepath.Join(model, "model.onnx"), "--weights", "0,0,0,0,1")
	lib := onnxtest.Library(t)
	os.WriteFile(filepath.Join(model, "tokenizer.json"), []byte(`{"normalizer":{"type":"BertNormalizer","lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},
"post_processor":{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]},
"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"sleep":4}}}`), 0o644)
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "documents.jsonl"), []byte(`{"id": "cats", "text": "Cats purr when they are content and calm. Cats sleep most of the day in the sun."}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(data, "questions.jsonl"), []byte(`{"question": "When do cats purr?", "references": [{"doc_id": "cats", "start": 0, "end": 41}]}
{"question": "How long do cats sleep?", "references": [{"doc_id": "cats", "start": 42, "end": 80}]}
`), 0o644)
	out, errs, code := runCmd(t, "", "eval", "--dataset", data, "--chunker", "sentence", "--size", "45", "-k", "1",
		"--rerank", "onnx:"+model, "--onnx-library", lib, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Configs []struct {
			Overall  map[string]float64            `json:"overall"`
			Reranked map[string]float64            `json:"reranked"`
			Latency  map[string]map[string]float64 `json:"latency"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	c := rep.Configs[0]
	if c.Overall["recall"] != 1 || c.Reranked["recall"] != 0.5 {
		t.Errorf("recall: retrieved %v, reranked %v", c.Overall, c.Reranked)
	}
	if _, ok := c.Latency["rerank"]; !ok {
		t.Errorf("no rerank latency: %v", c.Latency)
	}
	if _, errs, code := runCmd(t, "", "eval", "--dataset", data, "--rerank", "onnx:"+t.TempDir(), "--onnx-library", lib); code == 0 || !strings.Contains(errs, "model.onnx") {
		t.Errorf("a directory without a model: exit %d: %s", code, errs)
	}
}

// Context and parents are swept like parameters and compared at an equal
// budget of returned tokens.
func TestEvalContextAndLevels(t *testing.T) {
	dir := tinyDataset(t)
	out, errs, code := runCmd(t, "", "eval", "--dataset", dir, "--chunker", "sentence", "--size", "30", "--return-tokens", "60", "--merge", "2",
		"--sweep", "context=none,headings", "--sweep", "parents=0,90", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Configs []struct {
			Name       string
			Overall    map[string]float64 `json:"overall"`
			Efficiency struct {
				ReturnedTokens float64 `json:"returned_tokens"`
			} `json:"efficiency"`
		}
		Comparisons []struct{ Config, Metric string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Configs) != 4 || len(rep.Comparisons) == 0 {
		t.Fatalf("report %s", out)
	}
	for _, c := range rep.Configs {
		if !strings.Contains(c.Name, "context=") || !strings.Contains(c.Name, "parents=") {
			t.Errorf("config name %q", c.Name)
		}
		if c.Efficiency.ReturnedTokens <= 0 || c.Efficiency.ReturnedTokens > 60 {
			t.Errorf("%s: %.1f tokens returned a question, budget 60", c.Name, c.Efficiency.ReturnedTokens)
		}
	}
	for _, bad := range [][]string{{"--expand", "section"}, {"--merge", "1"}, {"--return-tokens", "-5"}} {
		if _, _, code := runCmd(t, "", append([]string{"eval", "--dataset", dir}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// gochunk chunk --context llm asks a chat model (a loopback stub here)
// for each chunk's context and reports what it asked; --context-estimate
// asks nothing and reports what it would.
func TestChunkContextLLM(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		w.Write([]byte(`{"choices": [{"message": {"content": "{\"context\": \"Part of a note on cats.\"}"}}], "usage": {"prompt_tokens": 50, "completion_tokens": 7}}`))
	}))
	defer srv.Close()
	text := "Cats sleep most of the day.\n\nKittens open their eyes after a week."
	out, errs, code := runCmd(t, text, "chunk", "--size", "30", "--context", "llm", "--llm-url", srv.URL, "--llm-model", "stub", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines {
		var rec struct {
			Text      string `json:"text"`
			EmbedText string `json:"embed_text"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.EmbedText != "Part of a note on cats.\n\n"+rec.Text {
			t.Errorf("record %s", l)
		}
	}
	if requests != len(lines) || !strings.Contains(errs, "context llm: 3 requests (0 answered from the cache), 150 prompt tokens") {
		t.Errorf("%d requests for %d chunks; stderr %q", requests, len(lines), errs)
	}
	_, errs, code = runCmd(t, text, "chunk", "--size", "30", "--context", "llm", "--context-estimate", "-")
	if code != 0 || requests != len(lines) || !strings.Contains(errs, "context llm would take 3 requests") {
		t.Errorf("estimate: exit %d, %d requests; stderr %q", code, requests, errs)
	}
}

// A segmentation data set (seams.json beside its texts, no questions) is
// reported on what it is scored on: one table of boundary scores, no
// retrieval tables of zeros.
func TestEvalSeamsOnlyReport(t *testing.T) {
	dir := t.TempDir()
	a := "Ships sail the open sea. Sailors trim the sails at dawn.\n\nThe harbour is busy with boats.\n\n"
	b := "Trains run on steel rails. The station clock strikes noon.\n\nPassengers board the carriages.\n"
	for name, text := range map[string]string{"one.txt": a + b, "two.txt": b + a} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seams := fmt.Sprintf(`{"one": [%d], "two": [%d]}`, len(a), len(b))
	if err := os.WriteFile(filepath.Join(dir, "seams.json"), []byte(seams), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCmd(t, "", "eval", "--dataset", dir, "--chunker", "recursive,sentence", "--size", "60")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "± 0.0") || strings.Contains(out, "precision Ω") {
		t.Errorf("retrieval tables printed for a data set without questions:\n%s", out)
	}
	for _, want := range []string{"no questions", "seam recall", "boundary precision", "recursive size=60", "sentence size=60"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 6 {
		t.Errorf("%d lines for two configurations:\n%s", n, out)
	}
}
