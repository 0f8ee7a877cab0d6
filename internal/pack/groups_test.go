package pack

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

func TestPackGroups(t *testing.T) {
	text := "aa bb. cc dd. ee ff. gg hh."
	var items []Piece
	for _, f := range strings.SplitAfter(text, ". ") {
		start := strings.Index(text, strings.TrimSpace(f))
		items = append(items, Piece{Start: start, End: start + len(strings.TrimSpace(f)), Size: 2})
	}
	e := &Engine{Text: text, Counter: tokenize.Words{}, Limit: 5}
	e.Init()
	// Items 0, 1 and 3 in one group: 0 and 1 share a span, 3 is another;
	// the estimate 2+1+2+1+2 is over 5, so 3 starts a chunk of its own. Item 2
	// alone. Groups come in any order; chunks in text order.
	chunks, ids, err := e.PackGroups(context.Background(), items, [][]int{{2}, {3, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i, c := range chunks {
		texts = append(texts, c.Text)
		if c.Index != i || c.TokenCount > 5 {
			t.Errorf("chunk %d: %+v", i, c)
		}
	}
	if want := []string{"aa bb. cc dd.", "ee ff.", "gg hh."}; !reflect.DeepEqual(texts, want) {
		t.Errorf("texts %q, want %q", texts, want)
	}
	if want := [][]int{{0, 1}, {2}, {3}}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	// A group of non-adjacent items under the limit: one chunk of two
	// spans, joined by a newline.
	chunks, _, err = e.PackGroups(context.Background(), items, [][]int{{0, 2}, {1}, {3}})
	if err != nil {
		t.Fatal(err)
	}
	if c := chunks[0]; len(c.Spans) != 2 || c.Text != "aa bb.\nee ff." || c.TokenCount != 4 || c.Spans[1].StartRune != 14 {
		t.Errorf("multi-span chunk %+v", c)
	}
}
