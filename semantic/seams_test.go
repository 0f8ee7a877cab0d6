package semantic_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/tokenize"
)

// The topic-finding targets on the stitched development set of
// ../shared/eval/stitched, at the defaults with the built-in embedder,
// cl100k_base and size 1024: every embedding-based chunker finds at least
// 70% of the seams, and the breakpoint chunker 90% with at least half of
// its boundaries at seams.
func TestStitchedSeams(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "eval", "stitched")
	if _, err := os.Stat(filepath.Join(dir, "seams.json")); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", dir)
	}
	ds, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"semantic": {0.9, 0.5}, "savgol": {0.7, 0}, "hierarchical": {0.7, 0}, "dp": {0.7, 0}, "cluster": {0.7, 0}}
	for name, w := range want {
		_, r, p := seamScores(t, ds, name)
		t.Logf("%s: seam recall %.3f, boundary precision %.3f", name, r, p)
		if r < w[0] || p < w[1] {
			t.Errorf("%s: seam recall %.3f, boundary precision %.3f; want at least %.2f and %.2f", name, r, p, w[0], w[1])
		}
	}
}

// seamScores chunks a seam data set with a chunker at its defaults and
// size 1024, and returns the chunker, its seam recall and its boundary
// precision.
func seamScores(t *testing.T, ds *eval.Dataset, name string) (gochunk.Chunker, float64, float64) {
	t.Helper()
	counter, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	c, err := chunkers.New().New(name, []byte(`{"size": 1024}`), chunkers.Env{Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.Evaluate(context.Background(), ds, eval.Config{Name: name, Chunker: c, ChunkerName: name}, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, *res.Boundary.SeamRecall, *res.Boundary.BoundaryPrecision
}
