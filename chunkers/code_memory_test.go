package chunkers_test

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
)

// peakRSS returns the process's peak resident memory in bytes (VmHWM), or
// 0 where /proc does not say.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// goSourceText returns about n bytes of the Go distribution's own source,
// its files concatenated in a fixed order ("" when fewer are found).
func goSourceText(t *testing.T, n int) string {
	t.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || b.Len() >= n {
			return fs.SkipAll
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			if src, err := os.ReadFile(p); err == nil {
				b.Write(src[:min(len(src), n-b.Len())])
			}
		}
		return nil
	})
	if b.Len() < n {
		return ""
	}
	return b.String()
}

const codeMemoryChild = "GOCHUNK_TEST_CODE_MEMORY_FILE"

// TestCodeMemoryFactorCoversSyntaxTrees: the code chunker's memory factor
// is what it takes on real code, where it parses with tree-sitter (the
// grammar's tree in C, about 23 bytes a byte of Go source, and its copy as
// Go values), not its 2.7 on mixed text, where no grammar applies: the
// server's budget reserves by it. A child process chunks 4 MB of the Go
// distribution's source as Go; the growth of its peak resident memory
// over the input must fit the factor (it was 5 while the growth is about
// 45 bytes a byte).
func TestCodeMemoryFactorCoversSyntaxTrees(t *testing.T) {
	if path := os.Getenv(codeMemoryChild); path != "" {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		c, err := chunkers.New().New("code", nil, chunkers.Env{})
		if err != nil {
			t.Fatal(err)
		}
		before := peakRSS()
		chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: "all.go", Text: text, Metadata: map[string]any{"language": "go"}})
		if err != nil || len(chunks) == 0 {
			t.Fatalf("%d chunks, %v", len(chunks), err)
		}
		fmt.Printf("growth %d\n", peakRSS()-before)
		return
	}
	if testing.Short() || raceEnabled {
		t.Skip("parses 4 MB of Go source in a child process; not under -short or the race detector")
	}
	spec, _ := chunkers.New().Lookup("code")
	if peakRSS() == 0 {
		t.Skip("no /proc/self/status to read peak resident memory from")
	}
	const size = 4 << 20
	text := goSourceText(t, size)
	if text == "" {
		t.Skip("fewer than 4 MB of Go source under GOROOT/src")
	}
	path := filepath.Join(t.TempDir(), "all.go")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCodeMemoryFactorCoversSyntaxTrees$", "-test.count=1")
	cmd.Env = append(os.Environ(), codeMemoryChild+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var growth int64
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "growth "); ok {
			growth, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if growth == 0 {
		t.Fatalf("child reported no growth:\n%s", out)
	}
	perByte := float64(growth) / size
	t.Logf("code on %d bytes of Go source: peak resident memory grew by %.1f MB, %.1f bytes a byte (memory factor %g)", size, float64(growth)/(1<<20), perByte, spec.Memory)
	if perByte > spec.Memory {
		t.Errorf("code's peak resident memory grows by %.1f bytes a byte of Go source, over its memory factor %g: the server would under-reserve", perByte, spec.Memory)
	}
}
