package ocr

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestQuantizeGraph rewrites a small graph of the fused recogniser's
// shape (Relu → Conv → hard-swish → offset conv → padded depthwise
// Conv → hard-swish → Relu → Slice, operator set 9) with given ranges
// and checks what quantizeModel made of it: QuantizeLinear before the
// first convolution, both convolutions QLinearConv with int8 weights a
// scale a channel and int32 biases, each hard-swish QLinearAdd and
// QLinearMul (com.microsoft), the offset convolution gone into the zero
// point the second convolution reads with (c a whole number of steps),
// the hard-swish a float Relu reads dequantised, the Slice's starts and
// ends as inputs (operator set 11), com.microsoft imported.
func TestQuantizeGraph(t *testing.T) {
	var g []byte
	node := func(b []byte) { g = appendBytes(g, graphNode, b) }
	init := func(b []byte) { g = appendBytes(g, graphInitializer, b) }
	init(testTensor("W1", []int64{2, 2, 1, 1}, []float32{1, 2, -3, 0.5}))
	init(testTensor("B1", []int64{2}, []float32{0.5, -0.25}))
	init(testTensor("ones", []int64{2, 1, 1, 1}, []float32{1, 1}))
	init(testTensor("off", []int64{2}, []float32{1, 1}))
	init(testTensor("W2", []int64{2, 1, 3, 3}, []float32{1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2, -4, 2, 2, 2, 2}))
	init(testTensor("B2", []int64{2}, []float32{1, 2}))
	hsAttrs := [][]byte{floatAttr("alpha", 1.0/6), floatAttr("beta", 0.5)}
	node(testNode("Relu", []string{"x"}, []string{"r"}))
	node(testNode("Conv", []string{"r", "W1", "B1"}, []string{"y1"}))
	node(testNode("HardSigmoid", []string{"y1"}, []string{"s1"}, hsAttrs...))
	node(testNode("Mul", []string{"y1", "s1"}, []string{"h1"}))
	node(testNode("Conv", []string{"h1", "ones", "off"}, []string{"o1"}, intAttribute("group", 2), intsAttr("kernel_shape", 1, 1)))
	node(testNode("Conv", []string{"o1", "W2", "B2"}, []string{"y2"}, intAttribute("group", 2), intsAttr("pads", 1, 1, 1, 1)))
	node(testNode("HardSigmoid", []string{"y2"}, []string{"s2"}, hsAttrs...))
	node(testNode("Mul", []string{"y2", "s2"}, []string{"h2"}))
	node(testNode("Relu", []string{"h2"}, []string{"r2"}))
	node(testNode("Slice", []string{"r2"}, []string{"out"}, intsAttr("starts", 0), intsAttr("ends", 1), intsAttr("axes", 1)))
	model := testModel(g, 8, "x")
	var opset []byte
	opset = appendString(opset, opsetDomain, "")
	opset = protowire.AppendTag(opset, opsetVersion, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 9)
	model = appendBytes(model, modelOpsetImport, opset)

	gr, _, err := readGraph(model)
	if err != nil {
		t.Fatal(err)
	}
	if p := gr.quantPlan(3); len(p) != 0 {
		t.Errorf("convolutions of 2 channels planned at 3 channels at least: %d", len(p))
	}
	plan := gr.quantPlan(1)
	if len(plan) != 2 || plan[1].offset == nil || plan[1].shift != 1 || plan[1].in != "h1" {
		t.Fatalf("plan %+v", plan)
	}
	if names := calibrationTensors(plan); !slices.Equal(names, []string{"r", "y1", "h1", "y2", "h2"}) {
		t.Errorf("calibration tensors %v", names)
	}
	ranges := map[string]actRange{"r": {0, 2}, "y1": {-4, 5}, "h1": {-0.375, 5}, "y2": {-6, 6}, "h2": {-0.375, 6}}
	out, st, err := quantizeModel(model, ranges, 1, 8)
	if err != nil {
		t.Fatal(err)
	}
	if st.convs != 2 || st.offsets != 1 {
		t.Errorf("stats %+v", st)
	}
	top, err := readFields(out)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*onnxNode
	tensors := map[string]*onnxTensor{}
	opsets := map[string]uint64{}
	for _, f := range top {
		switch f.num {
		case modelOpsetImport:
			fs, err := readFields(f.val)
			if err != nil {
				t.Fatal(err)
			}
			var d string
			var v uint64
			for _, x := range fs {
				if x.num == opsetDomain {
					d = string(x.val)
				} else if x.num == opsetVersion {
					v = x.v
				}
			}
			opsets[d] = v
		case modelGraph:
			gfs, err := readFields(f.val)
			if err != nil {
				t.Fatal(err)
			}
			for _, gf := range gfs {
				switch gf.num {
				case graphNode:
					n, err := parseNode(gf.val)
					if err != nil {
						t.Fatal(err)
					}
					nodes = append(nodes, n)
				case graphInitializer:
					tt, err := parseTensor(gf.val)
					if err != nil {
						t.Fatal(err)
					}
					tensors[tt.name] = tt
				}
			}
		}
	}
	if opsets[""] != 11 || opsets["com.microsoft"] != 1 {
		t.Errorf("operator sets %v, want 11 and com.microsoft 1", opsets)
	}
	var ops []string
	for _, n := range nodes {
		ops = append(ops, n.domain+n.op)
	}
	want := []string{"Relu", "QuantizeLinear", "QLinearConv", "com.microsoftQLinearAdd", "com.microsoftQLinearMul",
		"QLinearConv", "com.microsoftQLinearAdd", "com.microsoftQLinearMul", "DequantizeLinear", "Relu", "Slice"}
	if !slices.Equal(ops, want) {
		t.Fatalf("operators %v,\nwant %v", ops, want)
	}
	raw := func(name string) []byte {
		t.Helper()
		tt := tensors[name]
		if tt == nil {
			t.Fatalf("no initializer %q", name)
		}
		fs, err := readFields(tt.other)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.num == tensorRaw {
				return f.val
			}
		}
		t.Fatalf("%q has no raw data", name)
		return nil
	}
	f32 := func(name string) []float32 {
		b := raw(name)
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v
	}
	i32 := func(name string) []int32 {
		b := raw(name)
		v := make([]int32, len(b)/4)
		for i := range v {
			v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v
	}
	c1, add1, mul1, c2 := nodes[2], nodes[3], nodes[4], nodes[5]
	// The first convolution's int8 weights: a scale a channel, the
	// largest weight ±127; its bias in steps of input × weight scale.
	ws := f32(c1.in[4])
	if len(ws) != 2 || math.Abs(float64(ws[0])-2.0/127) > 1e-7 || math.Abs(float64(ws[1])-3.0/127) > 1e-7 {
		t.Errorf("weight scales %v", ws)
	}
	w := raw(c1.in[3])
	if len(w) != 4 || int8(w[1]) != 127 || int8(w[2]) != -127 || int8(w[0]) != 64 || int8(w[3]) != 21 {
		t.Errorf("int8 weights %v", []int8{int8(w[0]), int8(w[1]), int8(w[2]), int8(w[3])})
	}
	sx := f32(c1.in[1])[0]
	if math.Abs(float64(sx)-2.0/255) > 1e-7 {
		t.Errorf("input scale %v, want 2/255", sx)
	}
	b := i32(c1.in[8])
	if math.Abs(float64(b[0])-0.5/float64(sx*ws[0])) > 0.5 || math.Abs(float64(b[1])+0.25/float64(sx*ws[1])) > 0.5 {
		t.Errorf("int32 bias %v", b)
	}
	// The hard-swish: the conv's output clipped (QLinearAdd of it and
	// of itself at a negligible scale), then multiplied by it.
	if add1.in[0] != c1.out[0] || add1.in[3] != c1.out[0] || mul1.in[0] != c1.out[0] || mul1.in[3] != add1.out[0] {
		t.Errorf("hard-swish wired: add %v, mul %v, conv writes %v", add1.in, mul1.in, c1.out)
	}
	if s := f32(add1.in[6])[0]; math.Abs(float64(s)-3.0/127) > 1e-7 || raw(add1.in[7])[0] != hardSigmoidZero {
		t.Errorf("clip scale %v zero %d", s, raw(add1.in[7])[0])
	}
	if s := f32(mul1.in[4])[0]; math.Abs(float64(s)-1.0/254) > 1e-7 || raw(mul1.in[5])[0] != 1 {
		t.Errorf("hard sigmoid read with scale %v zero %d, want 1/254 and 1", s, raw(mul1.in[5])[0])
	}
	// The offset: the second conv reads the first hard-swish's uint8
	// output with a zero point 1/scale steps below the one it was
	// written with.
	if c2.in[0] != mul1.out[0] {
		t.Fatalf("second conv reads %v, the hard-swish writes %v", c2.in[0], mul1.out)
	}
	hScale, hZero, readZero := f32(mul1.in[6])[0], int(raw(mul1.in[7])[0]), int(raw(c2.in[2])[0])
	if f32(c2.in[1])[0] != hScale || hZero-readZero == 0 || math.Abs(float64(hScale)*float64(hZero-readZero)-1) > 1e-6 {
		t.Errorf("h1 written with scale %v zero %d, read with zero %d: want the offset 1 a whole number of steps", hScale, hZero, readZero)
	}
	if lo := -float64(hScale) * float64(readZero); lo > 0 || float64(hScale)*float64(255-readZero) < 6-1e-4 {
		t.Errorf("h1 + 1 read over [%v, %v], want [0, 6] inside", lo, float64(hScale)*float64(255-readZero))
	}
	if c2.intAttr("group", 1) != 2 || c2.attr("pads") == nil {
		t.Errorf("second conv lost its attributes")
	}
	// The Relu reads h2 dequantised; the Slice reads starts and ends.
	dq, slice := nodes[8], nodes[10]
	if dq.out[0] != "h2" || nodes[9].in[0] != "h2" || dq.in[0] != nodes[7].out[0] {
		t.Errorf("dequantised %v -> %v, Relu reads %v", dq.in, dq.out, nodes[9].in)
	}
	if len(slice.attrs) != 0 || len(slice.in) != 4 || tensors[slice.in[1]] == nil || tensors[slice.in[1]].dtype != int64Type {
		t.Errorf("Slice %v, attributes %d", slice.in, len(slice.attrs))
	}
	// Weights of 7 bits (CPUs without VNNI): the largest weight ±63.
	out7, _, err := quantizeModel(model, ranges, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	g7, _, err := readGraph(out7)
	if err != nil || g7 == nil {
		t.Fatalf("reading the 7-bit model: %v", err)
	}
	var w7 []int8
	var ws7 []float32
	for _, n := range g7.nodes {
		if n.op != "QLinearConv" || w7 != nil {
			continue
		}
		fs, err := readFields(g7.consts[n.in[3]].other)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.num == tensorRaw {
				for _, b := range f.val {
					w7 = append(w7, int8(b))
				}
			}
		}
		ws7 = g7.consts[n.in[4]].f
	}
	// (1 is 31.5 steps: either neighbour, as float32 rounding falls.)
	if len(w7) != 4 || (w7[0] != 31 && w7[0] != 32) || !slices.Equal(w7[1:], []int8{63, -63, 11}) || len(ws7) != 2 ||
		math.Abs(float64(ws7[0])-2.0/63) > 1e-7 || math.Abs(float64(ws7[1])-3.0/63) > 1e-7 {
		t.Errorf("7-bit weights %v, scales %v: want [31.5 63 -63 11], 2/63 and 3/63", w7, ws7)
	}
	if _, _, err := quantizeModel(model, ranges, 1, 6); err == nil {
		t.Error("no error for weights of 6 bits")
	}
	// Ranges missing: an error, not a guess.
	delete(ranges, "y2")
	if _, _, err := quantizeModel(model, ranges, 1, 8); err == nil {
		t.Error("no error for a missing range")
	}
}

// TestShiftedParams checks the scale and zero points of a tensor read
// with an offset: the offset a whole number of steps, the range of
// x + c inside the steps.
func TestShiftedParams(t *testing.T) {
	for _, tc := range []struct {
		r actRange
		c float32
	}{{actRange{-0.375, 5}, 1}, {actRange{-0.375, 12}, -2.5}, {actRange{-0.375, 0.5}, 0.8}, {actRange{0, 40}, 3.3}} {
		s, xz, yz, ok := shiftedParams(tc.r, tc.c)
		if !ok {
			t.Errorf("%v + %v: refused", tc.r, tc.c)
			continue
		}
		if k := float64(tc.c / s); math.Abs(k-math.Round(k)) > 1e-4 || int(math.Round(k)) != xz-yz {
			t.Errorf("%v + %v: scale %v, zeros %d %d: the offset is not %d steps", tc.r, tc.c, s, xz, yz, xz-yz)
		}
		lo, hi := -float64(s)*float64(yz), float64(s)*float64(255-yz)
		if lo > float64(min(tc.r.lo+tc.c, 0))+1e-5 || hi < float64(max(tc.r.hi+tc.c, 0))-1e-5 {
			t.Errorf("%v + %v: steps cover [%v, %v]", tc.r, tc.c, lo, hi)
		}
	}
	// An offset under a step cannot be a zero point.
	if _, _, _, ok := shiftedParams(actRange{0, 255}, 0.4); ok {
		t.Error("an offset of 0.4 steps accepted")
	}
}
