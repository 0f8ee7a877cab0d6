//go:build unix

package mapfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// heapAllocated returns how many bytes of Go heap f allocated in all.
func heapAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A large stream and a large regular file are held outside the Go heap:
// a file mapped, a pipe joined in memory of its own at its exact size.
func TestReadAllLargeInputOutsideTheHeap(t *testing.T) {
	const size = 16 << 20
	want := content(size)
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		pw.Write(want)
		pw.Close()
	}()
	for _, in := range []struct {
		name string
		r    io.Reader
	}{{"regular file", f}, {"pipe", pr}} {
		var got []byte
		var release func() error
		n := heapAllocated(func() { got, release, err = ReadAll(in.r) })
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v, got %d bytes, equal %v", in.name, err, len(got), bytes.Equal(got, want))
		}
		release()
		// The pipe's first MinSize bytes are read into the heap.
		if n > size/8 {
			t.Errorf("%s: reading %d bytes allocated %d bytes of heap; want them outside the heap", in.name, size, n)
		}
	}
}
