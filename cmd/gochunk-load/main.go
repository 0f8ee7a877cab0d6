// Command gochunk-load drives a gochunk server with concurrent clients for
// a bounded time and reports throughput, latency percentiles, errors and
// the server's memory.
//
//	go build -o /tmp/gochunk ./cmd/gochunk
//	go run ./cmd/gochunk-load -bin /tmp/gochunk -clients 32 -duration 60s
//
// With -bin it starts `BIN serve` on a free loopback port and reads the
// server's resident memory from /proc (peak and every -sample); with -url it
// drives a server that is already running (memory is then not reported).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	var (
		bin      = flag.String("bin", "", "gochunk binary to start with `serve` on a free loopback port")
		url      = flag.String("url", "", "base URL of a running server (instead of -bin)")
		endpoint = flag.String("endpoint", "/embed", "/embed or /v1/chunk")
		clients  = flag.Int("clients", 32, "concurrent clients")
		duration = flag.Duration("duration", 30*time.Second, "how long to drive the server")
		docSize  = flag.Int("doc-size", 1024, "bytes of text per document")
		docs     = flag.Int("docs", 1, "documents per request")
		sample   = flag.Duration("sample", 10*time.Second, "interval of memory samples")
	)
	flag.Parse()
	if err := run(*bin, *url, *endpoint, *clients, *duration, *docSize, *docs, *sample); err != nil {
		fmt.Fprintln(os.Stderr, "gochunk-load:", err)
		os.Exit(1)
	}
}

func run(bin, base, endpoint string, clients int, duration time.Duration, docSize, docs int, sample time.Duration) error {
	if clients < 1 || docs < 1 || docSize < 1 || duration <= 0 {
		return fmt.Errorf("clients, docs, doc-size and duration must be positive")
	}
	var server *exec.Cmd
	if bin != "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		server = exec.Command(bin, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--log-level", "warn", "--max-concurrent", strconv.Itoa(clients*2))
		server.Stderr = os.Stderr
		if err := server.Start(); err != nil {
			return err
		}
		defer func() {
			server.Process.Signal(os.Interrupt)
			server.Wait()
		}()
		base = fmt.Sprintf("http://127.0.0.1:%d", port)
		if err := waitReady(base, 30*time.Second); err != nil {
			return err
		}
	} else if base == "" {
		return fmt.Errorf("give -bin or -url")
	}
	bodies := makeBodies(endpoint, docSize, docs, 64)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errors    int
		errSample string
	)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			localErr, sampleErr := 0, ""
			for i := c; ctx.Err() == nil; i += clients {
				t0 := time.Now()
				resp, err := client.Post(base+endpoint, "application/json", bytes.NewReader(bodies[i%len(bodies)]))
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || bytes.Contains(b, []byte(`"error":"`)) && !bytes.Contains(b, []byte(`"error":""`)) {
						err = fmt.Errorf("status %d: %.120s", resp.StatusCode, b)
					}
				}
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					localErr++
					sampleErr = err.Error()
					continue
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, local...)
			errors += localErr
			if sampleErr != "" {
				errSample = sampleErr
			}
			mu.Unlock()
		}()
	}
	// Memory samples while the load runs.
	var rss []string
	var peak int64
	if server != nil {
		go func() {
			t := time.NewTicker(sample)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					cur, hwm := memory(server.Process.Pid)
					mu.Lock()
					rss = append(rss, fmt.Sprintf("%.0fs:%.0fMB", time.Since(start).Seconds(), float64(cur)/1e6))
					peak = max(peak, hwm)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	reqs := len(latencies)
	fmt.Printf("endpoint %s, %d clients, %s, %d document(s) of %d bytes per request\n", endpoint, clients, elapsed.Round(time.Millisecond), docs, docSize)
	fmt.Printf("requests ok %d, errors %d, %.0f requests/s, %.0f documents/s\n", reqs, errors, float64(reqs)/elapsed.Seconds(), float64(reqs*docs)/elapsed.Seconds())
	fmt.Printf("latency p50 %s, p99 %s, max %s\n", pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	if server != nil {
		_, hwm := memory(server.Process.Pid)
		peak = max(peak, hwm)
		fmt.Printf("server peak RSS %.0f MB; RSS over time %s\n", float64(peak)/1e6, strings.Join(rss, " "))
	}
	if errSample != "" {
		fmt.Printf("an error: %s\n", errSample)
	}
	return nil
}

func waitReady(base string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server at %s not ready after %s", base, limit)
}

var words = strings.Fields("the retrieval chunk model embedding sentence topic document query answer index vector similarity boundary paragraph section market river mountain music history science")

// makeBodies prepares n request bodies of random prose.
func makeBodies(endpoint string, size, docs, n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var sb strings.Builder
		for sb.Len() < size {
			k := 6 + r.IntN(14)
			for i := range k {
				w := words[r.IntN(len(words))]
				if i == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				sb.WriteString(w)
				if i < k-1 {
					sb.WriteByte(' ')
				}
			}
			sb.WriteString(". ")
		}
		return sb.String()[:size]
	}
	out := make([][]byte, n)
	for i := range out {
		type doc struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		ds := make([]doc, docs)
		for j := range ds {
			ds[j] = doc{fmt.Sprintf("d%d-%d", i, j), text()}
		}
		var body any = map[string]any{"documents": ds}
		if endpoint == "/v1/chunk" {
			body = map[string]any{"chunker": "recursive", "config": map[string]any{"size": 256}, "documents": ds}
		}
		out[i], _ = json.Marshal(body)
	}
	return out
}

// memory returns the current and peak resident memory of a process, from
// /proc (0 where it is not available).
func memory(pid int) (cur, peak int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb * 1024
		case "VmHWM:":
			peak = kb * 1024
		}
	}
	return cur, peak
}
