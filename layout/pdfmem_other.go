//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package layout

import (
	"io"
	"os"
)

// growMemory returns buf grown to size bytes, copied into a slice with
// room to grow (as wazero does).
func growMemory(buf []byte, size, max int) ([]byte, bool) {
	if size <= cap(buf) {
		return buf[:size], true
	}
	b := make([]byte, size, min(max, 2*size))
	copy(b, buf)
	return b, true
}

func freeMemory([]byte) {}

// mapFile reads a file's bytes.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	b, err := io.ReadAll(f)
	return b, func() {}, err
}

// mappedFiles: files are read, not mapped (mapFile).
const mappedFiles = false
