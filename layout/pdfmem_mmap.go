//go:build linux || darwin || freebsd || netbsd || openbsd

package layout

import (
	"fmt"
	"os"
	"syscall"
)

// growMemory returns buf grown to size bytes: the first call reserves max
// bytes of address space, which the system backs as they are touched.
func growMemory(buf []byte, size, max int) ([]byte, bool) {
	if buf == nil {
		b, err := syscall.Mmap(-1, 0, max, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|mapNoReserve)
		if err != nil {
			return nil, false
		}
		return b[:size], true
	}
	return buf[:size], true
}

// freeMemory unmaps what growMemory reserved.
func freeMemory(buf []byte) { syscall.Munmap(buf[:cap(buf)]) }

// mapFile maps a file's bytes read-only (they are read from the page
// cache as the scan touches them, never copied), with the function that
// unmaps them.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size <= 0 || size > 1<<40 {
		return nil, func() {}, fmt.Errorf("a file of %d bytes", size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, func() {}, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}

// mappedFiles: files are mapped, not read (mapFile).
const mappedFiles = true
