// Package onnxtest gives tests what running ONNX models needs: the ONNX
// Runtime library (npm's onnxruntime-node, installed outside the
// repository) and a Python with the onnx package to build test models. It
// skips the test, saying why, where either cannot be had.
package onnxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gochunk/gochunk/internal/npmtest"
)

// Library returns the path of libonnxruntime: GOCHUNK_ONNX_LIBRARY, else
// the one in npm's onnxruntime-node (installed without its install
// script, which only fetches optional CUDA files).
func Library(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("GOCHUNK_ONNX_LIBRARY"); p != "" {
		return p
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		t.Skipf("skipping: no ONNX Runtime library for %s/%s in npm's onnxruntime-node; set GOCHUNK_ONNX_LIBRARY", runtime.GOOS, runtime.GOARCH)
	}
	_, dir := npmtest.Install(t, "npm-onnxruntime", "onnxruntime-node@1.30.0")
	lib := filepath.Join(dir, "node_modules", "onnxruntime-node", "bin", "napi-v6", "linux", arch, "libonnxruntime.so.1")
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("skipping: onnxruntime-node has no %s", lib)
	}
	return lib
}

// Build runs a Python script that writes a test model (args name the
// output and the model's shape), with a python3 that has the onnx and
// numpy packages (Debian: python3-onnx).
func Build(t testing.TB, script string, args ...string) {
	t.Helper()
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import onnx, numpy").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("skipping: no python3 with onnx and numpy to build test models (apt-get install python3-onnx)")
	}
	if out, err := exec.Command(python, append([]string{script}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("build the test model with %s: %v\n%s", script, err, out)
	}
}
