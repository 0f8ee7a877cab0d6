package store

import (
	"encoding/binary"
	"math"
)

// Stored vectors. The SQLite store keeps a chunk's vector as float16
// (IEEE 754 half precision, little-endian) after a one-byte tag,
// half16Tag, so a blob of 1+2·d bytes: half the float32 blob earlier
// versions wrote (4·d bytes), which it still reads. The lengths cannot be
// confused: the new blob's length is odd, the old one's a multiple of 4.
// float16 keeps 11 significant bits: the cosine of two unit vectors moves
// by about 1e-4 at most, well under the gaps between neighbours' scores,
// so the exact scan over float16 ranks as the float32 one did. A sparse
// vector (the lexical embedder's have a median of 16 nonzero dimensions
// of 1,024) is kept as its nonzero components instead, when that is
// shorter: tag half16Sparse, the dimension (uint32), then a uint16
// dimension and a float16 per component: 5+4·n bytes (69 for 16, against
// 2,049 dense), also of odd length.
//
// The IVF index (ivf.go, ivf_blocks.go) scans shorter codes: each vector
// normalised to unit length, then quantised to int8 with one scale per
// vector, x ≈ scale·c[i], scale = max|x|/127 (quantise), kept in blocks
// of a list's codes. Its candidates are re-scored on the float16 vectors.
const (
	half16Tag    = 0x01
	half16Sparse = 0x02
)

// encodeVector returns the stored form of v (nil for nil).
func encodeVector(v []float32) []byte {
	if v == nil {
		return nil
	}
	nonzero := 0
	for _, x := range v {
		if toHalf(x)&0x7fff != 0 {
			nonzero++
		}
	}
	if 5+4*nonzero < 1+2*len(v) && len(v) <= 1<<16 {
		b := make([]byte, 5, 5+4*nonzero)
		b[0] = half16Sparse
		binary.LittleEndian.PutUint32(b[1:], uint32(len(v)))
		for i, x := range v {
			if h := toHalf(x); h&0x7fff != 0 {
				b = binary.LittleEndian.AppendUint16(b, uint16(i))
				b = binary.LittleEndian.AppendUint16(b, h)
			}
		}
		return b
	}
	b := make([]byte, 1+2*len(v))
	b[0] = half16Tag
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[1+2*i:], toHalf(x))
	}
	return b
}

// decodeVector reads a stored vector of either encoding into dst's
// memory (reused when long enough).
func decodeVector(dst []float32, b []byte) []float32 {
	if len(b)%2 == 1 && b[0] == half16Sparse && len(b) >= 5 {
		dst = grow(dst, int(binary.LittleEndian.Uint32(b[1:])))
		clear(dst)
		for k := 5; k+4 <= len(b); k += 4 {
			if i := int(binary.LittleEndian.Uint16(b[k:])); i < len(dst) {
				dst[i] = fromHalf(binary.LittleEndian.Uint16(b[k+2:]))
			}
		}
		return dst
	}
	if len(b)%2 == 1 && b[0] == half16Tag {
		n := (len(b) - 1) / 2
		dst = grow(dst, n)
		for i := range n {
			dst[i] = fromHalf(binary.LittleEndian.Uint16(b[1+2*i:]))
		}
		return dst
	}
	n := len(b) / 4
	dst = grow(dst, n)
	for i := range n {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

// vectorDims returns the dimension of a stored vector.
func vectorDims(b []byte) int {
	if len(b)%2 == 1 && b[0] == half16Sparse && len(b) >= 5 {
		return int(binary.LittleEndian.Uint32(b[1:]))
	}
	if len(b)%2 == 1 && b[0] == half16Tag {
		return (len(b) - 1) / 2
	}
	return len(b) / 4
}

func grow(dst []float32, n int) []float32 {
	if cap(dst) < n {
		return make([]float32, n)
	}
	return dst[:n]
}

// toHalf rounds a float32 to the nearest float16 (ties to even),
// overflowing to infinity and keeping NaN a NaN.
func toHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23) & 0xff
	mant := bits & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // too large
		return sign | 0x7c00
	case exp-127 >= -14: // normal
		h := uint32(exp-127+15)<<10 | mant>>13
		round := mant & 0x1fff
		if round > 0x1000 || (round == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, up to infinity: still right
		}
		return sign | uint16(h)
	case exp-127 >= -25: // subnormal
		m := mant | 0x800000
		shift := uint(-(exp - 127) - 14 + 13)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	return sign
}

// fromHalf widens a float16 to float32 (exactly).
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// query is a unit query vector, dense and sparse.
type query struct {
	dense []float32
	sparse
}

func newQuery(v []float32) query {
	u := unit(v)
	return query{dense: u, sparse: sparseOf(u)}
}

// sparse is a vector's nonzero components, for dot products that cost
// what they have (the lexical embedder's vectors have a few dozen of
// 1,024).
type sparse struct {
	idx []int32
	val []float32
}

// sparseOf returns v's nonzero components.
func sparseOf(v []float32) sparse {
	var s sparse
	for i, x := range v {
		if x != 0 {
			s.idx = append(s.idx, int32(i))
			s.val = append(s.val, x)
		}
	}
	return s
}

// dot returns q·v for a dense v.
func (q sparse) dot(v []float32) float32 {
	var dot float32
	for j, i := range q.idx {
		dot += q.val[j] * v[i]
	}
	return dot
}

// unit returns v scaled to unit length (a copy; v itself when zero).
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}
