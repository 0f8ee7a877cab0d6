package split

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/internal/syntax"
	"github.com/gochunk/gochunk/tokenize"
)

// needTree skips a test in a build without tree-sitter (CGO_ENABLED=0).
func needTree(t testing.TB) {
	if len(syntax.Languages()) == 0 {
		t.Skip("skipping: this build has no tree-sitter (it needs cgo)")
	}
}

// A chunk of the pinned output: its text and what its metadata says.
type pinnedChunk struct {
	Text        string   `json:"text"`
	Definitions []string `json:"definitions,omitempty"`
	Within      string   `json:"within,omitempty"`
}

// Golden files pin the chunks of a small real-looking file per language,
// cut on its syntax tree, and the contract holds on each.
func TestCodeTreeLanguages(t *testing.T) {
	needTree(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "code", "*"))
	if len(files) < 8 {
		t.Fatalf("%d sample files", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewCode(CodeConfig{Size: Size{Size: 240}, Parser: "tree", Language: LanguageForFile(path)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: path, Text: string(src)})
			if err != nil {
				t.Fatal(err)
			}
			chunktest.Check(t, c, string(src), chunktest.Options{Counter: tokenize.Runes{}, Limit: 240})
			var got []pinnedChunk
			for _, ch := range chunks {
				if ch.Metadata["parser"] != "tree-sitter" {
					t.Fatalf("chunk %d: parser %v", ch.Index, ch.Metadata["parser"])
				}
				p := pinnedChunk{Text: ch.Text}
				p.Definitions, _ = ch.Metadata["definitions"].([]string)
				p.Within, _ = ch.Metadata["within"].(string)
				got = append(got, p)
			}
			b, _ := json.MarshalIndent(got, "", "  ")
			golden := filepath.Join("testdata", "golden", "code-"+filepath.Base(path)+".json")
			if *update {
				os.WriteFile(golden, append(b, '\n'), 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./split -update to create it)", err)
			}
			if strings.TrimSpace(string(want)) != string(b) {
				t.Errorf("chunks differ from %s (go test ./split -update rewrites it; review the diff):\n%s", golden, b)
			}
		})
	}
}

// A Python docstring with blank lines and the word def is never cut, at
// every size from the docstring's own up: the cuts fall between
// statements.
func TestCodeTreePythonDocstring(t *testing.T) {
	needTree(t)
	src, err := os.ReadFile(filepath.Join("testdata", "code", "sample.py"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	doc := text[strings.Index(text, `"""An item in stock.`):]
	doc = doc[:strings.Index(doc[3:], `"""`)+6]
	for size := len(doc); size < len(text); size += 7 {
		c, _ := NewCode(CodeConfig{Size: Size{Size: size}}, nil)
		chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: "sample.py", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		start := strings.Index(text, doc)
		for _, ch := range chunks {
			for _, sp := range ch.Spans {
				for _, cut := range []int{sp.Start, sp.End} {
					if cut > start && cut < start+len(doc) {
						t.Fatalf("size %d: chunk %d cuts the docstring at %d: %q", size, ch.Index, cut, ch.Text)
					}
				}
			}
		}
	}
}

func TestCodeParserOption(t *testing.T) {
	if _, err := NewCode(CodeConfig{Size: Size{Size: 10}, Parser: "ast"}, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("parser ast: %v", err)
	}
	c, _ := NewCode(CodeConfig{Size: Size{Size: 50}, Parser: "tree"}, nil)
	_, err := c.Chunk(context.Background(), gochunk.Document{ID: "x.lua", Text: "local x = 1\n"})
	if !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("tree for lua: %v", err)
	}
	// auto: languages without a grammar are cut by lines, and say so.
	c, _ = NewCode(CodeConfig{Size: Size{Size: 50}, Parser: "auto"}, nil)
	chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: "x.lua", Text: "local x = 1\n"})
	if err != nil || chunks[0].Metadata["parser"] != "lines" {
		t.Errorf("auto for lua: %v %v", chunks, err)
	}
}

// The syntax-tree path keeps the contract on any input, forced onto the
// tree whatever the errors.
func FuzzCodeTree(f *testing.F) {
	needTree(f)
	fuzzChunker(f, func(sz Size, c tokenize.Counter) (gochunk.Chunker, error) {
		return NewCode(CodeConfig{Size: sz, Language: "python", Parser: "tree"}, c)
	})
}
