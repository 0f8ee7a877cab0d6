//go:build cgo

package ocr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/gochunk/gochunk/internal/onnxtest"
)

// reluModel returns a model ONNX Runtime runs (operator set 9): a Relu
// of one float image batch (N×3×H×W, the sizes free), nothing the int8
// rewrite can plan.
func reluModel() []byte {
	valueInfo := func(name string) []byte {
		var shape []byte
		for _, d := range []string{"n", "c", "h", "w"} {
			shape = appendBytes(shape, 1, appendString(nil, 2, d)) // dim { dim_param }
		}
		tensor := protowire.AppendTag(nil, 1, protowire.VarintType) // elem_type
		tensor = protowire.AppendVarint(tensor, float32Type)
		tensor = appendBytes(tensor, 2, shape)                                                     // shape
		return appendBytes(appendString(nil, valueInfoName, name), 2, appendBytes(nil, 1, tensor)) // type { tensor_type }
	}
	var g []byte
	g = appendBytes(g, graphNode, testNode("Relu", []string{"x"}, []string{"y"}))
	g = appendBytes(g, graphInput, valueInfo("x"))
	g = appendBytes(g, graphOutput, valueInfo("y"))
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType) // ir_version
	m = protowire.AppendVarint(m, 7)
	var opset []byte
	opset = appendString(opset, opsetDomain, "")
	opset = protowire.AppendTag(opset, opsetVersion, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 9)
	m = appendBytes(m, modelOpsetImport, opset)
	return appendBytes(m, modelGraph, g)
}

// TestInt8FallbackWarns loads, with Int8, a recogniser the int8 rewrite
// cannot plan: it runs in float, and Warn says so and why. Without Int8
// nothing is said.
func TestInt8FallbackWarns(t *testing.T) {
	lib := onnxtest.Library(t)
	path := filepath.Join(t.TempDir(), "tiny_rec.onnx")
	if err := os.WriteFile(path, reluModel(), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	opt := Options{ONNXRuntimeLibrary: lib, CacheDir: t.TempDir(), Warn: func(s string) { warned = append(warned, s) }}.withDefaults()
	if _, err := startRuntime(opt); err != nil {
		t.Fatal(err)
	}
	for _, quantize := range []bool{false, true} {
		warned = nil
		m, err := loadModel(path, opt, quantize)
		if err != nil {
			t.Fatalf("quantize %v: %v", quantize, err)
		}
		err = m.run([]float32{-1, 2, -3}, []int64{1, 3, 1, 1}, func(out []float32, _ []int64) error {
			if len(out) != 3 || out[0] != 0 || out[1] != 2 || out[2] != 0 {
				t.Errorf("quantize %v: the float model gave %v", quantize, out)
			}
			return nil
		})
		m.close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !quantize && len(warned) != 0:
			t.Errorf("warned %q without Int8", warned)
		case quantize && (len(warned) != 1 || !strings.Contains(warned[0], "tiny_rec.onnx runs in float, not in int8") || !strings.Contains(warned[0], "hard-swish")):
			t.Errorf("warned %q, want one warning naming the model, float and why", warned)
		}
	}
}

// TestWriteCache writes a file of the cache: whole, under its name, no
// temporary file left; a temporary file older than staleTemp (a killed
// process's) removed, a younger one (a process writing now) kept.
func TestWriteCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	stale, fresh := filepath.Join(dir, ".rec-int8-111"), filepath.Join(dir, ".rec-int8-222")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(stale, now.Add(-staleTemp-time.Minute), now.Add(-staleTemp-time.Minute)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rec-int8-x.onnx")
	if err := writeCache(dir, path, []byte("model"), now); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "model" {
		t.Errorf("cache file %q, %v", b, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".rec-int8-*"))
	if len(left) != 1 || left[0] != fresh {
		t.Errorf("temporary files left %v, want only %s", left, fresh)
	}
	// A path that cannot be written: an error naming the directory, and
	// no temporary file left.
	if err := writeCache(dir, filepath.Join(dir, "no", "such"), []byte("model"), now); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("writing into a missing directory: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".rec-int8-*")); len(left) != 1 {
		t.Errorf("temporary files left %v after a failed write", left)
	}
	// A cache directory that cannot be made: an error, no directory.
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if d, err := cacheDir(filepath.Join(file, "ocr")); d != "" || err == nil {
		t.Errorf("cacheDir under a file: %q, %v", d, err)
	}
	if d, err := cacheDir("-"); d != "" || err != nil {
		t.Errorf("cacheDir -: %q, %v", d, err)
	}
}
