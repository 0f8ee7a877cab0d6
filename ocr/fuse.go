package ocr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// PP-OCRv4's models (PaddlePaddle's PPLCNetV3 backbone exported by
// paddle2onnx) follow every convolution with a learnable affine block
// (x·s + b with scalar s and b), a hard-swish written as four operators
// (Add 3, Clip 0..6, Mul, Div 6) and another affine block: eight
// element-wise passes over the activations per convolution, which ONNX
// Runtime's optimiser does not fuse (the scales are scalars, written as
// Constant nodes, the scale first). They took about half the
// recogniser's time. fuseModel rewrites the model once, at load, into
// the same function with fewer passes:
//
//   - Constant nodes holding a tensor become initializers;
//   - Conv → Mul(scalar) → Add(scalar) folds into the convolution's
//     weights and bias;
//   - Add 3 → Clip 0..6 → Mul → Div 6 (hard-swish) becomes HardSigmoid
//     (α = 1/6, β = ½) and Mul;
//   - Mul(scalar) → Add(scalar) → Conv folds into the next convolution:
//     the scale into its weights, the offset into its bias where the
//     convolution pads nothing (else the offset stays before it, as a
//     1×1 convolution of weight 1 a channel, which ONNX Runtime keeps in
//     its blocked layout where an Add of a scalar made it reorder the
//     activations twice).
//
// The results differ from the model's only by float rounding (the
// products are taken in another order).

// onnx field numbers (onnx.proto3) of the messages edited here.
const (
	modelGraph = 7

	graphNode        = 1
	graphInitializer = 5
	graphInput       = 11
	graphOutput      = 12

	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5
	nodeDomain    = 7

	attrName  = 1
	attrF     = 2
	attrI     = 3
	attrS     = 4
	attrT     = 5
	attrG     = 6
	attrInts  = 8
	attrGs    = 11
	attrType  = 20
	attrFloat = 1 // AttributeProto.FLOAT
	attrInt   = 2 // AttributeProto.INT
	attrIntsT = 7 // AttributeProto.INTS

	tensorDims     = 1
	tensorDataType = 2
	tensorFloats   = 4
	tensorName     = 8
	tensorRaw      = 9
	tensorExternal = 13
	tensorLocation = 14

	valueInfoName = 1

	float32Type = 1 // TensorProto.FLOAT
)

// fuseStats counts what fuseModel changed.
type fuseStats struct {
	constants, convAffine, hardSwish, affineConv, nodesBefore, nodesAfter int
}

type onnxNode struct {
	in, out      []string
	name, op     string
	domain       string
	attrs        [][]byte // AttributeProto messages
	other        []byte   // other fields as read, tags included
	removed      bool
	graphInAttrs bool
}

type onnxTensor struct {
	name  string
	dims  []int64
	dtype uint64
	f     []float32 // the values of a float tensor (nil for others)
	other []byte    // the fields besides name, as read (non-float tensors)
	dirty bool      // f changed: written anew
}

func (t *onnxTensor) len() int {
	n := 1
	for _, d := range t.dims {
		n *= int(d)
	}
	return n
}

type fields struct {
	num protowire.Number
	typ protowire.Type
	val []byte // a bytes field's value
	v   uint64 // a varint's or fixed value
	raw []byte // the whole field, tag included
}

func readFields(b []byte) ([]fields, error) {
	var out []fields
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		f := fields{num: num, typ: typ, raw: b[:n+m]}
		v := b[n : n+m]
		switch typ {
		case protowire.BytesType:
			f.val, _ = protowire.ConsumeBytes(v)
		case protowire.VarintType:
			f.v, _ = protowire.ConsumeVarint(v)
		case protowire.Fixed32Type:
			x, _ := protowire.ConsumeFixed32(v)
			f.v = uint64(x)
		case protowire.Fixed64Type:
			f.v, _ = protowire.ConsumeFixed64(v)
		}
		out = append(out, f)
		b = b[n+m:]
	}
	return out, nil
}

func parseNode(b []byte) (*onnxNode, error) {
	fs, err := readFields(b)
	if err != nil {
		return nil, err
	}
	n := &onnxNode{}
	for _, f := range fs {
		switch {
		case f.num == nodeInput && f.typ == protowire.BytesType:
			n.in = append(n.in, string(f.val))
		case f.num == nodeOutput && f.typ == protowire.BytesType:
			n.out = append(n.out, string(f.val))
		case f.num == nodeName && f.typ == protowire.BytesType:
			n.name = string(f.val)
		case f.num == nodeOpType && f.typ == protowire.BytesType:
			n.op = string(f.val)
		case f.num == nodeDomain && f.typ == protowire.BytesType:
			n.domain = string(f.val)
		case f.num == nodeAttribute && f.typ == protowire.BytesType:
			n.attrs = append(n.attrs, f.val)
			afs, err := readFields(f.val)
			if err != nil {
				return nil, err
			}
			for _, a := range afs {
				if a.num == attrG || a.num == attrGs {
					n.graphInAttrs = true
				}
			}
		default:
			n.other = append(n.other, f.raw...)
		}
	}
	return n, nil
}

// appendString appends field num, s as a string.
func appendString(b []byte, num protowire.Number, s string) []byte {
	return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
}

// appendBytes appends field num, v as bytes (a string or a message).
func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func (n *onnxNode) encode() []byte {
	var b []byte
	for _, s := range n.in {
		b = appendString(b, nodeInput, s)
	}
	for _, s := range n.out {
		b = appendString(b, nodeOutput, s)
	}
	if n.name != "" {
		b = appendString(b, nodeName, n.name)
	}
	b = appendString(b, nodeOpType, n.op)
	for _, a := range n.attrs {
		b = appendBytes(b, nodeAttribute, a)
	}
	if n.domain != "" {
		b = appendString(b, nodeDomain, n.domain)
	}
	return append(b, n.other...)
}

// attr returns the node's attribute named name, parsed.
func (n *onnxNode) attr(name string) []fields {
	for _, a := range n.attrs {
		fs, err := readFields(a)
		if err != nil {
			continue
		}
		for _, f := range fs {
			if f.num == attrName && string(f.val) == name {
				return fs
			}
		}
	}
	return nil
}

func attrFloatValue(fs []fields) (float32, bool) {
	for _, f := range fs {
		if f.num == attrF && f.typ == protowire.Fixed32Type {
			return math.Float32frombits(uint32(f.v)), true
		}
	}
	return 0, false
}

func floatAttr(name string, v float32) []byte {
	var b []byte
	b = appendString(b, attrName, name)
	b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, math.Float32bits(v))
	b = protowire.AppendTag(b, attrType, protowire.VarintType)
	return protowire.AppendVarint(b, attrFloat)
}

// intAttribute encodes an attribute of one integer.
func intAttribute(name string, v int64) []byte {
	var b []byte
	b = appendString(b, attrName, name)
	b = protowire.AppendTag(b, attrI, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(v))
	b = protowire.AppendTag(b, attrType, protowire.VarintType)
	return protowire.AppendVarint(b, attrInt)
}

// intsAttr encodes an attribute of integers.
func intsAttr(name string, v ...int64) []byte {
	var b []byte
	b = appendString(b, attrName, name)
	for _, x := range v {
		b = protowire.AppendTag(b, attrInts, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(x))
	}
	b = protowire.AppendTag(b, attrType, protowire.VarintType)
	return protowire.AppendVarint(b, attrIntsT)
}

// intAttr returns a node's integer attribute, or def without it.
func (n *onnxNode) intAttr(name string, def int64) int64 {
	for _, f := range n.attr(name) {
		if f.num == attrI && f.typ == protowire.VarintType {
			return int64(f.v)
		}
	}
	return def
}

func parseTensor(b []byte) (*onnxTensor, error) {
	fs, err := readFields(b)
	if err != nil {
		return nil, err
	}
	t := &onnxTensor{}
	var raw, floats []byte
	hasRaw, hasFloats := false, false
	for _, f := range fs {
		switch f.num {
		case tensorDims:
			if f.typ == protowire.BytesType {
				for v := f.val; len(v) > 0; {
					d, n := protowire.ConsumeVarint(v)
					if n < 0 {
						return nil, protowire.ParseError(n)
					}
					t.dims = append(t.dims, int64(d))
					v = v[n:]
				}
			} else {
				t.dims = append(t.dims, int64(f.v))
			}
		case tensorDataType:
			t.dtype = f.v
		case tensorName:
			t.name = string(f.val)
			continue
		case tensorRaw:
			raw, hasRaw = f.val, true
		case tensorFloats:
			if f.typ == protowire.BytesType {
				floats, hasFloats = append(floats, f.val...), true
			} else {
				floats, hasFloats = binary.LittleEndian.AppendUint32(floats, uint32(f.v)), true
			}
		case tensorExternal, tensorLocation:
			return nil, errors.New("a tensor stored outside the model file")
		}
		t.other = append(t.other, f.raw...)
	}
	if t.dtype == float32Type {
		data := raw
		if !hasRaw {
			data = floats
		}
		if hasRaw || hasFloats || t.len() == 0 {
			if len(data) != 4*t.len() {
				return nil, fmt.Errorf("float tensor %q of %v holds %d bytes", t.name, t.dims, len(data))
			}
			t.f = make([]float32, t.len())
			for i := range t.f {
				t.f[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			}
		}
	}
	return t, nil
}

func (t *onnxTensor) encode() []byte {
	var b []byte
	if t.f != nil && (t.dirty || t.other == nil) {
		for _, d := range t.dims {
			b = protowire.AppendTag(b, tensorDims, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(d))
		}
		b = protowire.AppendTag(b, tensorDataType, protowire.VarintType)
		b = protowire.AppendVarint(b, float32Type)
		raw := make([]byte, 0, 4*len(t.f))
		for _, v := range t.f {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
		b = appendBytes(b, tensorRaw, raw)
	} else {
		b = append(b, t.other...)
	}
	return appendString(b, tensorName, t.name)
}

// fuseGraph is a graph being rewritten.
type fuseGraph struct {
	nodes    []*onnxNode
	consts   map[string]*onnxTensor // initializers and Constant nodes' tensors
	order    []string               // consts' names in the order met
	users    map[string][]*onnxNode // the nodes that read a name
	outputs  map[string]bool        // the graph's outputs
	inputs   map[string]bool
	stats    fuseStats
	newNames int
}

// fuseModel rewrites an ONNX model as the comment above says. It returns
// the model unchanged (and zero stats) where nothing matched, and an
// error for bytes that are not a model it can read.
func fuseModel(data []byte) ([]byte, fuseStats, error) {
	g, m, err := readGraph(data)
	if err != nil {
		return nil, fuseStats{}, err
	}
	if g == nil {
		return data, fuseStats{}, nil
	}
	g.foldConvAffine()
	g.fuseHardSwish()
	g.foldAffineConv()
	if g.stats.constants+g.stats.convAffine+g.stats.hardSwish+g.stats.affineConv == 0 {
		return data, fuseStats{}, nil
	}
	return g.encodeModel(m), g.stats, nil
}

// modelFile is a model's fields besides its graph's nodes and
// initializers, as read, for encodeModel.
type modelFile struct {
	top  []fields // the model's fields
	gi   int      // the graph's index in top
	rest []byte   // the graph's other fields
	size int      // the model's size in bytes
}

// readGraph reads a model's graph for a rewrite, its Constant nodes made
// initializers. It returns a nil graph (and no error) for a model it
// leaves alone (subgraphs, initializers that are inputs too, tensors
// stored outside the file), and an error for bytes that are not a model.
func readGraph(data []byte) (*fuseGraph, *modelFile, error) {
	top, err := readFields(data)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the model: %w", err)
	}
	gi := -1
	for i, f := range top {
		if f.num == modelGraph && f.typ == protowire.BytesType {
			if gi >= 0 {
				return nil, nil, errors.New("the model has two graphs")
			}
			gi = i
		}
	}
	if gi < 0 {
		return nil, nil, errors.New("the model has no graph")
	}
	gfs, err := readFields(top[gi].val)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the graph: %w", err)
	}
	g := &fuseGraph{consts: map[string]*onnxTensor{}, users: map[string][]*onnxNode{}, outputs: map[string]bool{}, inputs: map[string]bool{}}
	m := &modelFile{top: top, gi: gi, size: len(data)}
	for _, f := range gfs {
		switch {
		case f.num == graphNode && f.typ == protowire.BytesType:
			n, err := parseNode(f.val)
			if err != nil {
				return nil, nil, fmt.Errorf("reading a node: %w", err)
			}
			if n.graphInAttrs {
				return nil, nil, nil // subgraphs may read any name: left alone
			}
			g.nodes = append(g.nodes, n)
		case f.num == graphInitializer && f.typ == protowire.BytesType:
			t, err := parseTensor(f.val)
			if err != nil {
				return nil, nil, nil
			}
			if _, dup := g.consts[t.name]; dup {
				return nil, nil, nil
			}
			g.consts[t.name] = t
			g.order = append(g.order, t.name)
		default:
			if f.num == graphInput || f.num == graphOutput {
				vfs, err := readFields(f.val)
				if err != nil {
					return nil, nil, fmt.Errorf("reading the graph's inputs and outputs: %w", err)
				}
				for _, v := range vfs {
					if v.num == valueInfoName {
						if f.num == graphInput {
							g.inputs[string(v.val)] = true
						} else {
							g.outputs[string(v.val)] = true
						}
					}
				}
			}
			m.rest = append(m.rest, f.raw...)
		}
	}
	for name := range g.inputs {
		if g.consts[name] != nil {
			// Initializers listed as inputs too (IR before 4, older
			// exports): a caller may override them, so they are no
			// constants, and the model is left as it is.
			return nil, nil, nil
		}
	}
	g.stats.nodesBefore = len(g.nodes)
	for _, n := range g.nodes {
		if n.op == "Constant" && n.domain == "" && len(n.out) == 1 && len(n.attrs) == 1 {
			fs := n.attr("value")
			for _, f := range fs {
				if f.num == attrT && f.typ == protowire.BytesType {
					t, err := parseTensor(f.val)
					if err != nil || g.consts[n.out[0]] != nil {
						break
					}
					t.name = n.out[0]
					g.consts[t.name] = t
					g.order = append(g.order, t.name)
					n.removed = true
					g.stats.constants++
				}
			}
		}
	}
	for _, n := range g.nodes {
		if n.removed {
			continue
		}
		for _, in := range n.in {
			g.users[in] = append(g.users[in], n)
		}
	}
	return g, m, nil
}

// encodeModel writes the rewritten graph into the model read.
// Initializers no node reads any more are left out (ONNX Runtime would
// warn of each).
func (g *fuseGraph) encodeModel(m *modelFile) []byte {
	read := map[string]bool{}
	var gb []byte
	for _, n := range g.nodes {
		if n.removed {
			continue
		}
		for _, in := range n.in {
			read[in] = true
		}
	}
	for name := range g.outputs {
		read[name] = true
	}
	gb = append(gb, m.rest...)
	for _, name := range g.order {
		t := g.consts[name]
		if t == nil || t.name != name || !read[name] {
			continue
		}
		gb = appendBytes(gb, graphInitializer, t.encode())
	}
	g.stats.nodesAfter = 0
	for _, n := range g.nodes {
		if n.removed {
			continue
		}
		g.stats.nodesAfter++
		gb = appendBytes(gb, graphNode, n.encode())
	}
	out := make([]byte, 0, m.size)
	for i, f := range m.top {
		if i == m.gi {
			out = appendBytes(out, modelGraph, gb)
			continue
		}
		out = append(out, f.raw...)
	}
	return out
}

// scalar returns the value of a float constant of one element and at
// most one dimension (one of more dimensions would broadcast its
// operand to a higher rank).
func (g *fuseGraph) scalar(name string) (float32, bool) {
	t := g.consts[name]
	if t == nil || t.f == nil || len(t.f) != 1 || len(t.dims) > 1 {
		return 0, false
	}
	return t.f[0], true
}

// only returns the one node that reads name, or nil where it is read
// by several or is an output of the graph.
func (g *fuseGraph) only(name string) *onnxNode {
	if g.outputs[name] {
		return nil
	}
	var found *onnxNode
	for _, n := range g.users[name] {
		if n.removed {
			continue
		}
		if found != nil {
			return nil
		}
		found = n
	}
	return found
}

// binaryScalar returns, for a Mul or Add node reading x and a float
// scalar constant, the constant's value.
func (g *fuseGraph) binaryScalar(n *onnxNode, op, x string) (float32, bool) {
	if n == nil || n.removed || n.op != op || n.domain != "" || len(n.in) != 2 || len(n.out) != 1 {
		return 0, false
	}
	switch x {
	case n.in[0]:
		return g.scalar(n.in[1])
	case n.in[1]:
		return g.scalar(n.in[0])
	}
	return 0, false
}

// offsetConvFits reports whether the offset before the padded Conv n of
// weights w can be a 1×1 depthwise convolution: a 2-D convolution (rank-4
// weights) whose group divides its output channels, as ONNX requires. A
// model that says otherwise (a group of -1, a 1-D convolution) is left as
// it is, for ONNX Runtime to judge.
func offsetConvFits(n *onnxNode, w *onnxTensor) bool {
	group := n.intAttr("group", 1)
	return len(w.dims) == 4 && group >= 1 && group <= w.dims[0] && w.dims[0]%group == 0 && w.dims[1] > 0
}

// convWeights returns a Conv node's weight and bias (nil without one)
// where both are float constants it alone reads and the weight's first
// dimension is the output channels.
func (g *fuseGraph) convWeights(n *onnxNode) (w, b *onnxTensor, ok bool) {
	if n.op != "Conv" || n.domain != "" || len(n.in) < 2 || len(n.in) > 3 || len(n.out) != 1 {
		return nil, nil, false
	}
	w = g.consts[n.in[1]]
	if w == nil || w.f == nil || len(w.dims) < 3 || w.dims[0] <= 0 || g.only(n.in[1]) != n {
		return nil, nil, false
	}
	if len(n.in) == 3 && n.in[2] != "" {
		b = g.consts[n.in[2]]
		if b == nil || b.f == nil || len(b.f) != int(w.dims[0]) || g.only(n.in[2]) != n {
			return nil, nil, false
		}
	}
	return w, b, true
}

// bias returns the Conv node's bias, made (zeros) where it has none.
func (g *fuseGraph) bias(n *onnxNode, w, b *onnxTensor) *onnxTensor {
	if b != nil {
		return b
	}
	g.newNames++
	name := fmt.Sprintf("%s.gochunk_fused_bias_%d", n.out[0], g.newNames)
	b = &onnxTensor{name: name, dims: []int64{w.dims[0]}, dtype: float32Type, f: make([]float32, w.dims[0])}
	g.consts[name] = b
	g.order = append(g.order, name)
	if len(n.in) == 3 {
		n.in[2] = name
	} else {
		n.in = append(n.in, name)
	}
	g.users[name] = []*onnxNode{n}
	return b
}

// foldConvAffine folds Conv → Mul(scalar) / Add(scalar) chains into the
// convolution.
func (g *fuseGraph) foldConvAffine() {
	for _, n := range g.nodes {
		if n.removed {
			continue
		}
		w, b, ok := g.convWeights(n)
		if !ok {
			continue
		}
		folded := false
		for {
			next := g.only(n.out[0])
			if s, ok := g.binaryScalar(next, "Mul", n.out[0]); ok {
				for i := range w.f {
					w.f[i] *= s
				}
				w.dirty = true
				if b != nil {
					for i := range b.f {
						b.f[i] *= s
					}
					b.dirty = true
				}
			} else if a, ok := g.binaryScalar(next, "Add", n.out[0]); ok {
				b = g.bias(n, w, b)
				for i := range b.f {
					b.f[i] += a
				}
				b.dirty = true
			} else {
				break
			}
			next.removed = true
			n.out[0] = next.out[0]
			folded = true
		}
		if folded {
			g.stats.convAffine++
		}
	}
}

// clipRange returns a Clip node's bounds (attributes before opset 11,
// inputs after).
func (g *fuseGraph) clipRange(n *onnxNode) (lo, hi float32, ok bool) {
	lo, hi = float32(math.Inf(-1)), float32(math.Inf(1))
	if len(n.in) > 1 && n.in[1] != "" {
		if lo, ok = g.scalar(n.in[1]); !ok {
			return 0, 0, false
		}
	}
	if len(n.in) > 2 && n.in[2] != "" {
		if hi, ok = g.scalar(n.in[2]); !ok {
			return 0, 0, false
		}
	}
	if v, ok := attrFloatValue(n.attr("min")); ok {
		lo = v
	}
	if v, ok := attrFloatValue(n.attr("max")); ok {
		hi = v
	}
	return lo, hi, true
}

// fuseHardSwish turns x · Clip(x + 3, 0, 6) / 6 into
// x · HardSigmoid(x).
func (g *fuseGraph) fuseHardSwish() {
	for _, add := range g.nodes {
		if add.removed || add.op != "Add" || len(add.in) != 2 {
			continue
		}
		var x string
		for k := range 2 {
			if v, ok := g.scalar(add.in[1-k]); ok && v == 3 && g.consts[add.in[k]] == nil {
				x = add.in[k]
			}
		}
		if x == "" || len(add.out) != 1 {
			continue
		}
		clip := g.only(add.out[0])
		if clip == nil || clip.op != "Clip" || clip.domain != "" || len(clip.out) != 1 || clip.in[0] != add.out[0] {
			continue
		}
		if lo, hi, ok := g.clipRange(clip); !ok || lo != 0 || hi != 6 {
			continue
		}
		mul := g.only(clip.out[0])
		if mul == nil || mul.op != "Mul" || mul.domain != "" || len(mul.in) != 2 || len(mul.out) != 1 ||
			!(mul.in[0] == x && mul.in[1] == clip.out[0] || mul.in[1] == x && mul.in[0] == clip.out[0]) {
			continue
		}
		div := g.only(mul.out[0])
		if v, ok := g.binaryScalar(div, "Div", mul.out[0]); !ok || v != 6 || div.in[0] != mul.out[0] {
			continue
		}
		add.op, add.in, add.out = "HardSigmoid", []string{x}, []string{clip.out[0]}
		add.attrs = [][]byte{floatAttr("alpha", 1.0/6), floatAttr("beta", 0.5)}
		add.other = nil
		clip.removed = true
		g.users[clip.out[0]] = []*onnxNode{mul}
		mul.out[0] = div.out[0]
		div.removed = true
		g.stats.hardSwish++
	}
}

// zeroPads reports whether a Conv node pads nothing.
func zeroPads(n *onnxNode) bool {
	if fs := n.attr("auto_pad"); fs != nil {
		for _, f := range fs {
			if f.num == attrS && string(f.val) != "NOTSET" && string(f.val) != "VALID" {
				return false
			}
		}
	}
	fs := n.attr("pads")
	for _, f := range fs {
		if f.num != attrInts {
			continue
		}
		if f.typ == protowire.VarintType {
			if f.v != 0 {
				return false
			}
			continue
		}
		for v := f.val; len(v) > 0; {
			p, k := protowire.ConsumeVarint(v)
			if k < 0 || p != 0 {
				return false
			}
			v = v[k:]
		}
	}
	return true
}

// foldAffineConv folds Mul(scalar) → Add(scalar) → Conv into the
// convolution: conv(W, s·x + a) = conv(s·W, x) + a·ΣW where nothing is
// padded; with padding the offset stays before it as x + a/s.
func (g *fuseGraph) foldAffineConv() {
	for _, mul := range g.nodes {
		if mul.removed || mul.op != "Mul" || len(mul.in) != 2 || len(mul.out) != 1 {
			continue
		}
		var x string
		var s float32
		for k := range 2 {
			if v, ok := g.scalar(mul.in[1-k]); ok && g.consts[mul.in[k]] == nil {
				x, s = mul.in[k], v
			}
		}
		if x == "" || s == 0 || math.IsInf(float64(s), 0) || math.IsNaN(float64(s)) {
			continue
		}
		next := g.only(mul.out[0])
		var add *onnxNode
		var a float32
		if v, ok := g.binaryScalar(next, "Add", mul.out[0]); ok {
			add, a = next, v
			next = g.only(add.out[0])
		}
		if next == nil || next.op != "Conv" || next.in[0] == "" {
			continue
		}
		if add != nil && next.in[0] != add.out[0] || add == nil && next.in[0] != mul.out[0] {
			continue
		}
		w, b, ok := g.convWeights(next)
		if !ok {
			continue
		}
		if add != nil && !zeroPads(next) && !offsetConvFits(next, w) {
			continue
		}
		per := len(w.f) / int(w.dims[0])
		if add != nil && zeroPads(next) {
			b = g.bias(next, w, b)
			for o := range b.f {
				sum := float32(0)
				for _, v := range w.f[o*per : (o+1)*per] {
					sum += v
				}
				b.f[o] += a * sum
			}
			b.dirty = true
			add.removed = true
			add = nil
		}
		for i := range w.f {
			w.f[i] *= s
		}
		w.dirty = true
		mul.removed = true
		if add != nil {
			// x + a/s, then the scaled convolution. The offset is a
			// convolution of one 1×1 filter of weight 1 a channel with
			// the offset as its bias: the same sums, and unlike an Add
			// of a scalar ONNX Runtime keeps it in its blocked (NCHWc)
			// layout with the convolutions around it, so the
			// activations are not reordered to NCHW and back for it.
			g.newNames++
			name := fmt.Sprintf("%s.gochunk_fused_offset_%d", add.out[0], g.newNames)
			channels := w.dims[1] * next.intAttr("group", 1)
			ones := make([]float32, channels)
			for i := range ones {
				ones[i] = 1
			}
			offs := make([]float32, channels)
			for i := range offs {
				offs[i] = a / s
			}
			g.consts[name+"_w"] = &onnxTensor{name: name + "_w", dims: []int64{channels, 1, 1, 1}, dtype: float32Type, f: ones, dirty: true}
			g.consts[name+"_b"] = &onnxTensor{name: name + "_b", dims: []int64{channels}, dtype: float32Type, f: offs, dirty: true}
			g.order = append(g.order, name+"_w", name+"_b")
			add.op, add.domain, add.other = "Conv", "", nil
			add.in = []string{x, name + "_w", name + "_b"}
			add.attrs = [][]byte{intAttribute("group", channels), intsAttr("kernel_shape", 1, 1)}
			g.users[x] = append(slices.DeleteFunc(g.users[x], func(n *onnxNode) bool { return n == mul }), add)
		} else {
			next.in[0] = x
			g.users[x] = append(slices.DeleteFunc(g.users[x], func(n *onnxNode) bool { return n == mul }), next)
		}
		g.stats.affineConv++
	}
}
