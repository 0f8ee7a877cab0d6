// Package mapfile reads a file's bytes, mapping large regular files into
// memory instead of copying them where the system allows it: a 20 MB input
// is then ready in about a millisecond instead of the tens a read into
// fresh memory takes. A large stream (a pipe) is read into memory outside
// the Go heap at its exact size, so that it costs what a mapped file costs.
package mapfile

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
)

// MinSize is the smallest file that is mapped, or stream that is kept
// outside the Go heap; smaller ones are read into the heap.
const MinSize = 1 << 20

// Read returns the contents of the file at path and a function that
// releases them, after which the bytes must not be used. A mapped file that
// another process truncates while it is in use makes the program fail, as
// with every tool that maps its input.
func Read(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if data, release, ok := mapRest(f); ok {
		return data, release, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, noRelease, nil
}

// ReadAll reads r to its end and returns its bytes and a function that
// releases them, after which the bytes must not be used. When r is a
// regular file of at least MinSize bytes from its offset (standard input
// redirected from a file), the rest of it is mapped as Read maps a file,
// and its offset moved to its end as a read would. Another stream of at
// least MinSize bytes (a pipe) is read in blocks outside the Go heap and
// joined once at its exact size: it holds its size and one block at most,
// not the doubling slack of io.ReadAll, and the collector's pacing does not
// count it as live heap. Smaller streams are read into the heap.
func ReadAll(r io.Reader) ([]byte, func() error, error) {
	if f, ok := r.(*os.File); ok {
		if data, release, ok := mapRest(f); ok {
			return data, release, nil
		}
	}
	return readStream(r)
}

func noRelease() error { return nil }

// mapRest maps f from its offset to its end when f is a regular file with
// at least MinSize bytes left and the system maps files, and moves its
// offset to the end; ok is false when it did not.
func mapRest(f *os.File) (_ []byte, _ func() error, ok bool) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil, false
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || off < 0 || off > fi.Size() {
		return nil, nil, false
	}
	n := fi.Size() - off
	if n < MinSize || int64(int(n)) != n {
		return nil, nil, false
	}
	data, release, ok := mmap(f, off, int(n))
	if !ok {
		return nil, nil, false
	}
	if _, err := f.Seek(fi.Size(), io.SeekStart); err != nil {
		release()
		return nil, nil, false
	}
	return data, release, true
}

// blockSize is the least block a large stream is read in; a block is at
// most an eighth of what was read before it, so that a stream of any size
// holds one eighth more than its size at most while it is joined.
const blockSize = 4 << 20

// readStream reads r to its end: into the heap when it is under MinSize
// bytes, else in blocks outside it (where the system allows) that are
// joined into one allocation of the exact size, each block released as
// soon as it is copied.
func readStream(r io.Reader) (_ []byte, _ func() error, err error) {
	head := make([]byte, MinSize)
	n, err := io.ReadFull(r, head)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if n < MinSize/2 {
			return bytes.Clone(head[:n]), noRelease, nil // a line does not keep a megabyte
		}
		return head[:n:n], noRelease, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var blocks []block
	defer func() {
		for _, b := range blocks {
			b.free()
		}
	}()
	total := len(head)
	for {
		size := max(blockSize, total/8)
		b, free := alloc(size)
		blocks = append(blocks, block{b, free})
		n, err := io.ReadFull(r, b)
		total += n
		blocks[len(blocks)-1].data = b[:n]
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if total > math.MaxInt-2*size {
			return nil, nil, errors.New("input too large for this system's memory")
		}
	}
	data, release := alloc(total)
	k := copy(data, head)
	for i, b := range blocks {
		k += copy(data[k:], b.data)
		b.free()
		blocks[i].free = noRelease
	}
	return data[:total], release, nil
}

// block is a part of a stream read, and the function that releases it.
type block struct {
	data []byte
	free func() error
}
