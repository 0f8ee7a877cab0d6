package index

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// BenchmarkANN measures a store's search through the Searcher (what
// gochunk search, POST /v1/search, the MCP server and eval call) against
// the exact search: recall@10 of the vector search against the exact
// scan, and of the keyword search against the unbounded FTS5 ranking
// (store.Query.Exact), each query's latency, p50 and p99, with 1 client
// and with the numbers of concurrent clients GOCHUNK_ANN_CLIENTS lists
// (comma-separated; default 1), the queries per second and the process's
// CPU time (user+sys) per query, for the modes GOCHUNK_ANN_MODES lists
// (default vector,keyword,hybrid). It reads the store that GOCHUNK_ANN_STORE
// names (one gochunk index wrote) and the queries of GOCHUNK_ANN_QUERIES
// (a text per line, held out of the store), at the probes
// GOCHUNK_ANN_PROBES lists (comma-separated; default 0, the store's
// default), e.g.
//
//	GOCHUNK_ANN_STORE=/tmp/s100k.db GOCHUNK_ANN_QUERIES=/tmp/queries.txt GOCHUNK_ANN_CLIENTS=1,8 \
//	  go test ./index -run '^$' -bench BenchmarkANN -benchtime 200x
func BenchmarkANN(b *testing.B) {
	path, qpath := os.Getenv("GOCHUNK_ANN_STORE"), os.Getenv("GOCHUNK_ANN_QUERIES")
	if path == "" || qpath == "" {
		b.Skip("skipping: set GOCHUNK_ANN_STORE (a store) and GOCHUNK_ANN_QUERIES (a query per line)")
	}
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	se, err := NewSearcher(ctx, st, pipeline.EmbedderConfig{}, false)
	if err != nil {
		b.Fatal(err)
	}
	queries, err := readLines(qpath)
	if err != nil {
		b.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("GOCHUNK_ANN_EXACT")); err == nil && n < len(queries) {
		queries = queries[:n] // the exact scan of a large store is slow
	}
	const k = 10
	modes := []store.Mode{store.Vector, store.Keyword, store.Hybrid}
	if m := os.Getenv("GOCHUNK_ANN_MODES"); m != "" {
		modes = modes[:0]
		for f := range strings.SplitSeq(m, ",") {
			modes = append(modes, store.Mode(strings.TrimSpace(f)))
		}
	}
	exact := map[store.Mode][][]store.Hit{}
	for _, mode := range modes {
		if mode == store.Hybrid {
			continue // no reference: its halves have theirs
		}
		var times []time.Duration
		cpu0 := cpuTime()
		for _, q := range queries {
			t := time.Now()
			hits, err := se.Search(ctx, store.Query{Text: q, K: k, Mode: mode, Exact: true})
			if err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(t))
			exact[mode] = append(exact[mode], hits)
		}
		b.Logf("exact %s search of %d queries: p50 %s p99 %s, CPU %s a query", mode, len(queries), pct(times, 50), pct(times, 99),
			(cpuTime()-cpu0)/time.Duration(max(len(queries), 1)))
	}
	probes, err := intList(os.Getenv("GOCHUNK_ANN_PROBES"), 0)
	if err != nil {
		b.Fatalf("GOCHUNK_ANN_PROBES: %v", err)
	}
	clients, err := intList(os.Getenv("GOCHUNK_ANN_CLIENTS"), 1)
	if err != nil {
		b.Fatalf("GOCHUNK_ANN_CLIENTS: %v", err)
	}
	for _, mode := range modes {
		for _, p := range probes {
			for _, c := range clients {
				b.Run(fmt.Sprintf("%s/probes=%d/clients=%d", mode, p, c), func(b *testing.B) {
					var mu sync.Mutex
					var times []time.Duration
					found, all, near := 0, 0, 0
					next := make(chan int)
					var wg sync.WaitGroup
					var failed error
					cpu0 := cpuTime()
					start := time.Now()
					for range max(c, 1) {
						wg.Go(func() {
							for j := range next {
								t := time.Now()
								hits, err := se.Search(ctx, store.Query{Text: queries[j], K: k, Mode: mode, Probes: p})
								took := time.Since(t)
								mu.Lock()
								if err != nil {
									failed = err
								}
								times = append(times, took)
								if ref := exact[mode]; ref != nil {
									f, a, n := agree(hits, ref[j])
									found, all, near = found+f, all+a, near+n
								}
								mu.Unlock()
							}
						})
					}
					for i := 0; b.Loop(); i++ {
						next <- i % len(queries)
					}
					close(next)
					wg.Wait()
					wall := time.Since(start)
					if failed != nil {
						b.Fatal(failed)
					}
					if all > 0 {
						b.ReportMetric(float64(found)/float64(all), "recall@10")
						b.ReportMetric(float64(min(near, all))/float64(all), "recall@10-ties")
					}
					b.ReportMetric(float64(pct(times, 50).Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(pct(times, 99).Microseconds())/1000, "p99-ms")
					b.ReportMetric(float64(len(times))/wall.Seconds(), "qps")
					b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(times)), "cpu-ms/q")
				})
			}
		}
	}
}

// agree counts the reference hits that hits has (by chunk), the
// reference hits, and the hits as near as the reference's k-th (within
// 1e-3: ann-benchmarks' rule, for equally near chunks).
func agree(hits, ref []store.Hit) (found, all, near int) {
	got := map[string]bool{}
	for _, h := range hits {
		got[fmt.Sprint(h.Source, "#", h.ChunkIndex)] = true
	}
	for _, h := range ref {
		all++
		if got[fmt.Sprint(h.Source, "#", h.ChunkIndex)] {
			found++
		}
	}
	if len(ref) > 0 {
		kth := ref[len(ref)-1].Score
		for _, h := range hits {
			if h.Score >= kth-1e-3 {
				near++
			}
		}
	}
	return found, all, near
}

// intList reads a comma-separated list of integers (def when empty).
func intList(s string, def int) ([]int, error) {
	if s == "" {
		return []int{def}, nil
	}
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// pct returns the p-th percentile of ts.
func pct(ts []time.Duration, p int) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
