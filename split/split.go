// Package split holds the rule-based chunkers: fixed token windows,
// LangChain's character and recursive character splitters, Chonkie's
// sentence chunker, semchunk's recursive splitter, and structure-aware
// chunkers for markdown and source code.
//
// All of them measure size with a tokenize.Counter, keep the contract of
// package gochunk (exact offsets, a hard size limit, nothing lost,
// determinism) and are safe for concurrent use.
package split

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/tokenize"
)

// Size is the sizing configuration every chunker here shares.
type Size struct {
	// Size is the maximum chunk size, in units of the counter.
	Size int `json:"size" range:"1,1073741824" doc:"maximum chunk size, in tokens of the --tokenizer unit; no chunk is larger"`
	// Overlap is how many tokens of the end of a chunk the next one
	// repeats, at most.
	Overlap int `json:"overlap" range:"0,1073741824" doc:"tokens of the previous chunk repeated at the start of the next (at most); 0 for none"`
}

func (s Size) validate() error {
	switch {
	case s.Size <= 0:
		return fmt.Errorf("%w: size must be positive, got %d", gochunk.ErrConfig, s.Size)
	case s.Overlap < 0:
		return fmt.Errorf("%w: overlap must not be negative, got %d", gochunk.ErrConfig, s.Overlap)
	case s.Overlap >= s.Size:
		return fmt.Errorf("%w: overlap (%d) must be smaller than size (%d)", gochunk.ErrConfig, s.Overlap, s.Size)
	}
	return nil
}

func counterOr(c tokenize.Counter) tokenize.Counter {
	if c == nil {
		return tokenize.Runes{}
	}
	return c
}

// start checks the document and returns an engine over its text, or nil
// when the text is empty.
func start(doc gochunk.Document, counter tokenize.Counter, sz Size, levels []pack.Level) (*pack.Engine, error) {
	return startEngine(doc, &pack.Engine{Counter: counter, Limit: sz.Size, Overlap: sz.Overlap, Levels: levels})
}

// startEngine checks the document and completes e for its text.
func startEngine(doc gochunk.Document, e *pack.Engine) (*pack.Engine, error) {
	if err := gochunk.CheckDocument(doc); err != nil {
		return nil, err
	}
	e.Text = doc.Text
	e.Init()
	return e, nil
}

// recursiveChunks runs the level engine over the whole text and builds the
// chunks; most chunkers here are this with their own levels.
func recursiveChunks(ctx context.Context, doc gochunk.Document, counter tokenize.Counter, sz Size, levels []pack.Level, trim bool) ([]gochunk.Chunk, error) {
	return runEngine(ctx, doc, &pack.Engine{Counter: counter, Limit: sz.Size, Overlap: sz.Overlap, Levels: levels}, trim)
}

// runEngine splits the whole document with e and builds the chunks.
func runEngine(ctx context.Context, doc gochunk.Document, e *pack.Engine, trim bool) ([]gochunk.Chunk, error) {
	e, err := startEngine(doc, e)
	if err != nil || doc.Text == "" {
		return nil, err
	}
	ranges, err := e.Split(ctx, 0, len(doc.Text), nil)
	if err != nil {
		return nil, err
	}
	return e.Build(ctx, ranges, trim)
}
