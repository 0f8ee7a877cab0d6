package semantic

import (
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

func fuzzSemantic(f *testing.F, name string) {
	text, _ := threeArticles()
	for _, s := range []string{text[:300], "A. B. C. D. E. F. G.", "one", "日本。中文！", "x\n\ny\n\nz"} {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		if !utf8.ValidString(text) {
			return
		}
		limit := int(size%200) + 8
		var c gochunk.Chunker = allChunkers(t, limit, tokenize.Runes{}, nil)[name]
		chunktest.Check(t, c, text, chunktest.Options{Limit: limit})
	})
}

func FuzzBreakpoint(f *testing.F)   { fuzzSemantic(f, "semantic") }
func FuzzSavGol(f *testing.F)       { fuzzSemantic(f, "savgol") }
func FuzzHierarchical(f *testing.F) { fuzzSemantic(f, "hierarchical") }
func FuzzHierarchicalFree(f *testing.F) {
	fuzzSemantic(f, "hierarchical-free")
}
func FuzzDP(f *testing.F)      { fuzzSemantic(f, "dp") }
func FuzzCluster(f *testing.F) { fuzzSemantic(f, "cluster") }
