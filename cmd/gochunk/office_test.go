package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A directory of mixed formats indexes like text: Word, PowerPoint, EPUB
// (made by pandoc from one markdown source), an e-mail and a text file;
// chunk sees a DOCX's structure (heading paths of the markdown chunker).
func TestOfficeDocuments(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("skipping: pandoc is not installed (apt-get install pandoc; .ci/run does it)")
	}
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "src.md")
	os.WriteFile(src, []byte("# Zoo guide\n\n## Lions\n\nLions sleep twenty hours a day.\n\n## Otters\n\nOtters hold hands while they sleep.\n\n| Animal | Meals |\n|---|---|\n| Lion | 1 |\n| Otter | 6 |\n"), 0o644)
	for _, kind := range []string{"docx", "pptx", "epub"} {
		if b, err := exec.Command("pandoc", src, "--metadata", "title=Zoo guide", "-o", filepath.Join(dir, "zoo."+kind)).CombinedOutput(); err != nil {
			t.Fatalf("pandoc %s: %v %s", kind, err, b)
		}
	}
	os.WriteFile(filepath.Join(dir, "note.eml"), []byte("From: keeper@zoo.example\r\nTo: staff@zoo.example\r\nSubject: Feeding times\r\n\r\nThe penguins eat at noon.\r\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("Giraffes have long necks."), 0o644)

	out, errs, code := runCmd(t, "", "chunk", "--chunker", "markdown", "--size", "60", filepath.Join(dir, "zoo.docx"))
	if code != 0 {
		t.Fatalf("chunk: exit %d: %s", code, errs)
	}
	found := false
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			Text     string
			Metadata map[string]any
		}
		json.Unmarshal([]byte(l), &rec)
		if strings.Contains(rec.Text, "Otters hold hands") {
			found = true
			if hs, _ := rec.Metadata["headings"].([]any); len(hs) < 2 || hs[len(hs)-1] != "Otters" {
				t.Errorf("the otters' chunk has the heading path %v", rec.Metadata["headings"])
			}
		}
	}
	if !found {
		t.Fatalf("no chunk of the DOCX holds its text:\n%s", out)
	}

	db := filepath.Join(t.TempDir(), "zoo.db")
	out, errs, code = runCmd(t, "", "index", "--store", db, "--json", dir)
	if code != 0 {
		t.Fatalf("index: exit %d: %s %s", code, out, errs)
	}
	var sum struct {
		Documents struct{ Added, Failed int }
	}
	json.Unmarshal([]byte(out), &sum)
	if sum.Documents.Added != 5 || sum.Documents.Failed != 0 {
		t.Fatalf("index: %s", out)
	}
	for q, doc := range map[string]string{"otters hold hands": "zoo.", "penguins noon": "note.eml", "giraffes necks": "plain.txt"} {
		out, _, _ := runCmd(t, "", "search", "--store", db, "--mode", "keyword", "--json", q)
		if !strings.Contains(strings.SplitN(out, "\n", 2)[0], doc) {
			t.Errorf("search %q: %.200s", q, out)
		}
	}
}
