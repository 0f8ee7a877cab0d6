// Package grow makes room in slices that may be megabytes long.
//
// slices.Grow, and append of a made slice, clear the new capacity in one
// call the Go runtime cannot preempt (golang/go#69327): while it clears
// megabytes, a collection waiting to stop the goroutine spins and signals
// it again and again, which slows the clearing further. A slice made with
// make is cleared in chunks between which the goroutine can be stopped.
package grow

import (
	"slices"
	"unsafe"
)

// large is the size in bytes from which Slice allocates with make: below
// it, the clearing is short and slices.Grow's size classes serve better.
const large = 1 << 20

// Slice returns s with room for at least n more elements, as slices.Grow
// does, allocating with make when the array is large.
func Slice[E any](s []E, n int) []E {
	if n < 0 {
		panic("grow.Slice: negative n")
	}
	if cap(s)-len(s) >= n {
		return s
	}
	var zero E
	if uintptr(len(s)+n)*unsafe.Sizeof(zero) < large {
		return slices.Grow(s, n)
	}
	// At least what append would grow to (by a quarter and more), so
	// that growing again and again stays linear and no more memory is
	// held than append holds.
	c := cap(s) + (cap(s)+3*256)/4
	out := make([]E, len(s), max(len(s)+n, c))
	copy(out, s)
	return out
}

// Touched returns make([]E, n) with every page of it written once. A
// table that is read before it is written (a lookup before each insert, a
// bit set with |=) otherwise has each page first mapped to the kernel's
// shared page of zeros and then copied on the first write: a second fault
// that flushes the address translations of every core running the
// process, an interrupt each on a virtual machine. Written first, a page
// faults once.
func Touched[E any](n int) []E {
	s := make([]E, n)
	var zero E
	bytes := n * int(unsafe.Sizeof(zero))
	p := unsafe.Pointer(unsafe.SliceData(s))
	for off := 0; off < bytes; off += pageSize {
		*(*byte)(unsafe.Add(p, off)) = 0 // it is zero: the write only maps the page
	}
	return s
}

// pageSize is the smallest page of the systems Go runs on.
const pageSize = 4096
