package layout

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// A read cancelled in the middle of a page of 200,000 characters stops
// within checkEvery characters of the cancel: the direct character calls
// run on in a killed instance, so the page's loop must look.
func TestPDFCancelMidPage(t *testing.T) {
	e, err := NewPDFium(context.Background(), PDFiumOptions{Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := e.open(ctx, pdfSource{data: pdfgen.ManyChars(200_000)})
	if err != nil {
		t.Fatal(err)
	}
	calls, err := w.charCalls()
	if err != nil {
		w.close()
		t.Fatal(err)
	}
	// The read is cancelled at its third look, a couple of thousand
	// characters into the page, once the instance is killed.
	looks := 0
	stopped := calls.stopped
	calls.stopped = func() bool {
		if looks++; looks == 3 {
			cancel()
			<-w.killed
		}
		return stopped()
	}
	handles := 0
	p, _, err := readPDFiumPage(w, 0, 1<<30, &handles)
	w.close()
	if err == nil || !strings.Contains(err.Error(), errStopped.Error()) {
		t.Errorf("a page cancelled mid-read: %d characters, err %v", p.chars, err)
	}
	if looks != 3 {
		t.Errorf("the page's loop looked %d times whether it was cancelled, want 3 (stopped at the first look after the cancel)", looks)
	}
	if n := e.budget.used.Load(); n != 0 {
		t.Errorf("%d bytes of PDFium memory still held", n)
	}
	// The engine reads a PDF whole after the cancel.
	path := filepath.Join(t.TempDir(), "after.pdf")
	if err := os.WriteFile(path, pdfgen.Plain([][]string{{"After the cancel."}}), 0o644); err != nil {
		t.Fatal(err)
	}
	els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: e})
	if err != nil || len(els) != 1 || els[0].Text != "After the cancel." {
		t.Fatalf("after a cancel: %+v, %v", els, err)
	}
}
