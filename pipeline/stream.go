package pipeline

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Item is the outcome of one source of Stream.
type Item struct {
	Source Source
	Loaded Loaded
	// Result holds the chunks (and embeddings, trace) of Run, or, with
	// offsets only, nothing.
	Result Result
	// Offsets holds the chunks' byte offsets when Stream was asked for
	// offsets only.
	Offsets []int
	// Err is the source's failure to load or chunk; other sources go on.
	Err error
}

// Stream loads and runs each source on up to jobs goroutines (Run, or
// Offsets when offsets is true) and hands the items to emit in the order of
// srcs, each followed by its attachments' (Loaded.Attachments; not with
// offsets, which are the sources' own). At most 2×jobs sources are in flight (loading, chunking or waiting
// for emit), so memory does not grow with their number. An item's input is
// released when emit returns. An error of emit ends the stream and is
// returned, as is ctx.Err() when ctx is cancelled.
func (p *Pipeline) Stream(ctx context.Context, srcs []Source, jobs int, offsets bool, emit func(Item) error) error {
	jobs = max(jobs, 1)
	done := make([]chan Item, len(srcs))
	for i := range done {
		done[i] = make(chan Item, 1)
	}
	slots := make(chan struct{}, 2*jobs)
	stop := make(chan struct{})
	defer close(stop)
	var workers errgroup.Group
	workers.SetLimit(jobs)
	go func() {
		for i, src := range srcs {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			workers.Go(func() error {
				done[i] <- p.item(ctx, src, offsets)
				return nil
			})
		}
	}()
	for i := range srcs {
		var it Item
		select {
		case it = <-done[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := p.emitAll(ctx, it, offsets, emit)
		<-slots
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return workers.Wait()
}

// item loads and runs one source.
func (p *Pipeline) item(ctx context.Context, src Source, offsets bool) Item {
	it := Item{Source: src}
	if it.Loaded, it.Err = p.Load(ctx, src); it.Err == nil {
		if offsets {
			it.Offsets, it.Err = p.Offsets(ctx, it.Loaded.Document)
		} else {
			it.Result, it.Err = p.Run(ctx, it.Loaded.Document)
			it.Result.Metadata = src.RecordMetadata
		}
	}
	return it
}

// emitAll emits an item, then its attachments (loaded and run one at a
// time, in order, with theirs after each), and releases each input.
func (p *Pipeline) emitAll(ctx context.Context, it Item, offsets bool, emit func(Item) error) error {
	err := emit(it)
	it.Loaded.Release()
	if offsets {
		return err // offsets are the inputs' own: attachments have no line of their own
	}
	for _, a := range it.Loaded.Attachments {
		if err != nil {
			return err
		}
		if err = ctx.Err(); err != nil {
			return err
		}
		err = p.emitAll(ctx, p.item(ctx, a, offsets), offsets, emit)
	}
	return err
}
