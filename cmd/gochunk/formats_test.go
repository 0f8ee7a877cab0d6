package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk/internal/cfbgen"
)

// Every format is read or refused by name: extract, chunk and index exit
// 1 for an image or a Word 97-2003 file, naming it and what to do, and
// print none of its bytes; RTF and Outlook messages are read, never as
// their markup (issue 50: extract printed them and exited 0, chunk said
// "invalid UTF-8 at byte 0", RTF was indexed as markup).
func TestFormatsReadOrRefused(t *testing.T) {
	dir := t.TempDir()
	var pngData bytes.Buffer
	png.Encode(&pngData, image.NewGray(image.Rect(0, 0, 8, 8)))
	files := map[string][]byte{
		"scan.png":  pngData.Bytes(),
		"old.doc":   cfbgen.Legacy("WordDocument"),
		"notes.rtf": []byte(`{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard The otters eat herring.\par}`),
		"mail.msg": cfbgen.Message{Subject: "Feeding times", Body: "The penguins eat at noon.",
			Attachments: []cfbgen.Attachment{{Name: "menu.txt", Mime: "text/plain", Data: []byte("Herring and squid.")}}}.Msg(),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	for name, want := range map[string]string{
		"scan.png": "scan.png: an image (PNG): gochunk reads an image's text only by OCR, and no OCR models are configured",
		"old.doc":  "old.doc: a Word 97-2003 document (.doc): gochunk reads its successor, not this binary format (no well-kept reader of it in Go); convert it with LibreOffice: soffice --headless --convert-to docx old.doc",
	} {
		for _, cmd := range []string{"extract", "chunk"} {
			out, errs, code := runCmd(t, "", cmd, path(name))
			if code != 1 || out != "" || !strings.Contains(errs, want) {
				t.Errorf("%s %s: exit %d, stdout %.60q, stderr %q; want exit 1 and %q", cmd, name, code, out, errs, want)
			}
		}
	}
	for name, want := range map[string]string{"notes.rtf": "The otters eat herring.", "mail.msg": "# Feeding times\n\nThe penguins eat at noon.\n\nAttached, each a document of its own: menu.txt"} {
		out, errs, code := runCmd(t, "", "extract", path(name))
		if code != 0 || out != want {
			t.Errorf("extract %s: exit %d %q %s", name, code, out, errs)
		}
	}
	// chunk: the file read is chunked, the one refused reported.
	out, errs, code := runCmd(t, "", "chunk", path("notes.rtf"), path("scan.png"))
	if code != 1 || !strings.Contains(out, "The otters eat herring.") || strings.Contains(out, `\rtf`) || !strings.Contains(errs, "scan.png: an image (PNG)") {
		t.Errorf("chunk of both: exit %d %q %q", code, out, errs)
	}
	// index: the refused files reported and counted, the others indexed.
	db := filepath.Join(t.TempDir(), "s.db")
	out, errs, code = runCmd(t, "", "index", "--store", db, dir)
	if code != 1 || !strings.Contains(errs, "old.doc: a Word 97-2003 document") || !strings.Contains(out+errs, "1 failed") {
		t.Errorf("index: exit %d %q %q", code, out, errs)
	}
	out, errs, _ = runCmd(t, "", "search", "--store", db, "--json", "penguins herring otters")
	for _, w := range []string{"mail.msg", "notes.rtf", "menu.txt"} {
		if !strings.Contains(out, w) {
			t.Errorf("search: %s is not in the store: %s %s", w, out, errs)
		}
	}
}

// The shared collection (Unstructured's and MarkItDown's test files, 292
// real documents): gochunk extract reads each with plausible text (UTF-8,
// no NUL, no RTF or zip bytes, almost no U+FFFD) or refuses it by name,
// exit 1. The table by extension is logged (go test -v -run
// TestSharedDocumentsReadOrRefused ./cmd/gochunk).
func TestSharedDocumentsReadOrRefused(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "eval", "documents")
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/eval/documents is absent")
	}
	type row struct{ read, legacy, refused int }
	table := map[string]*row{}
	reasons := map[string]int{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext == "" {
			ext = "(none)"
		}
		if table[ext] == nil {
			table[ext] = &row{}
		}
		out, errs, code := runCmd(t, "", "extract", p)
		rel, _ := filepath.Rel(root, p)
		switch {
		case code == 0 && !utf8.ValidString(out):
			t.Errorf("%s: printed as invalid UTF-8: %.80q", rel, out)
		case code == 1 && out == "" && strings.Contains(errs, p+": invalid UTF-8") && strings.Contains(errs, "--invalid-utf8 "):
			// A text file in a legacy encoding (Latin-1, Shift-JIS):
			// refused as chunk refuses it, saying what reads it.
			table[ext].legacy++
		case code == 0:
			if bad := implausible(out); bad != "" {
				t.Errorf("%s: read as %s: %.80q", rel, bad, out)
			}
			table[ext].read++
		case code == 1 && out == "" && strings.Contains(errs, p+": "):
			table[ext].refused++
			msg := strings.TrimPrefix(strings.TrimSpace(errs), "gochunk extract: "+p+": ")
			if i := strings.IndexAny(msg, ":;("); i > 0 {
				msg = msg[:i]
			}
			reasons[ext+" "+msg]++
		default:
			t.Errorf("%s: exit %d, stdout %.40q, stderr %q: neither read nor refused by name", rel, code, out, errs)
		}
		return nil
	})
	exts := make([]string, 0, len(table))
	for e := range table {
		exts = append(exts, e)
	}
	slices.Sort(exts)
	var sb strings.Builder
	sb.WriteString("| extension | read | not UTF-8, refused saying what reads it | refused by name |\n| --- | ---: | ---: | ---: |\n")
	for _, e := range exts {
		fmt.Fprintf(&sb, "| %s | %d | %d | %d |\n", e, table[e].read, table[e].legacy, table[e].refused)
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&sb, "refused %d: %s\n", reasons[k], k)
	}
	t.Log("\n" + sb.String())
}

// implausible says what makes an extracted text not a reading of its
// document, or "".
func implausible(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "text with NUL bytes"
	case strings.Contains(s, `{\rtf`):
		return "RTF markup"
	case strings.Contains(s, "PK\x03\x04") || strings.Contains(s, "\xD0\xCF\x11\xE0"):
		return "the bytes of a zip or compound file"
	case strings.Count(s, "\uFFFD") > max(2, utf8.RuneCountInString(s)/100):
		return "mostly U+FFFD"
	}
	return ""
}
