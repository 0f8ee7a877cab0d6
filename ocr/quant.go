package ocr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"

	"golang.org/x/sys/cpu"
	"google.golang.org/protobuf/encoding/protowire"
)

// The recogniser's backbone can run in 8-bit integers (Options.Int8).
// quantizeModel rewrites every convolution of 128 output channels or
// more that a hard-swish follows, and its hard-swish, into operators of
// uint8 activations, so that one convolution's output goes to the next
// without float between them and ONNX Runtime runs the chain with its
// integer kernels in channels-last layout:
//
//   - Conv becomes QLinearConv: int8 weights of one scale an output
//     channel (symmetric, the largest weight ±127, or ±63 where the
//     weights take 7 bits: see weightBits), int32 bias, the
//     input's and the output's scale and zero point static;
//   - the hard-swish y·clip((y+3)/6, 0, 1) becomes com.microsoft's
//     QLinearAdd of y and y·0 (a requantisation: y clipped to -3..3 in
//     uint8, see hardSigmoidZero) and QLinearMul of y and that clip read
//     back as (clip + 3) / 6; y's range starts at -3 at the lowest
//     (below, the hard-swish is 0 whatever y is), which makes its steps
//     finer;
//   - the 1×1 convolution fuseModel leaves before a padded depthwise
//     convolution (x + c, the same c in every channel) goes into the
//     zero point the depthwise convolution reads x with (the scale made
//     a little coarser, so that c is a whole number of steps), so the
//     padding is the real zero as in the float model;
//   - a QuantizeLinear quantises a float input (the first convolution
//     rewritten), a DequantizeLinear gives float readers (the
//     squeeze-and-excitation blocks) their input.
//
// The activations' ranges are static: calibrate runs the float model on
// lines drawn from a fixed text (calibrationLines) and takes each
// tensor's least and greatest value. The model's default operator set
// goes from 9 to 11 (QLinearConv and ONNX Runtime's own rewrites of it
// need 10 and 11; Slice's attributes become inputs).

// weightBits is the bits quantizeModel gives the weights on this CPU: 7
// (±63) on x86 CPUs without VNNI (AVX-512 VNNI or AVX-VNNI), 8 (±127)
// elsewhere. Without VNNI, ONNX Runtime's uint8 × int8 kernels multiply
// with VPMADDUBSW, which adds two products into a saturating 16-bit sum:
// 255 · 127 · 2 overflows it, 255 · 63 · 2 does not (the remedy ONNX
// Runtime's quantisation tools document as reduce_range). VNNI adds
// into 32 bits, and ARM's kernels widen before they add.
func weightBits() int {
	switch runtime.GOARCH {
	case "amd64", "386":
		if !cpu.X86.HasAVX512VNNI && !cpu.X86.HasAVXVNNI {
			return 7
		}
	}
	return 8
}

// ONNX TensorProto data types used here.
const (
	uint8Type = 2
	int8Type  = 3
	int32Type = 6
	int64Type = 7
)

// modelOpsetImport is ModelProto.opset_import; opsetDomain and
// opsetVersion are OperatorSetIdProto's fields.
const (
	modelOpsetImport = 8
	opsetDomain      = 1
	opsetVersion     = 2
)

// qconv is a convolution quantizeModel makes QLinearConv.
type qconv struct {
	conv, hs, mul *onnxNode   // the convolution and its hard-swish (HardSigmoid, Mul)
	in            string      // the float tensor quantised as its input
	shift         float32     // what the offset convolution adds to in (0 without one)
	offset        *onnxNode   // the offset convolution, or nil
	w, b          *onnxTensor // weights and bias (b nil without one)
}

// quantMinChannels is the fewest output channels of a convolution
// quantPlan rewrites. PPLCNetV3's first stages (16 to 64 channels, at
// the highest resolution) lost the most to int8 and gain the least
// (their sums are short): kept in float, the recogniser's output moved
// a third less from the float model's on drawn lines, for about 5 % more
// of its CPU time.
const quantMinChannels = 128

// actRange is a tensor's range of values as calibrate measured it.
type actRange struct{ lo, hi float32 }

// quantPlan finds the convolutions quantizeModel rewrites: a Conv of
// float rank-4 weights, of minChannels output channels at least, whose
// output only a hard-swish reads (HardSigmoid and Mul, as fuseHardSwish
// leaves it).
func (g *fuseGraph) quantPlan(minChannels int) []qconv {
	producer := map[string]*onnxNode{}
	for _, n := range g.nodes {
		if n.removed {
			continue
		}
		for _, o := range n.out {
			producer[o] = n
		}
	}
	var plan []qconv
	for _, n := range g.nodes {
		if n.removed || n.op != "Conv" || n.domain != "" || len(n.in) < 2 || n.in[0] == "" || len(n.out) != 1 {
			continue
		}
		w, b, ok := g.convWeights(n)
		if !ok || len(w.dims) != 4 || w.dims[0] < int64(minChannels) {
			continue
		}
		hs, mul := g.hardSwishReads(n.out[0])
		if hs == nil {
			continue
		}
		if g.inputs[n.in[0]] {
			continue // the image: left in float
		}
		q := qconv{conv: n, hs: hs, mul: mul, in: n.in[0], w: w, b: b}
		if p := producer[n.in[0]]; p != nil && g.only(p.out[0]) == n {
			if c, ok := g.offsetConv(p); ok {
				q.in, q.shift, q.offset = p.in[0], c, p
			}
		}
		plan = append(plan, q)
	}
	return plan
}

// hardSwishReads returns the hard-swish (HardSigmoid hs of y, then Mul
// of y and hs, as fuseHardSwish writes it: α = 1/6, β = ½) that alone
// reads y, or nils.
func (g *fuseGraph) hardSwishReads(y string) (hs, mul *onnxNode) {
	if g.outputs[y] {
		return nil, nil
	}
	for _, u := range g.users[y] {
		switch {
		case u.removed:
		case u.op == "HardSigmoid" && u.domain == "" && hs == nil:
			hs = u
		case u.op == "Mul" && u.domain == "" && mul == nil:
			mul = u
		default:
			return nil, nil
		}
	}
	if hs == nil || mul == nil || len(hs.in) != 1 || len(hs.out) != 1 || len(mul.in) != 2 || len(mul.out) != 1 || g.outputs[hs.out[0]] || g.only(hs.out[0]) != mul {
		return nil, nil
	}
	a, ok1 := attrFloatValue(hs.attr("alpha"))
	b, ok2 := attrFloatValue(hs.attr("beta"))
	if !ok1 || !ok2 || math.Abs(float64(a)-1.0/6) > 1e-6 || math.Abs(float64(b)-0.5) > 1e-6 {
		return nil, nil
	}
	if mul.in[0] == y && mul.in[1] == hs.out[0] || mul.in[1] == y && mul.in[0] == hs.out[0] {
		return hs, mul
	}
	return nil, nil
}

// offsetConv returns c for a convolution that adds c to every value (a
// 1×1 convolution of one weight 1 a channel and a bias of c in every
// channel, as foldAffineConv makes).
func (g *fuseGraph) offsetConv(n *onnxNode) (float32, bool) {
	if n.op != "Conv" || n.domain != "" || len(n.in) != 3 || len(n.out) != 1 {
		return 0, false
	}
	w, b := g.consts[n.in[1]], g.consts[n.in[2]]
	if w == nil || b == nil || w.f == nil || b.f == nil || len(w.dims) != 4 || w.dims[1] != 1 || w.dims[2] != 1 || w.dims[3] != 1 {
		return 0, false
	}
	if n.intAttr("group", 1) != w.dims[0] || len(b.f) != int(w.dims[0]) || len(b.f) == 0 || !zeroPads(n) {
		return 0, false
	}
	for _, v := range n.attr("strides") {
		if v.num == attrInts && v.v != 1 {
			return 0, false
		}
	}
	for i, v := range w.f {
		if v != 1 || b.f[i] != b.f[0] {
			return 0, false
		}
	}
	return b.f[0], true
}

// calibrationTensors returns the float tensors whose ranges quantizeModel
// needs for plan: each convolution's quantised input, its output and its
// hard-swish's.
func calibrationTensors(plan []qconv) []string {
	var names []string
	seen := map[string]bool{}
	for _, q := range plan {
		for _, s := range []string{q.in, q.conv.out[0], q.mul.out[0]} {
			if !seen[s] {
				seen[s] = true
				names = append(names, s)
			}
		}
	}
	return names
}

// withOutputs returns the model with the float tensors names as outputs
// too (after its own), for calibrate to read.
func withOutputs(data []byte, names []string) ([]byte, error) {
	top, err := readFields(data)
	if err != nil {
		return nil, fmt.Errorf("reading the model: %w", err)
	}
	var out []byte
	found := false
	for _, f := range top {
		if f.num != modelGraph || f.typ != protowire.BytesType {
			out = append(out, f.raw...)
			continue
		}
		found = true
		gb := append([]byte(nil), f.val...)
		for _, name := range names {
			// ValueInfoProto{name, type: TypeProto{tensor_type: {elem_type: FLOAT}}}
			var tt, tp, vi []byte
			tt = protowire.AppendTag(tt, 1, protowire.VarintType)
			tt = protowire.AppendVarint(tt, float32Type)
			tp = appendBytes(tp, 1, tt)
			vi = appendString(vi, valueInfoName, name)
			vi = appendBytes(vi, 2, tp)
			gb = appendBytes(gb, graphOutput, vi)
		}
		out = appendBytes(out, modelGraph, gb)
	}
	if !found {
		return nil, errors.New("the model has no graph")
	}
	return out, nil
}

// quantParams returns the uint8 scale and zero point of a range, which
// is widened to hold 0.
func quantParams(r actRange) (scale float32, zero int) {
	lo, hi := min(r.lo, 0), max(r.hi, 0)
	if hi-lo < 1e-6 {
		hi = lo + 1e-6
	}
	scale = (hi - lo) / 255
	zero = int(math.Round(float64(-lo / scale)))
	return scale, min(max(zero, 0), 255)
}

// shiftedParams returns the scale and the two zero points of a tensor x
// read as x + c: x is quantised with zero xZero and read back with zero
// yZero, so that the steps between them are c (the scale is the one
// for x + c's range, made a little coarser so that c is a whole number
// of steps).
func shiftedParams(r actRange, c float32) (scale float32, xZero, yZero int, ok bool) {
	lo, hi := min(r.lo+c, 0), max(r.hi+c, 0)
	if hi-lo < 1e-6 {
		return 0, 0, 0, false
	}
	scale = (hi - lo) / 255
	k := math.Trunc(float64(c / scale)) // toward 0: a coarser scale, the range still held
	if k == 0 {
		return 0, 0, 0, false
	}
	scale = c / float32(k)
	yZero = int(math.Round(float64(-lo / scale)))
	xZero = yZero + int(k)
	if yZero < 0 || yZero > 255 || xZero < 0 || xZero > 255 {
		return 0, 0, 0, false
	}
	return scale, xZero, yZero, true
}

// quantStats counts what quantizeModel changed.
type quantStats struct {
	convs, offsets int
}

// hardSigmoidZero and hardSigmoidScale quantise the hard-swish's
// clip(y, -3, 3): QLinearLeakyRelu of α 1 gives y in 255 steps of 3/127
// from -3·128/127 to 3 (zero point 128). QLinearMul reads the same
// values with scale 1/127·½ and zero point 1, that is as (y + 3) / 6:
// the hard sigmoid, exact at 1 and above 3, and at most 0.004 below 0
// under -3 (where the float hard-swish gives 0).
const (
	hardSigmoidZero    = 128
	hardSigmoidMulZero = hardSigmoidZero - 127
)

// quantizeModel rewrites the convolutions quantPlan finds in a model
// (fuseModel's output), with their hard-swishes, into 8-bit operators
// with the activation ranges calibrate measured: Conv into QLinearConv
// (uint8 activations, int8 weights of bits bits (8: ±127, 7: ±63) with a
// scale an output channel, int32 bias), HardSigmoid into com.microsoft's
// QLinearAdd (a clip, see hardSigmoidZero) and Mul into QLinearMul, so that one
// convolution's uint8 output goes to the next without float between
// them. A tensor float operators read too is dequantised for them. It
// returns an error where the model is not one it can rewrite (no such
// convolution, an operator set before 9, a range missing, bits other
// than 7 or 8).
func quantizeModel(data []byte, ranges map[string]actRange, minChannels, bits int) ([]byte, quantStats, error) {
	if bits != 7 && bits != 8 {
		return nil, quantStats{}, fmt.Errorf("weights of %d bits: want 7 or 8", bits)
	}
	wmax := float32(int(1)<<(bits-1) - 1)
	g, m, err := readGraph(data)
	if err != nil {
		return nil, quantStats{}, err
	}
	if g == nil {
		return nil, quantStats{}, errors.New("the model is not one the rewrite reads")
	}
	plan := g.quantPlan(minChannels)
	if len(plan) == 0 {
		return nil, quantStats{}, errors.New("no convolution followed by a hard-swish")
	}
	for _, q := range plan {
		for _, s := range []string{q.in, q.conv.out[0], q.mul.out[0]} {
			if _, ok := ranges[s]; !ok {
				return nil, quantStats{}, fmt.Errorf("no range for %q", s)
			}
		}
	}
	if err := m.useOpset11(g); err != nil {
		return nil, quantStats{}, err
	}
	m.useMicrosoftOps()
	ranges = maps.Clone(ranges)
	type qparams struct {
		q              string // the uint8 tensor
		scale          float32
		zero, readZero int // zero point written, and the one the convolution reads with
	}
	// Each hard-swish output's scale and zero point: where a planned
	// convolution reads it through an offset, chosen with the offset.
	readers := map[string]*qconv{}
	count := map[string]int{}
	for i := range plan {
		readers[plan[i].in] = &plan[i]
		count[plan[i].in]++
	}
	for i := range plan {
		if q := &plan[i]; q.offset != nil && count[q.in] > 1 {
			// Another convolution reads the same tensor: one zero
			// point cannot serve both, so the offset stays.
			ranges[q.conv.in[0]] = actRange{ranges[q.in].lo + q.shift, ranges[q.in].hi + q.shift}
			q.offset, q.in = nil, q.conv.in[0]
		}
	}
	swish := map[string]qparams{}
	for _, q := range plan {
		h := q.mul.out[0]
		p := qparams{q: g.newName(h, "u8")}
		p.scale, p.zero = quantParams(ranges[h])
		p.readZero = p.zero
		if r := readers[h]; r != nil && r.offset != nil {
			if s, xz, yz, ok := shiftedParams(ranges[h], r.shift); ok {
				p.scale, p.zero, p.readZero = s, xz, yz
			} else {
				// The offset stays, in float: the convolution reads its
				// output, whose range is h's moved by the offset.
				ranges[r.conv.in[0]] = actRange{ranges[h].lo + r.shift, ranges[h].hi + r.shift}
				r.offset, r.in = nil, r.conv.in[0]
			}
		}
		swish[h] = p
	}
	var st quantStats
	for _, q := range plan {
		// The input: a hard-swish's uint8 output, or quantised here.
		var xq string
		var sx float32
		var readZero int
		if p, ok := swish[q.in]; ok && (q.offset != nil || q.conv.in[0] == q.in) {
			xq, sx, readZero = p.q, p.scale, p.readZero
			if q.offset != nil {
				q.offset.removed = true
				st.offsets++
			}
		} else {
			in := q.conv.in[0]
			r := ranges[q.in]
			if q.offset != nil {
				r = actRange{r.lo + q.shift, r.hi + q.shift}
			}
			var zero int
			sx, zero = quantParams(r)
			readZero = zero
			xq = g.newName(in, "u8")
			g.node("QuantizeLinear", "", nil, []string{in, g.scalarF(sx), g.scalarU8(zero)}, xq)
		}
		// Only the hard-swish reads y, and it is 0 for every y under -3:
		// the range starts at -3 at the lowest (finer steps; lower
		// values saturate to -3, which the hard-swish makes 0 as well).
		yr := ranges[q.conv.out[0]]
		yr.lo = max(yr.lo, -3)
		sy, yZero := quantParams(yr)
		outC := int(q.w.dims[0])
		per := len(q.w.f) / outC
		wq := make([]byte, len(q.w.f))
		ws := make([]float32, outC)
		bq := make([]int32, outC)
		for o := range outC {
			mx := float32(0)
			for _, v := range q.w.f[o*per : (o+1)*per] {
				mx = max(mx, float32(math.Abs(float64(v))))
			}
			if mx == 0 {
				mx = 1
			}
			ws[o] = mx / wmax
			for i, v := range q.w.f[o*per : (o+1)*per] {
				wq[o*per+i] = byte(int8(min(max(math.Round(float64(v/ws[o])), -float64(wmax)), float64(wmax))))
			}
			if q.b != nil {
				bq[o] = int32(math.Round(float64(q.b.f[o]) / (float64(sx) * float64(ws[o]))))
			}
		}
		wName := g.newConst(q.conv.in[1]+".int8", q.w.dims, int8Type, wq)
		wsName := g.newConst(q.conv.in[1]+".scale", []int64{int64(outC)}, float32Type, f32Bytes(ws))
		wzName := g.newConst(q.conv.in[1]+".zero", []int64{int64(outC)}, int8Type, make([]byte, outC))
		bName := g.newConst(q.conv.in[1]+".bias32", []int64{int64(outC)}, int32Type, i32Bytes(bq))
		yq := g.newName(q.conv.out[0], "u8")
		q.conv.op = "QLinearConv"
		q.conv.in = []string{xq, g.scalarF(sx), g.scalarU8(readZero), wName, wsName, wzName, g.scalarF(sy), g.scalarU8(yZero), bName}
		q.conv.out = []string{yq}
		syName, yzName := g.scalarF(sy), g.scalarU8(yZero)
		// The hard-swish: clip(y, -3, 3) as a uint8 tensor, then y times
		// it read as (clip + 3) / 6.
		cq := g.newName(q.hs.out[0], "u8")
		q.hs.op, q.hs.domain = "QLinearAdd", "com.microsoft"
		q.hs.in = []string{yq, syName, yzName, yq, g.scalarF(0x1p-40), yzName, g.scalarF(3.0 / 127), g.scalarU8(hardSigmoidZero)}
		q.hs.out = []string{cq}
		q.hs.attrs = nil
		h := q.mul.out[0]
		p := swish[h]
		q.mul.op, q.mul.domain = "QLinearMul", "com.microsoft"
		q.mul.in = []string{yq, syName, yzName, cq, g.scalarF(1.0 / 127 / 2), g.scalarU8(hardSigmoidMulZero), g.scalarF(p.scale), g.scalarU8(p.zero)}
		q.mul.out = []string{p.q}
		st.convs++
	}
	// Float readers of a hard-swish's output read it dequantised.
	for h, p := range swish {
		float := g.outputs[h]
		for _, u := range g.users[h] {
			if !u.removed && u.op != "QLinearConv" {
				float = true
			}
		}
		if float {
			g.node("DequantizeLinear", "", nil, []string{p.q, g.scalarF(p.scale), g.scalarU8(p.zero)}, h)
		}
	}
	// Nodes in an order ONNX accepts: each after what it reads.
	g.sortNodes()
	return g.encodeModel(m), st, nil
}

// sameIn9To11 are the operators that mean the same in the default
// operator sets 9, 10 and 11 (set 11 only allows more, such as negative
// axes), besides Slice, which useOpset11 rewrites.
var sameIn9To11 = map[string]bool{
	"Abs": true, "Add": true, "AveragePool": true, "BatchNormalization": true, "Cast": true, "Concat": true,
	"Conv": true, "Div": true, "Exp": true, "Flatten": true, "Gather": true, "GlobalAveragePool": true,
	"HardSigmoid": true, "Identity": true, "LeakyRelu": true, "Log": true, "MatMul": true, "Mul": true,
	"Neg": true, "Pow": true, "ReduceMax": true, "ReduceMean": true, "ReduceSum": true, "Relu": true,
	"Reshape": true, "Shape": true, "Sigmoid": true, "Slice": true, "Softmax": true, "Sqrt": true,
	"Squeeze": true, "Sub": true, "Tanh": true, "Transpose": true, "Unsqueeze": true,
}

// useOpset11 moves a model of the default operator set 9 or 10 to 11,
// where QLinearConv, QuantizeLinear and DequantizeLinear are, and Round,
// which ONNX Runtime's own rewrites of quantised graphs add: Slice's
// starts, ends and axes (attributes in set 9) become inputs. A model of
// an operator that set 11 changed otherwise is refused, as is one before
// set 9; one of set 11 or later is left as it is.
func (m *modelFile) useOpset11(g *fuseGraph) error {
	for i, f := range m.top {
		if f.num != modelOpsetImport || f.typ != protowire.BytesType {
			continue
		}
		fs, err := readFields(f.val)
		if err != nil {
			return fmt.Errorf("reading the operator sets: %w", err)
		}
		domain, version := "", uint64(0)
		for _, x := range fs {
			switch x.num {
			case opsetDomain:
				domain = string(x.val)
			case opsetVersion:
				version = x.v
			}
		}
		if domain != "" && domain != "ai.onnx" {
			continue
		}
		switch {
		case version >= 11:
			return nil
		case version < 9:
			return fmt.Errorf("operator set %d: the rewrite reads sets 9 and later", version)
		}
		for _, n := range g.nodes {
			if !n.removed && n.domain == "" && !sameIn9To11[n.op] {
				return fmt.Errorf("operator %s of set %d: set 11 changed it", n.op, version)
			}
		}
		for _, n := range g.nodes {
			if n.removed || n.op != "Slice" || n.domain != "" || version != 9 {
				continue
			}
			var starts, ends, axes []int64
			for _, a := range n.attrs {
				afs, err := readFields(a)
				if err != nil {
					return err
				}
				var name string
				var ints []int64
				for _, x := range afs {
					switch {
					case x.num == attrName:
						name = string(x.val)
					case x.num == attrInts && x.typ == protowire.VarintType:
						ints = append(ints, int64(x.v))
					case x.num == attrInts && x.typ == protowire.BytesType:
						for v := x.val; len(v) > 0; {
							d, k := protowire.ConsumeVarint(v)
							if k < 0 {
								return protowire.ParseError(k)
							}
							ints = append(ints, int64(d))
							v = v[k:]
						}
					}
				}
				switch name {
				case "starts":
					starts = ints
				case "ends":
					ends = ints
				case "axes":
					axes = ints
				}
			}
			if starts == nil || ends == nil || len(starts) != len(ends) {
				return errors.New("a Slice of set 9 without starts and ends")
			}
			n.attrs = nil
			n.in = append(n.in[:1], g.newConst(n.out[0]+".starts", []int64{int64(len(starts))}, int64Type, i64Bytes(starts)),
				g.newConst(n.out[0]+".ends", []int64{int64(len(ends))}, int64Type, i64Bytes(ends)))
			if axes != nil {
				n.in = append(n.in, g.newConst(n.out[0]+".axes", []int64{int64(len(axes))}, int64Type, i64Bytes(axes)))
			}
		}
		var b []byte
		b = appendString(b, opsetDomain, domain)
		b = protowire.AppendTag(b, opsetVersion, protowire.VarintType)
		b = protowire.AppendVarint(b, 11)
		var raw []byte
		m.top[i] = fields{num: f.num, typ: f.typ, val: b, raw: appendBytes(raw, modelOpsetImport, b)}
		return nil
	}
	return errors.New("the model names no operator set")
}

// newName returns a name no tensor has, from base.
func (g *fuseGraph) newName(base, what string) string {
	g.newNames++
	return fmt.Sprintf("%s.gochunk_%s_%d", base, what, g.newNames)
}

// node adds a node.
func (g *fuseGraph) node(op, domain string, attrs [][]byte, in []string, out string) {
	n := &onnxNode{op: op, domain: domain, attrs: attrs, in: in, out: []string{out}}
	g.nodes = append(g.nodes, n)
	for _, s := range in {
		g.users[s] = append(g.users[s], n)
	}
}

// newConst adds an initializer of raw little-endian values.
func (g *fuseGraph) newConst(base string, dims []int64, dtype uint64, raw []byte) string {
	name := g.newName(base, "q")
	var b []byte
	for _, d := range dims {
		b = protowire.AppendTag(b, tensorDims, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(d))
	}
	b = protowire.AppendTag(b, tensorDataType, protowire.VarintType)
	b = protowire.AppendVarint(b, dtype)
	b = appendBytes(b, tensorRaw, raw)
	g.consts[name] = &onnxTensor{name: name, dims: dims, dtype: dtype, other: b}
	g.order = append(g.order, name)
	return name
}

func (g *fuseGraph) scalarF(v float32) string {
	return g.newConst("scale", nil, float32Type, f32Bytes([]float32{v}))
}

func (g *fuseGraph) scalarU8(v int) string {
	return g.newConst("zero", nil, uint8Type, []byte{byte(v)})
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func i32Bytes(v []int32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func i64Bytes(v []int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// sortNodes orders the graph's nodes so that each comes after the nodes
// whose outputs it reads (a stable topological order).
func (g *fuseGraph) sortNodes() {
	producer := map[string]int{}
	for i, n := range g.nodes {
		for _, o := range n.out {
			producer[o] = i
		}
	}
	done := make([]bool, len(g.nodes))
	var out []*onnxNode
	var visit func(i int)
	visit = func(i int) {
		if done[i] {
			return
		}
		done[i] = true
		for _, in := range g.nodes[i].in {
			if p, ok := producer[in]; ok && !g.nodes[p].removed {
				visit(p)
			}
		}
		out = append(out, g.nodes[i])
	}
	for i := range g.nodes {
		visit(i)
	}
	g.nodes = out
}

// useMicrosoftOps adds ONNX Runtime's com.microsoft operator set (version
// 1) to the model's, where it is not there.
func (m *modelFile) useMicrosoftOps() {
	for _, f := range m.top {
		if f.num != modelOpsetImport || f.typ != protowire.BytesType {
			continue
		}
		fs, _ := readFields(f.val)
		for _, x := range fs {
			if x.num == opsetDomain && string(x.val) == "com.microsoft" {
				return
			}
		}
	}
	var b []byte
	b = appendString(b, opsetDomain, "com.microsoft")
	b = protowire.AppendTag(b, opsetVersion, protowire.VarintType)
	b = protowire.AppendVarint(b, 1)
	raw := appendBytes(nil, modelOpsetImport, b)
	// After the last field before the graph's number... ONNX reads the
	// fields in any order: appended last.
	m.top = append(m.top, fields{num: modelOpsetImport, typ: protowire.BytesType, val: b, raw: raw})
}
