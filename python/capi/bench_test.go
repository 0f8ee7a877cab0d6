//go:build cgo

package main

import (
	"context"
	"testing"

	"github.com/gochunk/gochunk/pipeline"
)

// BenchmarkChunkShort is the Go side of one Python call on a short text:
// the per-call overhead of the C API (go test -bench ChunkShort ./python/capi).
func BenchmarkChunkShort(b *testing.B) {
	pl, err := newPipeline(context.Background(), "recursive", `{"size": 512}`)
	if err != nil {
		b.Fatal(err)
	}
	c := &chunker{pl: pl}
	src := []pipeline.Source{{Text: "Hello, world. A short text of two sentences."}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.run(src, 1); err != nil {
			b.Fatal(err)
		}
	}
}
