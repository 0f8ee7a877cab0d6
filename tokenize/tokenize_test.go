package tokenize

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// sharedDir returns ../shared/<sub> relative to the module root, or skips the
// test when it is absent (as on a user's machine).
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", dir)
	}
	return dir
}

// reference.jsonl holds token ids and counts produced by the reference
// implementations (Hugging Face tokenizers.js 0.2.0 and js-tiktoken 1.0.21)
// for a few hand-picked sentences.
type refLine struct {
	Tok  string `json:"tok"`
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
	N    int    `json:"n"`
}

func readReference(t *testing.T) []refLine {
	f, err := os.Open("testdata/reference.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l refLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

func TestHFMatchesReference(t *testing.T) {
	dir := sharedDir(t, "tokenizers")
	toks := map[string]*HF{}
	for _, name := range []string{"potion-base-8M", "all-MiniLM-L6-v2"} {
		tk, err := LoadHF(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		toks[name] = tk
	}
	n := 0
	for _, l := range readReference(t) {
		tk, ok := toks[l.Tok]
		if !ok {
			continue
		}
		n++
		if got := tk.Encode(l.Text); !slices.Equal(got, l.IDs) {
			t.Errorf("%s %q:\n got %v\nwant %v", l.Tok, l.Text, got, l.IDs)
		}
		if got := tk.Count(l.Text); got != len(l.IDs) {
			t.Errorf("%s Count(%q) = %d, want %d", l.Tok, l.Text, got, len(l.IDs))
		}
		ends := tk.AppendTokenEnds(nil, l.Text)
		if len(ends) != len(l.IDs) || !slices.IsSorted(ends) {
			t.Errorf("%s token ends %v: want %d sorted offsets", l.Tok, ends, len(l.IDs))
		}
	}
	if n == 0 {
		t.Fatal("no reference lines for hugging face tokenizers")
	}
}

func TestTikTokenMatchesReference(t *testing.T) {
	for _, l := range readReference(t) {
		if l.N == 0 {
			continue
		}
		tk, err := NewTikToken(l.Tok)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Count(l.Text); got != l.N {
			t.Errorf("%s Count(%q) = %d, want %d", l.Tok, l.Text, got, l.N)
		}
	}
}

// The segment cache must never change a count: compare with encoding the
// whole text at once, on real corpora and on tricky hand-made strings.
func TestTikTokenSegmentsExact(t *testing.T) {
	texts := []string{
		"a  b\n\n  c\t\td \r\n e", "word.\n next", "x ’s 's 'S Its ſ", "  \u00a0 nbsp\u2003em\u3000ideo",
		"1234567 89, 1 2 3", "emoji 🎉 🚀🚀  ok", "trailing   ", "\n\n\n", "a\u200eb c\u0085d",
		"CamelCaseWord ALLCAPS lower", "path/to/file\n/ next", "tab\tsep\u2028line",
	}
	if dir, err := os.ReadDir(filepath.Join("..", "..", "shared", "eval", "chroma")); err == nil {
		for _, e := range dir {
			if strings.HasSuffix(e.Name(), ".md") {
				b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, string(b))
			}
		}
	}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tk, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			want := 0
			tk.bpe.tokens(s, func(int) { want++ }) // the whole text, not cut into segments
			if got := tk.Count(s); got != want {
				t.Errorf("%s: Count = %d, whole-text encoding = %d for %.40q", enc, got, want, s)
			}
			ends := tk.AppendTokenEnds(nil, s)
			if len(ends) != want || (len(ends) > 0 && ends[len(ends)-1] != len(s)) {
				t.Errorf("%s: %d token ends (last %v), want %d ending at %d", enc, len(ends), ends[len(ends)-1:], want, len(s))
			}
		}
	}
}

func FuzzTikTokenSegments(f *testing.F) {
	for _, s := range []string{"hello world", "a  \n b", "x's ok", "€ 1234 ab\tc"} {
		f.Add(s)
	}
	tk, err := NewTikToken("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		want := 0
		tk.bpe.tokens(s, func(int) { want++ })
		if got := tk.Count(s); got != want {
			t.Fatalf("Count(%q) = %d, want %d", s, got, want)
		}
	})
}

func TestSimpleCounters(t *testing.T) {
	tests := []struct {
		text                string
		runes, bytes, words int
	}{
		{"", 0, 0, 0},
		{"héllo wörld", 11, 13, 2},
		{"  a\tb\n\nc  ", 10, 10, 3},
		{"日本語", 3, 9, 1},
		{"nul\x00byte", 8, 8, 1},
	}
	for _, tc := range tests {
		if got := (Runes{}).Count(tc.text); got != tc.runes {
			t.Errorf("Runes(%q) = %d, want %d", tc.text, got, tc.runes)
		}
		if got := (Bytes{}).Count(tc.text); got != tc.bytes {
			t.Errorf("Bytes(%q) = %d, want %d", tc.text, got, tc.bytes)
		}
		if got := (Words{}).Count(tc.text); got != tc.words || got != len(strings.Fields(tc.text)) {
			t.Errorf("Words(%q) = %d, want %d", tc.text, got, tc.words)
		}
		for _, c := range []Encoder{Runes{}, Bytes{}, Words{}} {
			ends := c.AppendTokenEnds(nil, tc.text)
			if len(ends) != c.Count(tc.text) {
				t.Errorf("%s(%q): %d ends for %d tokens", c.Name(), tc.text, len(ends), c.Count(tc.text))
			}
		}
	}
}

func TestNew(t *testing.T) {
	for _, name := range []string{"runes", "words", "bytes", "cl100k_base", "o200k_base"} {
		c, err := New(name)
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if c.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, c.Name())
		}
	}
	for _, bad := range []string{"gpt2", "hf:/nonexistent/tokenizer.json"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q): no error", bad)
		}
	}
}

func TestParseHFErrors(t *testing.T) {
	for _, doc := range []string{
		`not json`,
		`{"model":{"type":"BPE","vocab":{"a":0}}}`,
		`{"model":{"type":"WordPiece","vocab":{}}}`,
		`{"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":{"a":0}}}`,
	} {
		if _, err := ParseHF([]byte(doc)); err == nil {
			t.Errorf("ParseHF(%s): no error", doc)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	text := benchText(b)
	hfPath := filepath.Join("..", "..", "shared", "tokenizers", "all-MiniLM-L6-v2")
	names := []string{"runes", "words", "cl100k_base", "o200k_base"}
	if _, err := os.Stat(hfPath); err == nil {
		names = append(names, "hf:"+hfPath)
	}
	for _, name := range names {
		c, err := New(name)
		if err != nil {
			b.Fatal(err)
		}
		label := name
		if strings.HasPrefix(name, "hf:") {
			label = "hf-minilm"
		}
		b.Run(label, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.Count(text)
			}
		})
	}
}

// benchText is 1 MB of prose: the chroma corpora when present, otherwise
// generated text.
func benchText(b *testing.B) string {
	var sb strings.Builder
	if b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", "wikitexts.md")); err == nil {
		for sb.Len() < 1<<20 {
			sb.Write(b)
		}
		return sb.String()
	}
	words := strings.Fields("the of a chunk retrieval model token sentence paragraph embedding vector similarity boundary document query answer index search evaluation recall precision")
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString(words[(i*7+i/3)%len(words)])
		if i%13 == 12 {
			sb.WriteString(". ")
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

func FuzzRuneCount(f *testing.F) {
	for _, s := range []string{"", "abc", "héllo wörld 日本語 🎉", strings.Repeat("é", 17)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if got, want := RuneCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("RuneCount(%q) = %d, want %d", s, got, want)
		}
	})
}

// cutsExact checks that at every position Cut returns, the tokens of the
// two sides, computed apart, are the tokens of the whole text.
func cutsExact(t *testing.T, tk *TikToken, s string) {
	t.Helper()
	whole := tk.AppendTokenEnds(nil, s)
	for from := 0; from < len(s); {
		c := tk.Cut(s, from)
		if c >= len(s) {
			break
		}
		if c < from {
			t.Fatalf("%s: Cut(%.40q, %d) = %d, before from", tk.Name(), s, from, c)
		}
		got := tk.AppendTokenEnds(nil, s[:c])
		for _, e := range tk.AppendTokenEnds(nil, s[c:]) {
			got = append(got, c+e)
		}
		if !slices.Equal(got, whole) {
			t.Fatalf("%s: tokens cut at %d differ from the whole text's in %q", tk.Name(), c, s)
		}
		from = c + 1
	}
}

func TestTikTokenCutsExact(t *testing.T) {
	texts := []string{
		"abc123def456", "x1y2z3 a1b2", "base64: QUJDRDEyMzQ1Njc4OTA=/+abc9Z", "12345abcdef6789",
		"v2.0.1-rc3 sha256:9f86d081884c7d65", "٣٤abc١٢", "e\u0301123é4", "'s1'T2'll3", "ÅB12ĳ34",
		"a \n b\t\tc  d", "0x7FFFab_c9", "x²y³ ⅣⅤ5", "Hello,world!123abc...99",
	}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tk, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			cutsExact(t, tk, s)
		}
	}
}

func FuzzTikTokenCut(f *testing.F) {
	for _, s := range []string{"ab12cd", "x 1y\n2", "é3ß4", "QUJD1234=="} {
		f.Add(s)
	}
	tks := map[string]*TikToken{}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tk, err := NewTikToken(enc)
		if err != nil {
			f.Fatal(err)
		}
		tks[enc] = tk
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 200 {
			return
		}
		for _, tk := range tks {
			cutsExact(t, tk, s)
		}
	})
}

// EncodePair lays out a pair as the post-processor says and truncates it
// as the tokenizers library's longest_first does.
func TestEncodePair(t *testing.T) {
	vocab := `{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"a":4,"b":5}`
	bert := `{"post_processor":{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]},"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":` + vocab + `}}`
	roberta := strings.Replace(bert, "BertProcessing", "RobertaProcessing", 1)
	none := `{"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":` + vocab + `}}`
	for _, c := range []struct {
		name, tok, a, b string
		max             int
		ids, types      []int
	}{
		{"bert", bert, "a a", "b", 0, []int{2, 4, 4, 3, 5, 3}, []int{0, 0, 0, 0, 1, 1}},
		{"roberta", roberta, "a", "b b", 0, []int{2, 4, 3, 3, 5, 5, 3}, []int{0, 0, 0, 0, 0, 0, 0}},
		{"none", none, "a", "b", 0, []int{4, 5}, []int{0, 1}},
		// Room 4 for 2+5 tokens: the longer is cut to 2.
		{"longer cut", bert, "a a", "b b b b b", 7, []int{2, 4, 4, 3, 5, 5, 3}, []int{0, 0, 0, 0, 1, 1, 1}},
		// Room 3 for 4+4 tokens: both halved, the second (a tie) gets the odd one.
		{"tie", bert, "a a a a", "b b b b", 6, []int{2, 4, 3, 5, 5, 3}, []int{0, 0, 0, 1, 1, 1}},
		// Room 3 for 5+4: the longer (the first) gets the odd one.
		{"first longer", bert, "a a a a a", "b b b b", 6, []int{2, 4, 4, 3, 5, 3}, []int{0, 0, 0, 0, 1, 1}},
		{"fits", bert, "a", "b", 5, []int{2, 4, 3, 5, 3}, []int{0, 0, 0, 1, 1}},
		{"no room", bert, "a", "b", 2, []int{2, 3, 3}, []int{0, 0, 1}},
	} {
		tk, err := ParseHF([]byte(c.tok))
		if err != nil {
			t.Fatal(c.name, err)
		}
		ids, types := tk.EncodePair(c.a, c.b, c.max)
		if !slices.Equal(ids, c.ids) || !slices.Equal(types, c.types) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, ids, types, c.ids, c.types)
		}
	}
}

// BenchmarkLoadVocab measures indexing an embedded tiktoken vocabulary,
// what a process pays the first time it counts with the encoding.
func BenchmarkLoadVocab(b *testing.B) {
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := loadVocab(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCountCold counts text with a new counter each time, its cache
// empty, as one process does once: on the corpus, and on the source code
// of ../shared/eval/codebases (where most words are new).
func BenchmarkCountCold(b *testing.B) {
	texts := map[string]string{"prose": benchText(b)}
	if files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "eval", "codebases", "*.md")); len(files) > 0 {
		var sb strings.Builder
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				sb.Write(data)
			}
		}
		texts["code"] = sb.String()
	}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		for _, kind := range []string{"prose", "code"} {
			text, ok := texts[kind]
			if !ok {
				continue
			}
			b.Run(enc+"/"+kind, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					c, err := NewTikToken(enc)
					if err != nil {
						b.Fatal(err)
					}
					c.Count(text)
				}
			})
		}
	}
}

// cutByRunes is Cut's definition, character by character.
func cutByRunes(text string, from int) int {
	for i := max(from, 1); i < len(text); {
		cut, size := cutBefore(text, i)
		if cut {
			return i
		}
		i += size
	}
	return len(text)
}

// TestCutMatchesDefinition compares Cut, which classifies two ASCII
// characters by a table, with its definition at every position of random
// texts of every ASCII character and some others.
func TestCutMatchesDefinition(t *testing.T) {
	tk, err := NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	others := []string{"é", "٣", "²", "\u00a0", "\u3000", "日", "e\u0301", "\u0085"}
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range 5000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			if rng.IntN(4) == 0 {
				sb.WriteString(others[rng.IntN(len(others))])
			} else {
				sb.WriteByte(byte(rng.IntN(utf8.RuneSelf)))
			}
		}
		s := sb.String()
		for from := 0; from <= len(s); from++ {
			if got, want := tk.Cut(s, from), cutByRunes(s, from); got != want {
				t.Fatalf("trial %d: Cut(%q, %d) = %d, want %d", trial, s, from, got, want)
			}
		}
	}
	// Runs long enough for the eight bytes at a time: letters of both
	// cases, digits, punctuation and line breaks, which make no cut among
	// themselves, between white space and the other characters.
	runs := []string{"abcxyzABCXYZ", "0123456789", "-_.,;:!?()[]{}@`~^|\\/'\"", "\n\r", " \t\v\f"}
	for trial := range 3000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			switch k := rng.IntN(12); {
			case k < len(runs):
				run := runs[k]
				for range rng.IntN(20) {
					sb.WriteByte(run[rng.IntN(len(run))])
				}
			case k == len(runs):
				sb.WriteString(others[rng.IntN(len(others))])
			default: // letters and punctuation, as in an identifier or a URL
				for range rng.IntN(30) {
					sb.WriteByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-./"[rng.IntN(56)])
				}
			}
		}
		s := sb.String()
		for from := 0; from <= len(s); from++ {
			if got, want := tk.Cut(s, from), cutByRunes(s, from); got != want {
				t.Fatalf("runs, trial %d: Cut(%q, %d) = %d, want %d", trial, s, from, got, want)
			}
		}
	}
}
