package pipeline

import (
	"context"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/layout"
)

// A document whose elements have pages (a deck of one slide, a workbook
// of one sheet: page 1, no boxes) places its chunks by page; one whose
// elements have page 0 (HTML, Word) by line.
func TestOnePageDocumentsArePaged(t *testing.T) {
	for _, tc := range []struct {
		page  int
		paged bool
	}{{1, true}, {0, false}} {
		text, els := layout.Assemble([]gochunk.Element{
			{Type: "heading", Text: "## Slide 1: Results", Page: tc.page},
			{Type: "list_item", Text: "- revenue grew", Page: tc.page},
		})
		p := contextPipeline(t, "recursive", `{"size": 5}`, ContextConfig{})
		res, err := p.Run(context.Background(), gochunk.Document{Text: text, Elements: els})
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range res.Records() {
			if tc.paged && (rec.Pages != [2]int{1, 1} || rec.Lines != [2]int{}) || !tc.paged && (rec.Pages != [2]int{} || rec.Lines[0] < 1) {
				t.Errorf("page %d, chunk %d: pages %v, lines %v", tc.page, i, rec.Pages, rec.Lines)
			}
		}
	}
}
