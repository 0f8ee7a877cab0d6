package record

import (
	"io"
	"runtime"
	"sync"
)

// blockRecords is how many records one encoder goroutine appends at a time.
const blockRecords = 256

// WriteJSONL writes n records to w as JSON Lines. appendRange appends the
// lines of records [from, to) to dst (AppendJSON, once per record); blocks
// of records are encoded on every core while earlier blocks are written,
// and reach w in order. It returns the first error of appendRange or w.
func WriteJSONL(w io.Writer, n int, appendRange func(dst []byte, from, to int) ([]byte, error)) error {
	if n == 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	if n <= blockRecords || workers == 1 {
		buf, err := appendRange(make([]byte, 0, 64<<10), 0, n)
		if err == nil {
			_, err = w.Write(buf)
		}
		return err
	}
	type block struct {
		buf *[]byte
		err error
	}
	blocks := (n + blockRecords - 1) / blockRecords
	done := make([]chan block, blocks)
	for i := range done {
		done[i] = make(chan block, 1)
	}
	// At most 2×workers blocks are encoded ahead of the writer, so memory
	// stays bounded however many records there are.
	ahead := make(chan struct{}, 2*workers)
	free := sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var wg sync.WaitGroup
		defer wg.Wait()
		for i := range blocks {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			wg.Go(func() {
				buf := free.Get().(*[]byte)
				from := i * blockRecords
				var err error
				*buf, err = appendRange((*buf)[:0], from, min(from+blockRecords, n))
				done[i] <- block{buf, err}
			})
		}
	}()
	for i := range blocks {
		b := <-done[i]
		err := b.err
		if err == nil {
			_, err = w.Write(*b.buf)
		}
		free.Put(b.buf)
		<-ahead
		if err != nil {
			return err
		}
	}
	return nil
}
