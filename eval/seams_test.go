package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gochunk/gochunk"
)

func chunksAt(bounds ...[2]int) []gochunk.Chunk {
	var out []gochunk.Chunk
	for _, b := range bounds {
		out = append(out, gochunk.Chunk{Spans: []gochunk.Span{{Start: b[0], End: b[1]}}})
	}
	return out
}

func TestSeamScores(t *testing.T) {
	tests := []struct {
		name                      string
		seams                     []int
		chunks                    []gochunk.Chunk
		found, boundaries, atSeam int
	}{
		{"exact", []int{100}, chunksAt([2]int{0, 98}, [2]int{100, 200}), 1, 1, 1},
		{"within tolerance", []int{100}, chunksAt([2]int{0, 90}, [2]int{92, 200}), 1, 1, 1},
		{"too far", []int{100}, chunksAt([2]int{0, 80}, [2]int{81, 200}), 0, 1, 0},
		{"two boundaries one seam", []int{100}, chunksAt([2]int{0, 50}, [2]int{50, 98}, [2]int{100, 200}), 1, 2, 1},
		{"no boundary", []int{100}, chunksAt([2]int{0, 200}), 0, 0, 0},
		{"out of order spans", []int{50, 150}, chunksAt([2]int{150, 200}, [2]int{0, 48}, [2]int{50, 148}), 2, 2, 2},
	}
	for _, tc := range tests {
		f, b, a := SeamScores(tc.seams, tc.chunks, SeamTolerance)
		if f != tc.found || b != tc.boundaries || a != tc.atSeam {
			t.Errorf("%s: found %d, boundaries %d, at seam %d; want %d %d %d", tc.name, f, b, a, tc.found, tc.boundaries, tc.atSeam)
		}
	}
}

func TestLoadSeams(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("Ünïcode first.\n\nSecond part."), 0o644)
	os.WriteFile(filepath.Join(dir, "seams.json"), []byte(`{"a": [18]}`), 0o644)
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := d.Corpora[0]
	// Byte 18 is code point 16 (two two-byte letters before it).
	if len(c.Boundaries) != 2 || c.Boundaries[1] != 16 || len(c.Labels) != 2 {
		t.Fatalf("boundaries %v labels %v", c.Boundaries, c.Labels)
	}
	if got := c.seamBytes(); len(got) != 1 || got[0] != 18 {
		t.Errorf("seam bytes %v", got)
	}
	os.WriteFile(filepath.Join(dir, "seams.json"), []byte(`{"a": [1]}`), 0o644) // inside "Ü"
	if _, err := Load(dir); err == nil {
		t.Error("a seam inside a character was accepted")
	}
	os.WriteFile(filepath.Join(dir, "seams.json"), []byte(`{"b": [2]}`), 0o644)
	if _, err := Load(dir); err == nil {
		t.Error("a missing document was accepted")
	}
}
