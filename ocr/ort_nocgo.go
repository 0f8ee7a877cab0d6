//go:build !cgo

package ocr

import (
	"fmt"

	"github.com/gochunk/gochunk/embed"
)

// model is unavailable without cgo.
type model struct{}

func startRuntime(opt Options) (string, error) {
	_, err := embed.StartONNXRuntime(embed.Options{ONNXRuntimeLibrary: opt.ONNXRuntimeLibrary})
	return "", fmt.Errorf("ocr: %w", err)
}

func loadModel(string, Options, bool) (*model, error) { return nil, embed.ErrNoRuntime }

func (m *model) run([]float32, []int64, func([]float32, []int64) error) error {
	return embed.ErrNoRuntime
}

func (m *model) close() error { return nil }
