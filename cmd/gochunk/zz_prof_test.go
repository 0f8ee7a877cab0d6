package main

import (
	"context"
	"io"
	"testing"
)

func BenchmarkZZProcess(b *testing.B) {
	for b.Loop() {
		runContext(context.Background(), []string{"chunk", "--chunker", "token", "--tokenizer", "cl100k_base", "--size", "512", "/tmp/corp5.txt"}, nil, io.Discard, io.Discard)
	}
}
