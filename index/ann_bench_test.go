package index

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// BenchmarkANN measures a store's vector search through the Searcher
// (what gochunk search, POST /v1/search, the MCP server and eval call)
// against the exact scan: recall@10, and each query's latency, p50 and
// p99 (one client). It reads the store that GOCHUNK_ANN_STORE names (one
// gochunk index wrote) and the queries of GOCHUNK_ANN_QUERIES (a text
// per line, held out of the store), at the probes GOCHUNK_ANN_PROBES lists
// (comma-separated; default 0, the store's default), e.g.
//
//	GOCHUNK_ANN_STORE=/tmp/s100k.db GOCHUNK_ANN_QUERIES=/tmp/queries.txt GOCHUNK_ANN_PROBES=0,8,32 \
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
	exact := make([][]store.Hit, len(queries))
	var exactTimes []time.Duration
	for i, q := range queries {
		t := time.Now()
		if exact[i], err = se.Search(ctx, store.Query{Text: q, K: k, Mode: store.Vector, Exact: true}); err != nil {
			b.Fatal(err)
		}
		exactTimes = append(exactTimes, time.Since(t))
	}
	b.Logf("exact scan of %d queries: p50 %s p99 %s", len(queries), pct(exactTimes, 50), pct(exactTimes, 99))
	probes := []int{0}
	if p := os.Getenv("GOCHUNK_ANN_PROBES"); p != "" {
		probes = probes[:0]
		for f := range strings.SplitSeq(p, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("GOCHUNK_ANN_PROBES: %v", err)
			}
			probes = append(probes, n)
		}
	}
	for _, mode := range []store.Mode{store.Vector, store.Hybrid} {
		for _, p := range probes {
			b.Run(fmt.Sprintf("%s/probes=%d", mode, p), func(b *testing.B) {
				var times []time.Duration
				found, all, near := 0, 0, 0
				for i := 0; b.Loop(); i++ {
					j := i % len(queries)
					t := time.Now()
					hits, err := se.Search(ctx, store.Query{Text: queries[j], K: k, Mode: mode, Probes: p})
					if err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t))
					if mode != store.Vector {
						continue
					}
					got := map[string]bool{}
					for _, h := range hits {
						got[fmt.Sprint(h.Source, "#", h.ChunkIndex)] = true
					}
					for _, h := range exact[j] {
						all++
						if got[fmt.Sprint(h.Source, "#", h.ChunkIndex)] {
							found++
						}
					}
					// As ann-benchmarks counts: a hit as near as the exact
					// k-th (within 1e-3) is a right one, whichever of
					// equally near chunks it is.
					if len(exact[j]) > 0 {
						kth := exact[j][len(exact[j])-1].Score
						for _, h := range hits {
							if h.Score >= kth-1e-3 {
								near++
							}
						}
					}
				}
				if all > 0 {
					b.ReportMetric(float64(found)/float64(all), "recall@10")
					b.ReportMetric(float64(min(near, all))/float64(all), "recall@10-ties")
				}
				b.ReportMetric(float64(pct(times, 50).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(pct(times, 99).Microseconds())/1000, "p99-ms")
			})
		}
	}
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
