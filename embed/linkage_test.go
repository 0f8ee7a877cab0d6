package embed

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/onnxtest"
	"github.com/gochunk/gochunk/internal/testnote"
)

// isStaticELF tells a program without a dynamic loader (Go without cgo)
// from one with (this test binary, built with cgo).
func TestIsStaticELF(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("skipping: ELF executables are Linux's")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	build := exec.Command("go", "build", "-o", "hello", ".")
	build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if !isStaticELF(filepath.Join(dir, "hello")) {
		t.Error("a CGO_ENABLED=0 program is not seen as static")
	}
	exe, _ := os.Executable()
	if isStaticELF(exe) {
		t.Error("this cgo test binary is seen as static")
	}
	if isStaticELF(filepath.Join(dir, "main.go")) {
		t.Error("a text file is seen as a static program")
	}
}

// The single static binary of the README and the Dockerfile, given an ONNX
// Runtime library: it refuses it with a clear message (backend ort) or
// falls back to pure Go (auto), and never crashes inside the library.
func TestStaticBinaryRefusesONNXRuntime(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("skipping: builds a static binary (Linux, not -short)")
	}
	lib := onnxtest.Library(t)
	model := bertModel(t, true, "mean", 128)
	bin := filepath.Join(t.TempDir(), "gochunk")
	t.Log("building gochunk statically as the Dockerfile does (netgo, osusergo, external linking): the whole module compiles again, minutes on a cold build cache")
	testnote.Say("gochunk/embed: %s builds the static gochunk binary (minutes on a cold build cache)", t.Name())
	build := exec.Command("go", "build", "-tags", "netgo,osusergo", "-ldflags", `-linkmode external -extldflags "-static"`, "-o", bin, "./cmd/gochunk")
	build.Dir, build.Env = "..", append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("skipping: the static build does not link here (static C libraries missing?): %v\n%s", err, out)
	}
	run := func(backend string) (string, error) {
		cmd := exec.Command(bin, "embed", "--embedder", "onnx:"+model, "--onnx-library", lib, "--onnx-backend", backend, "-")
		cmd.Stdin = strings.NewReader("a text to embed\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_, err := cmd.Output()
		return stderr.String(), err
	}
	msg, err := run("ort")
	if err == nil || !strings.Contains(msg, "linked statically") || strings.Contains(msg, "SIGSEGV") {
		t.Errorf("backend ort: %v, stderr %s", err, msg)
	}
	msg, err = run("auto")
	if err != nil || !strings.Contains(msg, "pure Go") || !strings.Contains(msg, "linked statically") {
		t.Errorf("backend auto: %v, stderr %s", err, msg)
	}
}
