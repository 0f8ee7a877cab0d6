//go:build cgo

package embed

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ortEnv is ONNX Runtime's process-wide environment: the library is loaded
// once, by the first model that asks for it.
var ortEnv struct {
	mu  sync.Mutex
	lib string // the library loaded, "" before
}

// ortLibraries are the places the ONNX Runtime library is looked for:
// opt.ONNXRuntimeLibrary, GOCHUNK_ONNX_LIBRARY, ONNXRUNTIME_LIB_PATH,
// then the dynamic loader's search path and the usual install paths.
func ortLibraries(opt Options) []string {
	for _, p := range []string{opt.ONNXRuntimeLibrary, os.Getenv("GOCHUNK_ONNX_LIBRARY"), os.Getenv("ONNXRUNTIME_LIB_PATH")} {
		if p != "" {
			return []string{p} // a path given is the only one tried
		}
	}
	return []string{"libonnxruntime.so", "libonnxruntime.so.1", "/usr/local/lib/libonnxruntime.so", "/usr/lib/libonnxruntime.so",
		"/opt/onnxruntime/lib/libonnxruntime.so", "libonnxruntime.dylib", "/opt/homebrew/lib/libonnxruntime.dylib"}
}

// startORT loads the ONNX Runtime library once per process and returns
// its path and version.
func startORT(opt Options) (string, error) {
	ortEnv.mu.Lock()
	defer ortEnv.mu.Unlock()
	if ortEnv.lib != "" {
		return ortEnv.lib, nil
	}
	if static, exe := linkedStatically(); static {
		// A statically linked program has no dynamic loader: dlopen of a
		// shared library such as libonnxruntime crashes inside it, so it
		// is refused before any attempt.
		return "", fmt.Errorf("%w: %s is linked statically (the single-file build) and cannot load a shared library such as libonnxruntime; "+
			"run a dynamically linked gochunk (go build ./cmd/gochunk) for ONNX Runtime, or use the pure-Go backend (--onnx-backend go)", ErrNoRuntime, exe)
	}
	var tried []string
	for _, lib := range ortLibraries(opt) {
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(); err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", lib, err))
			continue
		}
		ortEnv.lib = lib
		return lib, nil
	}
	return "", fmt.Errorf("%w: tried %s. Get libonnxruntime from the onnxruntime Python wheel (onnxruntime/capi/), "+
		"npm's onnxruntime-node (npm install --ignore-scripts onnxruntime-node: bin/napi-v6/linux/x64/libonnxruntime.so.1) "+
		"or a release at github.com/microsoft/onnxruntime/releases, and give its path (--onnx-library or GOCHUNK_ONNX_LIBRARY)",
		ErrNoRuntime, strings.Join(tried, "; "))
}

// ortModel is a model in an ONNX Runtime session, shared by all callers
// (ONNX Runtime runs a session from several goroutines at once).
type ortModel struct {
	session *ort.DynamicAdvancedSession
	// kinds says what each input of the model is, in the model's order:
	// token ids, attention mask or token type ids.
	kinds []int
	// rank is the output's rank: 3 for token vectors, 2 for vectors the
	// model pools itself.
	rank    int
	version string
}

const (
	inputIDs = iota
	inputMask
	inputTypes
)

// loadORT opens the model file in an ONNX Runtime session: its inputs and
// output are read from the model, not assumed. A classifier's output is
// its scores, [batch, labels] (logits); an encoder's, token or sentence
// vectors.
func loadORT(path string, opt Options, classifier bool) (*ortModel, error) {
	if _, err := startORT(opt); err != nil {
		return nil, err
	}
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", ErrModel, path, err)
	}
	m := &ortModel{version: ort.GetVersion()}
	var inNames []string
	for _, in := range ins {
		switch {
		case strings.Contains(in.Name, "input_ids"):
			m.kinds = append(m.kinds, inputIDs)
		case strings.Contains(in.Name, "attention_mask"):
			m.kinds = append(m.kinds, inputMask)
		case strings.Contains(in.Name, "token_type_ids"):
			m.kinds = append(m.kinds, inputTypes)
		default:
			return nil, fmt.Errorf("%w: input %q of %s: want input_ids, attention_mask and token_type_ids", ErrModel, in.Name, path)
		}
		if in.DataType != ort.TensorElementDataTypeInt64 {
			return nil, fmt.Errorf("%w: input %q of %s is %v, want int64", ErrModel, in.Name, path, in.DataType)
		}
		inNames = append(inNames, in.Name)
	}
	if !slices.Contains(m.kinds, inputIDs) {
		return nil, fmt.Errorf("%w: %s has no input_ids input", ErrModel, path)
	}
	out := ""
	for _, o := range outs {
		if o.DataType != ort.TensorElementDataTypeFloat || len(o.Dimensions) < 2 || len(o.Dimensions) > 3 {
			continue
		}
		switch {
		case classifier:
			if len(o.Dimensions) == 2 && (out == "" || o.Name == "logits") {
				out, m.rank = o.Name, 2
			}
		// Token vectors (last_hidden_state) are preferred, pooled below.
		case out == "" || len(o.Dimensions) == 3 && m.rank == 2 || o.Name == "last_hidden_state":
			out, m.rank = o.Name, len(o.Dimensions)
		}
	}
	if out == "" && classifier {
		return nil, fmt.Errorf("%w: %s has no float output of scores [batch, labels] (logits): is it a sequence-classification model?", ErrModel, path)
	}
	if out == "" {
		return nil, fmt.Errorf("%w: %s has no float output of token or sentence vectors", ErrModel, path)
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime session options: %v", ErrModel, err)
	}
	defer so.Destroy()
	threads := opt.ONNXThreads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	if err := so.SetIntraOpNumThreads(threads); err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime threads: %v", ErrModel, err)
	}
	if opt.ONNXCUDA {
		cuda, err := ort.NewCUDAProviderOptions()
		if err == nil {
			err = so.AppendExecutionProviderCUDA(cuda)
			cuda.Destroy()
		}
		if err != nil {
			return nil, fmt.Errorf("%w: the CUDA execution provider is not available in %s (a GPU build of ONNX Runtime and CUDA are needed; no silent fallback to the CPU): %v", ErrNoRuntime, ortEnv.lib, err)
		}
	}
	s, err := ort.NewDynamicAdvancedSession(path, inNames, []string{out}, so)
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime cannot load %s: %v", ErrModel, path, err)
	}
	m.session = s
	return m, nil
}

// run runs a batch of token id sequences, padded to the longest, with
// their token type ids (zeros when types is nil), and returns the output's
// values with its shape.
func (m *ortModel) run(batch, types [][]int) ([]float32, []int64, error) {
	seq := 0
	for _, ids := range batch {
		seq = max(seq, len(ids))
	}
	shape := ort.NewShape(int64(len(batch)), int64(seq))
	data := make([][]int64, 3)
	for k := range data {
		data[k] = make([]int64, len(batch)*seq)
	}
	for i, ids := range batch {
		for j, id := range ids {
			data[inputIDs][i*seq+j] = int64(id)
			data[inputMask][i*seq+j] = 1
		}
		if types != nil {
			for j, ty := range types[i] {
				data[inputTypes][i*seq+j] = int64(ty)
			}
		}
	}
	inputs := make([]ort.Value, len(m.kinds))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for k, kind := range m.kinds {
		t, err := ort.NewTensor(shape, data[kind])
		if err != nil {
			return nil, nil, fmt.Errorf("onnx runtime input: %w", err)
		}
		inputs[k] = t
	}
	outputs := []ort.Value{nil}
	if err := m.session.Run(inputs, outputs); err != nil {
		return nil, nil, fmt.Errorf("onnx runtime: %w", err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, errors.New("onnx runtime: the output is not a float tensor")
	}
	return append([]float32(nil), t.GetData()...), t.GetShape(), nil
}

func (m *ortModel) close() error { return m.session.Destroy() }

// ortLibrary returns the path of the library loaded.
func ortLibrary() string {
	ortEnv.mu.Lock()
	defer ortEnv.mu.Unlock()
	return ortEnv.lib
}
