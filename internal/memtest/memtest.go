// Package memtest measures how much live heap a function needs, for tests
// and benchmarks that bound a chunker's memory per byte of input: the
// part of a process's peak resident memory that the code decides (the
// binary and a memory-mapped input are the rest).
package memtest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// sentinel is an object whose finalizer runs after each garbage
// collection; it holds a pointer, so the allocator does not batch it with
// other small objects (a batched one may never be finalized).
type sentinel struct {
	next *sentinel
	_    [2]uint64
}

// PeakLive runs f and returns the most live heap (bytes of reachable
// objects, as the collector marked them) seen at the end of a collection
// while f ran, less the live heap before it. Meanwhile the collector runs
// at GOGC=10, so it marks often and the peak is sampled closely; the
// result is a lower bound of the true peak, within a collection's worth.
// It is not safe to run two at once.
func PeakLive(f func()) uint64 {
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	runtime.GC()
	base := live()
	var peak atomic.Uint64
	var stop atomic.Bool
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
			for v := live(); ; {
				p := peak.Load()
				if v <= p || peak.CompareAndSwap(p, v) {
					break
				}
			}
			if !stop.Load() {
				arm()
			}
		})
	}
	arm()
	f()
	stop.Store(true)
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

func live() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
