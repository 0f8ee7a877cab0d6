//go:build cgo

package ocr

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// loadModel reads a model file, rewrites it with fewer operators where
// it can (fuseModel: the same function up to float rounding), with int8
// convolutions where quantize is set (quantizeRecognizer), and starts a
// session on it.
func loadModel(path string, opt Options, quantize bool) (*model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	// A model fuseModel cannot read goes to ONNX Runtime as it is: its
	// error says what is wrong with it. So does one whose rewrite ONNX
	// Runtime refuses (a pattern the rewrite misjudged).
	if fused, _, err := fuseModel(data); err == nil && !bytes.Equal(fused, data) {
		if quantize {
			if q, cached, err := quantizedModel(fused, opt); err == nil {
				if m, err := newModel(path, q, opt); err == nil {
					return m, nil
				}
				if cached != "" {
					os.Remove(cached) // a damaged copy: made again next time
				}
			}
		}
		if m, err := newModel(path, fused, opt); err == nil {
			return m, nil
		}
	}
	return newModel(path, data, opt)
}

// newModel starts a session on a model's bytes (read from path).
func newModel(path string, data []byte, opt Options) (*model, error) {
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(data)
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
	if err := setOptions(so, opt); err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime session options for %s: %v", ErrModel, path, err)
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(data, []string{ins[0].Name}, []string{outs[0].Name}, so)
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime cannot load %s: %v", ErrModel, path, err)
	}
	return &model{session: s, path: path}, nil
}

// setOptions sets a session's threads and memory.
func setOptions(so *ort.SessionOptions, opt Options) error {
	if err := so.SetIntraOpNumThreads(opt.Threads); err != nil {
		return fmt.Errorf("threads: %w", err)
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return fmt.Errorf("threads: %w", err)
	}
	// Threads that wait for the next operator's work sleep rather than
	// spin: a spinning thread takes a core from the other work of a
	// shared machine (and from the thread it waits on).
	for _, k := range []string{"session.intra_op.allow_spinning", "session.inter_op.allow_spinning"} {
		if err := so.AddSessionConfigEntry(k, "0"); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
		return fmt.Errorf("graph optimisation: %w", err)
	}
	// The memory arena keeps the buffers of one run for the next: without
	// it every operator's output was fresh memory from the system, and
	// the page faults of touching it took a third of the CPU time. The
	// arena holds what the largest run needed, which Options.MaxSide
	// bounds for the detector. Memory patterns (plans for one input
	// shape) are off: every page and batch of lines is another shape.
	if err := so.SetCpuMemArena(true); err != nil {
		return fmt.Errorf("memory arena: %w", err)
	}
	if err := so.SetMemPattern(false); err != nil {
		return fmt.Errorf("memory pattern: %w", err)
	}
	return nil
}

// run runs the model on one input tensor and calls use with the output's
// values and shape, which are ONNX Runtime's memory, valid only during
// the call (they are not copied).
func (m *model) run(data []float32, shape []int64, use func(out []float32, shape []int64) error) error {
	in, err := ort.NewTensor(ort.NewShape(shape...), data)
	if err != nil {
		return fmt.Errorf("ocr: ONNX Runtime input: %w", err)
	}
	defer in.Destroy()
	outs := []ort.Value{nil}
	if err := m.session.Run([]ort.Value{in}, outs); err != nil {
		return fmt.Errorf("ocr: ONNX Runtime running %s: %w", m.path, err)
	}
	defer outs[0].Destroy()
	t, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return errors.New("ocr: the model's output is not a float tensor")
	}
	return use(t.GetData(), t.GetShape())
}

func (m *model) close() error { return m.session.Destroy() }

// quantizeRecognizer rewrites a recogniser (fuseModel's output) with its
// hard-swish convolutions in int8 (quantizeModel), the activations'
// ranges measured on calibrationLines.
func quantizeRecognizer(fused []byte, opt Options) ([]byte, error) {
	g, _, err := readGraph(fused)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errors.New("the model is not one the rewrite reads")
	}
	names := calibrationTensors(g.quantPlan(quantMinChannels))
	if len(names) == 0 {
		return nil, errors.New("no convolution followed by a hard-swish")
	}
	lines, err := calibrationLines()
	if err != nil {
		return nil, err
	}
	ranges, err := calibrate(fused, names, lines, opt)
	if err != nil {
		return nil, err
	}
	q, _, err := quantizeModel(fused, ranges, quantMinChannels)
	return q, err
}

// quantVersion names quantizeModel's and calibrate's output in the
// cache: change it with either.
const quantVersion = "q2"

// quantizedModel returns quantizeRecognizer's rewrite of the recogniser,
// from the cache directory (see Options.CacheDir) where it was made
// before, else made and left there; and the cached file's path (empty
// where it was not read from the cache). The cache's file is named by
// the float model's SHA-256, quantVersion and ONNX Runtime's version (the
// calibration runs in it): another model, rewrite or runtime makes its
// own.
func quantizedModel(fused []byte, opt Options) ([]byte, string, error) {
	dir := cacheDir(opt.CacheDir)
	var path string
	if dir != "" {
		sum := sha256.Sum256(fused)
		path = filepath.Join(dir, fmt.Sprintf("rec-int8-%x-%s-ort%s.onnx", sum[:16], quantVersion, ort.GetVersion()))
		if q, err := os.ReadFile(path); err == nil {
			return q, path, nil
		}
	}
	q, err := quantizeRecognizer(fused, opt)
	if err != nil {
		return nil, "", err
	}
	if dir != "" {
		// Written whole under another name, then renamed: a process
		// reading the cache at the same time sees no half-written file.
		if f, err := os.CreateTemp(dir, ".rec-int8-*"); err == nil {
			_, werr := f.Write(q)
			if cerr := f.Close(); werr == nil && cerr == nil {
				werr = os.Rename(f.Name(), path)
			}
			if werr != nil {
				os.Remove(f.Name())
			}
		}
	}
	return q, "", nil
}

// cacheDir returns the directory of Options.CacheDir, made where it is
// missing, or "" for none ("-", or one that cannot be made).
func cacheDir(dir string) string {
	if dir == "-" {
		return ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "gochunk", "ocr")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}
