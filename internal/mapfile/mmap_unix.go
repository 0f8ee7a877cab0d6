//go:build unix

package mapfile

import (
	"os"
	"syscall"
)

// mmap maps size bytes of f from offset off read-only, the pages read in at
// once where the system offers it (populate). The mapping starts at the
// page that holds off.
func mmap(f *os.File, off int64, size int) ([]byte, func() error, bool) {
	start := off &^ int64(os.Getpagesize()-1)
	data, err := syscall.Mmap(int(f.Fd()), start, int(off-start)+size, syscall.PROT_READ, syscall.MAP_PRIVATE|populate)
	if err != nil {
		return nil, nil, false
	}
	return data[off-start:], func() error { return syscall.Munmap(data) }, true
}

// alloc returns size bytes of zeroed memory outside the Go heap (an
// anonymous mapping: its pages take memory once written) and the function
// that releases them, or heap memory where the system refuses the mapping.
func alloc(size int) ([]byte, func() error) {
	if size == 0 {
		return nil, noRelease
	}
	data, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, size), noRelease
	}
	return data, func() error { return syscall.Munmap(data) }
}
