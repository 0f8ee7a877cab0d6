package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// The ONNX protobuf, written field by field (onnx.proto numbers).
func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func pbString(b []byte, num protowire.Number, s string) []byte { return pbBytes(b, num, []byte(s)) }

func pbVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// valueInfo describes a tensor: elemType 1 is float, 7 is int64; a dim of
// -1 is symbolic.
func valueInfo(name string, elemType uint64, dims []int64, params []string) []byte {
	var shape []byte
	for i, d := range dims {
		var dim []byte
		if d < 0 {
			dim = pbString(dim, 2, params[i])
		} else {
			dim = pbVarint(dim, 1, uint64(d))
		}
		shape = pbBytes(shape, 1, dim)
	}
	tensor := pbVarint(nil, 1, elemType)
	tensor = pbBytes(tensor, 2, shape)
	typ := pbBytes(nil, 1, tensor)
	vi := pbString(nil, 1, name)
	return pbBytes(vi, 2, typ)
}

// writeGatherModel writes an ONNX model whose last_hidden_state is a
// lookup of input_ids in table (rows x dim): a transformer with no layers.
func writeGatherModel(t *testing.T, path string, table []float32, rows, dim int) {
	t.Helper()
	var init []byte
	init = pbVarint(init, 1, uint64(rows))
	init = pbVarint(init, 1, uint64(dim))
	init = pbVarint(init, 2, 1) // FLOAT
	init = pbString(init, 8, "table")
	raw := make([]byte, 0, 4*len(table))
	for _, f := range table {
		raw = protowire.AppendFixed32(raw, math.Float32bits(f))
	}
	init = pbBytes(init, 9, raw)

	var node []byte
	node = pbString(node, 1, "table")
	node = pbString(node, 1, "input_ids")
	node = pbString(node, 2, "last_hidden_state")
	node = pbString(node, 3, "lookup")
	node = pbString(node, 4, "Gather")

	var graph []byte
	graph = pbBytes(graph, 1, node)
	graph = pbString(graph, 2, "tiny")
	graph = pbBytes(graph, 5, init)
	graph = pbBytes(graph, 11, valueInfo("input_ids", 7, []int64{-1, -1}, []string{"batch", "seq"}))
	graph = pbBytes(graph, 11, valueInfo("attention_mask", 7, []int64{-1, -1}, []string{"batch", "seq"}))
	graph = pbBytes(graph, 12, valueInfo("last_hidden_state", 1, []int64{-1, -1, int64(dim)}, []string{"batch", "seq", ""}))

	var model []byte
	model = pbVarint(model, 1, 8) // ir_version
	model = pbString(model, 2, "gochunk-test")
	opset := pbString(nil, 1, "")
	opset = pbVarint(opset, 2, 17)
	model = pbBytes(model, 8, opset)
	model = pbBytes(model, 7, graph)
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestONNXPooling(t *testing.T) {
	tokPath := sharedTokenizer(t, "all-MiniLM-L6-v2")
	tok, err := tokenize.LoadHF(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, dim := tok.MaxID()+1, 4
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(math.Cos(float64(i) * 0.11))
	}
	// "last (override)": the configuration says mean, Options say last.
	for _, pooling := range []string{"mean", "cls", "last", "last (override)"} {
		t.Run(pooling, func(t *testing.T) {
			override := ""
			if pooling == "last (override)" {
				pooling, override = "last", "last"
			}
			dir := t.TempDir()
			writeGatherModel(t, filepath.Join(dir, "model.onnx"), table, rows, dim)
			b, _ := os.ReadFile(tokPath)
			os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644)
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"max_position_embeddings": 512}`), 0o644)
			os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755)
			pc, _ := json.Marshal(map[string]bool{"pooling_mode_cls_token": pooling == "cls", "pooling_mode_mean_tokens": pooling == "mean" || override != "",
				"pooling_mode_lasttoken": pooling == "last" && override == ""})
			os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), pc, 0o644)
			os.WriteFile(filepath.Join(dir, "modules.json"), []byte(`[{"type":"sentence_transformers.models.Transformer"},{"type":"sentence_transformers.models.Pooling"},{"type":"sentence_transformers.models.Normalize"}]`), 0o644)
			os.WriteFile(filepath.Join(dir, "sentence_bert_config.json"), []byte(`{"max_seq_length": 256}`), 0o644)

			o, err := LoadONNX(context.Background(), dir, Options{ONNXPooling: override})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			if o.Dim() != dim || o.MaxTokens() != 256 {
				t.Fatalf("dim %d max %d", o.Dim(), o.MaxTokens())
			}
			// Sizes count in the model's own tokens, within what it embeds.
			if c, limit := TokenizerOf(o); c == nil || limit != 254 || c.Count("Hello, world!") != len(tok.Encode("Hello, world!")) {
				t.Errorf("tokenizer %v, chunk limit %d", c, limit)
			}
			texts := []string{"Hello, world! This is gochunk.", "Short one", ""}
			vs, err := o.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			cls, sep := 101, 102
			for i, text := range texts[:2] {
				ids := append(append([]int{cls}, tok.Encode(text)...), sep)
				want := make([]float32, dim)
				switch pooling {
				case "cls":
					copy(want, table[cls*dim:(cls+1)*dim])
				case "last":
					copy(want, table[sep*dim:(sep+1)*dim])
				default:
					for _, id := range ids {
						vec.Add(want, table[id*dim:(id+1)*dim])
					}
					for k := range want {
						want[k] /= float32(len(ids))
					}
				}
				vec.Normalize(want)
				for k := range want {
					if math.Abs(float64(want[k]-vs[i][k])) > 1e-4 {
						t.Fatalf("%q: got %v, want %v", text, vs[i], want)
					}
				}
			}
			if vec.Norm(vs[2]) != 0 {
				t.Errorf("empty text: %v", vs[2])
			}
		})
	}
}

func TestONNXBadModel(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadONNX(context.Background(), dir, Options{ONNXPooling: "max"}); err == nil || !strings.Contains(err.Error(), "want cls, mean or last") {
		t.Errorf("unknown pooling: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tinyTokenizer), 0o644)
	if _, err := LoadONNX(context.Background(), dir, Options{}); err == nil {
		t.Error("no model.onnx: no error")
	}
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("not a protobuf"), 0o644)
	if _, err := LoadONNX(context.Background(), dir, Options{}); err == nil {
		t.Error("corrupt model.onnx: no error")
	}
	// The ONNX Runtime backend fails on it too, with or without the
	// library.
	if _, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "ort"}); err == nil || !errors.Is(err, ErrModel) && !errors.Is(err, ErrNoRuntime) {
		t.Errorf("ort backend: %v", err)
	}
	if _, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "tpu"}); err == nil || !strings.Contains(err.Error(), "want auto, ort or go") {
		t.Errorf("unknown backend: %v", err)
	}
	if _, err := LoadONNX(context.Background(), dir, Options{ONNXBackend: "go", ONNXCUDA: true}); err == nil || !strings.Contains(err.Error(), "ort (or auto) backend") {
		t.Errorf("CUDA with the go backend: %v", err)
	}
}
