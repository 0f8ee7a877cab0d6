//go:build cgo

package ocr

import (
	"image"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// FuseModel is fuseModel, for the tests of package ocr_test.
func FuseModel(data []byte) ([]byte, error) {
	out, _, err := fuseModel(data)
	return out, err
}

// OpCounts counts the operators of a model's graph by type.
func OpCounts(data []byte) (map[string]int, error) {
	top, err := readFields(data)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, f := range top {
		if f.num != modelGraph || f.typ != protowire.BytesType {
			continue
		}
		gfs, err := readFields(f.val)
		if err != nil {
			return nil, err
		}
		for _, g := range gfs {
			if g.num == graphNode {
				n, err := parseNode(g.val)
				if err != nil {
					return nil, err
				}
				counts[n.op]++
			}
		}
	}
	return counts, nil
}

// RunModel runs a model's bytes in ONNX Runtime (lib) on one input and
// returns a copy of its output and the output's shape.
func RunModel(lib string, data []byte, in []float32, shape []int64) ([]float32, []int64, error) {
	opt := Options{ONNXRuntimeLibrary: lib}.withDefaults()
	if _, err := startRuntime(opt); err != nil {
		return nil, nil, err
	}
	m, err := newModel("test.onnx", data, opt)
	if err != nil {
		return nil, nil, err
	}
	defer m.close()
	var out []float32
	var outShape []int64
	err = m.run(in, shape, func(o []float32, s []int64) error {
		out, outShape = append([]float32(nil), o...), append([]int64(nil), s...)
		return nil
	})
	return out, outShape, err
}

// RecognizerInput is an image of one line as the recogniser reads it:
// 48 pixels high, its width scaled alike, normalised.
func RecognizerInput(img image.Image) ([]float32, []int64) {
	c := toRGB(img)
	w := int(math.Ceil(recHeight * float64(c.w) / float64(c.h)))
	in := make([]float32, 3*recHeight*w)
	fill(in, c, recHeight, w, w)
	return in, []int64{1, 3, recHeight, int64(w)}
}

// DetectorInput is a page as the detector reads it.
func DetectorInput(img image.Image) ([]float32, []int64) {
	in, w, h := detInput(toRGB(img), DefaultMaxSide, nil)
	return in, []int64{1, 3, int64(h), int64(w)}
}

// QuantizeRecognizer is quantizedModel without a cache, for the tests of
// package ocr_test: the recogniser (fuseModel's output) in int8, and how
// many convolutions and offsets it rewrote.
func QuantizeRecognizer(lib string, fused []byte) ([]byte, int, int, error) {
	opt := Options{ONNXRuntimeLibrary: lib, CacheDir: "-"}.withDefaults()
	if _, err := startRuntime(opt); err != nil {
		return nil, 0, 0, err
	}
	q, err := quantizeRecognizer(fused, opt)
	if err != nil {
		return nil, 0, 0, err
	}
	g, _, err := readGraph(q)
	if err != nil {
		return nil, 0, 0, err
	}
	convs, offsets := 0, 0
	for _, n := range g.nodes {
		if n.op == "QLinearConv" {
			convs++
		}
	}
	f, _, err := readGraph(fused)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, n := range f.nodes {
		if _, ok := f.offsetConv(n); ok {
			offsets++
		}
	}
	for _, n := range g.nodes {
		if _, ok := g.offsetConv(n); ok {
			offsets--
		}
	}
	return q, convs, offsets, nil
}

// WithInt8Bits returns opt whose int8 weights take bits bits (7 or 8)
// whatever this CPU is (see weightBits).
func WithInt8Bits(opt Options, bits int) Options {
	opt.int8Bits = bits
	return opt
}

// Int8Bits is the bits the int8 weights take on this CPU.
func Int8Bits() int { return weightBits() }
