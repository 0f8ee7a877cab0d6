//go:build cgo

package ocr

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
// session on it. Where the int8 rewrite cannot be made, the float model
// runs and opt.Warn says why.
func loadModel(path string, opt Options, quantize bool) (*model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	// A model fuseModel cannot read goes to ONNX Runtime as it is: its
	// error says what is wrong with it. So does one whose rewrite ONNX
	// Runtime refuses (a pattern the rewrite misjudged).
	fused, _, ferr := fuseModel(data)
	if quantize {
		if ferr != nil {
			err = fmt.Errorf("the model is not one the rewrite reads: %w", ferr)
		} else {
			var m *model
			if m, err = loadQuantized(path, fused, opt); err == nil {
				return m, nil
			}
		}
		opt.warn(fmt.Sprintf("the recogniser %s runs in float, not in int8: %v", filepath.Base(path), err))
	}
	if ferr == nil && !bytes.Equal(fused, data) {
		if m, err := newModel(path, fused, opt); err == nil {
			return m, nil
		}
	}
	return newModel(path, data, opt)
}

// loadQuantized starts a session on the int8 rewrite of a recogniser
// (fuseModel's output), read from the cache or made (quantizedModel). A
// cached copy ONNX Runtime refuses (damaged) is made again.
func loadQuantized(path string, fused []byte, opt Options) (*model, error) {
	q, cached, err := quantizedModel(fused, opt, true)
	if err != nil {
		return nil, err
	}
	m, err := newModel(path, q, opt)
	if err == nil || cached == "" {
		return m, err
	}
	if q, _, err = quantizedModel(fused, opt, false); err != nil {
		return nil, err
	}
	return newModel(path, q, opt)
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
// hard-swish convolutions in int8 (quantizeModel, weights of
// opt.int8Bits), the activations' ranges measured on calibrationLines.
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
		return nil, fmt.Errorf("it has no convolution of %d channels or more followed by a hard-swish (PP-OCRv4's recogniser has 21)", quantMinChannels)
	}
	lines, err := calibrationLines()
	if err != nil {
		return nil, err
	}
	ranges, err := calibrate(fused, names, lines, opt)
	if err != nil {
		return nil, err
	}
	q, _, err := quantizeModel(fused, ranges, quantMinChannels, opt.int8Bits)
	return q, err
}

// quantVersion names quantizeModel's and calibrate's output in the
// cache: change it with either.
const quantVersion = "q2"

// staleTemp is the age after which a temporary file of the cache is
// taken as left by a process killed while writing it (writing takes
// milliseconds once the rewrite is made).
const staleTemp = 10 * time.Minute

// quantizedModel returns quantizeRecognizer's rewrite of the recogniser,
// from the cache directory (see Options.CacheDir) where it was made
// before and useCache is set, else made and left there; and the cached
// file's path (empty where it was not read from the cache). The cache's
// file is named by the float model's SHA-256, quantVersion, the weights'
// bits and ONNX Runtime's version (the calibration runs in it): another
// model, rewrite, CPU kind or runtime makes its own.
func quantizedModel(fused []byte, opt Options, useCache bool) ([]byte, string, error) {
	dir, err := cacheDir(opt.CacheDir)
	if err != nil {
		opt.warn(fmt.Sprintf("the int8 recogniser is not kept between processes (%v): each calibrates it again, 2-3 s of CPU", err))
	}
	var path string
	if dir != "" {
		sum := sha256.Sum256(fused)
		path = filepath.Join(dir, fmt.Sprintf("rec-int8-%x-%s-w%d-ort%s.onnx", sum[:16], quantVersion, opt.int8Bits, ort.GetVersion()))
		if useCache {
			if q, err := os.ReadFile(path); err == nil {
				return q, path, nil
			}
		}
	}
	q, err := quantizeRecognizer(fused, opt)
	if err != nil {
		return nil, "", err
	}
	if dir != "" {
		if err := writeCache(dir, path, q, time.Now()); err != nil {
			opt.warn(fmt.Sprintf("the int8 recogniser is not kept between processes (%v): each calibrates it again, 2-3 s of CPU", err))
		}
	}
	return q, "", nil
}

// writeCache writes data to path in dir whole under another name, then
// renames it, so that a process reading the cache at the same time sees
// no half-written file; the temporary file is removed on an error. It
// first removes the temporary files older than staleTemp (at now) that
// killed processes left.
func writeCache(dir, path string, data []byte, now time.Time) error {
	if old, err := filepath.Glob(filepath.Join(dir, ".rec-int8-*")); err == nil {
		for _, f := range old {
			if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() && now.Sub(st.ModTime()) > staleTemp {
				os.Remove(f)
			}
		}
	}
	f, err := os.CreateTemp(dir, ".rec-int8-*")
	if err != nil {
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	return nil
}

// cacheDir returns the directory of Options.CacheDir, made where it is
// missing, or "" for none: "-", or one that cannot be made (the error
// says why).
func cacheDir(dir string) (string, error) {
	if dir == "-" {
		return "", nil
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no user cache directory: %w", err)
		}
		dir = filepath.Join(base, "gochunk", "ocr")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	return dir, nil
}
