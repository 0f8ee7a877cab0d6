package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
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

// The end state: a directory of office documents, an EPUB, a PDF
// and an e-mail whose attachments (a Word file, a PDF) are documents of
// their own indexes on a machine without Poppler or Python (PATH empty
// once the files are made); indexing again changes nothing, and an
// attachment the message loses is deleted with it.
func TestMixedDirectoryWithoutPrograms(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("skipping: pandoc is not installed (apt-get install pandoc; .ci/run does it)")
	}
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "src.md")
	os.WriteFile(src, []byte("# Zoo guide\n\n## Lions\n\nLions sleep twenty hours a day.\n"), 0o644)
	for _, kind := range []string{"docx", "odt", "epub"} {
		if b, err := exec.Command("pandoc", src, "--metadata", "title=Zoo guide", "-o", filepath.Join(dir, "zoo."+kind)).CombinedOutput(); err != nil {
			t.Fatalf("pandoc %s: %v %s", kind, err, b)
		}
	}
	attached := filepath.Join(t.TempDir(), "feeding.md")
	os.WriteFile(attached, []byte("# Feeding\n\nThe otters eat six meals of herring.\n"), 0o644)
	docxPath := filepath.Join(t.TempDir(), "feeding.docx")
	if b, err := exec.Command("pandoc", attached, "-o", docxPath).CombinedOutput(); err != nil {
		t.Fatalf("pandoc: %v %s", err, b)
	}
	docx, _ := os.ReadFile(docxPath)
	var pdf bytes.Buffer
	if err := pdfgen.Write(&pdf, pdfgen.TwoColumn("Penguin Census", []string{"The penguins number two hundred and twelve this spring.", "Their colony moved to the northern rocks."}, "Zoo Reports")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "census.pdf"), pdf.Bytes(), 0o644)
	mail := func(atts ...mailgen.Attachment) {
		os.WriteFile(filepath.Join(dir, "keeper.eml"), mailgen.Message("Reports", "Both reports are attached.", atts...), 0o644)
	}
	mail(mailgen.Attachment{Name: "feeding.docx", Media: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: docx},
		mailgen.Attachment{Name: "census.pdf", Media: "application/pdf", Data: pdf.Bytes()})
	t.Setenv("PATH", t.TempDir())

	// chunk: the message, then its attachments, each with its own source
	// (MESSAGE/NAME).
	out, errs, code := runCmd(t, "", "chunk", filepath.Join(dir, "keeper.eml"))
	if code != 0 {
		t.Fatalf("chunk: exit %d: %s", code, errs)
	}
	sources := map[string]string{}
	for _, r := range decodeLines(t, out) {
		sources[r.Source] += r.Text
	}
	eml := filepath.Join(dir, "keeper.eml")
	if !strings.Contains(sources[eml+"/feeding.docx"], "six meals of herring") || !strings.Contains(sources[eml+"/census.pdf"], "two hundred and twelve") ||
		!strings.Contains(sources[eml], "Both reports are attached.") || strings.Contains(sources[eml], "herring") {
		t.Fatalf("chunks by source: %q", sources)
	}

	db := filepath.Join(t.TempDir(), "zoo.db")
	type summary struct {
		Documents struct{ Added, Unchanged, Deleted, Failed int }
	}
	index := func() summary {
		t.Helper()
		out, errs, code := runCmd(t, "", "index", "--store", db, "--json", dir)
		if code != 0 {
			t.Fatalf("index: exit %d: %s %s", code, out, errs)
		}
		var s summary
		json.Unmarshal([]byte(out), &s)
		return s
	}
	// zoo.docx, zoo.odt, zoo.epub, census.pdf, keeper.eml and its two.
	if s := index(); s.Documents.Added != 7 || s.Documents.Failed != 0 {
		t.Fatalf("first index: %+v", s)
	}
	if s := index(); s.Documents.Unchanged != 5 || s.Documents.Added+s.Documents.Deleted != 0 {
		t.Fatalf("second index: %+v", s)
	}
	for q, doc := range map[string]string{"herring meals": "keeper.eml/feeding.docx", "penguins two hundred twelve": "census.pdf", "lions sleep": "zoo."} {
		out, _, _ := runCmd(t, "", "search", "--store", db, "--mode", "keyword", "--json", q)
		if !strings.Contains(strings.SplitN(out, "\n", 2)[0], doc) {
			t.Errorf("search %q: %.300s", q, out)
		}
	}
	mail(mailgen.Attachment{Name: "feeding.docx", Media: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: docx})
	if s := index(); s.Documents.Deleted != 1 || s.Documents.Unchanged != 4 {
		t.Fatalf("index after the PDF left the message: %+v", s)
	}
}
