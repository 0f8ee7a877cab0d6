package split

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// build makes every chunker of this package with the given sizing.
func build(t testing.TB, counter tokenize.Counter, size, overlap int) map[string]gochunk.Chunker {
	t.Helper()
	sz := Size{Size: size, Overlap: overlap}
	out := map[string]gochunk.Chunker{}
	add := func(name string, c gochunk.Chunker, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = c
	}
	if _, ok := counter.(tokenize.Encoder); ok {
		tc := DefaultTokenConfig()
		tc.Size = sz
		c1, err := NewToken(tc, counter)
		add("token", c1, err)
	}
	cc := DefaultCharacterConfig()
	cc.Size = sz
	c2, err := NewCharacter(cc, counter)
	add("character", c2, err)
	rc := DefaultRecursiveConfig()
	rc.Size = sz
	c3, err := NewRecursive(rc, counter)
	add("recursive", c3, err)
	sc := DefaultSentenceConfig()
	sc.Size = sz
	c4, err := NewSentence(sc, counter)
	add("sentence", c4, err)
	smc := DefaultSemchunkConfig()
	smc.Size = sz
	c5, err := NewSemchunk(smc, counter)
	add("semchunk", c5, err)
	mc := DefaultMarkdownConfig()
	mc.Size = sz
	c6, err := NewMarkdown(mc, counter)
	add("markdown", c6, err)
	cdc := DefaultCodeConfig()
	cdc.Size = sz
	cdc.Language = "go"
	c7, err := NewCode(cdc, counter)
	add("code", c7, err)
	if overlap == 0 { // adaptive has no overlap
		cfg := DefaultAdaptiveConfig()
		cfg.Size = size
		c8, err := NewAdaptive(cfg, counter)
		add("adaptive", c8, err)
	}
	return out
}

func sample(t testing.TB) string {
	b, err := os.ReadFile("testdata/sample.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// contractTexts are inputs every chunker must handle.
func contractTexts(t testing.TB) []string {
	texts := []string{
		sample(t),
		"one",
		"a b",
		strings.Repeat("x", 3000),                // no delimiter at all
		strings.Repeat("日本語", 500),               // multi-byte, no spaces
		strings.Repeat("word ", 700),             // only spaces
		strings.Repeat("Line\n", 300),            // only line breaks
		"Trailing space   \n\n\n   ",             // white space at the end
		"\n\n  Leading space and\ttabs\t\there.", // white space at the start
		"emoji 🎉🚀 " + strings.Repeat("🎉", 200) + " end", // 4-byte characters
		"nul\x00bytes\x00inside text\x00",
		"Sentence one. Sentence two! Three? " + strings.Repeat("Long sentence with many words and no end ", 40),
		"```\n" + strings.Repeat("code line;\n", 200) + "```\n",
	}
	if dir := filepath.Join("..", "..", "shared", "eval", "chroma"); dirExists(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "chatlogs.md"))
		if err == nil {
			texts = append(texts, string(b[:20000]))
		}
	}
	return texts
}

func dirExists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestContract(t *testing.T) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	counters := []tokenize.Counter{tokenize.Runes{}, tokenize.Words{}, tokenize.Bytes{}, cl100k,
		tokenize.Func{Fn: func(s string) int { return (len(s) + 3) / 4 }, Label: "len/4"}}
	sizes := []struct{ size, overlap int }{{8, 0}, {8, 3}, {64, 0}, {200, 50}, {1000, 0}}
	texts := contractTexts(t)
	for _, counter := range counters {
		for _, sz := range sizes {
			for name, c := range build(t, counter, sz.size, sz.overlap) {
				t.Run(fmt.Sprintf("%s/%s/%d-%d", name, counter.Name(), sz.size, sz.overlap), func(t *testing.T) {
					for _, text := range texts {
						// Only markdown repeats a table's header above its parts.
						chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: sz.size, Overlap: sz.overlap > 0, RepeatedHeaders: name == "markdown"})
					}
				})
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for name, c := range build(t, tokenize.Runes{}, 100, 10) {
		t.Run(name, func(t *testing.T) { chunktest.CheckBadInput(t, c) })
	}
}

func TestBadConfig(t *testing.T) {
	bad := []Size{{Size: 0}, {Size: -5}, {Size: 10, Overlap: 10}, {Size: 10, Overlap: 11}, {Size: 10, Overlap: -1}}
	for _, sz := range bad {
		if _, err := NewRecursive(RecursiveConfig{Size: sz}, nil); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("NewRecursive(%+v): err = %v, want ErrConfig", sz, err)
		}
		if _, err := NewToken(TokenConfig{sz}, nil); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("NewToken(%+v): err = %v", sz, err)
		}
	}
	rc := DefaultRecursiveConfig()
	rc.KeepSeparator = "sideways"
	if _, err := NewRecursive(rc, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("bad keep_separator: %v", err)
	}
	rc = DefaultRecursiveConfig()
	rc.Separators, rc.IsRegex = []string{`(?<=x)`}, true
	if _, err := NewRecursive(rc, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("bad regex: %v", err)
	}
	rc = DefaultRecursiveConfig()
	rc.Language = "cobol"
	if _, err := NewRecursive(rc, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown language: %v", err)
	}
	if _, err := NewToken(DefaultTokenConfig(), tokenize.Func{Fn: func(string) int { return 1 }}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("token chunker with a counter without boundaries: %v", err)
	}
	sc := DefaultSentenceConfig()
	sc.MinSentences = 0
	if _, err := NewSentence(sc, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("min sentences 0: %v", err)
	}
}

// A size smaller than one character is an error, not a broken chunk.
func TestSizeBelowOneCharacter(t *testing.T) {
	cl100k, _ := tokenize.NewTikToken("cl100k_base")
	c, err := NewRecursive(RecursiveConfig{Size: Size{Size: 1}, KeepSeparator: KeepStart}, cl100k)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chunk(context.Background(), gochunk.Document{Text: "🎉"}) // several byte tokens
	if !errors.Is(err, gochunk.ErrTooSmall) {
		t.Fatalf("err = %v, want ErrTooSmall", err)
	}
}

func texts(chunks []gochunk.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Text
	}
	return out
}

func chunkTexts(t *testing.T, c gochunk.Chunker, text string) []string {
	t.Helper()
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return texts(chunks)
}

func TestRecursiveLikeLangChain(t *testing.T) {
	c, err := NewRecursive(RecursiveConfig{Size: Size{Size: 10, Overlap: 1}, Separators: []string{"\n\n", "\n", " ", ""}, KeepSeparator: KeepStart, StripWhitespace: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The example of LangChain's own tests: chunk_size=10, chunk_overlap=1.
	text := "Hi.\n\nI'm Harrison.\n\nHow? Are? You?\nOkay then f f f f.\nThis is a weird text to write, but gotta test the splittingggg some how.\n\nBye!\n\n-H."
	want := []string{"Hi.", "I'm", "Harrison.", "How? Are?", "You?", "Okay then", "f f f f.", "This is a", "weird", "text to", "write,", "but gotta", "test the", "splitting", "gggg", "some how.", "Bye!", "-H."}
	if got := chunkTexts(t, c, text); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestCharacterSeparators(t *testing.T) {
	cfg := DefaultCharacterConfig()
	cfg.Size = Size{Size: 7, Overlap: 3}
	cfg.Separator = " "
	c, _ := NewCharacter(cfg, nil)
	if got, want := chunkTexts(t, c, "foo bar baz 123"), []string{"foo bar", "bar baz", "baz 123"}; !slices.Equal(got, want) {
		t.Errorf("overlap: got %q want %q", got, want)
	}
	// A non-space separator is never dropped.
	cfg = DefaultCharacterConfig()
	cfg.Size = Size{Size: 5}
	cfg.Separator = "|"
	c, _ = NewCharacter(cfg, nil)
	if got, want := chunkTexts(t, c, "aaa|bbb|ccc"), []string{"aaa|", "bbb|", "ccc"}; !slices.Equal(got, want) {
		t.Errorf("non-space separator: got %q want %q", got, want)
	}
	// Regex separator, kept at the start.
	cfg.Separator, cfg.IsRegex, cfg.KeepSeparator = `\d+`, true, KeepStart
	cfg.Size = Size{Size: 6}
	c, err := NewCharacter(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chunkTexts(t, c, "ab12cd345ef"), []string{"ab12cd", "345ef"}; !slices.Equal(got, want) {
		t.Errorf("regex: got %q want %q", got, want)
	}
}

func TestTokenWindows(t *testing.T) {
	c, _ := NewToken(TokenConfig{Size{Size: 3, Overlap: 1}}, tokenize.Words{})
	if got, want := chunkTexts(t, c, "a b c d e f g"), []string{"a b c ", "c d e ", "e f g"}; !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
	// Byte windows never cut a character: "é" is two bytes.
	c, _ = NewToken(TokenConfig{Size{Size: 3}}, tokenize.Bytes{})
	if got, want := chunkTexts(t, c, "aéébc"), []string{"aé", "éb", "c"}; !slices.Equal(got, want) {
		t.Errorf("bytes: got %q want %q", got, want)
	}
}

func TestSentencePacking(t *testing.T) {
	cfg := DefaultSentenceConfig()
	cfg.Size = Size{Size: 40, Overlap: 15}
	cfg.MinCharacters = 1
	c, _ := NewSentence(cfg, nil)
	text := "Dr. Smith went home. It was late. The cat was hungry. He fed it."
	// 21, 13, 20 and 10 runes: the second chunk repeats "It was late. "
	// (13 <= 15); "The cat was hungry. " (20) is too long to repeat.
	want := []string{"Dr. Smith went home. It was late.", "It was late. The cat was hungry.", "He fed it."}
	if got := chunkTexts(t, c, text); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Short sentences join the next.
	cfg = DefaultSentenceConfig()
	cfg.Size = Size{Size: 20}
	cfg.MinCharacters = 6
	c, _ = NewSentence(cfg, nil)
	if got, want := chunkTexts(t, c, "Hi. Ok. This is longer. End here."), []string{"Hi. Ok.", "This is longer.", "End here."}; !slices.Equal(got, want) {
		t.Errorf("short sentences: got %q want %q", got, want)
	}
}

func TestSemchunk(t *testing.T) {
	c, _ := NewSemchunk(SemchunkConfig{Size{Size: 30}}, tokenize.Runes{})
	text := "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away quickly."
	// Spaces after "." win; inside the sentences, spaces after ";" win over
	// other spaces.
	want := []string{"The quick brown fox jumps over", "the lazy dog.", "The dog sleeps;", "the fox runs away quickly."}
	if got := chunkTexts(t, c, text); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Paragraph breaks win over everything else.
	if got, want := chunkTexts(t, c, "Alpha beta.\n\nGamma delta.\nEpsilon."), []string{"Alpha beta.", "Gamma delta.\nEpsilon."}; !slices.Equal(got, want) {
		t.Errorf("paragraphs: got %q want %q", got, want)
	}
	// Punctuation splitters go back to the chunk before them.
	if got, want := chunkTexts(t, c, strings.Repeat("abcdefghij,", 4)), []string{"abcdefghij,abcdefghij,", "abcdefghij,abcdefghij,"}; !slices.Equal(got, want) {
		t.Errorf("reattach: got %q want %q", got, want)
	}
}

func TestMarkdownStructure(t *testing.T) {
	c, _ := NewMarkdown(MarkdownConfig{Size: Size{Size: 400}, HeadingPath: true}, nil)
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	var code *gochunk.Chunk
	for i, ch := range chunks {
		if strings.Contains(ch.Text, "func Split") {
			code = &chunks[i]
		}
		if strings.HasSuffix(strings.TrimSpace(ch.Text), "#") || strings.Contains(ch.Text, "\n") && strings.HasPrefix(lastLine(ch.Text), "#") {
			t.Errorf("chunk %d ends with a heading: %q", i, ch.Text)
		}
	}
	if code == nil || !strings.Contains(code.Text, "```go") || !strings.Contains(code.Text, "return append(out, text)\n}\n```") {
		t.Fatalf("code block not kept whole: %+v", code)
	}
	if got := code.Headings; !slices.Equal(got, []string{"Chunking for retrieval", "Why boundaries matter", "Code stays whole"}) {
		t.Errorf("heading path = %v", got)
	}
	last := chunks[len(chunks)-1]
	if got := last.Headings; !slices.Equal(got, []string{"Appendix"}) {
		t.Errorf("last heading path = %v", got)
	}
	// A table is cut between rows only.
	c, _ = NewMarkdown(MarkdownConfig{Size: Size{Size: 100}}, nil)
	for _, ch := range mustChunk(t, c, sample(t)) {
		if strings.Contains(ch.Text, "|") {
			for _, line := range strings.Split(ch.Text, "\n") {
				if strings.HasPrefix(line, "|") && !strings.HasSuffix(line, "|") {
					t.Errorf("table row cut: %q", line)
				}
			}
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func mustChunk(t *testing.T, c gochunk.Chunker, text string) []gochunk.Chunk {
	t.Helper()
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return chunks
}

func TestCodeDefinitions(t *testing.T) {
	src := "package x\n\nimport \"fmt\"\n\n// Hello greets.\n// It is friendly.\nfunc Hello() {\n\tfmt.Println(\"hi\")\n}\n\n// World is big.\ntype World struct {\n\tName string\n}\n\nfunc (w World) Size() int {\n\treturn 1\n}\n"
	c, _ := NewCode(CodeConfig{Size: Size{Size: 80}}, nil)
	chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: "x.go", Text: src})
	if err != nil {
		t.Fatal(err)
	}
	got := texts(chunks)
	want := []string{
		"package x\n\nimport \"fmt\"",
		"// Hello greets.\n// It is friendly.\nfunc Hello() {\n\tfmt.Println(\"hi\")\n}",
		"// World is big.\ntype World struct {\n\tName string\n}",
		"func (w World) Size() int {\n\treturn 1\n}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if chunks[0].Metadata["language"] != "go" {
		t.Errorf("language = %v", chunks[0].Metadata["language"])
	}
}

func TestLanguagePresets(t *testing.T) {
	for _, lang := range Languages() {
		seps, err := LanguageSeparators(lang)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if _, err := NewRecursive(RecursiveConfig{Size: Size{Size: 100}, Separators: seps, IsRegex: true, KeepSeparator: KeepStart}, nil); err != nil {
			t.Errorf("%s: %v", lang, err)
		}
	}
	if LanguageForFile("a/b/main.go") != "go" || LanguageForFile("x.PY") != "python" || LanguageForFile("README.md") != "markdown" || LanguageForFile("noext") != "" {
		t.Error("LanguageForFile")
	}
}

// Golden files pin the output of every chunker on the sample document.
func TestGolden(t *testing.T) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range build(t, cl100k, 60, 10) {
		t.Run(name, func(t *testing.T) {
			checkGolden(t, name, mustChunk(t, c, sample(t)))
		})
	}
}

// checkGolden compares chunks with testdata/golden/NAME.json, or writes
// it with -update.
func checkGolden(t *testing.T, name string, chunks []gochunk.Chunk) {
	t.Helper()
	got, err := json.MarshalIndent(chunks, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./split -update to create it)", err)
	}
	if strings.TrimSpace(string(want)) != string(got) {
		t.Errorf("output differs from %s; if the change is intended, run go test ./split -update and review the diff", path)
	}
}

// A long line with no delimiter is cut into full chunks in linear time.
func TestLongLineNoDelimiter(t *testing.T) {
	text := strings.Repeat("abcdefghij", 500_000) // 5 MB
	for name, c := range build(t, tokenize.Runes{}, 1000, 0) {
		chunks := mustChunk(t, c, text)
		if len(chunks) != 5000 {
			t.Errorf("%s: %d chunks, want 5000", name, len(chunks))
		}
	}
}

// One chunker, with a shared tiktoken cache, used from many goroutines
// gives the same chunks as sequential use (run with -race).
func TestConcurrentUse(t *testing.T) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	text := sample(t)
	for name, c := range build(t, cl100k, 40, 8) {
		want := mustChunk(t, c, text)
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				got, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
				if err == nil && !slices.EqualFunc(got, want, func(a, b gochunk.Chunk) bool { return a.Text == b.Text && a.Start() == b.Start() }) {
					err = fmt.Errorf("%s: concurrent run differs", name)
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	}
}

// min_sentences_per_chunk: a chunk that packing leaves with fewer sentences
// (here the last) takes sentences from the chunk before while both keep
// at least that many and the size holds; without room, the size wins.
func TestSentenceMinSentences(t *testing.T) {
	text := "One two three four. Five six seven eight. Nine ten eleven twelve. Thirteen fourteen fifteen. Sixteen end."
	count := func(cfg SentenceConfig) []int {
		c, err := NewSentence(cfg, tokenize.Words{})
		if err != nil {
			t.Fatal(err)
		}
		chunks := chunktest.Check(t, c, text, chunktest.Options{Counter: tokenize.Words{}, Limit: cfg.Size.Size})
		var n []int
		for _, ch := range chunks {
			n = append(n, strings.Count(ch.Text, "."))
		}
		return n
	}
	cfg := DefaultSentenceConfig()
	cfg.Size = Size{Size: 15}
	cfg.MinCharacters = 0
	if got := count(cfg); !slices.Equal(got, []int{4, 1}) {
		t.Fatalf("greedy packing: %v sentences per chunk", got)
	}
	cfg.MinSentences = 2
	if got := count(cfg); !slices.Equal(got, []int{3, 2}) {
		t.Errorf("min 2: %v sentences per chunk, want [3 2]", got)
	}
	cfg.Size = Size{Size: 6}
	if got := count(cfg); !slices.Equal(got, []int{1, 1, 1, 2}) {
		t.Errorf("min 2 without room: %v, want [1 1 1 2] (4, 4, 4 and 3+2 words)", got)
	}
}

// A heading never ends a chunk while text follows: it goes with the text
// under it, down to that text's first sentence or words when the block is
// too large, and a heading stays with a subheading right under it.
func TestMarkdownHeadingKeepsText(t *testing.T) {
	long := strings.Repeat("This sentence about the topic goes on with several words in it. ", 12)
	text := "# Title\n\n" + long + "\n\n## Section\n\n### Subsection\n\n" + long + "\n\n## Table\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Words\n\n" + strings.Repeat("word ", 150) + "\n"
	for _, size := range []int{40, 80, 200, 400} {
		cfg := DefaultMarkdownConfig()
		cfg.Size = Size{Size: size}
		c, _ := NewMarkdown(cfg, nil)
		chunks := chunktest.Check(t, c, text, chunktest.Options{Limit: size})
		for k, ch := range chunks[:len(chunks)-1] {
			lines := strings.Split(strings.TrimSpace(ch.Text), "\n")
			if last := strings.TrimSpace(lines[len(lines)-1]); strings.HasPrefix(last, "#") {
				t.Errorf("size %d: chunk %d ends on the heading %q", size, k, last)
			}
		}
	}
}
