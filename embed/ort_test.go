package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/onnxtest"
	"github.com/gochunk/gochunk/vec"
)

// onnxRuntimeLibrary returns the path of libonnxruntime for the tests,
// or skips.
func onnxRuntimeLibrary(t testing.TB) string { return onnxtest.Library(t) }

// bertModel writes a BERT-shaped encoder with random weights (see
// testdata/bert_model.py) with the tiny tokenizer's vocabulary into a
// model directory, and returns it. It skips where no Python has the onnx
// package (Debian: python3-onnx).
func bertModel(t testing.TB, tokenTypes bool, pooling string, maxSeq int, shape ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{filepath.Join(dir, "model.onnx"), "--vocab", "11",
		"--hidden", "32", "--layers", "2", "--heads", "4", "--intermediate", "64"}
	if !tokenTypes {
		args = append(args, "--no-token-types")
	}
	onnxtest.Build(t, filepath.Join("testdata", "bert_model.py"), append(args, shape...)...)
	// The tiny tokenizer with BERT's post-processor: [CLS] text [SEP].
	tok := strings.Replace(tinyTokenizer, `"model":`, `"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},`+
		`{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[2],"tokens":["[CLS]"]},`+
		`"[SEP]":{"id":"[SEP]","ids":[3],"tokens":["[SEP]"]}}},"model":`, 1)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tok), 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"max_position_embeddings": 512}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755)
	pc, _ := json.Marshal(map[string]bool{"pooling_mode_cls_token": pooling == "cls", "pooling_mode_mean_tokens": pooling == "mean",
		"pooling_mode_lasttoken": pooling == "last"})
	os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), pc, 0o644)
	os.WriteFile(filepath.Join(dir, "sentence_bert_config.json"), []byte(fmt.Sprintf(`{"max_seq_length": %d}`, maxSeq)), 0o644)
	return dir
}

// A missing library is an error that says where to get one; with auto,
// the pure-Go backend runs instead, and says so.
func TestONNXRuntimeMissing(t *testing.T) {
	if ortLibrary() != "" {
		t.Skip("skipping: ONNX Runtime is already loaded in this process")
	}
	dir := gatherModelDir(t)
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so")
	_, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "ort", ONNXRuntimeLibrary: missing})
	if !errors.Is(err, ErrNoRuntime) || !strings.Contains(err.Error(), "onnxruntime-node") || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing library: %v", err)
	}
	var notes []string
	o, err := LoadONNX(context.Background(), dir, Options{ONNXRuntimeLibrary: missing, Notice: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.ort != nil || len(notes) != 1 || !strings.Contains(notes[0], "pure Go") {
		t.Errorf("auto without the library: ort %v, notes %q", o.ort != nil, notes)
	}
}

// ONNX Runtime gives the pure-Go backend's vectors (cosine ≥ 0.9999) for
// every pooling, with and without token_type_ids, on a batch of mixed
// lengths that includes texts longer than the model's limit.
func TestONNXRuntimeMatchesGo(t *testing.T) {
	lib := onnxRuntimeLibrary(t)
	texts := []string{"the cat sat.", "dogs run", "the", strings.Repeat("the cat sat on the dog. ", 40), "", "cats sat. the dog runs. the cat", "run run run run"}
	for _, tokenTypes := range []bool{true, false} {
		for _, pooling := range []string{"mean", "cls", "last"} {
			t.Run(fmt.Sprintf("%s/token_types=%v", pooling, tokenTypes), func(t *testing.T) {
				dir := bertModel(t, tokenTypes, pooling, 24)
				var notes []string
				fast, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "ort", ONNXRuntimeLibrary: lib, Notice: func(s string) { notes = append(notes, s) }})
				if err != nil {
					t.Fatal(err)
				}
				defer fast.Close()
				slow, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "go"})
				if err != nil {
					t.Fatal(err)
				}
				defer slow.Close()
				if len(notes) != 1 || !strings.Contains(notes[0], "ONNX Runtime 1.") || fast.Dim() != 32 || slow.Dim() != 32 {
					t.Fatalf("notes %q, dims %d %d", notes, fast.Dim(), slow.Dim())
				}
				a, err := fast.Embed(context.Background(), texts)
				if err != nil {
					t.Fatal(err)
				}
				b, err := slow.Embed(context.Background(), texts)
				if err != nil {
					t.Fatal(err)
				}
				for i := range texts {
					if texts[i] == "" {
						if vec.Norm(a[i]) != 0 {
							t.Errorf("empty text: %v", a[i])
						}
						continue
					}
					if c := vec.Cosine(a[i], b[i]); c < 0.9999 {
						t.Errorf("text %d: cosine %.6f between ONNX Runtime and pure Go", i, c)
					}
				}
				// One text alone gives the vector it gets in a batch.
				one, err := fast.Embed(context.Background(), texts[3:4])
				if err != nil || vec.Cosine(one[0], a[3]) < 0.99999 {
					t.Errorf("alone and in a batch differ: %v", err)
				}
			})
		}
	}
}

// A corrupt model and a model with an input it cannot fill are errors
// naming the problem.
func TestONNXRuntimeBadModels(t *testing.T) {
	lib := onnxRuntimeLibrary(t)
	dir := gatherModelDir(t)
	if _, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "ort", ONNXRuntimeLibrary: lib, ONNXCUDA: true}); !errors.Is(err, ErrNoRuntime) || !strings.Contains(err.Error(), "CUDA") {
		t.Errorf("CUDA without a GPU build: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("not a protobuf"), 0o644)
	if _, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "ort", ONNXRuntimeLibrary: lib}); !errors.Is(err, ErrModel) {
		t.Errorf("corrupt model: %v", err)
	}
	dir = bertModel(t, true, "mean", 24)
	b, _ := os.ReadFile(filepath.Join(dir, "model.onnx"))
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte(strings.ReplaceAll(string(b), "token_type_ids", "segment_ids___")), 0o644)
	_, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "ort", ONNXRuntimeLibrary: lib})
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), `input "segment_ids___"`) {
		t.Errorf("unknown input: %v", err)
	}
}

// gatherModelDir writes the gather model (a transformer with no layers)
// over the tiny tokenizer's vocabulary.
func gatherModelDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	table := make([]float32, 11*4)
	for i := range table {
		table[i] = float32(i%7) - 3
	}
	writeGatherModel(t.(*testing.T), filepath.Join(dir, "model.onnx"), table, 11, 4)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tinyTokenizer), 0o644)
	return dir
}
