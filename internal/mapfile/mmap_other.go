//go:build !unix

package mapfile

import "os"

func mmap(*os.File, int64, int) ([]byte, func() error, bool) { return nil, nil, false }

// alloc returns size bytes of heap memory: the system has no anonymous
// mappings that this package uses.
func alloc(size int) ([]byte, func() error) { return make([]byte, size), noRelease }
