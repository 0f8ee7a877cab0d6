//go:build unix

package mapfile

import (
	"os"
	"syscall"
)

// mmap maps size bytes of f read-only, the pages read in at once where
// the system offers it (populate).
func mmap(f *os.File, size int) ([]byte, func() error, bool) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|populate)
	if err != nil {
		return nil, nil, false
	}
	return data, func() error { return syscall.Munmap(data) }, true
}
