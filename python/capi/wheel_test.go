package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWheel builds the wheel with python/build-wheel.sh, installs it into
// a fresh virtual environment of the system's python3 (pip install
// --no-index: nothing from a registry) and runs python/tests against a
// gochunk binary built from the same tree: records identical to gochunk
// chunk's on the corpus (../shared/eval/chroma; those tests skip without
// it), text == s[start_index:end_index], four threads in Go at once, and
// errors raised as gochunk.Error with the command line's messages.
func TestWheel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building the C shared library and the wheel takes minutes")
	}
	if runtime.GOOS == "windows" {
		t.Skip("python/build-wheel.sh is a bash script")
	}
	python := pythonWithVenv(t)
	cc, err := exec.Command("go", "env", "CC").Output()
	if err != nil {
		t.Skipf("go env CC: %v", err)
	}
	if _, err := exec.LookPath(strings.TrimSpace(string(cc))); err != nil {
		t.Skipf("no C compiler (%s) for cgo, which -buildmode=c-shared needs: %v", strings.TrimSpace(string(cc)), err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	tmp := t.TempDir()

	run := func(name string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}

	dist := filepath.Join(tmp, "dist")
	out := run("build-wheel.sh", []string{"PYTHON=" + python}, "python/build-wheel.sh", dist)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	wheel := lines[len(lines)-1]
	if !strings.HasSuffix(wheel, ".whl") {
		t.Fatalf("build-wheel.sh printed no wheel:\n%s", out)
	}
	t.Logf("built %s", filepath.Base(wheel))
	cli := filepath.Join(tmp, "gochunk")
	run("go build", nil, "go", "build", "-o", cli, "./cmd/gochunk")

	venv := filepath.Join(tmp, "venv")
	run("venv", nil, python, "-m", "venv", venv)
	vpy := filepath.Join(venv, "bin", "python")
	run("pip install", []string{"PIP_DISABLE_PIP_VERSION_CHECK=1"}, vpy, "-m", "pip", "install", "--no-index", "--no-deps", wheel)

	corpus := filepath.Join(root, "..", "shared", "eval", "chroma")
	if _, err := os.Stat(corpus); err != nil {
		t.Log("../shared/eval/chroma is absent: the comparisons with gochunk chunk on the corpus skip")
	}
	// Run from a directory without python/gochunk, so that the installed
	// package is the one imported.
	cmd := exec.CommandContext(ctx, vpy, filepath.Join(root, "python", "tests", "test_gochunk.py"))
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOCHUNK_CLI="+cli, "GOCHUNK_CORPUS="+corpus, "PYTHONDONTWRITEBYTECODE=1")
	res, err := cmd.CombinedOutput()
	t.Logf("python/tests/test_gochunk.py:\n%s", res)
	if err != nil {
		t.Fatalf("the Python tests failed: %v", err)
	}
	if !bytes.Contains(res, []byte("test_records")) || bytes.Contains(res, []byte("ran 0 tests")) {
		t.Fatal("the Python tests did not run")
	}
	if _, err := os.Stat(corpus); err == nil {
		for _, line := range strings.Split(string(res), "\n") {
			if strings.Contains(line, "SameAsCLI") && strings.Contains(line, "skipped") {
				t.Fatalf("a corpus test skipped although the corpus is present: %s", line)
			}
		}
	}
}

// pythonWithVenv returns the system's python3 when it can make virtual
// environments with pip (Debian's python3-venv), else skips.
func pythonWithVenv(t *testing.T) string {
	t.Helper()
	python := "/usr/bin/python3" // Debian's, not a pyenv shim
	if _, err := os.Stat(python); err != nil {
		p, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("no python3: install python3 and python3-venv")
		}
		python = p
	}
	if out, err := exec.Command(python, "-c", "import venv, ensurepip").CombinedOutput(); err != nil {
		t.Skipf("%s cannot make virtual environments with pip (install python3-venv): %v\n%s", python, err, out)
	}
	return python
}
