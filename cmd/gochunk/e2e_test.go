package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServeBinary runs the binary (the package's shared build) as the
// image's entry point would (gochunk serve, PORT from the environment), then
// checks a request and a graceful SIGTERM.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds the binary")
	}
	bin := buildBinary(t)
	var logs bytes.Buffer
	cmd, base := startServe(t, bin, &logs, "MAX_BATCH_TOKENS=4096", "READ_TIMEOUT_SECONDS=30", "WRITE_TIMEOUT_SECONDS=30")
	resp, err := http.Post(base+"/embed", "application/json", strings.NewReader(`{"documents":[{"id":"doc1","text":"First document text. These are separated by delimiters such as. Or? And!"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var er struct {
		Documents []struct {
			ID     string
			Chunks []map[string]any
			Error  string
		}
	}
	json.NewDecoder(resp.Body).Decode(&er)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(er.Documents) != 1 || er.Documents[0].Error != "" || len(er.Documents[0].Chunks) == 0 {
		t.Fatalf("embed: %d %+v", resp.StatusCode, er)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("no shutdown log:\n%s", logs.String())
	}
}

// startServe starts `bin serve` on a free loopback port, with the extra
// environment env, and waits until it is ready; it returns the process and
// the base URL. The process is killed when the test ends.
func startServe(t testing.TB, bin string, logs *bytes.Buffer, env ...string) (*exec.Cmd, string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), fmt.Sprintf("PORT=%d", port)), env...)
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			return cmd, base
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A server with a small memory budget, hit by concurrent large requests of
// every embedding-based chunker, answers each 200, 503 or 413, stays
// within its budget plus a margin, and answers /healthz throughout.
func TestServeMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds the binary and chunks 80 MB")
	}
	const budgetBytes = 384 << 20
	var logs bytes.Buffer
	cmd, base := startServe(t, buildBinary(t), &logs, fmt.Sprintf("MAX_MEMORY_BYTES=%d", budgetBytes), "GOCHUNK_QUEUE_WAIT=2", "GOCHUNK_LOG_LEVEL=warn")
	text := strings.Repeat("Cats purr and sleep in the sun all day long. Stock markets fell sharply on Monday after the report. ", 30000) // 3 MB
	var wg sync.WaitGroup
	codes := make(chan string, 64)
	for _, chunker := range []string{"semantic", "savgol", "hierarchical", "dp", "cluster", "mst", "s2"} {
		for range 4 {
			body, _ := json.Marshal(map[string]any{"chunker": chunker, "text": text})
			wg.Go(func() {
				resp, err := http.Post(base+"/v1/chunk", "application/json", bytes.NewReader(body))
				if err != nil {
					codes <- chunker + ": " + err.Error()
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes <- fmt.Sprintf("%s: %d", chunker, resp.StatusCode)
			})
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(200 * time.Millisecond):
			resp, err := http.Get(base + "/healthz")
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("healthz while loaded: %v\n%s", err, logs.String())
			}
			resp.Body.Close()
		}
	}
	close(codes)
	counts := map[string]int{}
	for c := range codes {
		_, code, _ := strings.Cut(c, ": ")
		if code != "200" && code != "503" && code != "413" {
			t.Errorf("%s", c)
		}
		counts[code]++
	}
	peak := peakRSS(cmd.Process.Pid)
	t.Logf("answers %v, peak RSS %d MB for a budget of %d MB", counts, peak>>20, budgetBytes>>20)
	if counts["200"] == 0 {
		t.Error("no request was served")
	}
	if margin := int64(budgetBytes) * 5 / 4; peak > margin {
		t.Errorf("peak RSS %d MB over the budget plus a quarter (%d MB)", peak>>20, margin>>20)
	}
}
