package layout_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/tokenize"
)

// Chunk layout elements with S2: each column is about one subject; the
// elements come row by row across the columns, so a column's two
// paragraphs are apart in that order, yet come out as one chunk of two
// spans.
func ExampleS2() {
	els := []gochunk.Element{
		{Type: "paragraph", Text: "Boil the pasta in salted water until al dente.", Page: 1, BBox: [4]float64{50, 100, 290, 140}},
		{Type: "paragraph", Text: "The planet Mars has two small moons, Phobos and Deimos.", Page: 1, BBox: [4]float64{320, 100, 560, 140}},
		{Type: "paragraph", Text: "Drain the pasta and toss it with the sauce.", Page: 1, BBox: [4]float64{50, 150, 290, 190}},
		{Type: "paragraph", Text: "Mars also has the tallest volcano of the solar system.", Page: 1, BBox: [4]float64{320, 150, 560, 190}},
	}
	for i := range els {
		els[i].PageWidth, els[i].PageHeight = 612, 792
	}
	text, els := layout.Assemble(els)
	cfg := layout.DefaultS2Config()
	cfg.Size = 24
	s2, err := layout.NewS2(cfg, tokenize.Words{}, nil)
	if err != nil {
		panic(err)
	}
	chunks, err := s2.Chunk(context.Background(), gochunk.Document{Text: text, Elements: els})
	if err != nil {
		panic(err)
	}
	for _, c := range chunks {
		fmt.Printf("%d span(s), pages %v: %q\n", len(c.Spans), c.Metadata["pages"], c.Text)
	}
	// Output:
	// 2 span(s), pages [1]: "Boil the pasta in salted water until al dente.\nDrain the pasta and toss it with the sauce."
	// 2 span(s), pages [1]: "The planet Mars has two small moons, Phobos and Deimos.\nMars also has the tallest volcano of the solar system."
}

// Read the layout output of another tool (here Unstructured's) as
// elements.
func ExampleParseElements() {
	els, err := layout.ParseElements([]byte(`[{"type": "Title", "text": "Results", "metadata": {"page_number": 2,
		"coordinates": {"points": [[10, 20], [10, 40], [200, 40], [200, 20]], "layout_width": 600, "layout_height": 800}}}]`))
	if err != nil {
		panic(err)
	}
	e := els[0]
	fmt.Println(e.Type, e.Text, e.Page, e.BBox, e.PageWidth, e.PageHeight)
	// Output:
	// title Results 2 [10 20 200 40] 600 800
}
