//go:build !cgo

package embed

import "fmt"

// ortModel is unavailable without cgo.
type ortModel struct {
	rank    int
	version string
}

func loadORT(string, Options, bool) (*ortModel, error) {
	return nil, fmt.Errorf("%w: this gochunk was built without cgo (CGO_ENABLED=0) and cannot load ONNX Runtime; build it with cgo (the default where a C compiler exists) or use --onnx-backend go", ErrNoRuntime)
}

func (m *ortModel) run(_, _ [][]int) ([]float32, []int64, error) { return nil, nil, ErrNoRuntime }

func (m *ortModel) close() error { return nil }

func ortLibrary() string { return "" }

func startORT(Options) (string, error) {
	return "", fmt.Errorf("%w: this gochunk was built without cgo (CGO_ENABLED=0) and cannot load ONNX Runtime; build it with cgo (the default where a C compiler exists)", ErrNoRuntime)
}
