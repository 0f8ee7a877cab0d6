package layout

import (
	"bytes"
	"strconv"
)

// The cross-reference sections say which definition of an object PDFium
// reads when a file defines it more than once (incremental updates, or a
// file made to mislead a scan): the scan takes them where they can be
// read, and the "N G obj" headers where they cannot, as PDFium repairs.

// xref is what a file's cross-reference sections say, newest first.
type xref struct {
	offsets map[int]int    // object -> offset of its "N G obj"
	packed  map[int][2]int // object -> its object stream and index there
	trailer map[string]any // the newest trailer (or xref stream) dictionary
}

// readXref reads the sections from the last startxref back along /Prev
// (and /XRefStm); nil when any cannot be read.
func (s *pdfScan) readXref() *xref {
	b := s.data
	i := bytes.LastIndex(b, []byte("startxref"))
	if i < 0 {
		return nil
	}
	off, ok := s.lexer(b, i+9).value(0).(int64)
	if !ok {
		return nil
	}
	x := &xref{offsets: map[int]int{}, packed: map[int][2]int{}}
	seen := map[int64]bool{}
	queue := []int64{off}
	for len(queue) > 0 && len(seen) < 64 {
		off := queue[0]
		queue = queue[1:]
		if off <= 0 || off >= int64(len(b)) || seen[off] {
			if seen[off] {
				continue
			}
			return nil
		}
		seen[off] = true
		var d map[string]any
		j := int(off)
		for j < len(b) && isPDFWhite(b[j]) {
			j++
		}
		if bytes.HasPrefix(b[j:], []byte("xref")) {
			d = s.xrefTable(x, j+4)
		} else {
			d = s.xrefStream(x, j)
		}
		if d == nil {
			return nil
		}
		if x.trailer == nil {
			x.trailer = d
		}
		// A hybrid file's stream is read before the older sections.
		if o, ok := s.resolve(d["XRefStm"]).(int64); ok {
			queue = append([]int64{o}, queue...)
		}
		if o, ok := s.resolve(d["Prev"]).(int64); ok {
			queue = append(queue, o)
		}
	}
	return x
}

// set records an entry unless a newer section did.
func (x *xref) set(n int, off int, stream, index int) {
	if _, ok := x.offsets[n]; ok {
		return
	}
	if _, ok := x.packed[n]; ok {
		return
	}
	if stream > 0 {
		x.packed[n] = [2]int{stream, index}
	} else if off >= 0 {
		x.offsets[n] = off
	} else {
		x.offsets[n] = -1 // free: older sections do not bring it back
	}
}

// xrefTable reads a table's subsections from i (after "xref") and returns
// its trailer, or nil.
func (s *pdfScan) xrefTable(x *xref, i int) map[string]any {
	b := s.data
	word := func() string {
		for i < len(b) && isPDFWhite(b[i]) {
			i++
		}
		j := i
		for j < len(b) && !isPDFWhite(b[j]) && !isPDFDelim(b[j]) {
			j++
		}
		w := string(b[i:j])
		i = j
		return w
	}
	for range 1 << 16 {
		save := i
		w := word()
		if w == "trailer" {
			d, _ := s.lexer(b, i).value(0).(map[string]any)
			return d
		}
		start, err1 := strconv.Atoi(w)
		count, err2 := strconv.Atoi(word())
		if err1 != nil || err2 != nil || start < 0 || count < 0 || count > scanMaxObjects || save == i {
			return nil
		}
		for k := range count {
			o, err1 := strconv.Atoi(word())
			_, err2 := strconv.Atoi(word())
			kind := word()
			if err1 != nil || err2 != nil || (kind != "n" && kind != "f") {
				return nil
			}
			if kind == "f" {
				o = -1
			}
			x.set(start+k, o, 0, 0)
		}
		if len(x.offsets) > scanMaxObjects {
			return nil
		}
	}
	return nil
}

// xrefStream reads a cross-reference stream at i and returns its
// dictionary, or nil.
func (s *pdfScan) xrefStream(x *xref, i int) map[string]any {
	_, body, ok := s.header(i)
	if !ok {
		return nil
	}
	d, raw, ok := s.rawStreamAt(body)
	if !ok || d["Type"] != pdfName("XRef") {
		return nil
	}
	data, err := s.decode(d, raw, min(s.budget, scanObjStm))
	if err != nil {
		return nil
	}
	s.budget -= int64(len(data))
	if p := s.dict(d["DecodeParms"]); p != nil {
		pred, _ := s.resolve(p["Predictor"]).(int64)
		cols, _ := s.resolve(p["Columns"]).(int64)
		if pred >= 10 {
			if data = unpredictPNG(data, int(max(cols, 1))); data == nil {
				return nil
			}
		} else if pred > 1 {
			return nil
		}
	}
	var w [3]int
	ws, _ := s.resolve(d["W"]).([]any)
	if len(ws) != 3 {
		return nil
	}
	for k, v := range ws {
		n, ok := s.resolve(v).(int64)
		if !ok || n < 0 || n > 8 {
			return nil
		}
		w[k] = int(n)
	}
	row := w[0] + w[1] + w[2]
	if row == 0 {
		return nil
	}
	size, _ := s.resolve(d["Size"]).(int64)
	index := []any{int64(0), size}
	if ix, ok := s.resolve(d["Index"]).([]any); ok {
		index = ix
	}
	field := func(p []byte, def int) int {
		if len(p) == 0 {
			return def
		}
		v := 0
		for _, c := range p {
			v = v<<8 | int(c)
		}
		return v
	}
	pos := 0
	for k := 0; k+1 < len(index); k += 2 {
		start, ok1 := s.resolve(index[k]).(int64)
		count, ok2 := s.resolve(index[k+1]).(int64)
		if !ok1 || !ok2 || start < 0 || count < 0 || count > scanMaxObjects {
			return nil
		}
		for n := range int(count) {
			if pos+row > len(data) {
				return d // a short stream: what it holds
			}
			e := data[pos : pos+row]
			pos += row
			typ := field(e[:w[0]], 1)
			f2, f3 := field(e[w[0]:w[0]+w[1]], 0), field(e[w[0]+w[1]:], 0)
			switch typ {
			case 0:
				x.set(int(start)+n, -1, 0, 0)
			case 1:
				x.set(int(start)+n, f2, 0, 0)
			case 2:
				x.set(int(start)+n, 0, f2, f3)
			}
		}
		if len(x.offsets)+len(x.packed) > scanMaxObjects {
			return nil
		}
	}
	return d
}

// unpredictPNG undoes PNG predictors on rows of cols bytes (one byte a
// pixel, as cross-reference streams have them), or returns nil.
func unpredictPNG(data []byte, cols int) []byte {
	if len(data)%(cols+1) != 0 {
		return nil
	}
	out := make([]byte, 0, len(data)/(cols+1)*cols)
	prev := make([]byte, cols)
	for r := 0; r < len(data); r += cols + 1 {
		f, row := data[r], data[r+1:r+1+cols]
		cur := make([]byte, cols)
		for k := range cols {
			var left, upLeft byte
			if k > 0 {
				left, upLeft = cur[k-1], prev[k-1]
			}
			up := prev[k]
			switch f {
			case 0:
				cur[k] = row[k]
			case 1:
				cur[k] = row[k] + left
			case 2:
				cur[k] = row[k] + up
			case 3:
				cur[k] = row[k] + byte((int(left)+int(up))/2)
			case 4:
				cur[k] = row[k] + paeth(left, up, upLeft)
			default:
				return nil
			}
		}
		out = append(out, cur...)
		prev = cur
	}
	return out
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// header reads "N G obj" at i (after white space) and returns N and the
// offset of the object's body.
func (s *pdfScan) header(i int) (int, int, bool) {
	b := s.data
	num := func() (int, bool) {
		for i < len(b) && isPDFWhite(b[i]) {
			i++
		}
		j := i
		for j < len(b) && isDigit(b[j]) && j-i < 10 {
			j++
		}
		if j == i {
			return 0, false
		}
		n, err := strconv.Atoi(string(b[i:j]))
		i = j
		return n, err == nil
	}
	n, ok1 := num()
	_, ok2 := num()
	for i < len(b) && isPDFWhite(b[i]) {
		i++
	}
	if !ok1 || !ok2 || !bytes.HasPrefix(b[i:], []byte("obj")) {
		return 0, 0, false
	}
	return n, i + 3, true
}
