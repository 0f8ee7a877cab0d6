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
// checkout as `go build ./cmd/gochunk` builds it (the README's binary); the
// first call builds it, the others share it. It is built with the settings
// of the test binary itself, so every package comes from the build cache and
// only the link is new: a build without cgo or with -trimpath would compile
// the whole module a second time. (embed's TestStaticBinaryRefusesONNXRuntime
// builds the Dockerfile's static binary.) A failed build fails every test
// that asks for it.
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
		b.out, b.err = exec.Command("go", "build", "-o", b.path, ".").CombinedOutput()
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
