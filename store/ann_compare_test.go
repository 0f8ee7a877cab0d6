package store

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gochunk/gochunk/record"
)

// BenchmarkANNCompare measures the SQLite store's dense vector index and
// hnswlib-node, usearch and LanceDB side by side, on the same vectors, in
// one run on the same cores: it exports a store's vectors and held-out
// query vectors, computes their exact k nearest neighbours (cosine), times
// BuildIndex (k-means and every vector's row) and each --probes setting
// (recall@10, p50/p99 of one client, queries per CPU second), then runs
// testdata/ann_compare.cjs, which does the same for the three libraries.
// It is driven by the environment:
//
//	GOCHUNK_ANN_STORE        the store (a copy is indexed; the file is not changed)
//	GOCHUNK_ANN_QUERY_STORE  a store of held-out texts' vectors: the queries
//	GOCHUNK_ANN_GENERATE     N: make GOCHUNK_ANN_STORE of N generated clustered
//	                         vectors (GOCHUNK_ANN_DIMS, default 384) when it
//	                         does not exist, and generated queries
//	GOCHUNK_ANN_QUERIES      number of queries (default 300)
//	GOCHUNK_ANN_PROBES       gochunk's settings, comma-separated (0: the default)
//	GOCHUNK_ANN_NODE         directory whose node_modules has the libraries
//	                         (none: gochunk alone)
//	GOCHUNK_ANN_OUT          where the vectors and results go (default: a temporary directory)
//	GOCHUNK_ANN_SEARCH_ONLY  1: search OUT/store.db, an earlier run's indexed copy
//	                         (run with GOCHUNK_ANN_UPDATE=0, which leaves it as
//	                         built), without copying or building again
//	GOCHUNK_ANN_UPDATE       0: no 1 % update of a generated store at the end
//	GOCHUNK_ANN_REUSE        1: OUT already holds this store's exported vectors,
//	                         queries and exact neighbours (an earlier run's):
//	                         they are read, not computed again (at a million
//	                         vectors that saves minutes and 3 GB of memory)
//
// With ANN_INDEX_DIR set, the libraries' indexes are built once and kept
// there (see testdata/ann_compare.cjs): build them first, apart, and this
// run then measures every index's searches in the same minutes.
//
// Run it once (-benchtime 1x); the table is in the log and OUT/table.md.
func BenchmarkANNCompare(b *testing.B) {
	where := os.Getenv("GOCHUNK_ANN_STORE")
	if where == "" {
		b.Skip("set GOCHUNK_ANN_STORE (and GOCHUNK_ANN_QUERY_STORE or GOCHUNK_ANN_GENERATE): see the benchmark's comment")
	}
	ctx := context.Background()
	outDir := cmp.Or(os.Getenv("GOCHUNK_ANN_OUT"), b.TempDir())
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		b.Fatal(err)
	}
	nq, _ := strconv.Atoi(cmp.Or(os.Getenv("GOCHUNK_ANN_QUERIES"), "300"))
	dims, _ := strconv.Atoi(cmp.Or(os.Getenv("GOCHUNK_ANN_DIMS"), "384"))
	var queries, centres [][]float32
	generated, _ := strconv.Atoi(os.Getenv("GOCHUNK_ANN_GENERATE"))
	if n := generated; n > 0 {
		rng := rand.New(rand.NewPCG(53, 53))
		centres = generatedCentres(max(64, n/500), dims)
		if _, err := os.Stat(where); err != nil {
			generateStore(b, where, rng, centres, n, dims)
		}
		queries = generateVectors(rand.New(rand.NewPCG(54, 54)), centres, nq, dims)
	}
	// The store's copy (a snapshot, while gochunk index may still write
	// it): BuildIndex rewrites its index.
	copyPath := filepath.Join(outDir, "store.db")
	searchOnly := os.Getenv("GOCHUNK_ANN_SEARCH_ONLY") == "1"
	if searchOnly {
		// An earlier run's indexed copy, searched as it is.
	} else if err := snapshot(ctx, where, copyPath); err != nil {
		b.Fatal(err)
	}
	s, err := OpenSQLite(ctx, copyPath)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	reuse := os.Getenv("GOCHUNK_ANN_REUSE") == "1"
	var ids []int64
	var base [][]float32
	if err := eachVector(ctx, s.db, func(id int64, v []float32) error {
		ids = append(ids, id)
		dims = len(v)
		if !reuse {
			base = append(base, unit(v))
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if len(ids) == 0 {
		b.Fatalf("%s holds no vectors", where)
	}
	if qs := os.Getenv("GOCHUNK_ANN_QUERY_STORE"); qs != "" {
		q, err := OpenSQLite(ctx, qs)
		if err != nil {
			b.Fatal(err)
		}
		err = eachVector(ctx, q.db, func(_ int64, v []float32) error {
			if len(queries) < nq {
				queries = append(queries, unit(v))
			}
			return nil
		})
		q.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(queries) == 0 {
		b.Fatal("no queries: set GOCHUNK_ANN_QUERY_STORE or GOCHUNK_ANN_GENERATE")
	}
	const k = 10
	row := map[int64]int32{}
	for i, id := range ids {
		row[id] = int32(i)
	}
	// The process's peak RSS includes the vectors the benchmark held to
	// export them (a float32 copy and the file's bytes), unless reused.
	copies := 0.0
	if !reuse {
		copies = float64(len(ids)*dims*4*2) / 1e6
	}
	var truth [][]int32
	if reuse {
		truth = reusedTruth(b, outDir, len(ids), dims, len(queries), k)
	} else {
		truth = exactNeighbours(base, queries, k)
		writeExport(b, outDir, base, queries, truth, k)
		base = nil
	}

	var results []annResult
	b.ResetTimer()
	wall, cpu := time.Now(), cpuSeconds()
	if searchOnly {
		// Nothing built: the build columns read 0.
	} else if err := s.BuildIndex(ctx); err != nil {
		b.Fatal(err)
	}
	build := [2]float64{time.Since(wall).Seconds(), cpuSeconds() - cpu}
	buildRSS := peakRSS()
	desc, _ := s.indexName(ctx)
	counts, err := s.Counts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	half := float64(len(ids) * 2 * dims)
	b.Logf("gochunk: %d vectors of %d dimensions, %s, store %d bytes (%.0f per vector, %.2f× the float16 vectors), build %.1f s (%.1f CPU s)",
		len(ids), dims, desc, counts.Bytes, float64(counts.Bytes)/float64(len(ids)), float64(counts.Bytes)/half, build[0], build[1])
	b.Logf("gochunk process: peak RSS %.0f MB after BuildIndex (with the benchmark's copies of the vectors: %.0f MB)", peakRSS(), copies)
	probes := []int{0}
	if p := os.Getenv("GOCHUNK_ANN_PROBES"); p != "" {
		probes = nil
		for f := range strings.SplitSeq(p, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("GOCHUNK_ANN_PROBES %q: %v", p, err)
			}
			probes = append(probes, n)
		}
	}
	for _, p := range probes {
		lat := make([]float64, 0, len(queries))
		found := 0
		cpu := cpuSeconds()
		for i, q := range queries {
			t0 := time.Now()
			best, ok, err := s.ivfSearch(ctx, Query{Vector: q, K: k, Mode: Vector, Probes: p})
			lat = append(lat, float64(time.Since(t0))/1e6)
			if err != nil || !ok {
				b.Fatalf("index search: %v (index %v)", err, ok)
			}
			want := map[int32]bool{}
			for _, r := range truth[i] {
				want[r] = true
			}
			for _, c := range best {
				if want[row[c.rowid]] {
					found++
				}
			}
		}
		setting := fmt.Sprintf("probes=%d", p)
		if p == 0 {
			setting = "probes=default"
		}
		results = append(results, summarise("gochunk SQLite ("+desc+", int8 codes, float16 re-score)", setting, build, lat, float64(found)/float64(len(queries)*k), cpuSeconds()-cpu))
	}
	// The whole search (records read, as gochunk search returns them)
	// at the default setting.
	lat := make([]float64, 0, len(queries))
	cpu = cpuSeconds()
	for _, q := range queries {
		t0 := time.Now()
		if _, err := s.Search(ctx, Query{Vector: q, K: k, Mode: Vector}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, float64(time.Since(t0))/1e6)
	}
	results = append(results, summarise("gochunk SQLite, Search (hits' records read)", "probes=default", build, lat, math.NaN(), cpuSeconds()-cpu))
	// Eight clients at once, each searching every query: QPS is all the
	// queries over the wall time.
	const clients = 8
	lats := make([][]float64, clients)
	errs := make(chan error, clients)
	wall, cpu = time.Now(), cpuSeconds()
	for c := range clients {
		go func() {
			for j := range queries {
				q := queries[(j+c*len(queries)/clients)%len(queries)]
				t0 := time.Now()
				if _, err := s.Search(ctx, Query{Vector: q, K: k, Mode: Vector}); err != nil {
					errs <- err
					return
				}
				lats[c] = append(lats[c], float64(time.Since(t0))/1e6)
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(wall).Seconds()
	r := summarise("gochunk SQLite, Search, 8 clients", "probes=default", build, slices.Concat(lats...), math.NaN(), cpuSeconds()-cpu)
	r.QPS = float64(clients*len(queries)) / elapsed
	results = append(results, r)
	if generated > 0 && os.Getenv("GOCHUNK_ANN_UPDATE") != "0" {
		// An incremental update: 1 % of the generated documents (100
		// chunks each) written again with new vectors, ten documents a
		// transaction, without training the index again.
		version, _ := s.Meta(ctx, "ivf_version")
		rng := rand.New(rand.NewPCG(55, 55))
		docs := max(1, generated/100/100)
		wall, cpu := time.Now(), cpuSeconds()
		for d := 0; d < docs; d += 10 {
			var puts []Put
			for j := d; j < min(docs, d+10); j++ {
				id := fmt.Sprintf("gen/doc%07d", j*100)
				put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h2", ConfigHash: "c"}}
				for i, v := range generateVectors(rng, centres, 100, dims) {
					put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: fmt.Sprintf("chunk %d of %s", i, id), End: 10, EndRune: 10, Embedding: v})
				}
				puts = append(puts, put)
			}
			if err := s.Replace(ctx, puts...); err != nil {
				b.Fatal(err)
			}
		}
		after, _ := s.Meta(ctx, "ivf_version")
		b.Logf("update of 1 %% (%d documents, %d chunks): %.1f s (%.1f CPU s, %.2f CPU ms a chunk), index version %s → %s",
			docs, docs*100, time.Since(wall).Seconds(), cpuSeconds()-cpu, (cpuSeconds()-cpu)*1000/float64(docs*100), version, after)
	}
	if dir := os.Getenv("GOCHUNK_ANN_NODE"); dir != "" {
		script, _ := filepath.Abs(filepath.Join("testdata", "ann_compare.cjs"))
		cmd := exec.Command("node", script, filepath.Join(outDir, "meta.json"))
		cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"), "RUST_LOG=error")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("node %s: %v", script, err)
		}
		for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
			var r annResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				b.Fatalf("node %s: %q: %v", script, line, err)
			}
			results = append(results, r)
		}
	}
	b.StopTimer()
	for i := range results {
		if strings.HasPrefix(results[i].Lib, "gochunk") {
			results[i].BuildRSS = buildRSS
		}
	}
	b.Logf("gochunk process: peak RSS %.0f MB at the end (with the benchmark's copies of the vectors: %.0f MB)", peakRSS(), copies)
	var t strings.Builder
	fmt.Fprintf(&t, "%d vectors of %d dimensions, %d queries, recall@%d against the exact scan (cosine)\n\n", len(ids), dims, len(queries), k)
	t.WriteString("| index | setting | build s (CPU s) | build peak RSS MB | recall@10 | p50 ms | p99 ms | QPS | queries per CPU s |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		rec := "—"
		if !math.IsNaN(r.Recall) {
			rec = fmt.Sprintf("%.3f", r.Recall)
		}
		fmt.Fprintf(&t, "| %s | %s | %.1f (%.1f) | %.0f | %s | %.2f | %.2f | %.0f | %.0f |\n", r.Lib, r.Setting, r.BuildS, r.BuildCPU, r.BuildRSS, rec, r.P50, r.P99, r.QPS, r.CPUQPS)
	}
	b.Log("\n" + t.String())
	if err := os.WriteFile(filepath.Join(outDir, "table.md"), []byte(t.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// writeExport writes what ann_compare.cjs reads: the base vectors, the
// queries, their exact neighbours (base rows) and meta.json.
func writeExport(b *testing.B, outDir string, base, queries [][]float32, truth [][]int32, k int) {
	if err := writeVectors(filepath.Join(outDir, "base.f32"), base); err != nil {
		b.Fatal(err)
	}
	if err := writeVectors(filepath.Join(outDir, "queries.f32"), queries); err != nil {
		b.Fatal(err)
	}
	gt := make([]byte, 0, 4*len(truth)*k)
	for _, t := range truth {
		for _, r := range t {
			gt = binary.LittleEndian.AppendUint32(gt, uint32(r))
		}
	}
	if err := os.WriteFile(filepath.Join(outDir, "truth.i32"), gt, 0o644); err != nil {
		b.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"n": len(base), "dims": len(base[0]), "queries": len(queries), "k": k})
	if err := os.WriteFile(filepath.Join(outDir, "meta.json"), meta, 0o644); err != nil {
		b.Fatal(err)
	}
}

// reusedTruth reads an earlier run's exact neighbours from outDir, after
// checking that its meta.json describes the same vectors and queries.
func reusedTruth(b *testing.B, outDir string, n, dims, queries, k int) [][]int32 {
	var meta struct{ N, Dims, Queries, K int }
	raw, err := os.ReadFile(filepath.Join(outDir, "meta.json"))
	if err == nil {
		err = json.Unmarshal(raw, &meta)
	}
	if err != nil {
		b.Fatalf("GOCHUNK_ANN_REUSE: %v", err)
	}
	if meta.N != n || meta.Dims != dims || meta.Queries != queries || meta.K != k {
		b.Fatalf("GOCHUNK_ANN_REUSE: %s/meta.json is %s; this store and query set are n %d, dims %d, queries %d, k %d", outDir, raw, n, dims, queries, k)
	}
	gt, err := os.ReadFile(filepath.Join(outDir, "truth.i32"))
	if err != nil || len(gt) != 4*queries*k {
		b.Fatalf("GOCHUNK_ANN_REUSE: truth.i32: %d bytes, %v", len(gt), err)
	}
	out := make([][]int32, queries)
	for i := range out {
		for j := range k {
			out[i] = append(out[i], int32(binary.LittleEndian.Uint32(gt[4*(i*k+j):])))
		}
	}
	return out
}

// annResult is one index at one setting.
type annResult struct {
	Lib      string  `json:"lib"`
	Setting  string  `json:"setting"`
	BuildS   float64 `json:"build_s"`
	BuildCPU float64 `json:"build_cpu_s"`
	BuildRSS float64 `json:"build_rss_mb"`
	Recall   float64 `json:"recall"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	QPS      float64 `json:"qps"`
	CPUQPS   float64 `json:"cpu_qps"`
}

func summarise(lib, setting string, build [2]float64, lat []float64, recall, cpu float64) annResult {
	total := 0.0
	for _, l := range lat {
		total += l
	}
	slices.Sort(lat)
	return annResult{Lib: lib, Setting: setting, BuildS: build[0], BuildCPU: build[1], Recall: recall,
		P50: lat[len(lat)/2], P99: lat[min(len(lat)-1, len(lat)*99/100)], QPS: float64(len(lat)) / (total / 1000), CPUQPS: float64(len(lat)) / cpu}
}

// peakRSS is the process's peak resident memory so far, in MB.
func peakRSS() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

// cpuSeconds is the process's user and system time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// exactNeighbours returns each query's k nearest base rows by cosine (the
// vectors are unit length), nearest first.
func exactNeighbours(base, queries [][]float32, k int) [][]int32 {
	out := make([][]int32, len(queries))
	for i, q := range queries {
		best := topK{k: k}
		for r, v := range base {
			best.offer(candidate{rowid: int64(r), score: float64(dotFloat(q, v))})
		}
		for _, c := range best.best {
			out[i] = append(out[i], int32(c.rowid))
		}
	}
	return out
}

func writeVectors(path string, vs [][]float32) error {
	b := make([]byte, 0, 4*len(vs)*len(vs[0]))
	for _, v := range vs {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	return os.WriteFile(path, b, 0o644)
}

// snapshot writes a consistent copy of the store at from to the new file
// to (VACUUM INTO: the WAL's pages included, a writer's transaction not).
func snapshot(ctx context.Context, from, to string) error {
	os.Remove(to)
	s, err := OpenSQLite(ctx, from)
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = s.db.ExecContext(ctx, `VACUUM INTO ?`, to)
	return err
}

// generatedCentres are the cluster centres of generated vectors.
func generatedCentres(n, dims int) [][]float32 {
	rng := rand.New(rand.NewPCG(uint64(dims), uint64(n)))
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dims)
		for j := range out[i] {
			out[i][j] = float32(rng.NormFloat64())
		}
	}
	return out
}

// generateVectors draws n vectors around the centres (each dimension the
// centre's plus normal noise of 0.7).
func generateVectors(rng *rand.Rand, centres [][]float32, n, dims int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(len(centres))]
		out[i] = make([]float32, dims)
		for j := range out[i] {
			out[i][j] = c[j] + float32(0.7*rng.NormFloat64())
		}
	}
	return out
}

// generateStore writes a store of n generated vectors, in documents of
// 100 chunks, 50 documents a transaction.
func generateStore(b testing.TB, path string, rng *rand.Rand, centres [][]float32, n, dims int) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Prepare(ctx, dims); err != nil {
		b.Fatal(err)
	}
	for d := 0; d*100 < n; d += 50 {
		var puts []Put
		for j := d; j < d+50 && j*100 < n; j++ {
			id := fmt.Sprintf("gen/doc%07d", j)
			put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c"}}
			for i, v := range generateVectors(rng, centres, min(100, n-j*100), dims) {
				put.Chunks = append(put.Chunks, record.Record{Source: id, ChunkIndex: i, Text: fmt.Sprintf("chunk %d of %s", i, id), End: 10, EndRune: 10, Embedding: v})
			}
			puts = append(puts, put)
		}
		if err := s.Replace(ctx, puts...); err != nil {
			b.Fatal(err)
		}
	}
}
