package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk/internal/testnote"
)

// builtBinary is the gochunk binary, built once for every test of this
// package that runs it as a process (the server's end-to-end tests, an index
// killed mid-run, the docs' examples); TestMain removes it.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// buildBinary returns the path of the gochunk binary built from this
// checkout as the Dockerfile builds it, without cgo (static, PDFium in the
// process); the first call builds it, the others share it. A failed build
// fails every test that asks for it.
func buildBinary(t testing.TB) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		testnote.Say("gochunk/cmd/gochunk: building the gochunk binary for the tests that run it (minutes on a cold build cache)")
		start := time.Now()
		b.dir, b.err = os.MkdirTemp("", "gochunk-test-bin-")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "gochunk")
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", b.path, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.out, b.err = build.CombinedOutput()
		t.Logf("built the gochunk binary, shared by this package's tests, in %s", time.Since(start).Round(time.Second))
	})
	if b.err != nil {
		t.Fatalf("building the gochunk binary: %v\n%s", b.err, b.out)
	}
	return b.path
}

// removeBuiltBinary removes the shared binary, if a test built it.
func removeBuiltBinary() {
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
}
