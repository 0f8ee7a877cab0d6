// Package chunktest checks that a chunker keeps the contract of package
// gochunk. Chunker authors call Check from their tests and fuzz targets.
package chunktest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
)

// Options say what Check may assume of the chunker.
type Options struct {
	// Counter is the chunker's size unit; nil means runes.
	Counter tokenize.Counter
	// Limit is the chunker's maximum size; 0 skips the size check.
	Limit int
	// Overlap is true when chunks may overlap; then coverage is checked
	// (every non-space character in some chunk) but not uniqueness.
	Overlap bool
	// RepeatedHeaders is true for chunkers whose chunks of several spans
	// may repeat, as their first span, text another chunk holds (a
	// table's header row, repeated above each part of the table): such a
	// span is left out of the uniqueness check, the rest is checked.
	RepeatedHeaders bool
	// Derived is true for chunkers whose chunk text is new text derived
	// from its spans (propositions): the text is not compared with the
	// spans, but spans, sizes and coverage are checked.
	Derived bool
	// Accounting names metadata keys that describe the run rather than the
	// chunks and may differ between two runs; the determinism check ignores
	// them, and always ignores Stats.LLM (calls, latency).
	Accounting []string
}

// Check chunks text with c twice and reports every broken rule of the
// contract to t: offsets that do not match the text, chunks over the limit,
// token counts that do not match the counter, non-space characters lost or
// (without overlap) repeated, spans out of order, and output that differs
// between the two runs. It returns the chunks of the first run.
func Check(t testing.TB, c gochunk.Chunker, text string, opt Options) []gochunk.Chunk {
	t.Helper()
	chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: "check", Text: text})
	if err != nil {
		t.Fatalf("Chunk(%.60q): %v", text, err)
	}
	if msg := Verify(text, chunks, opt); msg != "" {
		t.Fatalf("contract broken on %.80q: %s", text, msg)
	}
	again, err := c.Chunk(context.Background(), gochunk.Document{ID: "check", Text: text})
	if err != nil {
		t.Fatalf("second Chunk: %v", err)
	}
	if !reflect.DeepEqual(strip(chunks, opt.Accounting), strip(again, opt.Accounting)) {
		t.Fatalf("not deterministic: two runs on %.60q differ", text)
	}
	return chunks
}

// Verify returns a description of the first broken rule of the contract
// for chunks of text, or "" when they keep it.
func Verify(text string, chunks []gochunk.Chunk, opt Options) string {
	counter := opt.Counter
	if counter == nil {
		counter = tokenize.Runes{}
	}
	if strings.TrimSpace(text) == "" && len(chunks) > 0 && utf8.ValidString(text) {
		return fmt.Sprintf("%d chunks for blank input", len(chunks))
	}
	covered := make([]int, len(text)+1) // difference array of coverage
	// runesBefore counts the code points of text[:off] by moving from the
	// offset asked before: chunks come in reading order, so checking all of
	// them reads the text about once, not once per chunk.
	last, lastRunes := 0, 0
	runesBefore := func(off int) int {
		if off >= last {
			lastRunes += utf8.RuneCountInString(text[last:off])
		} else {
			lastRunes -= utf8.RuneCountInString(text[off:last])
		}
		last = off
		return lastRunes
	}
	for i, ch := range chunks {
		if ch.Index != i {
			return fmt.Sprintf("chunk %d has index %d", i, ch.Index)
		}
		if len(ch.Spans) == 0 {
			return fmt.Sprintf("chunk %d has no spans", i)
		}
		var parts []string
		for j, s := range ch.Spans {
			if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
				return fmt.Sprintf("chunk %d span %d has bad offsets [%d,%d) for %d bytes", i, j, s.Start, s.End, len(text))
			}
			if j > 0 && s.Start < ch.Spans[j-1].End {
				return fmt.Sprintf("chunk %d spans out of reading order", i)
			}
			if !utf8.RuneStart(text[s.Start]) || s.End < len(text) && !utf8.RuneStart(text[s.End]) {
				return fmt.Sprintf("chunk %d span %d cuts inside a character", i, j)
			}
			if r := runesBefore(s.Start); r != s.StartRune {
				return fmt.Sprintf("chunk %d span %d start_rune %d, want %d", i, j, s.StartRune, r)
			}
			if r := runesBefore(s.End); r != s.EndRune {
				return fmt.Sprintf("chunk %d span %d end_rune %d, want %d", i, j, s.EndRune, r)
			}
			parts = append(parts, text[s.Start:s.End])
			if opt.RepeatedHeaders && j == 0 && len(ch.Spans) > 1 {
				continue // a repeated header: held by another chunk too
			}
			covered[s.Start]++
			covered[s.End]--
		}
		if want := strings.Join(parts, "\n"); !opt.Derived && ch.Text != want {
			return fmt.Sprintf("chunk %d text %.40q is not its spans' text %.40q", i, ch.Text, want)
		}
		if n := counter.Count(ch.Text); n != ch.TokenCount {
			return fmt.Sprintf("chunk %d token_count %d, counter says %d", i, ch.TokenCount, n)
		}
		if opt.Limit > 0 && ch.TokenCount > opt.Limit {
			return fmt.Sprintf("chunk %d has %d tokens, over the limit %d", i, ch.TokenCount, opt.Limit)
		}
	}
	depth := 0
	for i := 0; i < len(text); {
		depth += covered[i]
		r, size := utf8.DecodeRuneInString(text[i:])
		for k := 1; k < size; k++ {
			depth += covered[i+k]
		}
		if !unicode.IsSpace(r) {
			if depth == 0 {
				return fmt.Sprintf("character %q at byte %d is in no chunk", r, i)
			}
			if depth > 1 && !opt.Overlap {
				return fmt.Sprintf("character %q at byte %d is in %d chunks without overlap", r, i, depth)
			}
		}
		i += size
	}
	starts := make([]int, len(chunks))
	for i, ch := range chunks {
		starts[i] = ch.Start()
	}
	if !sort.IntsAreSorted(starts) {
		return "chunks are not in order of their start"
	}
	return ""
}

// CheckBadInput runs c on inputs that must give an error or a defined
// result, never a panic: invalid UTF-8 (an error wrapping
// gochunk.ErrInvalidUTF8), empty and blank text (no chunks), NUL bytes, and
// a cancelled context (an error).
func CheckBadInput(t testing.TB, c gochunk.Chunker) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Chunk(ctx, gochunk.Document{Text: "ok \xff\xfe bad"}); !errors.Is(err, gochunk.ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8: err = %v, want ErrInvalidUTF8", err)
	}
	for _, text := range []string{"", "   \n\t  "} {
		chunks, err := c.Chunk(ctx, gochunk.Document{Text: text})
		if err != nil || len(chunks) != 0 {
			t.Errorf("blank input %q: %d chunks, err %v; want none", text, len(chunks), err)
		}
	}
	nul := "before\x00after\x00\x00 and more text\x00"
	chunks, err := c.Chunk(ctx, gochunk.Document{Text: nul})
	if err != nil {
		t.Errorf("NUL bytes: %v", err)
	} else if msg := Verify(nul, chunks, Options{Overlap: true}); msg != "" {
		t.Errorf("NUL bytes: %s", msg)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	long := strings.Repeat("Some words here. ", 2000)
	if _, err := c.Chunk(cancelled, gochunk.Document{Text: long}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}

// strip returns copies of chunks without the metadata keys named.
func strip(chunks []gochunk.Chunk, keys []string) []gochunk.Chunk {
	out := make([]gochunk.Chunk, len(chunks))
	for i, c := range chunks {
		c.Stats.LLM = nil
		if c.Metadata != nil && len(keys) > 0 {
			m := make(map[string]any, len(c.Metadata))
			for k, v := range c.Metadata {
				m[k] = v
			}
			for _, k := range keys {
				delete(m, k)
			}
			c.Metadata = m
		}
		out[i] = c
	}
	return out
}
