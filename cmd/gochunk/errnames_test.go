package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/cfbgen"
	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
)

// Each error names its file once, whatever the reader: a PDF reader that
// names the file itself, an os error's path, an e-mail reader, a refusal.
func TestErrorsNameTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"bomb.pdf":   pdfgen.FormBomb(20),
		"broken.eml": []byte("no header in this message\r\n"),
		"scan.png":   []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
	}
	var paths []string
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	paths = append(paths, filepath.Join(dir, "missing.pdf"))
	check := func(cmd, errs string, want []string) {
		t.Helper()
		for _, path := range want {
			found := false
			for line := range strings.Lines(errs) {
				if n := strings.Count(line, path); n > 0 {
					found = true
					if n != 1 {
						t.Errorf("%s names %s %d times: %q", cmd, path, n, line)
					}
				}
			}
			if !found {
				t.Errorf("%s: %s not named in %q", cmd, path, errs)
			}
		}
	}
	_, errs, code := runCmd(t, "", append([]string{"chunk"}, paths...)...)
	if code == 0 {
		t.Errorf("chunk: exit 0")
	}
	check("chunk", errs, paths)
	for _, path := range paths {
		_, errs, _ := runCmd(t, "", "extract", path)
		check("extract", errs, []string{path})
	}
	_, errs, _ = runCmd(t, "", append([]string{"index", "--store", filepath.Join(dir, "s.db")}, paths[:3]...)...)
	check("index", errs, paths[:3])
}

// --max-text bounds the text read from one document (chunk, index and
// serve take it): a document with more is an error naming the bound.
func TestMaxTextFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.html")
	if err := os.WriteFile(path, []byte("<p>"+strings.Repeat("Glaciers carve valleys. ", 400)+"</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runCmd(t, "", "chunk", path); code != 0 || out == "" {
		t.Fatalf("default bound: exit %d, %q", code, errs)
	}
	out, errs, code := runCmd(t, "", "chunk", "--max-text", "1KiB", path)
	if code == 0 || out != "" || !strings.Contains(errs, "more than 1024 bytes of text") {
		t.Errorf("--max-text 1KiB: exit %d, %q", code, errs)
	}
	_, errs, code = runCmd(t, "", "index", "--store", filepath.Join(t.TempDir(), "s.db"), "--max-text", "1KiB", path)
	if code == 0 || !strings.Contains(errs, "more than 1024 bytes of text") {
		t.Errorf("index --max-text 1KiB: exit %d, %q", code, errs)
	}
	for _, cmd := range []string{"chunk", "index", "serve"} {
		_, help, _ := runCmd(t, "", cmd, "-h")
		for _, flag := range []string{"-max-text", "-text-ratio", "-pdf-memory"} {
			if !strings.Contains(help, flag) {
				t.Errorf("%s -h does not list %s", cmd, flag)
			}
		}
	}
}

// A message whose attachment cannot be read (broken, or of a format
// gochunk refuses) is read, and the attachment skipped with a warning
// naming it: chunk and index exit 0. A file given that fails still fails
// the run.
func TestBadAttachmentIsAWarning(t *testing.T) {
	dir := t.TempDir()
	eml := filepath.Join(dir, "m.eml")
	msg := mailgen.Message("Files", "See the files attached.",
		mailgen.Attachment{Name: "doc.pdf", Media: "application/pdf", Data: []byte("%PDF-1.4 broken")},
		mailgen.Attachment{Name: "locked.docx", Media: "application/octet-stream", Data: cfbgen.Legacy("EncryptedPackage")})
	if err := os.WriteFile(eml, msg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"chunk", eml}, {"index", "--store", filepath.Join(dir, "s.db"), eml}} {
		out, errs, code := runCmd(t, "", args...)
		if code != 0 || !strings.Contains(errs, eml+"/doc.pdf: attachment skipped: ") || !strings.Contains(errs, eml+"/locked.docx: attachment skipped: ") || !strings.Contains(errs, "encrypted with a password") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errs)
		}
		if args[0] == "chunk" && !strings.Contains(out, "See the files attached.") {
			t.Errorf("chunk: the message lost: %q", out)
		}
	}
	bad := filepath.Join(dir, "bad.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.4 broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"chunk", eml, bad}, {"index", "--store", filepath.Join(dir, "s2.db"), eml, bad}} {
		if _, errs, code := runCmd(t, "", args...); code != 1 || !strings.Contains(errs, bad+": ") {
			t.Errorf("%s with a bad file: exit %d, stderr %q", args[0], code, errs)
		}
	}
}
