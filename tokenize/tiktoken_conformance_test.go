package tokenize

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/gochunk/gochunk/internal/npmtest"
	"github.com/gochunk/gochunk/tokenize/internal/bpeindex"
	"github.com/gochunk/gochunk/tokenize/internal/merges"
)

// jsTiktokenVersion is the release of npm js-tiktoken (OpenAI's tiktoken
// in JavaScript, what LangChain.js uses) the counts are checked against.
const jsTiktokenVersion = "1.0.21"

// jsTiktoken installs js-tiktoken outside the repository ($GOCHUNK_NPM_DIR,
// else the user's cache directory) and returns a function that encodes
// texts with an encoding there; it skips where node or npm is missing.
func jsTiktoken(t *testing.T) func(encoding string, texts []string) [][]uint {
	t.Helper()
	node, dir := npmtest.Install(t, "npm-js-tiktoken", "js-tiktoken@"+jsTiktokenVersion)
	script := filepath.Join(t.TempDir(), "encode.mjs")
	os.WriteFile(script, []byte(`import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.argv[2] + "/");
const { Tiktoken } = require("js-tiktoken/lite");
const ranks = require("js-tiktoken/ranks/" + process.argv[3]);
const enc = new Tiktoken(ranks.default ?? ranks);
const texts = JSON.parse(readFileSync(process.argv[4], "utf8"));
writeFileSync(process.argv[5], JSON.stringify(texts.map((t) => Array.from(enc.encode(t)))));
`), 0o644)
	return func(encoding string, texts []string) [][]uint {
		in := filepath.Join(t.TempDir(), "in.json")
		out := filepath.Join(t.TempDir(), "out.json")
		b, _ := json.Marshal(texts)
		os.WriteFile(in, b, 0o644)
		cmd := exec.Command(node, script, filepath.Join(dir, "node_modules"), encoding, in, out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("js-tiktoken: %v\n%s", err, msg)
		}
		var ids [][]uint
		b, _ = os.ReadFile(out)
		if err := json.Unmarshal(b, &ids); err != nil {
			t.Fatal(err)
		}
		return ids
	}
}

// tiktokenCases are 10,000 generated strings heavy in white space runs
// (around line breaks too), digits, punctuation, contractions, mixed case
// and scripts other than Latin, plus the development corpora when present.
func tiktokenCases() []string {
	r := rand.New(rand.NewPCG(20, 26))
	pieces := []string{" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n", "\n ", "\u00a0", "\u3000", "\u2003",
		"0", "7", "12", "123", "2026", "3.14", "1,000,000", "-42",
		".", ",", "!", "?", "...", "—", "-", "(", ")", "[", "\"", "«", "»", "/", "//", "#", "@", "&&", "::", "=>",
		"'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "don't", "I'm",
		"the", "The", "THE", "hello", "World", "tokenization", "unbelievable", "camelCase", "HTTPServer", "iPhone", "x",
		"café", "naïve", "Straße", "ÉCOLE", "日本語", "中文", "한국어", "русский", "Ελληνικά", "العربية", "हिन्दी", "ไทย",
		"🎉", "👩‍💻", "🇫🇷", "e\u0301", "ﬁ", "½", "²", "Ⅻ", "٣", "७"}
	var out []string
	for range 10000 {
		var sb strings.Builder
		for k := 1 + r.IntN(24); k > 0; k-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		out = append(out, sb.String())
	}
	if dir, err := os.ReadDir(filepath.Join("..", "..", "shared", "eval", "chroma")); err == nil {
		for _, e := range dir {
			if strings.HasSuffix(e.Name(), ".md") {
				b, _ := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", e.Name()))
				out = append(out, string(b))
			}
		}
	}
	return out
}

// cl100k_base and o200k_base give OpenAI's tokens: the same ids, so the
// same counts and boundaries, as js-tiktoken on every case.
func TestTikTokenMatchesJSTiktoken(t *testing.T) {
	encode := jsTiktoken(t)
	texts := tiktokenCases()
	for _, encoding := range []string{"cl100k_base", "o200k_base"} {
		tk, err := NewTikToken(encoding)
		if err != nil {
			t.Fatal(err)
		}
		want := encode(encoding, texts)
		bad := 0
		for i, text := range texts {
			ends := tk.AppendTokenEnds(nil, text)
			got := make([]uint, len(ends))
			prev := 0
			for k, e := range ends {
				r, _ := tk.bpe.vocab.rank(text[prev:e])
				got[k] = uint(r)
				prev = e
			}
			if c := tk.Count(text); c != len(want[i]) || !equalIDs(got, want[i]) {
				if bad++; bad <= 5 {
					t.Errorf("%s: %.60q: %d tokens %v, js-tiktoken %d %v", encoding, text, c, head(got), len(want[i]), head(want[i]))
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d texts differ", encoding, bad, len(texts))
		} else {
			t.Logf("%s: %d texts, identical", encoding, len(texts))
		}
	}
}

func equalIDs(a, b []uint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func head(ids []uint) []uint { return ids[:min(len(ids), 12)] }

// The embedded vocabularies are tiktoken-go's, which compiles OpenAI's
// into Go: every id decodes to the same bytes, and every token's rank is
// its id.
func TestEmbeddedVocabulary(t *testing.T) {
	for _, enc := range []tokenizer.Encoding{tokenizer.Cl100kBase, tokenizer.O200kBase} {
		codec, err := tokenizer.Get(enc)
		if err != nil {
			t.Fatal(err)
		}
		b, err := loadBPE(string(enc))
		if err != nil {
			t.Fatal(err)
		}
		v := b.vocab
		tokens := 0
		for id := range v.ranks() + 1000 {
			want, err := codec.Decode([]uint{uint(id)})
			if err != nil {
				want = ""
			}
			got := ""
			if id < v.ranks() {
				got = v.token(uint32(id))
			}
			if got != want {
				t.Fatalf("%s: id %d is %q, tiktoken-go has %q", enc, id, got, want)
			}
			if got == "" {
				continue
			}
			tokens++
			if r, ok := v.rank(got); !ok || int(r) != id {
				t.Fatalf("%s: rank of %q is %d (%v), want %d", enc, got, r, ok, id)
			}
		}
		if tokens < 100_000 {
			t.Fatalf("%s: %d tokens", enc, tokens)
		}
		for _, s := range []string{"", "not a token at all, surely", string(make([]byte, 300))} {
			if r, ok := v.rank(s); ok {
				t.Errorf("%s: %q has rank %d", enc, s, r)
			}
		}
	}
}

// The embedded merges are what package merges builds from the embedded
// vocabularies (go generate ./tokenize writes both), and a merges file
// that does not fit its vocabulary is not read.
func TestEmbeddedMerges(t *testing.T) {
	for _, c := range []struct{ enc, merges string }{{"cl100k_base", cl100kMerges}, {"o200k_base", o200kMerges}} {
		v, err := loadVocab(c.enc)
		if err != nil {
			t.Fatal(err)
		}
		built := merges.Build(v.ranks(), v.token, v.rank)
		if string(merges.Encode(built)) != c.merges {
			t.Fatalf("%s: the embedded merges are not its vocabulary's: run go generate ./tokenize", c.enc)
		}
		if _, ok := merges.Decode(c.merges, v.ranks(), v.token); !ok {
			t.Fatalf("%s: the embedded merges are not read", c.enc)
		}
	}
	cl, err := loadVocab("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	// Another vocabulary's merges, cut to this one's size, and this one's
	// with one split moved by a rank.
	wrong := []byte(cl100kMerges)
	wrong[8*1000]++
	for name, data := range map[string]string{"o200k_base's": o200kMerges[:len(cl100kMerges)], "changed": string(wrong), "cut": cl100kMerges[:800]} {
		if _, ok := merges.Decode(data, cl.ranks(), cl.token); ok {
			t.Errorf("%s merges read for cl100k_base", name)
		}
	}
	// And a vocabulary whose merges are not read builds them.
	b := &bpe{vocab: &vocab{}}
	*b.vocab = *cl
	b.vocab.merges = o200kMerges
	if got := merges.Encode(b.table()); string(got) != cl100kMerges {
		t.Error("cl100k_base with o200k_base's merges: the merges built are not cl100k_base's")
	}
}

// The embedded lookup tables are what bpeindex builds from the embedded
// vocabularies (go generate ./tokenize writes both).
func TestEmbeddedIndex(t *testing.T) {
	for _, c := range []struct{ data, idx string }{{cl100kVocab, cl100kIndex}, {o200kVocab, o200kIndex}} {
		at, slots, err := bpeindex.Build(c.data)
		if err != nil {
			t.Fatal(err)
		}
		if string(bpeindex.Encode(at, slots)) != c.idx {
			t.Fatal("an embedded index is not its vocabulary's: run go generate ./tokenize")
		}
	}
	// A table that does not fit its vocabulary is built again.
	v, err := newVocab(cl100kVocab, o200kIndex, "")
	if err != nil || v.ranks() < 100_000 {
		t.Fatalf("%v", err)
	}
	if r, ok := v.rank(" the"); !ok || v.token(r) != " the" {
		t.Errorf("rank of \" the\": %d %v", r, ok)
	}
}
