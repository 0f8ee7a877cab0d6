package chunktest

import (
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
)

func one(text string, start, end, index int) gochunk.Chunk {
	return gochunk.Chunk{
		Index: index, Text: text[start:end], TokenCount: tokenize.RuneCount(text[start:end]),
		Spans: []gochunk.Span{{Start: start, End: end, StartRune: tokenize.RuneCount(text[:start]), EndRune: tokenize.RuneCount(text[:end])}},
	}
}

// Verify must accept correct chunks and name each kind of broken rule.
func TestVerifyDetectsViolations(t *testing.T) {
	text := "héllo world, again"
	good := []gochunk.Chunk{one(text, 0, 6, 0), one(text, 7, 19, 1)}
	if msg := Verify(text, good, Options{Limit: 12}); msg != "" {
		t.Fatalf("good chunks rejected: %s", msg)
	}
	// Overlapping chunks step back over text already counted: their rune
	// offsets are checked all the same.
	overlap := []gochunk.Chunk{one(text, 0, 12, 0), one(text, 7, 19, 1)}
	if msg := Verify(text, overlap, Options{Limit: 12, Overlap: true}); msg != "" {
		t.Fatalf("good overlapping chunks rejected: %s", msg)
	}
	overlap[1].Spans[0].StartRune++
	if msg := Verify(text, overlap, Options{Limit: 12, Overlap: true}); !strings.Contains(msg, "start_rune") {
		t.Errorf("a wrong start_rune after an overlap: Verify said %q", msg)
	}
	mutate := map[string]func(cs []gochunk.Chunk) []gochunk.Chunk{
		"over the limit":   func(cs []gochunk.Chunk) []gochunk.Chunk { return []gochunk.Chunk{one(text, 0, 19, 0)} },
		"is in no chunk":   func(cs []gochunk.Chunk) []gochunk.Chunk { return cs[:1] },
		"without overlap":  func(cs []gochunk.Chunk) []gochunk.Chunk { return append(cs, one(text, 7, 12, 2)) },
		"token_count":      func(cs []gochunk.Chunk) []gochunk.Chunk { cs[0].TokenCount++; return cs },
		"is not its spans": func(cs []gochunk.Chunk) []gochunk.Chunk { cs[1].Text = "other"; return cs },
		"start_rune":       func(cs []gochunk.Chunk) []gochunk.Chunk { cs[1].Spans[0].StartRune = 8; return cs },
		"end_rune":         func(cs []gochunk.Chunk) []gochunk.Chunk { cs[1].Spans[0].EndRune = 17; return cs },
		"inside a character": func(cs []gochunk.Chunk) []gochunk.Chunk {
			cs[0].Spans[0].End = 2
			cs[0].Text = text[:2]
			return cs
		},
		"has index": func(cs []gochunk.Chunk) []gochunk.Chunk { cs[1].Index = 5; return cs },
		"not in order": func(cs []gochunk.Chunk) []gochunk.Chunk {
			cs[0], cs[1] = cs[1], cs[0]
			cs[0].Index, cs[1].Index = 0, 1
			return cs
		},
		"bad offsets": func(cs []gochunk.Chunk) []gochunk.Chunk { cs[1].Spans[0].End = 99; return cs },
	}
	for want, m := range mutate {
		cs := m([]gochunk.Chunk{one(text, 0, 6, 0), one(text, 7, 19, 1)})
		if msg := Verify(text, cs, Options{Limit: 12}); !strings.Contains(msg, want) {
			t.Errorf("%s: Verify said %q", want, msg)
		}
	}
	// Overlap allowed: repeated characters are fine.
	if msg := Verify(text, []gochunk.Chunk{one(text, 0, 12, 0), one(text, 7, 19, 1)}, Options{Limit: 12, Overlap: true}); msg != "" {
		t.Errorf("overlapping chunks rejected with Overlap: %s", msg)
	}
	// Multi-span chunk: text joined by a newline.
	ms := gochunk.Chunk{Text: "héllo\nagain", TokenCount: 11, Spans: append(one(text, 0, 6, 0).Spans, one(text, 14, 19, 0).Spans...)}
	if msg := Verify(text, []gochunk.Chunk{ms, one(text, 7, 13, 1)}, Options{}); msg != "" {
		t.Errorf("multi-span: %s", msg)
	}
}
