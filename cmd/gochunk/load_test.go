package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkServeLoad drives a `gochunk serve` process, built as the
// Dockerfile builds it, with concurrent clients (GOCHUNK_LOAD_CLIENTS,
// default 32) posting documents of GOCHUNK_LOAD_DOC_SIZE bytes (default
// 1024) to /embed and /v1/chunk, b.N requests per endpoint, and reports
// requests/s, latency percentiles, errors and the server's peak resident
// memory (from /proc). A load test of five minutes:
//
//	go test ./cmd/gochunk -run '^$' -bench ServeLoad -benchtime 600000x
func BenchmarkServeLoad(b *testing.B) {
	clients, docSize := envInt(b, "GOCHUNK_LOAD_CLIENTS", 32), envInt(b, "GOCHUNK_LOAD_DOC_SIZE", 1024)
	bin := buildBinary(b)
	for _, endpoint := range []string{"/embed", "/v1/chunk"} {
		b.Run(strings.TrimPrefix(endpoint, "/"), func(b *testing.B) {
			var logs bytes.Buffer
			cmd, base := startServe(b, bin, &logs, "GOCHUNK_LOG_LEVEL=warn", "MAX_CONCURRENT="+strconv.Itoa(2*clients))
			bodies := loadBodies(endpoint, docSize, 64)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
			var next, failed atomic.Int64
			var mu sync.Mutex
			var latencies []time.Duration
			var sample string
			var wg sync.WaitGroup
			b.ResetTimer()
			for range clients {
				wg.Go(func() {
					var local []time.Duration
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						t0 := time.Now()
						resp, err := client.Post(base+endpoint, "application/json", bytes.NewReader(bodies[i%int64(len(bodies))]))
						if err == nil {
							body, _ := io.ReadAll(resp.Body)
							resp.Body.Close()
							if resp.StatusCode != 200 || bytes.Contains(body, []byte(`"error":"`)) && !bytes.Contains(body, []byte(`"error":""`)) {
								err = fmt.Errorf("status %d: %.120s", resp.StatusCode, body)
							}
						}
						if err != nil {
							failed.Add(1)
							mu.Lock()
							sample = err.Error()
							mu.Unlock()
							continue
						}
						local = append(local, time.Since(t0))
					}
					mu.Lock()
					latencies = append(latencies, local...)
					mu.Unlock()
				})
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(latencies)
			if n := len(latencies); n > 0 {
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
				b.ReportMetric(float64(latencies[n/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(latencies[min(n-1, n*99/100)].Microseconds())/1000, "p99-ms")
			}
			b.ReportMetric(float64(failed.Load()), "errors")
			b.ReportMetric(float64(peakRSS(cmd.Process.Pid))/1e6, "peak-RSS-MB")
			if sample != "" {
				b.Errorf("%d failed requests, one: %s", failed.Load(), sample)
			}
		})
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive whole number", name, v)
	}
	return n
}

// loadBodies prepares n request bodies of one document of random prose.
func loadBodies(endpoint string, size, n int) [][]byte {
	words := strings.Fields("the retrieval chunk model embedding sentence topic document query answer index vector similarity boundary paragraph section market river mountain music history science")
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]byte, n)
	for i := range out {
		var sb strings.Builder
		for sb.Len() < size {
			for k := 6 + r.IntN(14); k > 0; k-- {
				sb.WriteString(words[r.IntN(len(words))] + " ")
			}
			sb.WriteString("end. ")
		}
		doc := []map[string]string{{"id": fmt.Sprint("d", i), "text": sb.String()[:size]}}
		var body any = map[string]any{"documents": doc}
		if endpoint == "/v1/chunk" {
			body = map[string]any{"chunker": "recursive", "config": map[string]any{"size": 256}, "documents": doc}
		}
		out[i], _ = json.Marshal(body)
	}
	return out
}

// peakRSS returns the peak resident memory of a process (VmHWM), 0 where
// /proc does not tell.
func peakRSS(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
