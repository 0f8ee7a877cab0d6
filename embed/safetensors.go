package embed

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
)

// tensor is one tensor read from a safetensors file, as float32.
type tensor struct {
	shape []int
	data  []float32
}

// readSafetensor reads the tensor called name from a safetensors file:
// an 8-byte little-endian header length, a JSON header mapping names to
// dtype, shape and data offsets, then the raw data. F32, F16 and BF16 are
// supported.
func readSafetensor(path, name string) (*tensor, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("%s: too short for a safetensors file", path)
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > uint64(len(raw)-8) || n > 100<<20 {
		return nil, fmt.Errorf("%s: header length %d does not fit the file", path, n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: bad header: %v", path, err)
	}
	entry, ok := header[name]
	if !ok {
		return nil, fmt.Errorf("%s: no tensor %q", path, name)
	}
	var info struct {
		Dtype   string `json:"dtype"`
		Shape   []int  `json:"shape"`
		Offsets [2]int `json:"data_offsets"`
	}
	if err := json.Unmarshal(entry, &info); err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %v", path, name, err)
	}
	data := raw[8+n:]
	lo, hi := info.Offsets[0], info.Offsets[1]
	if lo < 0 || hi < lo || hi > len(data) {
		return nil, fmt.Errorf("%s: tensor %q: data offsets %v outside the file", path, name, info.Offsets)
	}
	data = data[lo:hi]
	count := 1
	for _, d := range info.Shape {
		if d < 0 {
			return nil, fmt.Errorf("%s: tensor %q: bad shape %v", path, name, info.Shape)
		}
		count *= d
	}
	var size int
	switch info.Dtype {
	case "F32":
		size = 4
	case "F16", "BF16":
		size = 2
	default:
		return nil, fmt.Errorf("%s: tensor %q: dtype %s is not supported (F32, F16, BF16 are)", path, name, info.Dtype)
	}
	if len(data) != count*size {
		return nil, fmt.Errorf("%s: tensor %q: %d bytes of data for shape %v of %s", path, name, len(data), info.Shape, info.Dtype)
	}
	out := make([]float32, count)
	for i := range out {
		switch info.Dtype {
		case "F32":
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		case "BF16":
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(data[2*i:])) << 16)
		case "F16":
			out[i] = halfToFloat(binary.LittleEndian.Uint16(data[2*i:]))
		}
	}
	return &tensor{shape: info.Shape, data: out}, nil
}

// halfToFloat converts an IEEE 754 half-precision number.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(mant) / 1024 * float32(math.Pow(2, -14))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// WriteSafetensors writes float32 tensors in the safetensors format; tests
// and tools use it to make small models.
func WriteSafetensors(path string, tensors map[string][]float32, shapes map[string][]int) error {
	header := map[string]any{}
	var data []byte
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		start := len(data)
		for _, f := range tensors[n] {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(f))
		}
		header[n] = map[string]any{"dtype": "F32", "shape": shapes[n], "data_offsets": []int{start, len(data)}}
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(append(out, h...), data...)
	return os.WriteFile(path, out, 0o644)
}
