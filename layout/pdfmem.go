package layout

import (
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// PDFium's WebAssembly memory is allocated here rather than by wazero,
// for two reasons. wazero grows a memory by copying it into a slice twice
// as large, which leaves the old one to the collector: a page that needs
// 1 GiB held 3 GiB of the process. And the engine's instances share one
// bound (PDFiumOptions.TotalMemory), so that a process reading PDFs at
// once holds no more than it, whatever they draw. On Linux and the BSDs
// an instance's memory is reserved whole as address space and its pages
// are backed as PDFium first touches them, so growing copies nothing; on
// other systems it grows as a slice.

// wasmBudget is the memory an engine's instances hold together.
type wasmBudget struct {
	limit    int64 // bytes for all instances together
	instance int64 // bytes for one instance
	used     atomic.Int64

	mu   sync.Mutex
	last *wasmMemory // the memory allocated last, for the instance being made
}

// take reserves n more bytes, or reports that they would pass the limit.
func (b *wasmBudget) take(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	return true
}

// Allocate implements experimental.MemoryAllocator.
func (b *wasmBudget) Allocate(_, max uint64) experimental.LinearMemory {
	m := &wasmMemory{budget: b, max: min(max, uint64(b.instance))}
	b.last = m // under b.mu, held by the caller that makes the instance
	return m
}

// wasmMemory is one instance's memory.
type wasmMemory struct {
	budget *wasmBudget
	max    uint64

	mu      sync.Mutex
	buf     []byte // reserved (mapped) bytes, len = what the instance has
	held    int64  // bytes taken from the budget
	owned   bool   // a worker frees it (release) once its calls are over
	freed   bool   // the instance is closed
	refused atomic.Bool
}

// Reallocate implements experimental.LinearMemory: it grows the memory to
// size bytes, or returns nil (the instance's malloc fails) past its own
// limit or the engine's.
func (m *wasmMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if size <= uint64(len(m.buf)) {
		return m.buf[:size]
	}
	if size > m.max || m.freed {
		m.refused.Store(true)
		return nil
	}
	grow := int64(size) - m.held
	if !m.budget.take(grow) {
		m.refused.Store(true)
		return nil
	}
	buf, ok := growMemory(m.buf, int(size), int(m.max))
	if !ok {
		m.budget.used.Add(-grow)
		m.refused.Store(true)
		return nil
	}
	m.buf, m.held = buf, int64(size)
	return m.buf
}

// Free implements experimental.LinearMemory. It runs when the instance's
// module is closed, which a kill does while a call may still run in it:
// a memory a worker owns is released by the worker once its calls are
// over (release), others here.
func (m *wasmMemory) Free() {
	m.mu.Lock()
	m.freed = true
	owned := m.owned
	m.mu.Unlock()
	if !owned {
		m.release()
	}
}

// release gives the memory back to the system and the budget.
func (m *wasmMemory) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.freed = true
	if m.buf != nil {
		freeMemory(m.buf)
		m.buf = nil
	}
	m.budget.used.Add(-m.held)
	m.held = 0
}
