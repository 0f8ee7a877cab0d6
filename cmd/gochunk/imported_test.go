package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gochunk/gochunk/internal/npmtest"
)

// splitScript splits each corpus of a Chroma directory with LangChain.js's
// RecursiveCharacterTextSplitter and writes one CORPUS.jsonl of {"text"}
// per corpus, as a user exporting its chunks would.
const splitScript = `import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import fs from "fs";
import path from "path";
const [src, out, size] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const splitter = new RecursiveCharacterTextSplitter({ chunkSize: +size, chunkOverlap: 0 });
for (const f of fs.readdirSync(src).filter((f) => f.endsWith(".md") && f !== "README.md")) {
  const text = fs.readFileSync(path.join(src, f), "utf8");
  const chunks = await splitter.splitText(text);
  fs.writeFileSync(path.join(out, f.replace(/\.md$/, "") + ".jsonl"), chunks.map((c) => JSON.stringify({ text: c })).join("\n") + "\n");
}
`

// importedReport is the part of eval --json the imported-chunks tests
// read.
type importedReport struct {
	Configs []struct {
		Name    string
		Overall map[string]float64 `json:"overall"`
		Card    *struct {
			Chunks        int     `json:"chunks"`
			Offsets       int     `json:"offsets_exact"`
			Located       int     `json:"located_by_text"`
			NotFound      int     `json:"not_found"`
			Uncovered     float64 `json:"uncovered"`
			Unit          string  `json:"unit"`
			MaxTokens     int     `json:"max_tokens"`
			OverLimit     int     `json:"over_limit"`
			Deterministic *bool   `json:"deterministic"`
		} `json:"report_card"`
	}
	Comparisons []struct {
		Config, Baseline, Metric string
		Diff                     float64
		Lo                       float64 `json:"ci_low"`
		Hi                       float64 `json:"ci_high"`
	}
}

// LangChain.js's chunks of the development corpora, scored beside
// gochunk's at the same per-corpus chunk counts: every chunk is found in
// its corpus, nothing is lost, and gochunk's recursive chunker, which
// follows LangChain's, scores the same.
func TestEvalImportedLangChain(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "eval", "chroma")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", data)
	}
	node, dir := npmtest.Install(t, "npm-langchain", "@langchain/textsplitters@0.1.0", "@langchain/core@0.3.40")
	script := filepath.Join(dir, "split.mjs")
	if err := os.WriteFile(script, []byte(splitScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "langchain")
	if b, err := exec.Command(node, script, data, out, "800").CombinedOutput(); err != nil {
		t.Fatalf("LangChain.js: %v\n%s", err, b)
	}
	stdout, errs, code := runCmd(t, "", "eval", "--dataset", data, "--chunks", "langchain="+out, "--chunker", "recursive,adaptive", "--size", "800",
		"--budget", "like=langchain", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep importedReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Configs) != 3 || rep.Configs[0].Name != "langchain" {
		t.Fatalf("configs %+v", rep.Configs)
	}
	card := rep.Configs[0].Card
	if card == nil || card.Chunks == 0 || card.Located != card.Chunks || card.NotFound != 0 || card.Uncovered > 0.001 {
		t.Errorf("report card %+v", card)
	}
	for _, c := range rep.Configs[1:] {
		if c.Overall["chunks"] != rep.Configs[0].Overall["chunks"] {
			t.Errorf("%s: %v chunks, LangChain.js %v: not at the same budget", c.Name, c.Overall["chunks"], rep.Configs[0].Overall["chunks"])
		}
	}
	for _, c := range rep.Comparisons {
		t.Logf("%s vs %s, %s: %+.1f [%+.1f, %+.1f]", c.Config, c.Baseline, c.Metric, 100*c.Diff, 100*c.Lo, 100*c.Hi)
		if c.Config == "recursive size=800" && c.Metric == "recall" && math.Abs(c.Diff) > 0.02 {
			t.Errorf("gochunk's recursive chunker differs from LangChain.js's by %.3f in recall", c.Diff)
		}
	}
}

// chonkieScript chunks each corpus of a Chroma directory with
// @chonkiejs/core's RecursiveChunker and TokenChunker and writes their
// chunks as the library returns them ({text, startIndex, endIndex,
// tokenCount}), one directory per chunker.
const chonkieScript = `import { RecursiveChunker, TokenChunker } from "@chonkiejs/core";
import fs from "fs";
import path from "path";
const [src, out, size] = process.argv.slice(2);
const chunkers = {
  recursive: await RecursiveChunker.create({ chunkSize: +size }),
  token: await TokenChunker.create({ chunkSize: +size, chunkOverlap: 0 }),
};
for (const [name, chunker] of Object.entries(chunkers)) {
  fs.mkdirSync(path.join(out, name), { recursive: true });
  for (const f of fs.readdirSync(src).filter((f) => f.endsWith(".md") && f !== "README.md")) {
    const chunks = await chunker.chunk(fs.readFileSync(path.join(src, f), "utf8"));
    fs.writeFileSync(path.join(out, name, f.replace(/\.md$/, "") + ".jsonl"), chunks.map((c) => JSON.stringify(c)).join("\n") + "\n");
  }
}
`

// @chonkiejs/core's chunks of the development corpora, scored beside
// gochunk's at the same chunk counts: each is placed in its corpus (by its
// offsets, which are UTF-16 code units in JavaScript, or by its text where
// they are not code points), nothing is lost, and the report card says how
// many offsets were exact, that two runs gave the same chunks, and their
// sizes in cl100k_base tokens (800 characters are under 800 tokens).
func TestEvalImportedChonkie(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "eval", "chroma")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", data)
	}
	node, dir := npmtest.Install(t, "npm-chonkie-core", "@chonkiejs/core@0.0.11")
	script := filepath.Join(dir, "chonkie.mjs")
	if err := os.WriteFile(script, []byte(chonkieScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, again := t.TempDir(), t.TempDir()
	for _, o := range []string{out, again} { // two runs, for the determinism check
		if b, err := exec.Command(node, script, data, o, "800").CombinedOutput(); err != nil {
			t.Fatalf("@chonkiejs/core: %v\n%s", err, b)
		}
	}
	stdout, errs, code := runCmd(t, "", "eval", "--dataset", data, "--chunks", "chonkie-recursive="+filepath.Join(out, "recursive"),
		"--chunks", "chonkie-token="+filepath.Join(out, "token"), "--chunker", "recursive", "--size", "800", "--budget", "like=chonkie-recursive", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep importedReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Configs) != 3 {
		t.Fatalf("configs %+v", rep.Configs)
	}
	for _, c := range rep.Configs[:2] {
		card := c.Card
		if card == nil || card.Chunks == 0 || card.NotFound != 0 || card.Offsets == 0 || card.Uncovered > 0.001 {
			t.Errorf("%s: report card %+v", c.Name, card)
			continue
		}
		t.Logf("%s: %d chunks, %d offsets exact, recall %.3f, precision Ω %.3f", c.Name, card.Chunks, card.Offsets, c.Overall["recall"], c.Overall["precision_omega"])
	}
	if rep.Configs[2].Overall["chunks"] != rep.Configs[0].Overall["chunks"] {
		t.Errorf("gochunk's recursive made %v chunks, Chonkie's %v: not at the same budget", rep.Configs[2].Overall["chunks"], rep.Configs[0].Overall["chunks"])
	}
	// Two runs compared, and the sizes in cl100k_base tokens.
	stdout, errs, code = runCmd(t, "", "eval", "--dataset", data, "--chunker", "recursive", "--size", "800", "--tokenizer", "cl100k_base", "--json",
		"--chunks", "chonkie-recursive="+filepath.Join(out, "recursive")+","+filepath.Join(again, "recursive"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if c := rep.Configs[0].Card; c == nil || c.Deterministic == nil || !*c.Deterministic || c.Unit != "cl100k_base" || c.MaxTokens == 0 || c.OverLimit != 0 {
		t.Errorf("RecursiveChunker's card: determinism, sizes in cl100k_base: %+v", c)
	} else {
		t.Logf("two runs identical; the longest chunk %d cl100k_base tokens", c.MaxTokens)
	}
}
