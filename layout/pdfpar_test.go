package layout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/internal/textgen"
)

// longPDF writes a two-column PDF of pages pages of generated prose.
func longPDF(t testing.TB, pages int) string {
	var paras []string
	for _, p := range strings.Split(textgen.Prose(6000*pages, 11), "\n\n") {
		if p = strings.TrimSpace(strings.TrimPrefix(p, "## ")); p != "" {
			paras = append(paras, p)
		}
	}
	pp := pdfgen.TwoColumn("Pages Read at Once", paras, "Parallel Proceedings")
	if len(pp) < pages {
		t.Fatalf("only %d pages", len(pp))
	}
	return writePDF(t, pp[:pages])
}

// parallelRead reads path with e, and reports the most instances the
// engine held at once while it did (each page read says so).
func parallelRead(t *testing.T, e *PDFium, src pdfSource) ([]pageBlocks, []string, int) {
	t.Helper()
	held := 0
	var warnings []string
	var mu sync.Mutex
	pages, err := e.read(context.Background(), src, PDFOptions{
		PagesPerBatch: 1,
		Progress: func(int, int) {
			mu.Lock()
			held = max(held, len(e.sem))
			mu.Unlock()
		},
		Warn: func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages, warnings, held
}

// Pages read by several instances at once come out as one instance reads
// them: the same blocks, words, boxes and styles, in page order, and the
// same pages left out with the same notes.
func TestPDFParallelSameAsSequential(t *testing.T) {
	one, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	four, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer four.Close()
	for _, tc := range []struct {
		name string
		src  pdfSource
	}{
		{"prose", pdfSource{path: longPDF(t, 64)}},
		{"a bad page", pdfSource{data: pdfgen.WithFormBombPage(64, 37, 20)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seq, seqWarn, _ := parallelRead(t, one, tc.src)
			par, parWarn, held := parallelRead(t, four, tc.src)
			if held < 2 {
				t.Errorf("read by %d instance at once, want several", held)
			}
			if len(seq) < 60 {
				t.Fatalf("%d pages read", len(seq))
			}
			if !reflect.DeepEqual(seq, par) {
				for i := range min(len(seq), len(par)) {
					if !reflect.DeepEqual(seq[i], par[i]) {
						t.Fatalf("page %d differs:\n one instance: %+v\nfour at once: %+v", seq[i].page, seq[i], par[i])
					}
				}
				t.Fatalf("%d pages read by one instance, %d by four", len(seq), len(par))
			}
			if !reflect.DeepEqual(seqWarn, parWarn) {
				t.Errorf("notes differ:\n one instance: %q\nfour at once: %q", seqWarn, parWarn)
			}
			if tc.src.data != nil && len(seqWarn) != 1 {
				t.Errorf("notes %q, want page 37 left out", seqWarn)
			}
		})
	}
	// The engines hold nothing once the reads are over.
	for _, e := range []*PDFium{one, four} {
		if n := len(e.sem); n != 0 {
			t.Errorf("%d instances still held", n)
		}
		if n := e.budget.used.Load(); n != 0 {
			t.Errorf("%d bytes of PDFium memory still held", n)
		}
	}
}

// A read cancelled while several instances read pages stops at their next
// page, says it was cancelled, and gives every instance and its memory
// back.
func TestPDFParallelCancel(t *testing.T) {
	e, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := longPDF(t, 96)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	read := 0
	_, err = ExtractPDF(ctx, path, PDFOptions{Engine: e, PagesPerBatch: 1, Progress: func(done, _ int) {
		mu.Lock()
		read = done
		mu.Unlock()
		if done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
	if read >= 96 {
		t.Errorf("all %d pages were read after the cancel", read)
	}
	if n := len(e.sem); n != 0 {
		t.Errorf("%d instances still held", n)
	}
	if n := e.budget.used.Load(); n != 0 {
		t.Errorf("%d bytes of PDFium memory still held", n)
	}
	// The engine reads the next PDF whole.
	els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: e})
	if err != nil || len(els) == 0 || els[len(els)-1].Page != 96 {
		t.Fatalf("after a cancel: %d elements, %v", len(els), err)
	}
}

// The characters' direct calls find their module and text page in every
// instance of a read, and stop listening once its worker closes.
func TestPDFCharCallsReleased(t *testing.T) {
	e, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := longPDF(t, 24)
	for range 2 {
		els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: e})
		if err != nil || len(els) == 0 || els[len(els)-1].Page != 24 {
			t.Fatalf("%d elements, %v", len(els), err)
		}
	}
	left := 0
	e.hooks.calls.Range(func(any, any) bool { left++; return true })
	if left != 0 {
		t.Errorf("%d instances' calls still listened to", left)
	}
}

// A cache holds this build's code only once it left its mark: a cache of
// an older build (code compiled without the listeners) is compiled again,
// and the notice must say so; the mark alone is no compiled code.
func TestPDFiumCacheMark(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "wazero-v1"), 0o755)
	os.WriteFile(filepath.Join(dir, "wazero-v1", "older-module"), []byte("code"), 0o644)
	if !compiled(dir) || marked(dir) {
		t.Fatal("an older build's cache counts as this build's")
	}
	only := t.TempDir()
	os.WriteFile(filepath.Join(only, pdfiumCacheMark()), nil, 0o644)
	if compiled(only) {
		t.Fatal("the mark counts as compiled code")
	}
	os.WriteFile(filepath.Join(dir, pdfiumCacheMark()), nil, 0o644)
	if !compiled(dir) || !marked(dir) {
		t.Fatal("a marked cache is not found")
	}
	if !strings.HasPrefix(pdfiumCacheMark(), "compiled-go-pdfium-") {
		t.Fatalf("mark %q is not skipped by compiled", pdfiumCacheMark())
	}
}
