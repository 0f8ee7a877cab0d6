package mst_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/mst"
	"github.com/gochunk/gochunk/tokenize"
)

// The MST chunker may join pieces that are not next to each other: a chunk
// then has several spans, each exact.
func ExampleNew() {
	text := "Cats purr when they are content. Dogs bark at the mail carrier. " +
		"Cats sleep most of the day, purring. Dogs fetch sticks and bark."
	cfg := mst.DefaultConfig()
	cfg.MaxTokens = 30
	cfg.Segmenter = mst.SegmentSentences // one sentence a piece
	cfg.VicinityWeight = 0               // no reward for short pieces near each other (lists)
	cfg.Lambda = 1.15                    // a fixed cut: the adaptive one suits longer documents
	c, err := mst.New(cfg, tokenize.Words{}, nil)
	if err != nil {
		panic(err)
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		panic(err)
	}
	for _, ch := range chunks {
		fmt.Printf("%d span(s): %q\n", len(ch.Spans), ch.Text)
	}
	// Output:
	// 2 span(s): "Cats purr when they are content.\nCats sleep most of the day, purring."
	// 2 span(s): "Dogs bark at the mail carrier.\nDogs fetch sticks and bark."
}
