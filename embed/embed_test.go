package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

func sharedTokenizer(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "tokenizers", name, "tokenizer.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s not found (the shared data is only present in the project's CI)", p)
	}
	return p
}

func TestLexical(t *testing.T) {
	l := NewLexical(LexicalConfig{})
	texts := []string{
		"The cat sat on the mat and purred at the cats.",
		"A cat is sitting on a mat, purring.",
		"Stock markets fell sharply after the interest rate decision.",
		"",
	}
	vs, err := l.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkVectors(vs, len(texts), l.Dim(), "lexical"); err != nil {
		t.Fatal(err)
	}
	same, other := vec.Cosine(vs[0], vs[1]), vec.Cosine(vs[0], vs[2])
	if same <= other+0.2 {
		t.Errorf("similar texts %.3f not clearly above unrelated %.3f", same, other)
	}
	if n := vec.Norm(vs[0]); math.Abs(float64(n)-1) > 1e-5 {
		t.Errorf("norm %v", n)
	}
	for _, x := range vs[3] {
		if x != 0 {
			t.Fatal("empty text must give a zero vector")
		}
	}
	// Deterministic, and order-independent.
	again, _ := l.Embed(context.Background(), []string{texts[2], texts[0]})
	if vec.Cosine(again[1], vs[0]) < 0.99999 || vec.Cosine(again[0], vs[2]) < 0.99999 {
		t.Error("not deterministic")
	}
	// The document IDF changes the vectors and the model id.
	d := ForDocument(l, texts)
	if d.ModelID() == l.ModelID() || !strings.Contains(d.ModelID(), ":doc") {
		t.Errorf("model ids %q, %q", l.ModelID(), d.ModelID())
	}
	dv, _ := d.Embed(context.Background(), texts[:3])
	if vec.Cosine(dv[0], dv[1]) <= vec.Cosine(dv[0], dv[2]) {
		t.Error("IDF-weighted similarity lost the topic")
	}
}

// A Model2Vec directory made from the real potion-base-8M tokenizer and a
// generated table: each vector must be the normalised mean of the rows of
// the text's token ids (from the Hugging Face reference implementation),
// without special tokens.
func TestStaticMatchesModel2Vec(t *testing.T) {
	tokPath := sharedTokenizer(t, "potion-base-8M")
	tok, err := tokenize.LoadHF(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rows, dim := tok.MaxID()+1, 8
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(math.Sin(float64(i)*0.37)) + float32(i%dim)*0.01
	}
	writeStaticModel(t, dir, tokPath, table, rows, dim, true)
	s, err := LoadStatic(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	refIDs := map[string][]int{}
	f, err := os.ReadFile(filepath.Join("..", "tokenize", "testdata", "reference.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		var l struct {
			Tok, Text string
			IDs       []int
		}
		json.Unmarshal([]byte(line), &l)
		if l.Tok == "potion-base-8M" {
			refIDs[l.Text] = l.IDs
		}
	}
	var texts []string
	for text := range refIDs {
		texts = append(texts, text)
	}
	vs, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		want := make([]float32, dim)
		n := 0
		for _, id := range refIDs[text] {
			if id == tok.UnknownID() {
				continue
			}
			for j := range dim {
				want[j] += table[id*dim+j]
			}
			n++
		}
		for j := range want {
			want[j] /= float32(n)
		}
		vec.Normalize(want)
		for j := range want {
			if math.Abs(float64(want[j]-vs[i][j])) > 1e-5 {
				t.Fatalf("%q: got %v\nwant %v", text, vs[i], want)
			}
		}
	}
	if s.Dim() != dim || s.MaxTokens() != 512 || !strings.HasPrefix(s.ModelID(), "static:") {
		t.Errorf("dim %d max %d id %q", s.Dim(), s.MaxTokens(), s.ModelID())
	}
}

func writeStaticModel(t *testing.T, dir, tokPath string, table []float32, rows, dim int, normalize bool) {
	t.Helper()
	if err := WriteSafetensors(filepath.Join(dir, "model.safetensors"), map[string][]float32{"embeddings": table}, map[string][]int{"embeddings": {rows, dim}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644)
	cfg, _ := json.Marshal(map[string]any{"normalize": normalize, "model_type": "model2vec"})
	os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
}

// tinyTokenizer is a WordPiece tokenizer.json small enough to write by
// hand, so tests run without the shared data.
const tinyTokenizer = `{"normalizer":{"type":"BertNormalizer","lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},
"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
"vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"the":4,"cat":5,"sat":6,"dog":7,"##s":8,".":9,"run":10}}}`

func tinyModelDir(t *testing.T, rows, dim int, normalize bool) string {
	t.Helper()
	dir := t.TempDir()
	tokPath := filepath.Join(dir, "tok.json")
	os.WriteFile(tokPath, []byte(tinyTokenizer), 0o644)
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(i + 1)
	}
	writeStaticModel(t, dir, tokPath, table, rows, dim, normalize)
	return dir
}

func TestStaticTiny(t *testing.T) {
	s, err := LoadStatic(context.Background(), tinyModelDir(t, 11, 2, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Embed(context.Background(), []string{"The cats", "zebra", ""})
	if err != nil {
		t.Fatal(err)
	}
	// the=4, cat=5, ##s=8: rows [9,10], [11,12], [17,18] -> mean [12.333, 13.333].
	if math.Abs(float64(vs[0][0])-37.0/3) > 1e-4 || math.Abs(float64(vs[0][1])-40.0/3) > 1e-4 {
		t.Errorf("mean = %v", vs[0])
	}
	if vs[1][0] != 0 || vs[2][0] != 0 {
		t.Errorf("unknown-only and empty texts must give zero vectors: %v %v", vs[1], vs[2])
	}
}

func TestStaticBadModels(t *testing.T) {
	ctx := context.Background()
	// Table smaller than the vocabulary.
	if _, err := LoadStatic(ctx, tinyModelDir(t, 5, 2, true), Options{}); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "rows") {
		t.Errorf("small table: %v", err)
	}
	// Missing weights.
	dir := tinyModelDir(t, 11, 2, true)
	os.Remove(filepath.Join(dir, "model.safetensors"))
	if _, err := LoadStatic(ctx, dir, Options{}); !errors.Is(err, ErrModel) {
		t.Errorf("missing weights: %v", err)
	}
	// Corrupt weights.
	dir = tinyModelDir(t, 11, 2, true)
	os.WriteFile(filepath.Join(dir, "model.safetensors"), []byte("\x10\x00\x00\x00\x00\x00\x00\x00{not json}"), 0o644)
	if _, err := LoadStatic(ctx, dir, Options{}); !errors.Is(err, ErrModel) {
		t.Errorf("corrupt weights: %v", err)
	}
	// Neither a directory nor a hub id.
	if _, err := LoadStatic(ctx, "not a model", Options{}); !errors.Is(err, ErrModel) {
		t.Errorf("bad name: %v", err)
	}
}

func TestNewByName(t *testing.T) {
	ctx := context.Background()
	if e, err := New(ctx, "lexical", Options{}); err != nil || e.Dim() != 1024 {
		t.Errorf("lexical: %v", err)
	}
	dir := tinyModelDir(t, 11, 4, true)
	if e, err := New(ctx, "static:"+dir, Options{}); err != nil || e.Dim() != 4 {
		t.Errorf("static: %v", err)
	}
	for _, bad := range []string{"word2vec", "static:", "openai:", "lexical:x"} {
		if _, err := New(ctx, bad, Options{}); err == nil {
			t.Errorf("New(%q): no error", bad)
		}
	}
}

func TestHalfFloat(t *testing.T) {
	for h, want := range map[uint16]float32{0x3c00: 1, 0xc000: -2, 0x3555: 0.33325195, 0x0000: 0, 0x7bff: 65504} {
		if got := halfToFloat(h); math.Abs(float64(got-want)) > 1e-6 {
			t.Errorf("half %#x = %v, want %v", h, got, want)
		}
	}
}

func BenchmarkLexical(b *testing.B) {
	texts := benchSentences()
	l := NewLexical(LexicalConfig{})
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		l.Embed(context.Background(), texts)
	}
}

var benchDim = 256

func BenchmarkStatic(b *testing.B) {
	tokPath := sharedTokenizer(b, "potion-base-8M")
	tok, _ := tokenize.LoadHF(tokPath)
	dir := b.TempDir()
	rows, dim := tok.MaxID()+1, benchDim
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(i%97) / 97
	}
	if err := WriteSafetensors(filepath.Join(dir, "model.safetensors"), map[string][]float32{"embeddings": table}, map[string][]int{"embeddings": {rows, dim}}); err != nil {
		b.Fatal(err)
	}
	data, _ := os.ReadFile(tokPath)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"normalize":true}`), 0o644)
	s, err := LoadStatic(context.Background(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	texts := benchSentences()
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		s.Embed(context.Background(), texts)
	}
}

// benchSentences are the sentences of a chroma corpus when present, else of
// generated text.
func benchSentences() []string {
	var text string
	if b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", "wikitexts.md")); err == nil {
		text = string(b)
	} else {
		text = strings.Repeat("The cat sat on the mat. Markets fell after the decision. Retrieval needs good chunks. ", 2000)
	}
	var out []string
	for _, s := range strings.SplitAfter(text, ". ") {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// Adapted to a document, the lexical embedder compares texts by the
// features the document's pieces share, exactly: texts that share none
// are orthogonal, with no hashing noise.
func TestLexicalDocumentVocabulary(t *testing.T) {
	pieces := []string{
		"Glaciers carve valleys in the mountains.",
		"The glacier carved this valley over millennia.",
		"Interest rates rose as markets fell.",
		"Markets recovered when interest rates eased.",
	}
	d := ForDocument(NewLexical(LexicalConfig{}), pieces)
	if d.Dim() > 1024 || d.Dim() < 4 {
		t.Fatalf("adapted dimension %d", d.Dim())
	}
	vs, err := d.Embed(context.Background(), pieces)
	if err != nil {
		t.Fatal(err)
	}
	if c := vec.Cosine(vs[0], vs[2]); c != 0 {
		t.Errorf("unrelated pieces: cosine %v, want exactly 0", c)
	}
	if c := vec.Cosine(vs[0], vs[1]); c < 0.5 {
		t.Errorf("glacier pieces: cosine %v (stemming should join glacier/glaciers, valley/valleys, carve/carved)", c)
	}
	if c := vec.Cosine(vs[2], vs[3]); c < 0.5 {
		t.Errorf("market pieces: cosine %v", c)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"valleys": "valley", "glaciers": "glacier", "carved": "carv", "carve": "carv", "carving": "carv",
		"studies": "study", "classes": "class", "bus": "bus", "this": "this", "glass": "glass",
		"café": "café", "b2b": "b2b", "sing": "sing",
	} {
		if got := string(stem([]byte(in))); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// A cache bounded in bytes keeps at most that much, dropping the least
// recently used vectors first.
func TestCacheBytes(t *testing.T) {
	c := NewCached(NewLexical(LexicalConfig{Dim: 256}), CacheOptions{Bytes: 10 * (4*256 + 128)})
	var texts []string
	for i := range 50 {
		texts = append(texts, fmt.Sprintf("text number %d about cats", i))
	}
	if _, err := c.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if b := c.Bytes(); b > 10*(4*256+128) || b == 0 {
		t.Errorf("cache holds %d bytes", b)
	}
	hits0, _ := c.Stats()
	c.Embed(context.Background(), texts[40:])
	if hits, _ := c.Stats(); hits-hits0 != 10 {
		t.Errorf("the 10 most recent texts: %d hits", hits-hits0)
	}
}

// Truncates names the texts a model with a limit cuts; embedders that
// take any text whole have none.
func TestTruncates(t *testing.T) {
	s, err := LoadStatic(context.Background(), tinyModelDir(t, 11, 2, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cut, limit := Truncates(s)
	if cut == nil || limit != s.ChunkLimit() {
		t.Fatalf("static: %v, limit %d", cut != nil, limit)
	}
	if cut("the cats") || !cut(strings.Repeat("the cats ", limit)) {
		t.Error("a short text cut, or a long one not")
	}
	if cut, _ := Truncates(NewLexical(LexicalConfig{})); cut != nil {
		t.Error("the lexical embedder truncates nothing")
	}
}

func TestOpenAILimit(t *testing.T) {
	for model, want := range map[string]int{"text-embedding-3-large": 8191, "mxbai-embed-large:335m": 512, "all-minilm": 256, "some-new-model": 8191} {
		if got := OpenAILimit(model); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
		o, err := NewOpenAI(OpenAIConfig{Model: model, BaseURL: "http://127.0.0.1:1"})
		if err != nil || o.MaxTokens() != want {
			t.Errorf("%s: client limit %d, %v", model, o.MaxTokens(), err)
		}
	}
}
