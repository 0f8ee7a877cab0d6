//go:build cgo

package ocr

import (
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// calibInput is one batch calibrate runs the model on.
type calibInput struct {
	data  []float32
	shape []int64
}

// calibrate runs the float model (fuseModel's output) on the batches and
// returns the range of each tensor names: its least and greatest value
// over all batches. (Clipping the rarest values instead, as percentile
// calibration does, cost accuracy: PPLCNetV3's largest activations
// matter. A range of 0.01 % to 99.99 % of the values read "II." as
// "11." on a drawn line the float model reads right.)
func calibrate(data []byte, names []string, batches []calibInput, opt Options) (map[string]actRange, error) {
	model, err := withOutputs(data, names)
	if err != nil {
		return nil, err
	}
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return nil, fmt.Errorf("reading the calibration model: %w", err)
	}
	if len(ins) != 1 || len(outs) < len(names) {
		return nil, fmt.Errorf("calibration model of %d inputs and %d outputs", len(ins), len(outs))
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer so.Destroy()
	if err := setOptions(so, opt); err != nil {
		return nil, err
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, []string{ins[0].Name}, names, so)
	if err != nil {
		return nil, fmt.Errorf("starting the calibration model: %w", err)
	}
	defer s.Destroy()
	ranges := make([]actRange, len(names))
	seen := make([]bool, len(names))
	for _, b := range batches {
		in, err := ort.NewTensor(ort.NewShape(b.shape...), b.data)
		if err != nil {
			return nil, err
		}
		res := make([]ort.Value, len(names))
		err = s.Run([]ort.Value{in}, res)
		in.Destroy()
		if err != nil {
			return nil, fmt.Errorf("running the calibration model: %w", err)
		}
		for i, v := range res {
			if t, ok := v.(*ort.Tensor[float32]); ok {
				for _, x := range t.GetData() {
					if !seen[i] {
						ranges[i], seen[i] = actRange{x, x}, true
					}
					ranges[i].lo, ranges[i].hi = min(ranges[i].lo, x), max(ranges[i].hi, x)
				}
			}
			v.Destroy()
		}
	}
	out := map[string]actRange{}
	for i, name := range names {
		if !seen[i] {
			return nil, fmt.Errorf("no calibration values of %q", name)
		}
		out[name] = ranges[i]
	}
	return out, nil
}
