package eval

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/gochunk/gochunk"
)

// Speed is how fast a chunker ran and how much memory it took.
type Speed struct {
	Chunker     string  `json:"chunker"`
	Tokenizer   string  `json:"tokenizer"`
	Bytes       int     `json:"bytes"`
	Runs        int     `json:"runs"`
	Chunks      int     `json:"chunks"`
	MBPerSec    float64 `json:"mb_per_s"`
	ChunksPerS  float64 `json:"chunks_per_s"`
	PeakHeapMB  float64 `json:"peak_heap_mb"`
	AllocPerRun float64 `json:"alloc_mb_per_run"`
}

// Benchmark chunks docs with c, again and again until minTime has passed
// (at least once), and measures input MB/s, chunks/s, the peak of the heap
// in use above what it was before (sampled every 2 ms) and the memory
// allocated per run. Chunker and Tokenizer are left for the caller to name.
func Benchmark(ctx context.Context, c gochunk.Chunker, docs []gochunk.Document, minTime time.Duration) (Speed, error) {
	runtime.GC()
	base := heapInUse()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)

	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if h := heapInUse(); h > peak {
				peak = h
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()

	runs, chunks := 0, 0
	start := time.Now()
	for runs == 0 || time.Since(start) < minTime {
		chunks = 0
		for _, d := range docs {
			cs, err := c.Chunk(ctx, d)
			if err != nil {
				close(stop)
				wg.Wait()
				return Speed{}, err
			}
			chunks += len(cs)
		}
		runs++
	}
	elapsed := time.Since(start).Seconds()
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&ms1)
	bytes := 0
	for _, d := range docs {
		bytes += len(d.Text)
	}
	return Speed{
		Bytes:       bytes,
		Runs:        runs,
		Chunks:      chunks,
		MBPerSec:    float64(bytes*runs) / elapsed / 1e6,
		ChunksPerS:  float64(chunks*runs) / elapsed,
		PeakHeapMB:  float64(peak-min(peak, base)) / 1e6,
		AllocPerRun: float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(runs) / 1e6,
	}, nil
}

func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
