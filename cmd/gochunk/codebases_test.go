package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/eval"
)

// fileHeading is a line of the codebases set's wrapper: "# owner/repo/path",
// a path of three or more parts without spaces.
var fileHeading = regexp.MustCompile(`(?m)^# ([^\s/]+/[^\s/]+/\S+)\n\n`)

// unwrapCodebases writes ../shared/eval/codebases as a data set of real
// files (eval.LoadFiles): each corpus, a markdown file wrapping its
// codebase's files under "# owner/repo/path" headings, is split at those
// headings into files/owner/repo/path, and each reference is moved into its
// file (code-point offsets shifted). It returns the directory, and the
// number of references that did not fall inside one file (dropped with
// their question).
func unwrapCodebases(t *testing.T, src, dst string) (string, int) {
	t.Helper()
	ds, err := eval.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		path       string
		start, end int // code points in the corpus
	}
	files := map[string][]file{}
	for _, c := range ds.Corpora {
		text := c.Text
		locs := fileHeading.FindAllStringSubmatchIndex(text, -1)
		if len(locs) == 0 {
			t.Fatalf("corpus %s has no file headings", c.ID)
		}
		runeAt := func(b int) int { return len([]rune(text[:b])) }
		for k, loc := range locs {
			path := text[loc[2]:loc[3]]
			body, end := loc[1], len(text)
			if k+1 < len(locs) {
				end = locs[k+1][0]
			}
			content := strings.TrimSuffix(text[body:end], "\n") // the blank line between files
			if err := os.MkdirAll(filepath.Join(dst, "files", filepath.Dir(path)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, "files", path), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			start := runeAt(body)
			files[c.ID] = append(files[c.ID], file{path, start, start + len([]rune(content))})
		}
	}
	var out strings.Builder
	dropped := 0
	for _, q := range ds.Questions {
		nq := eval.Question{ID: q.ID, Text: q.Text}
		ok := true
		for _, r := range q.References {
			found := false
			for _, f := range files[r.Corpus] {
				if r.Start >= f.start && r.End <= f.end {
					nq.References = append(nq.References, eval.Reference{Corpus: f.path, Start: r.Start - f.start, End: r.End - f.start, Content: r.Content})
					found = true
					break
				}
			}
			if !found {
				dropped++
				ok = false
			}
		}
		if ok {
			b, _ := json.Marshal(nq)
			out.Write(append(b, '\n'))
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "questions.jsonl"), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst, dropped
}

// The codebases set as real files: every reference still reads its text
// at its shifted offsets, and eval chunks the files as code. With
// GOCHUNK_CODEBASES_OUT set, the converted set is written there, for
// `gochunk eval --dataset DIR` (the README's measurement).
func TestCodebasesAsFiles(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "eval", "codebases")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", src)
	}
	dst := os.Getenv("GOCHUNK_CODEBASES_OUT")
	if dst == "" {
		dst = t.TempDir()
	}
	dir, dropped := unwrapCodebases(t, src, dst)
	ds, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Questions) < 100 || len(ds.Corpora) < 40 {
		t.Fatalf("%d questions, %d files (%d references dropped)", len(ds.Questions), len(ds.Corpora), dropped)
	}
	for _, q := range ds.Questions {
		for _, r := range q.References {
			text := []rune(ds.Corpus(r.Corpus).Text)
			if r.Content != "" && strings.TrimSpace(string(text[r.Start:r.End])) != strings.TrimSpace(r.Content) {
				t.Fatalf("question %q: the reference in %s [%d:%d] does not read its content", q.Text, r.Corpus, r.Start, r.End)
			}
		}
	}
	t.Logf("%d files, %d questions, %d references dropped (across files)", len(ds.Corpora), len(ds.Questions), dropped)
	out, errs, code := runCmd(t, "", "eval", "--dataset", dir, "--chunker", "code", "--tokenizer", "cl100k_base", "--size", "100",
		"--return-tokens", "700", "--merge", "2", "--sweep", "context=none,headings", "--sweep", "parents=0,600", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Configs []struct {
			Name    string
			Overall map[string]float64 `json:"overall"`
		}
		Comparisons []struct {
			Config, Metric string
			Diff           float64
			Lo             float64 `json:"ci_low"`
			Hi             float64 `json:"ci_high"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Configs) != 4 {
		t.Fatalf("report %s", out)
	}
	for _, c := range rep.Configs {
		t.Logf("%-40s recall %.1f", c.Name, 100*c.Overall["recall"])
	}
	for _, c := range rep.Comparisons {
		if c.Metric == "recall" {
			t.Logf("%-40s %+.1f [%+.1f, %+.1f]", c.Config, 100*c.Diff, 100*c.Lo, 100*c.Hi)
		}
	}
}
