package ocr

import (
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func testTensor(name string, dims []int64, v []float32) []byte {
	t := &onnxTensor{name: name, dims: dims, dtype: float32Type, f: v}
	return t.encode()
}

func testNode(op string, in, out []string, attrs ...[]byte) []byte {
	n := &onnxNode{op: op, in: in, out: out, attrs: attrs}
	return n.encode()
}

// testModel returns a model of IR version ir whose graph is g's nodes and
// initializers, with inputs as its inputs and "out" as its output.
func testModel(g []byte, ir uint64, inputs ...string) []byte {
	for _, name := range append(inputs, "out") {
		num := protowire.Number(graphInput)
		if name == "out" {
			num = graphOutput
		}
		g = appendBytes(g, num, appendString(nil, valueInfoName, name))
	}
	var model []byte
	model = protowire.AppendTag(model, 1, protowire.VarintType)
	model = protowire.AppendVarint(model, ir)
	return appendBytes(model, modelGraph, g)
}

func tensorAttr(name string, t []byte) []byte {
	var b []byte
	b = appendString(b, attrName, name)
	b = appendBytes(b, attrT, t)
	b = protowire.AppendTag(b, attrType, protowire.VarintType)
	return protowire.AppendVarint(b, 4)
}

// TestFuseGraph rewrites a small graph of PP-OCRv4's shape (scalars as
// Constant nodes, weights as initializers) and checks the operators
// left and the folded weights: Conv → Mul → Add folded into the conv,
// hard-swish as HardSigmoid and Mul, Mul → Add before a padded conv as
// its scaled weights and an offset of a/s before it, Mul → Add before a
// conv that pads nothing into its weights and a new bias.
func TestFuseGraph(t *testing.T) {
	var g []byte
	node := func(b []byte) {
		g = appendBytes(g, graphNode, b)
	}
	init := func(b []byte) {
		g = appendBytes(g, graphInitializer, b)
	}
	scalar := func(name string, v float32) {
		node(testNode("Constant", nil, []string{name}, tensorAttr("value", testTensor("", []int64{1}, []float32{v}))))
	}
	init(testTensor("W1", []int64{2, 2, 1, 1}, []float32{1, 2, 3, 4}))
	init(testTensor("B1", []int64{2}, []float32{0.5, -0.5}))
	init(testTensor("W2", []int64{2, 1, 3, 3}, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2}))
	init(testTensor("B2", []int64{2}, []float32{1, 2}))
	init(testTensor("W3", []int64{1, 2, 1, 1}, []float32{1, 3}))
	for _, s := range []struct {
		name string
		v    float32
	}{{"s1", 2}, {"a1", 1}, {"three", 3}, {"six", 6}, {"s2", 0.5}, {"a2", 3}, {"s3", 4}, {"a3", 0.25}, {"s4", 2}, {"a4", 1}} {
		scalar(s.name, s.v)
	}
	node(testNode("Conv", []string{"x", "W1", "B1"}, []string{"y1"}))
	node(testNode("Mul", []string{"s1", "y1"}, []string{"m1"}))
	node(testNode("Add", []string{"m1", "a1"}, []string{"x1"}))
	node(testNode("Add", []string{"x1", "three"}, []string{"h0"}))
	node(testNode("Clip", []string{"h0"}, []string{"h1"}, floatAttr("min", 0), floatAttr("max", 6)))
	node(testNode("Mul", []string{"x1", "h1"}, []string{"h2"}))
	node(testNode("Div", []string{"h2", "six"}, []string{"hs"}))
	node(testNode("Mul", []string{"s2", "hs"}, []string{"m2"}))
	node(testNode("Add", []string{"m2", "a2"}, []string{"x2"}))
	node(testNode("Conv", []string{"x2", "W2", "B2"}, []string{"y2"}, intAttribute("group", 2), intsAttr("pads", 1, 1, 1, 1)))
	node(testNode("Mul", []string{"y2", "s3"}, []string{"m3"}))
	node(testNode("Add", []string{"m3", "a3"}, []string{"x3"}))
	node(testNode("Relu", []string{"x3"}, []string{"r3"}))
	node(testNode("Mul", []string{"r3", "s4"}, []string{"m4"}))
	node(testNode("Add", []string{"a4", "m4"}, []string{"x4"}))
	node(testNode("Conv", []string{"x4", "W3"}, []string{"out"}))
	model := testModel(g, 8, "x")

	out, stats, err := fuseModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if stats.constants != 10 || stats.convAffine != 2 || stats.hardSwish != 1 || stats.affineConv != 2 {
		t.Errorf("stats %+v", stats)
	}
	top, err := readFields(out)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*onnxNode
	tensors := map[string]*onnxTensor{}
	for _, f := range top {
		if f.num != modelGraph {
			continue
		}
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
	var ops []string
	for _, n := range nodes {
		ops = append(ops, n.op)
	}
	if want := []string{"Conv", "HardSigmoid", "Mul", "Conv", "Conv", "Relu", "Conv"}; !slices.Equal(ops, want) {
		t.Fatalf("operators %v, want %v", ops, want)
	}
	near := func(what string, got, want []float32) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for i := range got {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Errorf("%s: %v, want %v", what, got, want)
				return
			}
		}
	}
	c1, hs, mul, add, c2, relu, c3 := nodes[0], nodes[1], nodes[2], nodes[3], nodes[4], nodes[5], nodes[6]
	// Conv1 ·2 +1.
	near("W1", tensors[c1.in[1]].f, []float32{2, 4, 6, 8})
	near("B1", tensors[c1.in[2]].f, []float32{2, 0})
	if c1.out[0] != "x1" || hs.in[0] != "x1" || !slices.Equal(mul.in, []string{"x1", hs.out[0]}) || mul.out[0] != "hs" {
		t.Errorf("hard-swish wired %v -> %v, %v -> %v", hs.in, hs.out, mul.in, mul.out)
	}
	if a, ok := attrFloatValue(hs.attr("alpha")); !ok || math.Abs(float64(a)-1.0/6) > 1e-7 {
		t.Errorf("alpha %v", a)
	}
	// The padded conv: x + 3/0.5 before it (a 1×1 convolution of one
	// filter of weight 1 a channel, the offset its bias: ONNX Runtime
	// keeps it in its blocked layout), W2 ·4 ·0.5, B2 ·4 + 0.25.
	if add.in[0] != "hs" || add.out[0] != c2.in[0] {
		t.Errorf("offset wired %v -> %v, conv reads %v", add.in, add.out, c2.in)
	}
	if len(add.in) != 3 || add.attr("kernel_shape") == nil || add.intAttr("group", 1) != 2 {
		t.Errorf("offset conv %v, kernel %v, group %d", add.in, add.attr("kernel_shape") != nil, add.intAttr("group", 1))
	} else {
		if w := tensors[add.in[1]]; w == nil || !slices.Equal(w.dims, []int64{2, 1, 1, 1}) {
			t.Errorf("offset conv's weights %v", w)
		}
		near("offset weights", tensors[add.in[1]].f, []float32{1, 1})
		near("offset", tensors[add.in[2]].f, []float32{6, 6})
	}
	near("W2", tensors[c2.in[1]].f, []float32{2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4})
	near("B2", tensors[c2.in[2]].f, []float32{4.25, 8.25})
	// The conv that pads nothing: W3 ·2, bias 1·(1+3).
	if relu.out[0] != c3.in[0] || c3.out[0] != "out" {
		t.Errorf("last conv reads %v, writes %v", c3.in, c3.out)
	}
	near("W3", tensors[c3.in[1]].f, []float32{2, 6})
	near("B3", tensors[c3.in[2]].f, []float32{4})
	for name := range tensors {
		if slices.Contains([]string{"s1", "a1", "three", "six", "s2", "a2", "s3", "a3", "s4", "a4", "W1", "B1", "W2", "B2", "W3"}, name) {
			used := false
			for _, n := range nodes {
				used = used || slices.Contains(n.in, name)
			}
			if !used {
				t.Errorf("initializer %s kept, read by no node", name)
			}
		}
	}
}

// A model is left as it is where a rewrite would change what it computes:
// initializers that are graph inputs too (older exports; a caller may
// override them, and they were dropped from the rewrite), and a Mul by a
// one-element constant of more than one dimension (it broadcasts the
// convolution's output to a higher rank).
func TestFuseGraphLeavesModelsAlone(t *testing.T) {
	build := func(scaleDims []int64, weightsAsInput bool) []byte {
		var g []byte
		add := func(num protowire.Number, b []byte) {
			g = appendBytes(g, num, b)
		}
		add(graphInitializer, testTensor("W", []int64{1, 1, 1, 1}, []float32{3}))
		add(graphNode, testNode("Constant", nil, []string{"s"}, tensorAttr("value", testTensor("", scaleDims, []float32{2}))))
		add(graphNode, testNode("Conv", []string{"x", "W"}, []string{"y"}))
		add(graphNode, testNode("Mul", []string{"y", "s"}, []string{"out"}))
		inputs := []string{"x"}
		if weightsAsInput {
			inputs = append(inputs, "W")
		}
		return testModel(g, 3, inputs...)
	}
	if _, stats, err := fuseModel(build([]int64{1}, false)); err != nil || stats.convAffine != 1 {
		t.Fatalf("the plain model: %+v, %v; want its Mul folded", stats, err)
	}
	for name, model := range map[string][]byte{
		"weights as inputs":    build([]int64{1}, true),
		"a rank-5 one-element": build([]int64{1, 1, 1, 1, 1}, false),
	} {
		out, stats, err := fuseModel(model)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if stats.convAffine != 0 {
			t.Errorf("%s: %+v, want no Mul folded", name, stats)
		}
		if name == "weights as inputs" && !slices.Equal(out, model) {
			t.Errorf("%s: the model was rewritten", name)
		}
	}
}

// TestFuseGraphOffsetOnlyWhereItFits: the offset before a padded
// convolution becomes a 1×1 depthwise convolution only for a 2-D
// convolution whose group is one ONNX allows; a group of -1 made the
// rewrite panic (makeslice), and a 1-D convolution would have been given
// a 2-D offset ONNX Runtime refuses.
func TestFuseGraphOffsetOnlyWhereItFits(t *testing.T) {
	build := func(dims []int64, group int64) []byte {
		var g []byte
		add := func(num protowire.Number, b []byte) {
			g = appendBytes(g, num, b)
		}
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		w := make([]float32, n)
		for i := range w {
			w[i] = 1
		}
		add(graphInitializer, testTensor("W", dims, w))
		add(graphNode, testNode("Constant", nil, []string{"s"}, tensorAttr("value", testTensor("", []int64{1}, []float32{2}))))
		add(graphNode, testNode("Constant", nil, []string{"a"}, tensorAttr("value", testTensor("", []int64{1}, []float32{1}))))
		add(graphNode, testNode("Mul", []string{"x", "s"}, []string{"m"}))
		add(graphNode, testNode("Add", []string{"m", "a"}, []string{"xa"}))
		pads := intsAttr("pads", 1, 1, 1, 1)
		if len(dims) == 3 {
			pads = intsAttr("pads", 1, 1)
		}
		add(graphNode, testNode("Conv", []string{"xa", "W"}, []string{"out"}, intAttribute("group", group), pads))
		return testModel(g, 8, "x")
	}
	if _, stats, err := fuseModel(build([]int64{2, 1, 3, 3}, 2)); err != nil || stats.affineConv != 1 {
		t.Fatalf("a depthwise 2-D convolution: %+v, %v; want the offset folded", stats, err)
	}
	for name, model := range map[string][]byte{
		"group -1":     build([]int64{2, 1, 3, 3}, -1),
		"group 0":      build([]int64{2, 1, 3, 3}, 0),
		"group 3 of 2": build([]int64{2, 1, 3, 3}, 3),
		"a 1-D conv":   build([]int64{2, 1, 3}, 2),
	} {
		_, stats, err := fuseModel(model)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if stats.affineConv != 0 {
			t.Errorf("%s: %+v, want the offset left alone", name, stats)
		}
	}
}
