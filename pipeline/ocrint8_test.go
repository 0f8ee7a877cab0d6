package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/gochunk/gochunk/internal/onnxtest"
)

// reluModel returns an ONNX model (operator set 9) of one float image
// batch in and its Relu out: one ONNX Runtime loads as a detector or a
// recogniser, and one the int8 rewrite cannot plan.
func reluModel() []byte {
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	valueInfo := func(name string) []byte {
		var shape []byte
		for _, d := range []string{"n", "c", "h", "w"} {
			shape = bytesField(shape, 1, bytesField(nil, 2, []byte(d))) // dim { dim_param }
		}
		tensor := bytesField(varint(nil, 1, 1), 2, shape) // elem_type float, shape
		return bytesField(bytesField(nil, 1, []byte(name)), 2, bytesField(nil, 1, tensor))
	}
	node := bytesField(bytesField(nil, 1, []byte("x")), 2, []byte("y")) // input, output
	node = bytesField(node, 4, []byte("Relu"))                          // op_type
	graph := bytesField(nil, 1, node)
	graph = bytesField(graph, 11, valueInfo("x"))
	graph = bytesField(graph, 12, valueInfo("y"))
	m := varint(nil, 1, 7)                                      // ir_version
	m = bytesField(m, 8, varint(bytesField(nil, 1, nil), 2, 9)) // opset_import { domain "", version 9 }
	return bytesField(m, 7, graph)
}

// TestOCRInt8FallbackWarns gives OCRConfig.Int8 with a recogniser the
// int8 rewrite cannot be made of: the engine loads (in float) and the
// Notice says so, naming --ocr-int8 and why. It was silent.
func TestOCRInt8FallbackWarns(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{"tiny_det.onnx": reluModel(), "tiny_rec.onnx": reluModel(), "keys.txt": []byte("a\nb\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notices []string
	cfg := Config{OCR: OCRConfig{Model: dir, Int8: true}}
	cfg.Embedder.ONNXLibrary = onnxtest.Library(t)
	// ONNX Runtime is found first: the test's cache directory is for
	// the engine alone.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cfg.Embedder.Notice = func(s string) { notices = append(notices, s) }
	ctx := context.Background()
	p, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.res.ocrEngine(ctx); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range notices {
		t.Log(s)
		found = found || strings.Contains(s, "--ocr-int8") && strings.Contains(s, "tiny_rec.onnx runs in float, not in int8") && strings.Contains(s, "hard-swish")
	}
	if !found {
		t.Errorf("notices %q: want one saying --ocr-int8 fell back to float and why", notices)
	}
}
