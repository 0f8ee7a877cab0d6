package tokenize

import (
	"os"
	"testing"
	"time"
)

func TestZZBacktrackStats(t *testing.T) {
	data, _ := os.ReadFile("/tmp/rand1m.txt")
	b, _ := loadBPE("cl100k_base")
	b.prefixes()
	best := time.Hour
	for range 5 {
		t0 := time.Now()
		b.backtrackLens(string(data))
		best = min(best, time.Since(t0))
	}
	t.Logf("backtrack: best %v", best)
}
