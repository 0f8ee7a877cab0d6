package main

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/store"
)

// notifyWriter is an output that says when its first bytes arrive.
type notifyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan struct{}
	once  sync.Once
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.once.Do(func() { close(w.first) })
	return w.buf.Write(p)
}

func (w *notifyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// gochunk chunk writes each file's records as soon as that file is done:
// those of the files before one that has not ended (or that takes the
// process down) are out already. They stayed in the output's buffer.
func TestChunkWritesEachFileWhenDone(t *testing.T) {
	a := writeFile(t, "a.md", "# A\n\nThe first file.\n")
	pr, pw := io.Pipe()
	out := &notifyWriter{first: make(chan struct{})}
	code := make(chan int, 1)
	go func() { code <- run([]string{"chunk", a, "-"}, pr, out, io.Discard) }()
	select {
	case <-out.first:
	case <-time.After(2 * time.Minute):
		t.Fatal("a.md's records were not written while the next input was still being read")
	}
	if !strings.Contains(out.String(), "The first file.") {
		t.Errorf("first output %q", out.String())
	}
	io.WriteString(pw, "The second input.\n")
	pw.Close()
	if c := <-code; c != 0 || !strings.Contains(out.String(), "The second input.") {
		t.Errorf("exit %d, output %q", c, out.String())
	}
}

// brokenXLSX is a workbook whose first sheet reads and whose second sheet
// is cut short: the reader fails part way through the document.
func brokenXLSX(t *testing.T) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, _ := z.Create(name)
		io.WriteString(w, body)
	}
	add("[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`)
	add("_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	add("xl/workbook.xml", `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="One" sheetId="1" r:id="rId1"/><sheet name="Two" sheetId="2" r:id="rId2"/></sheets></workbook>`)
	add("xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`)
	add("xl/worksheets/sheet1.xml", `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>fine</t></is></c></row></sheetData></worksheet>`)
	add("xl/worksheets/sheet2.xml", `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>cut`)
	z.Close()
	return buf.Bytes()
}

// Several files, some of which cannot be read (a zip that is not one, a
// workbook cut short, invalid UTF-8, a missing file): chunk writes the
// records of every good file in order and names each bad one on stderr
// (exit 1); index of their folder keeps every good file and names the bad
// ones (exit 1).
func TestManyFilesKeepTheGoodOnes(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"a.md":      []byte("# A\n\nThe first good file.\n"),
		"b.xlsx":    []byte("PK\x03\x04 not a zip"),
		"c.md":      []byte("# C\n\nThe second good file.\n"),
		"d.xlsx":    brokenXLSX(t),
		"e.txt":     []byte("bad \xff\xfe bytes"),
		"f.md":      []byte("The third good file.\n"),
		"empty.txt": nil,
	}
	for name, b := range files {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	var args []string
	for _, n := range []string{"a.md", "b.xlsx", "c.md", "d.xlsx", "missing.md", "e.txt", "f.md"} {
		args = append(args, filepath.Join(dir, n))
	}
	out, errs, code := runCmd(t, "", append([]string{"chunk"}, args...)...)
	if code != 1 {
		t.Errorf("chunk: exit %d, want 1", code)
	}
	var sources []string
	for _, r := range decodeLines(t, out) {
		sources = append(sources, filepath.Base(r.Source))
	}
	if got := strings.Join(sources, " "); !strings.HasPrefix(got, "a.md c.md") || !strings.HasSuffix(got, "f.md") {
		t.Errorf("chunk: records of %q", got)
	}
	for _, bad := range []string{"b.xlsx", "d.xlsx", "missing.md", "e.txt"} {
		if !strings.Contains(errs, bad+":") {
			t.Errorf("chunk: stderr does not name %s:\n%s", bad, errs)
		}
	}

	db := filepath.Join(t.TempDir(), "s.db")
	out, errs, code = runCmd(t, "", "index", "--no-embed", "--json", "--store", db, dir)
	if code != 1 || !strings.Contains(errs, "b.xlsx") || !strings.Contains(errs, "e.txt") {
		t.Errorf("index: exit %d: %s", code, errs)
	}
	for _, good := range []string{"first", "second", "third"} {
		hits, errs, code := runCmd(t, "", "search", "--store", db, "--mode", "keyword", "--json", good, "good")
		if code != 0 || !strings.Contains(hits, "The "+good+" good file.") {
			t.Errorf("index kept no %s good file: exit %d %s %s", good, code, hits, errs)
		}
	}
}

// Two gochunk index runs on one SQLite file at once: the second waits
// for the first (saying so) and both succeed; never a raw SQLite error
// (they printed "UNIQUE constraint failed: gochunk_meta.key" or
// "database is locked (5) (SQLITE_BUSY)").
func TestConcurrentIndexRuns(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		os.WriteFile(filepath.Join(dir, "doc"+string(rune('a'+i%26))+string(rune('a'+i/26))+".md"), []byte(strings.Repeat("Harbour boats rest along the quay. ", 30)), 0o644)
	}
	for round := range 3 {
		db := filepath.Join(t.TempDir(), "s.db")
		var wg sync.WaitGroup
		errs := make([]string, 2)
		codes := make([]int, 2)
		for i := range 2 {
			wg.Go(func() {
				_, errs[i], codes[i] = runCmd(t, "", "index", "--store", db, dir)
			})
		}
		wg.Wait()
		for i := range 2 {
			if codes[i] != 0 || strings.Contains(errs[i], "UNIQUE") || strings.Contains(errs[i], "SQLITE_BUSY") || strings.Contains(errs[i], "locked") {
				t.Errorf("round %d, run %d: exit %d: %s", round, i, codes[i], errs[i])
			}
		}
	}

	// A run that finds the store held waits, says who holds it, and
	// goes on when it is free.
	db := filepath.Join(t.TempDir(), "s.db")
	st, err := store.OpenSQLite(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	release, err := st.LockRun(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	errOut := &notifyWriter{first: make(chan struct{})}
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"index", "--no-embed", "--store", db, dir}, strings.NewReader(""), io.Discard, errOut)
	}()
	select {
	case <-errOut.first:
	case c := <-code:
		t.Fatalf("the run did not wait for the store another run holds: exit %d: %s", c, errOut.String())
	}
	if msg := errOut.String(); !strings.Contains(msg, "another gochunk index run (process ") || !strings.Contains(msg, "holds "+db+"; waiting") {
		t.Errorf("waiting message %q", msg)
	}
	release()
	if c := <-code; c != 0 {
		t.Errorf("the waiting run: exit %d: %s", c, errOut.String())
	}
}

// search refuses --k below 1 (it meant 10).
func TestSearchKBelowOne(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	if _, errs, code := runCmd(t, "", "index", "--no-embed", "--store", db, writeFile(t, "a.md", "Harbour boats.")); code != 0 {
		t.Fatal(errs)
	}
	for _, k := range []string{"0", "-1"} {
		if _, errs, code := runCmd(t, "", "search", "--store", db, "--k", k, "harbour"); code != 2 || !strings.Contains(errs, "--k "+k+": want at least 1") {
			t.Errorf("--k %s: exit %d: %s", k, code, errs)
		}
	}
}

// A document the store refuses (PostgreSQL takes no NUL character in
// text: here past the first 8 KB, where files are sniffed as binary)
// costs only itself: index keeps the good files of its window and of the
// windows after, and names it (exit 1).
func TestIndexStoreRefusesOneDocument(t *testing.T) {
	dsn := pgtest.Start(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("The first good file.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(strings.Repeat("padding words here. ", 500)+"a NUL \x00 byte"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.md"), []byte("The second good file.\n"), 0o644)
	sum, errs, code := runCmd(t, "", "index", "--no-embed", "--store", dsn, dir)
	if code != 1 || !strings.Contains(errs, "b.txt") {
		t.Errorf("exit %d: %s %s", code, sum, errs)
	}
	for _, good := range []string{"first", "second"} {
		hits, errs, code := runCmd(t, "", "search", "--store", dsn, "--mode", "keyword", "--json", good, "good")
		if code != 0 || !strings.Contains(hits, "The "+good+" good file.") {
			t.Errorf("index kept no %s good file: exit %d %s %s", good, code, hits, errs)
		}
	}
}
