package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 10, MinSize, MinSize + 4097} {
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, release, err := Read(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: %v, equal %v", size, err, bytes.Equal(got, want))
		}
		if err := release(); err != nil {
			t.Errorf("release: %v", err)
		}
	}
	if _, _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file gave no error")
	}
}
