package split

import (
	"context"
	"os"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
)

// fastBenchText is GOCHUNK_BENCH_FILE, else the development corpora repeated to
// 20 MB, else generated prose.
func fastBenchText(b *testing.B) string {
	if p := os.Getenv("GOCHUNK_BENCH_FILE"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	text := benchText(20 << 20)
	for len(text) > 0 && text[len(text)-1]&0xC0 == 0x80 {
		text = text[:len(text)-1]
	}
	return text
}

// BenchmarkFast measures the fast chunker's offsets in process, one core:
//
//	go test ./split -run '^$' -bench Fast -cpu 1
func BenchmarkFast(b *testing.B) {
	text := fastBenchText(b)
	doc := gochunk.Document{Text: text}
	for _, size := range []int{1000, 4096} {
		f, err := NewFast(FastConfig{Size: size, Delimiters: "\n.?"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("offsets/"+strconv.Itoa(size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := f.Offsets(context.Background(), doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	f, _ := NewFast(FastConfig{Size: 1000, Delimiters: "\n.?"}, nil)
	b.Run("search-only/1000", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			f.offsets(context.Background(), text)
		}
	})
	b.Run("utf8-validation", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if !utf8.ValidString(text) {
				b.Fatal("invalid")
			}
		}
	})
}
