package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/onnxtest"
)

// crossEncoderDir writes a cross-encoder model directory: the tiny
// tokenizer with BERT's post-processor ([CLS] a [SEP] b [SEP]), a
// config.json of maxTokens positions and the model a script builds.
func crossEncoderDir(t *testing.T, maxTokens int, script string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	onnxtest.Build(t, filepath.Join("testdata", script), append([]string{filepath.Join(dir, "model.onnx")}, args...)...)
	tok := strings.Replace(tinyTokenizer, `"model":`, `"post_processor":{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]},"model":`, 1)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tok), 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(fmt.Sprintf(`{"max_position_embeddings": %d}`, maxTokens)), 0o644)
	return dir
}

// A cross-encoder scores a query and passages as one batch of mixed
// lengths: the query's tokens are of type 0, the passage's of type 1,
// padding is masked, and pairs over the model's 16 positions are
// truncated longest first. The lexical model's score is the sum of the
// passage's token weights (the=1, cat=10, sat=100, dog=1000, ##s=0.5,
// run=10000), so every score is known exactly; a model of two labels
// gives the same scores (relevant less irrelevant).
func TestCrossEncoderScores(t *testing.T) {
	lib := onnxRuntimeLibrary(t)
	const weights = "0,0,0,0,1,10,100,1000,0.5,0,10000"
	long := strings.Repeat("cat ", 20)
	cases := []struct {
		query, passage string
		want           float32
	}{
		{"cat dog", "the cat sat.", 111},
		{"cat dog", "dogs run", 11000.5},
		{"cat dog", "the", 1},
		{"cat dog", "", 0},
		// Room 16-3 = 13: the passage keeps 13-2 tokens (6 the, 5 cat).
		{"cat dog", strings.Repeat("the cat ", 20), 56},
		// A long query leaves the short passage whole.
		{long, "dog dog dog", 3000},
		// Both long: 6 query tokens, 7 passage tokens.
		{long, strings.Repeat("run ", 20), 70000},
	}
	for _, labels := range []string{"1", "2"} {
		t.Run("labels="+labels, func(t *testing.T) {
			dir := crossEncoderDir(t, 16, "lexical_cross_encoder.py", "--weights", weights, "--labels", labels)
			c, err := LoadCrossEncoder(context.Background(), dir, Options{ONNXRuntimeLibrary: lib})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, query := range []string{"cat dog", long} {
				var passages []string
				var want []float32
				for _, tc := range cases {
					if tc.query == query {
						passages, want = append(passages, tc.passage), append(want, tc.want)
					}
				}
				got, err := c.Score(context.Background(), query, passages)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%.20q / %.20q: score %v, want %v", query, passages[i], got[i], want[i])
					}
				}
			}
			if !strings.HasPrefix(c.ModelID(), "onnx:") || c.MaxTokens() != 16 {
				t.Errorf("id %q, max tokens %d", c.ModelID(), c.MaxTokens())
			}
		})
	}
}

// A BERT-shaped cross-encoder (random weights) gives each pair the same
// score alone as in a batch of mixed lengths (padding is masked), and
// different pairs different scores.
func TestCrossEncoderBERTBatching(t *testing.T) {
	lib := onnxRuntimeLibrary(t)
	dir := crossEncoderDir(t, 512, "bert_model.py", "--vocab", "11", "--hidden", "32", "--layers", "2", "--heads", "4", "--intermediate", "64", "--classifier", "1")
	c, err := LoadCrossEncoder(context.Background(), dir, Options{ONNXRuntimeLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	passages := []string{"the cat sat.", "dogs run", strings.Repeat("the dog sat. ", 30), "run", "cats sat on the dog."}
	batch, err := c.Score(context.Background(), "the cat", passages)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[float32]bool{}
	for i, p := range passages {
		alone, err := c.Score(context.Background(), "the cat", []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(float64(alone[0]-batch[i])) > 1e-4 {
			t.Errorf("%.20q: %v alone, %v in the batch", p, alone[0], batch[i])
		}
		distinct[batch[i]] = true
	}
	if len(distinct) != len(passages) {
		t.Errorf("scores %v: want all different", batch)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Score(ctx, "the cat", passages); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// An encoder without a classification head, the pure-Go backend and a
// directory without a model are errors that say what is wrong.
func TestCrossEncoderErrors(t *testing.T) {
	lib := onnxRuntimeLibrary(t)
	encoder := bertModel(t, true, "mean", 24)
	_, err := LoadCrossEncoder(context.Background(), encoder, Options{ONNXRuntimeLibrary: lib})
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "sequence-classification") {
		t.Errorf("encoder: %v", err)
	}
	_, err = LoadCrossEncoder(context.Background(), encoder, Options{ONNXBackend: "go"})
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "ONNX Runtime") {
		t.Errorf("go backend: %v", err)
	}
	_, err = LoadCrossEncoder(context.Background(), t.TempDir(), Options{ONNXRuntimeLibrary: lib})
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "model.onnx") {
		t.Errorf("empty directory: %v", err)
	}
}

// Reranking speed: a MiniLM-L6-shaped cross-encoder (random weights, the
// real all-MiniLM tokenizer) scoring 20 paragraphs of the State of the
// Union against a question, as `eval --rerank-top 20` does per question.
//
//	go test ./embed -run '^$' -bench CrossEncoder
func BenchmarkCrossEncoder(b *testing.B) {
	lib := onnxRuntimeLibrary(b)
	tok := sharedTokenizer(b, "all-MiniLM-L6-v2")
	text, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", "state_of_the_union.md"))
	if err != nil {
		b.Skipf("skipping: %v (the shared data is only present in the project's CI)", err)
	}
	var passages []string
	for _, p := range strings.Split(string(text), "\n\n") {
		if len(p) >= 200 && len(passages) < 20 {
			passages = append(passages, p)
		}
	}
	dir := b.TempDir()
	onnxtest.Build(b, filepath.Join("testdata", "bert_model.py"), filepath.Join(dir, "model.onnx"), "--vocab", "30522", "--hidden", "384",
		"--layers", "6", "--heads", "12", "--intermediate", "1536", "--classifier", "1")
	tj, _ := os.ReadFile(tok)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), tj, 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"max_position_embeddings": 512}`), 0o644)
	c, err := LoadCrossEncoder(context.Background(), dir, Options{ONNXRuntimeLibrary: lib})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	query := "What did the administration do about credit card late fees?"
	for b.Loop() {
		if _, err := c.Score(context.Background(), query, passages); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(passages))/b.Elapsed().Seconds(), "pairs/s")
}
