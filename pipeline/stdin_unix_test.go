//go:build unix

package pipeline_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/pipeline"
)

// Standard input costs what a file named costs: redirected from a regular
// file it is mapped, and from a pipe it is read outside the Go heap at its
// exact size (not into io.ReadAll's growing buffer, whose slack and whose
// place in the heap, doubling the collector's goal, made gochunk chunk - <
// 30 MB take 3.6 to 4.3 times the input where the file took 2.5 to 2.7).
func TestLoadStandardInputOutsideTheHeap(t *testing.T) {
	const size = 16 << 20
	line := "Standard input is read as a file is: mapped, or outside the heap.\n"
	text := strings.Repeat(line, size/len(line)+1)[:size]
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := pipeline.New(ctx, pipeline.Config{}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"regular file", "pipe"} {
		var in io.Reader
		switch kind {
		case "regular file": // gochunk chunk - < in.txt
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			in = f
		case "pipe": // cat in.txt | gochunk chunk -
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			go func() {
				io.WriteString(pw, text)
				pw.Close()
			}()
			in = pr
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		doc, err := p.Load(ctx, pipeline.Source{Path: "-", Reader: in})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if doc.Text != text {
			t.Fatalf("%s: loaded %d bytes, not the input's %d", kind, len(doc.Text), len(text))
		}
		doc.Release()
		if n := after.TotalAlloc - before.TotalAlloc; n > size/8 {
			t.Errorf("%s: loading %d bytes from standard input allocated %d bytes of heap; want the text outside the heap, as a file's", kind, size, n)
		}
	}
}
