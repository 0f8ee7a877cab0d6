package split

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

// The boundaries of Chonkie's chunk library (npm @chonkiejs/chunk 0.9.3,
// chunk_offsets and chunk_offsets_pattern) on hand-made cases that exercise
// each rule; TestFastConformance compares with the library itself.
func TestFastBoundaries(t *testing.T) {
	type opts struct {
		delims, pattern         string
		prefix, consecutive, ff bool
	}
	tests := []struct {
		text string
		size int
		o    opts
		want []int
	}{
		{"Hello\n\n\nWorld", 8, opts{delims: "\n"}, []int{0, 8, 8, 13}},
		{"Hello\n\n\nWorld", 8, opts{delims: "\n", consecutive: true}, []int{0, 6, 6, 13}},
		{"Hello\n\n\nWorld", 8, opts{delims: "\n", prefix: true}, []int{0, 7, 7, 13}},
		{"Hello\n\n\nWorld", 8, opts{delims: "\n", prefix: true, consecutive: true}, []int{0, 5, 5, 13}},
		// A delimiter at the window's start does not count.
		{"Hello world", 5, opts{delims: " ", prefix: true}, []int{0, 5, 5, 10, 10, 11}},
		{".abcdef", 3, opts{delims: "."}, []int{0, 3, 3, 6, 6, 7}},
		{"a b c d e", 2, opts{delims: " ", prefix: true}, []int{0, 1, 1, 3, 3, 5, 5, 7, 7, 9}},
		// Nor does a run that starts there.
		{"a   bcdef", 3, opts{delims: " ", consecutive: true}, []int{0, 2, 2, 5, 5, 8, 8, 9}},
		{"  bcdefg", 3, opts{delims: " ", consecutive: true}, []int{0, 3, 3, 6, 6, 8}},
		{"a    bcdef", 3, opts{delims: " ", prefix: true, consecutive: true}, []int{0, 1, 1, 4, 4, 7, 7, 10}},
		// Forward fallback: the first delimiter after the window, the
		// first that starts a run with consecutive, or the rest.
		{"verylongword next", 6, opts{delims: " ", prefix: true, ff: true}, []int{0, 12, 12, 17}},
		{"verylongword next", 6, opts{delims: " ", ff: true}, []int{0, 13, 13, 17}},
		{"verylongwordnext", 6, opts{delims: " ", ff: true}, []int{0, 16}},
		{" bcdef ghi", 4, opts{delims: " ", prefix: true, ff: true}, []int{0, 6, 6, 10}},
		{"a.....bc.d", 3, opts{delims: ".", consecutive: true, ff: true}, []int{0, 2, 2, 9, 9, 10}},
		{"a.....bc.d", 3, opts{delims: ".", consecutive: true, ff: true, prefix: true}, []int{0, 1, 1, 8, 8, 10}},
		{"a.....bc.d", 3, opts{delims: ".", ff: true}, []int{0, 3, 3, 6, 6, 9, 9, 10}},
		// Defaults: newline, period, question mark; four or more
		// delimiters; none.
		{"x\ny.z?w!v", 4, opts{delims: "\n.?"}, []int{0, 4, 4, 6, 6, 9}},
		{"A. B? C! D; E", 5, opts{delims: ".?!;"}, []int{0, 5, 5, 8, 8, 13}},
		{"abcdef", 3, opts{}, []int{0, 3, 3, 6}},
		// Patterns, overlapping ones included.
		{"Hello▁World▁Test", 15, opts{pattern: "▁"}, []int{0, 8, 8, 20}},
		{"Hello▁World▁Test", 15, opts{pattern: "▁", prefix: true}, []int{0, 5, 5, 20}},
		{"ab▁▁▁cd", 8, opts{pattern: "▁", consecutive: true}, []int{0, 5, 5, 13}},
		{"▁▁▁abcdef▁gh", 5, opts{pattern: "▁", consecutive: true, ff: true}, []int{0, 18, 18, 20}},
		{"▁▁▁abcdef▁gh", 5, opts{pattern: "▁", ff: true}, []int{0, 9, 9, 18, 18, 20}},
		{"abc▁def", 4, opts{pattern: "▁", ff: true}, []int{0, 9}},
		{"aaaaaaa", 5, opts{pattern: "aa", consecutive: true}, []int{0, 3, 3, 7}},
		{"baaaaaaa", 6, opts{pattern: "aa", consecutive: true, prefix: true}, []int{0, 2, 2, 8}},
		// Where the library cuts inside a character ([0,3] [3,6] …; [0,5]
		// [5,9]; [0,1] [1,9] [9,17] [17,18]), gochunk ends at the
		// character's start.
		{"éééééé", 3, opts{delims: "."}, []int{0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12}},
		{"abc▁def", 5, opts{pattern: "▁"}, []int{0, 3, 3, 8, 8, 9}},
		{"x▁▁▁abcdefgh", 8, opts{pattern: "▁", consecutive: true, prefix: true}, []int{0, 1, 1, 7, 7, 15, 15, 18}},
	}
	for _, tc := range tests {
		f, err := NewFast(FastConfig{Size: tc.size, Delimiters: tc.o.delims, Pattern: tc.o.pattern, Prefix: tc.o.prefix,
			Consecutive: tc.o.consecutive, ForwardFallback: tc.o.ff}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Offsets(context.Background(), gochunk.Document{Text: tc.text})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q size %d %+v: %v %v, want %v", tc.text, tc.size, tc.o, got, err, tc.want)
		}
	}
}

func TestFastContract(t *testing.T) {
	text := strings.Repeat("Tides rise and fall. Does the moon pull them?\nYes: gravity.  日本語の文です。🎉 ", 40)
	for _, cfg := range []FastConfig{
		{Size: 64, Delimiters: "\n.?"},
		{Size: 64, Delimiters: "\n.?", Prefix: true, Consecutive: true},
		{Size: 7, Delimiters: " "},
		{Size: 50, Pattern: "。"},
		{Size: 50, Pattern: "。", Prefix: true, Consecutive: true},
	} {
		for _, counter := range []tokenize.Counter{tokenize.Bytes{}, tokenize.Runes{}} {
			c, err := NewFast(cfg, counter)
			if err != nil {
				t.Fatal(err)
			}
			chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: cfg.Size})
		}
	}
	// Forward fallback may exceed the size, by design.
	c, _ := NewFast(FastConfig{Size: 5, Delimiters: "\n", ForwardFallback: true}, nil)
	chunktest.Check(t, c, text, chunktest.Options{Counter: tokenize.Bytes{}})
}

func TestFastErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg     FastConfig
		counter tokenize.Counter
	}{
		{FastConfig{Size: 0}, nil},
		{FastConfig{Size: 10, Delimiters: "。"}, nil},
		{FastConfig{Size: 10}, tokenize.Words{}},
	} {
		if _, err := NewFast(tc.cfg, tc.counter); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("%+v %v: err = %v, want ErrConfig", tc.cfg, tc.counter, err)
		}
	}
	c, _ := NewFast(FastConfig{Size: 2}, nil)
	if _, err := c.Chunk(context.Background(), gochunk.Document{Text: "a🎉b"}); !errors.Is(err, gochunk.ErrTooSmall) {
		t.Errorf("a 4-byte character in 2-byte windows: %v", err)
	}
	if _, err := c.Chunk(context.Background(), gochunk.Document{Text: "a\xffb"}); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	if chunks, err := c.Chunk(context.Background(), gochunk.Document{}); err != nil || len(chunks) != 0 {
		t.Errorf("empty text: %v %v", chunks, err)
	}
}

func FuzzFast(f *testing.F) {
	f.Add("Hello. World? Yes.\nNo▁▁more", uint8(5), uint8(0))
	f.Add("日本語。中文！🎉🎉🎉 aaaa,bbbb;cccc", uint8(4), uint8(0xff))
	f.Fuzz(func(t *testing.T, text string, size, flags uint8) {
		if !utf8.ValidString(text) {
			return
		}
		cfg := FastConfig{Size: int(size%40) + 4, Delimiters: "\n.?", Prefix: flags&1 != 0, Consecutive: flags&2 != 0, ForwardFallback: flags&4 != 0}
		if flags&8 != 0 {
			cfg.Delimiters, cfg.Pattern = "", "▁"
		}
		var counter tokenize.Counter = tokenize.Bytes{}
		if flags&16 != 0 {
			counter = tokenize.Runes{}
		}
		c, err := NewFast(cfg, counter)
		if err != nil {
			t.Fatal(err)
		}
		limit := cfg.Size
		if cfg.ForwardFallback {
			limit = 0
		}
		chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: limit})
		offs, _ := c.Offsets(context.Background(), gochunk.Document{Text: text})
		for i := 0; i+1 < len(offs); i += 2 {
			if offs[i] >= offs[i+1] || i > 0 && offs[i] != offs[i-1] {
				t.Fatalf("offsets %v", offs)
			}
		}
		if len(text) > 0 && (offs[0] != 0 || offs[len(offs)-1] != len(text)) {
			t.Fatal(fmt.Sprint("offsets do not cover the text: ", offs))
		}
	})
}
