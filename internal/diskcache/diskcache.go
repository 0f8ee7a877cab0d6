// Package diskcache keeps entries in a directory, one file each, with a
// checksum and a size bound: the embedding cache and the language model's
// answers are kept with it. A corrupt entry (a torn write, a disk error,
// an edit) is reported once, removed and computed again, never returned;
// past its bound, the least recently used entries are removed first.
package diskcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// footer ends every entry: a magic number and the CRC-32 of the content.
const magic = "gck1"

// Dir is a cache directory. It is safe for concurrent use.
type Dir struct {
	path string
	max  int64
	warn func(string)
	puts atomic.Int64
	once sync.Once
}

// Open returns the cache in path, bounded to maxBytes (0: unbounded);
// warn, when set, hears of corrupt entries (once) and failed writes.
func Open(path string, maxBytes int64, warn func(string)) *Dir {
	return &Dir{path: path, max: maxBytes, warn: warn}
}

// Get returns the entry's content, or false when it is absent or corrupt
// (then removed). A hit marks the entry used, for the size bound.
func (d *Dir) Get(name string) ([]byte, bool) {
	p := filepath.Join(d.path, name)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	n := len(b) - len(magic) - 4
	if n < 0 || string(b[n:n+len(magic)]) != magic || binary.LittleEndian.Uint32(b[n+len(magic):]) != crc32.ChecksumIEEE(b[:n]) {
		d.once.Do(func() {
			if d.warn != nil {
				d.warn(fmt.Sprintf("cache %s: corrupt entry %s removed; corrupt entries are computed again", d.path, name))
			}
		})
		os.Remove(p)
		return nil, false
	}
	now := time.Now()
	os.Chtimes(p, now, now)
	return b[:n], true
}

// Put stores the entry (written to a temporary file, then renamed, so a
// reader never sees half of it) and, now and then, trims the directory to
// its bound.
func (d *Dir) Put(name string, content []byte) {
	p := filepath.Join(d.path, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		d.warnf("cache %s: %v", d.path, err)
		return
	}
	b := make([]byte, 0, len(content)+len(magic)+4)
	b = append(append(b, content...), magic...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(content))
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		d.warnf("cache %s: %v", d.path, err)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		d.warnf("cache %s: %v", d.path, err)
		return
	}
	if d.max > 0 && d.puts.Add(1)%64 == 1 {
		if _, _, err := Prune(d.path, d.max); err != nil {
			d.warnf("cache %s: %v", d.path, err)
		}
	}
}

func (d *Dir) warnf(format string, a ...any) {
	if d.warn != nil {
		d.warn(fmt.Sprintf(format, a...))
	}
}

type entry struct {
	path string
	size int64
	used time.Time
}

func list(path string) ([]entry, error) {
	var out []entry
	err := filepath.WalkDir(path, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if de.IsDir() {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil
		}
		out = append(out, entry{p, info.Size(), info.ModTime()})
		return nil
	})
	return out, err
}

// Stat returns the number of entries in path and the bytes they take.
func Stat(path string) (files int, bytes int64, err error) {
	es, err := list(path)
	for _, e := range es {
		bytes += e.size
	}
	return len(es), bytes, err
}

// Prune removes the least recently used entries of path until it takes at
// most maxBytes, and temporary files left by interrupted writes; it
// returns how many files it removed and the bytes freed.
func Prune(path string, maxBytes int64) (removed int, freed int64, err error) {
	es, err := list(path)
	if err != nil {
		return 0, 0, err
	}
	var total int64
	keep := es[:0]
	for _, e := range es {
		if strings.HasSuffix(e.path, ".tmp") && time.Since(e.used) > time.Hour {
			if os.Remove(e.path) == nil {
				removed, freed = removed+1, freed+e.size
			}
			continue
		}
		total += e.size
		keep = append(keep, e)
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].used.Before(keep[j].used) })
	for _, e := range keep {
		if total <= maxBytes {
			break
		}
		if os.Remove(e.path) == nil {
			removed, freed, total = removed+1, freed+e.size, total-e.size
		}
	}
	return removed, freed, nil
}
