package mapfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// content is size bytes that differ from block to block, so that a block
// joined out of place is seen.
func content(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte('a' + (i/4093+i)%26)
	}
	return b
}

func TestReadAllStream(t *testing.T) {
	for _, size := range []int{0, 10, MinSize - 1, MinSize, MinSize + 1, MinSize + blockSize, MinSize + 3*blockSize + 4097} {
		want := content(size)
		// A reader that is not a file, returning short reads.
		r := io.MultiReader(bytes.NewReader(want[:size/3]), bytes.NewReader(want[size/3:]))
		got, release, err := ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: %v, got %d bytes, equal %v", size, err, len(got), bytes.Equal(got, want))
		}
		if err := release(); err != nil {
			t.Errorf("size %d: release: %v", size, err)
		}
	}
}

func TestReadAllFileFromItsOffset(t *testing.T) {
	dir := t.TempDir()
	// Offsets within a page and on one, of files mapped and read.
	for _, tc := range []struct{ size, off int }{{10, 3}, {MinSize + 100, 0}, {MinSize + 100, 77}, {MinSize + 8192, 4096}, {MinSize + 100, 200}} {
		want := content(tc.size)
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(int64(tc.off), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got, release, err := ReadAll(f)
		if err != nil || !bytes.Equal(got, want[tc.off:]) {
			t.Fatalf("size %d from %d: %v, got %d bytes, equal %v", tc.size, tc.off, err, len(got), bytes.Equal(got, want[tc.off:]))
		}
		// Read to its end, as a read would leave it.
		if pos, _ := f.Seek(0, io.SeekCurrent); pos != int64(tc.size) {
			t.Errorf("size %d from %d: the file's offset is %d after ReadAll, want its end", tc.size, tc.off, pos)
		}
		if err := release(); err != nil {
			t.Errorf("release: %v", err)
		}
		f.Close()
	}
}
