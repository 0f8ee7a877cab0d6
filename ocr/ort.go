//go:build cgo

package ocr

import (
	"errors"
	"fmt"

	"github.com/gochunk/gochunk/embed"
	ort "github.com/yalue/onnxruntime_go"
)

// model is an ONNX model of one float input and one float output in an
// ONNX Runtime session (which runs from several goroutines at once).
type model struct {
	session *ort.DynamicAdvancedSession
	path    string
}

// startRuntime loads ONNX Runtime through embed's loader, the process's
// one.
func startRuntime(opt Options) (string, error) {
	lib, err := embed.StartONNXRuntime(embed.Options{ONNXRuntimeLibrary: opt.ONNXRuntimeLibrary})
	if err != nil {
		return "", fmt.Errorf("ocr: %w", err)
	}
	return lib, nil
}

func loadModel(path string, opt Options) (*model, error) {
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", ErrModel, path, err)
	}
	if len(ins) != 1 || ins[0].DataType != ort.TensorElementDataTypeFloat || len(ins[0].Dimensions) != 4 {
		return nil, fmt.Errorf("%w: %s: want one float input of rank 4 (an image batch), as PP-OCR's models have", ErrModel, path)
	}
	if len(outs) < 1 || outs[0].DataType != ort.TensorElementDataTypeFloat {
		return nil, fmt.Errorf("%w: %s: want a float output", ErrModel, path)
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime session options: %v", ErrModel, err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(opt.Threads); err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime threads: %v", ErrModel, err)
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime threads: %v", ErrModel, err)
	}
	// Every page and line is of another shape: ONNX Runtime's arena and
	// memory patterns would keep the largest of each (gigabytes over a
	// run of pages); without them memory is what the page needs.
	if err := so.SetCpuMemArena(false); err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime memory arena: %v", ErrModel, err)
	}
	if err := so.SetMemPattern(false); err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime memory pattern: %v", ErrModel, err)
	}
	s, err := ort.NewDynamicAdvancedSession(path, []string{ins[0].Name}, []string{outs[0].Name}, so)
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime cannot load %s: %v", ErrModel, path, err)
	}
	return &model{session: s, path: path}, nil
}

// run runs the model on one input tensor and returns the output's values
// and shape.
func (m *model) run(data []float32, shape ...int64) ([]float32, []int64, error) {
	in, err := ort.NewTensor(ort.NewShape(shape...), data)
	if err != nil {
		return nil, nil, fmt.Errorf("ocr: ONNX Runtime input: %w", err)
	}
	defer in.Destroy()
	outs := []ort.Value{nil}
	if err := m.session.Run([]ort.Value{in}, outs); err != nil {
		return nil, nil, fmt.Errorf("ocr: ONNX Runtime running %s: %w", m.path, err)
	}
	defer outs[0].Destroy()
	t, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, errors.New("ocr: the model's output is not a float tensor")
	}
	return append([]float32(nil), t.GetData()...), t.GetShape(), nil
}

func (m *model) close() error { return m.session.Destroy() }
