package layout

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// The scan below reads a PDF's objects in Go, before PDFium does, to
// learn what each page will draw: its content streams, inflated, and the
// form XObjects it draws, each counted as often as it is drawn and as
// deep as it nests. It is tolerant (a file PDFium repairs is scanned the
// same way: objects found by their "N G obj" headers, the last of a
// number winning) and bounded (inflating stops past the bound being
// checked), and an estimate: a PDF it cannot follow is left to PDFium and
// the memory bound.

// pageCost is what a page draws.
type pageCost struct {
	content int64 // bytes of content, forms included as drawn
	text    int64 // bytes of the strings it shows, forms included
	forms   int64 // forms drawn
	depth   int   // forms within forms
}

// pdfScan is a PDF's objects, found in its bytes.
type pdfScan struct {
	data    []byte
	objs    map[int]int       // object number -> offset of its body
	packed  map[int]packedObj // objects in object streams
	streams map[int][]byte    // object streams, inflated
	values  map[int]any       // parsed objects
	forms   map[int]*formCost // form XObjects by object number
	busy    map[int]bool      // objects being resolved or costed (loops)
	limit   int64             // bytes inflated at most per stream
	trailer map[string]any    // the last trailer dictionary
	pages   []map[string]any  // pages in order, with inherited /Resources
	res     []map[string]any  // each page's resources
	budget  int64             // bytes of object streams still to inflate
	nest    int               // forms being costed, one within another
	buf     []byte            // for decodedSize
	z       io.ReadCloser     // decodedSize's inflater, reset for each stream
	left    int               // values the lexer may still read
	work    int64             // bytes the lexer and searches may still read
}

type packedObj struct{ stream, offset int }

type formCost struct{ pageCost }

// pdfName is a PDF name without its slash.
type pdfName string

// pdfRef is an indirect reference "N G R".
type pdfRef int

const (
	scanMaxStream = 1 << 30 // inflation stops here whatever the bounds
	scanObjStm    = 64 << 20
	scanMaxNest   = 64 // forms within forms followed at most
	// The scan's own memory is bounded, whatever the file: it reads
	// 2 million values (about 80 MB) and finds 2 million objects at
	// most, and gives up past them (PDFium reads such a PDF under the
	// memory bound alone).
	scanMaxValues  = 2_000_000
	scanMaxObjects = 2_000_000
)

// scanPDF finds a PDF's objects and pages; inflating any one stream stops
// past limit bytes.
func scanPDF(data []byte, limit int64) *pdfScan {
	s := &pdfScan{data: data, objs: map[int]int{}, packed: map[int]packedObj{}, streams: map[int][]byte{},
		values: map[int]any{}, forms: map[int]*formCost{}, busy: map[int]bool{}, limit: min(limit, scanMaxStream), budget: scanObjStm, left: scanMaxValues, work: 16*int64(len(data)) + 16<<20}
	s.findObjects()
	s.findPages()
	return s
}

func isPDFWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// findObjects records where each "N G obj" begins, and the trailers.
func (s *pdfScan) findObjects() {
	b := s.data
	for pos := 0; ; {
		i := bytes.Index(b[pos:], []byte("obj"))
		if i < 0 {
			break
		}
		i += pos
		pos = i + 3
		if pos < len(b) && !isPDFWhite(b[pos]) && !isPDFDelim(b[pos]) {
			continue
		}
		// Back over "N G ".
		j := i
		for j > 0 && isPDFWhite(b[j-1]) {
			j--
		}
		k := j
		for k > 0 && isDigit(b[k-1]) {
			k--
		}
		if k == j || k == 0 || !isPDFWhite(b[k-1]) {
			continue
		}
		j = k - 1
		for j > 0 && isPDFWhite(b[j-1]) {
			j--
		}
		k = j
		for k > 0 && isDigit(b[k-1]) {
			k--
		}
		if k == j || j-k > 10 || (k > 0 && !isPDFWhite(b[k-1]) && !isPDFDelim(b[k-1])) {
			continue
		}
		n, err := strconv.Atoi(string(b[k:j]))
		if err != nil || n <= 0 {
			continue
		}
		s.objs[n] = pos
		if len(s.objs) > scanMaxObjects {
			clear(s.objs)
			return
		}
	}
	// The last trailer, or the last cross-reference stream's dictionary.
	if i := bytes.LastIndex(b, []byte("trailer")); i >= 0 {
		l := s.lexer(b, i+7)
		if d, ok := l.value(0).(map[string]any); ok {
			s.trailer = d
		}
	}
	// Where the cross-reference sections can be read, they say which
	// definition of an object is read.
	x := s.readXref()
	if x != nil {
		for n, off := range x.offsets {
			if off < 0 {
				delete(s.objs, n)
				continue
			}
			if m, body, ok := s.header(off); ok && m == n {
				s.objs[n] = body
			}
		}
		for n := range x.packed {
			delete(s.objs, n)
		}
		if x.trailer != nil {
			s.trailer = x.trailer
		}
	}
	// Objects in object streams (PDF 1.5), unless written plainly too.
	// Only object and cross-reference streams are parsed here (their
	// dictionaries are short), in the order of their numbers.
	var objStms []int
	for n, off := range s.objs {
		head := s.data[off:min(len(s.data), off+1024)]
		if bytes.Contains(head, []byte("/ObjStm")) || bytes.Contains(head, []byte("/XRef")) {
			objStms = append(objStms, n)
		}
	}
	slices.Sort(objStms)
	for _, n := range objStms {
		d, raw, ok := s.rawStream(n)
		if !ok || d["Type"] != pdfName("ObjStm") {
			if ok && d["Type"] == pdfName("XRef") && s.trailer == nil {
				s.trailer = d
			}
			continue
		}
		data, err := s.decode(d, raw, min(s.budget, scanObjStm))
		if err != nil {
			continue
		}
		s.budget -= int64(len(data))
		s.streams[n] = data
		first, _ := s.resolve(d["First"]).(int64)
		count, _ := s.resolve(d["N"]).(int64)
		l := s.lexer(data, 0)
		for i := int64(0); i < count; i++ {
			num, ok1 := l.value(0).(int64)
			off, ok2 := l.value(0).(int64)
			if !ok1 || !ok2 {
				break
			}
			if x != nil {
				if at, listed := x.packed[int(num)]; listed && at != [2]int{n, int(i)} {
					continue // the sections place it elsewhere
				}
			}
			if _, plain := s.objs[int(num)]; !plain && first+off < int64(len(data)) && first+off >= 0 {
				s.packed[int(num)] = packedObj{stream: n, offset: int(first + off)}
			}
		}
	}
}

// object returns object n's value (a stream's dictionary for a stream).
func (s *pdfScan) object(n int) any {
	if v, ok := s.values[n]; ok {
		return v
	}
	if s.busy[n] {
		return nil
	}
	s.busy[n] = true
	defer delete(s.busy, n)
	var v any
	if off, ok := s.objs[n]; ok {
		v = s.lexer(s.data, off).value(0)
	} else if p, ok := s.packed[n]; ok {
		v = s.lexer(s.streams[p.stream], p.offset).value(0)
	}
	s.values[n] = v
	return v
}

// resolve follows a reference.
func (s *pdfScan) resolve(v any) any {
	for range 8 {
		r, ok := v.(pdfRef)
		if !ok {
			return v
		}
		v = s.object(int(r))
	}
	return nil
}

func (s *pdfScan) dict(v any) map[string]any {
	d, _ := s.resolve(v).(map[string]any)
	return d
}

// rawStream returns stream object n's dictionary and its bytes as stored.
func (s *pdfScan) rawStream(n int) (map[string]any, []byte, bool) {
	off, ok := s.objs[n]
	if !ok {
		return nil, nil, false
	}
	return s.rawStreamAt(off)
}

// rawStreamAt is rawStream for the object whose body is at off.
func (s *pdfScan) rawStreamAt(off int) (map[string]any, []byte, bool) {
	l := s.lexer(s.data, off)
	d, ok := l.value(0).(map[string]any)
	if !ok {
		return nil, nil, false
	}
	l.skip()
	if !bytes.HasPrefix(s.data[l.i:], []byte("stream")) {
		return nil, nil, false
	}
	start := l.i + 6
	if start < len(s.data) && s.data[start] == '\r' {
		start++
	}
	if start < len(s.data) && s.data[start] == '\n' {
		start++
	}
	end := -1
	if n, ok := s.resolve(d["Length"]).(int64); ok && n >= 0 && int64(start)+n <= int64(len(s.data)) {
		end = start + int(n)
		if !bytes.Contains(s.data[end:min(len(s.data), end+32)], []byte("endstream")) {
			end = -1 // a wrong length, as PDFium finds: up to endstream
		}
	}
	if end < 0 {
		if s.work <= 0 {
			return nil, nil, false
		}
		i := bytes.Index(s.data[start:], []byte("endstream"))
		if i < 0 {
			s.work -= int64(len(s.data) - start)
			return nil, nil, false
		}
		s.work -= int64(i)
		end = start + i
	}
	return d, s.data[start:end], true
}

// filters returns a stream's filters' names.
func (s *pdfScan) filters(d map[string]any) []pdfName {
	switch f := s.resolve(d["Filter"]).(type) {
	case pdfName:
		return []pdfName{f}
	case []any:
		var out []pdfName
		for _, x := range f {
			if n, ok := s.resolve(x).(pdfName); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

var errScanLimit = errors.New("past the limit")

// decode returns a stream's bytes decoded (at most limit of them, else
// errScanLimit with those read).
func (s *pdfScan) decode(d map[string]any, raw []byte, limit int64) ([]byte, error) {
	var r io.Reader = bytes.NewReader(raw)
	for _, f := range s.filters(d) {
		switch f {
		case "FlateDecode", "Fl":
			z, err := zlib.NewReader(r)
			if err != nil {
				return nil, err
			}
			r = z
		case "ASCII85Decode", "A85":
			r = ascii85.NewDecoder(&a85Reader{r: r})
		case "ASCIIHexDecode", "AHx":
			r = hex.NewDecoder(&hexReader{r: r})
		default:
			return nil, fmt.Errorf("filter %s", f)
		}
	}
	var out bytes.Buffer
	_, err := io.Copy(&out, io.LimitReader(r, limit+1))
	if int64(out.Len()) > limit {
		return out.Bytes()[:limit], errScanLimit
	}
	if err != nil && out.Len() == 0 {
		return nil, err
	}
	return out.Bytes(), nil // a truncated stream counts what it gave
}

// decodedSize is len(decode(...)) without keeping the bytes.
func (s *pdfScan) decodedSize(d map[string]any, raw []byte, limit int64, text *textCounter) (int64, error) {
	fs := s.filters(d)
	if len(fs) == 0 {
		if int64(len(raw)) > limit {
			text.feed(raw[:limit])
			return limit, errScanLimit
		}
		text.feed(raw)
		return int64(len(raw)), nil
	}
	if len(fs) != 1 || (fs[0] != "FlateDecode" && fs[0] != "Fl") {
		b, err := s.decode(d, raw, limit)
		text.feed(b)
		return int64(len(b)), err
	}
	// One inflater for all streams: each new one allocates its window
	// and tables (44 KB), for every page.
	var err error
	if s.z == nil {
		s.z, err = zlib.NewReader(bytes.NewReader(raw))
	} else {
		err = s.z.(zlib.Resetter).Reset(bytes.NewReader(raw), nil)
	}
	if err != nil {
		s.z = nil // a failed reset leaves it unusable
		return 0, err
	}
	z := s.z
	if s.buf == nil {
		s.buf = make([]byte, 32<<10)
	}
	var n int64
	for n <= limit {
		k, err := z.Read(s.buf)
		text.feed(s.buf[:k])
		n += int64(k)
		if err != nil {
			if n == 0 && err != io.EOF {
				return 0, err
			}
			break
		}
	}
	if n > limit {
		return limit, errScanLimit
	}
	return n, nil
}

// textCounter counts the bytes of the strings a content stream shows
// (literal strings' bytes, hex strings' digits by two), fed the stream in
// pieces; a comment's parentheses are not strings. It is an upper bound on
// the characters the strings show, in a font of one byte a character.
type textCounter struct {
	n       int64
	depth   int // parentheses open in a literal string
	esc     bool
	hex     bool
	comment bool
	digits  int
}

func (c *textCounter) feed(b []byte) {
	// The state is kept in locals, and runs of bytes that change nothing
	// are passed over in tight loops: it runs over every page's content.
	n, depth, esc, hex, comment, digits := c.n, c.depth, c.esc, c.hex, c.comment, c.digits
	for i := 0; i < len(b); {
		switch {
		case comment:
			for i < len(b) && b[i] != '\n' && b[i] != '\r' {
				i++
			}
			if i < len(b) {
				comment = false
			}
		case depth > 0:
			if esc {
				esc = false
				n++
				i++
				continue
			}
			j := i
			for j < len(b) && !stringStop[b[j]] {
				j++
			}
			n += int64(j - i)
			i = j
			if i == len(b) {
				break
			}
			switch b[i] {
			case '\\':
				esc = true
			case '(':
				depth++
				n++
			case ')':
				depth--
				if depth > 0 {
					n++
				}
			}
			i++
		case hex:
			x := b[i]
			switch {
			case x == '>':
				hex = false
			case isDigit(x) || (x|0x20 >= 'a' && x|0x20 <= 'f'):
				digits++
				if digits%2 == 0 {
					n++
				}
			}
			i++
		default:
			for i < len(b) && !codeStop[b[i]] {
				i++
			}
			if i == len(b) {
				break
			}
			switch b[i] {
			case '%':
				comment = true
			case '(':
				depth = 1
			case '<':
				hex, digits = true, 0
			}
			i++
		}
	}
	c.n, c.depth, c.esc, c.hex, c.comment, c.digits = n, depth, esc, hex, comment, digits
}

// stringStop and codeStop are the bytes that change textCounter's state
// inside a literal string and outside strings.
var stringStop, codeStop = func() (s, c [256]bool) {
	s['\\'], s['('], s[')'] = true, true, true
	c['%'], c['('], c['<'] = true, true, true
	return
}()

// a85Reader ends ASCII85 data at its "~>".
type a85Reader struct {
	r    io.Reader
	done bool
}

func (a *a85Reader) Read(p []byte) (int, error) {
	if a.done {
		return 0, io.EOF
	}
	n, err := a.r.Read(p)
	if i := bytes.Index(p[:n], []byte("~>")); i >= 0 {
		a.done = true
		return i, nil
	}
	return n, err
}

// hexReader keeps the hex digits of ASCIIHex data, up to its ">".
type hexReader struct {
	r    io.Reader
	done bool
	odd  []byte
}

func (h *hexReader) Read(p []byte) (int, error) {
	if h.done {
		if len(h.odd) > 0 && len(p) > 0 {
			p[0], h.odd = h.odd[0], nil
			return 1, nil
		}
		return 0, io.EOF
	}
	buf := make([]byte, len(p))
	n, err := h.r.Read(buf)
	k := copy(p, h.odd)
	h.odd = nil
	for _, c := range buf[:n] {
		switch {
		case c == '>':
			h.done = true
		case h.done, isPDFWhite(c):
		default:
			if k < len(p) {
				p[k] = c
				k++
			}
		}
	}
	if h.done || err == io.EOF {
		h.done = true
		if k%2 == 1 { // an odd last digit is followed by 0
			h.odd = []byte{'0'}
		}
	}
	if k%2 == 1 && !h.done {
		h.odd = []byte{p[k-1]}
		k--
	}
	if k == 0 && !h.done && err == nil {
		return 0, nil
	}
	if err == io.EOF && k > 0 {
		err = nil
	}
	return k, err
}

// findPages walks the page tree from the catalog, as PDFium does.
func (s *pdfScan) findPages() {
	var root map[string]any
	if s.trailer != nil {
		root = s.dict(s.trailer["Root"])
	}
	if root == nil {
		// No trailer names it: the catalog written last.
		nums := slices.Sorted(maps.Keys(s.objs))
		for i := len(nums) - 1; i >= 0 && root == nil; i-- {
			off := s.objs[nums[i]]
			if !bytes.Contains(s.data[off:min(len(s.data), off+1024)], []byte("/Catalog")) {
				continue
			}
			if d, ok := s.object(nums[i]).(map[string]any); ok && d["Type"] == pdfName("Catalog") {
				root = d
			}
		}
	}
	if root == nil {
		return
	}
	seen := map[pdfRef]bool{}
	var walk func(v any, res map[string]any, depth int)
	walk = func(v any, res map[string]any, depth int) {
		if r, ok := v.(pdfRef); ok {
			if seen[r] {
				return
			}
			seen[r] = true
		}
		node := s.dict(v)
		if node == nil || depth > 64 || len(s.pages) > 1<<20 {
			return
		}
		if r := s.dict(node["Resources"]); r != nil {
			res = r
		}
		kids, isTree := s.resolve(node["Kids"]).([]any)
		if isTree || node["Type"] == pdfName("Pages") {
			for _, k := range kids {
				walk(k, res, depth+1)
			}
			return
		}
		s.pages = append(s.pages, node)
		s.res = append(s.res, res)
	}
	walk(root["Pages"], nil, 0)
}

// pageCost returns what page i (0-based) draws; counting stops past
// maxContent bytes.
func (s *pdfScan) pageCost(i int, maxContent int64) pageCost {
	page := s.pages[i]
	var streams []any
	switch c := s.resolve(page["Contents"]).(type) {
	case []any:
		streams = c
	default:
		streams = []any{page["Contents"]}
	}
	var cost pageCost
	for _, c := range streams {
		r, ok := c.(pdfRef)
		if !ok {
			continue
		}
		cost.add(s.streamCost(int(r), s.res[i], maxContent-cost.content), 1)
		if cost.content > maxContent {
			break
		}
	}
	return cost
}

func (c *pageCost) add(d pageCost, times int64) {
	c.content = satAdd(c.content, satMul(d.content, times))
	c.text = satAdd(c.text, satMul(d.text, times))
	c.forms = satAdd(c.forms, satMul(d.forms, times))
	c.depth = max(c.depth, d.depth)
}

func satAdd(a, b int64) int64 {
	if a > 1<<62-b {
		return 1 << 62
	}
	return a + b
}

func satMul(a, n int64) int64 {
	if n != 0 && a > (1<<62)/n {
		return 1 << 62
	}
	return a * n
}

// streamCost is a content stream's (object n's) cost with the forms it
// draws from res.
func (s *pdfScan) streamCost(n int, res map[string]any, maxContent int64) pageCost {
	d, raw, ok := s.rawStream(n)
	if !ok {
		return pageCost{}
	}
	forms := s.formNames(res)
	if len(forms) == 0 {
		// No forms to find: the stream is counted, not kept.
		var text textCounter
		n, err := s.decodedSize(d, raw, maxContent, &text)
		if err != nil && err != errScanLimit {
			return pageCost{content: int64(len(raw))}
		}
		if err == errScanLimit {
			return pageCost{content: maxContent + 1, text: text.n}
		}
		return pageCost{content: n, text: text.n}
	}
	data, err := s.decode(d, raw, maxContent)
	if err != nil && err != errScanLimit {
		return pageCost{content: int64(len(raw))}
	}
	var text textCounter
	text.feed(data)
	cost := pageCost{content: int64(len(data)), text: text.n}
	if err == errScanLimit {
		cost.content = maxContent + 1
	}
	for _, d := range drawn(data) {
		name, times := d.name, d.times
		f, ok := forms[name]
		if !ok {
			continue
		}
		if cost.content > maxContent {
			break // over the bound already
		}
		fc := s.formCost(f, res, 1)
		fc.forms++
		cost.add(fc, times)
	}
	return cost
}

// formCost is form n's cost drawn once at depth.
func (s *pdfScan) formCost(n int, parent map[string]any, depth int) pageCost {
	if c, ok := s.forms[n]; ok {
		c := c.pageCost
		c.depth += depth
		return c
	}
	if s.busy[-n] {
		return pageCost{} // a form that draws itself: PDFium stops it
	}
	if s.nest >= scanMaxNest {
		return pageCost{depth: scanMaxNest + 1} // deeper than any bound
	}
	s.busy[-n] = true
	s.nest++
	defer func() { delete(s.busy, -n); s.nest-- }()
	res := parent
	if d, ok := s.object(n).(map[string]any); ok {
		if r := s.dict(d["Resources"]); r != nil {
			res = r
		}
	}
	c := s.streamCost(n, res, s.limit)
	c.depth++ // the form itself, around what it draws
	s.forms[n] = &formCost{c}
	c.depth += depth - 1
	return c
}

// formNames maps the names of res's form XObjects to their objects.
func (s *pdfScan) formNames(res map[string]any) map[string]int {
	if res == nil {
		return nil
	}
	xo := s.dict(res["XObject"])
	var out map[string]int
	for name, v := range xo {
		r, ok := v.(pdfRef)
		if !ok {
			continue
		}
		if d, ok := s.object(int(r)).(map[string]any); ok && d["Subtype"] == pdfName("Form") {
			if out == nil {
				out = map[string]int{}
			}
			out[name] = int(r)
		}
	}
	return out
}

// use is how many times a content stream draws an XObject.
type use struct {
	name  string
	times int64
}

// drawn counts the "/Name Do" operators of a content stream by name, in
// the order the names first appear.
func drawn(data []byte) []use {
	var out []use
	at := map[string]int{}
	for pos := 0; ; {
		i := bytes.Index(data[pos:], []byte("Do"))
		if i < 0 {
			return out
		}
		i += pos
		pos = i + 2
		if i == 0 || !isPDFWhite(data[i-1]) || (pos < len(data) && !isPDFWhite(data[pos]) && !isPDFDelim(data[pos])) {
			continue
		}
		j := i - 1
		for j > 0 && isPDFWhite(data[j-1]) {
			j--
		}
		k := j
		for k > 0 && !isPDFWhite(data[k-1]) && !isPDFDelim(data[k-1]) {
			k--
		}
		if k > 0 && data[k-1] == '/' {
			name := string(data[k:j])
			i, ok := at[name]
			if !ok {
				i = len(out)
				at[name] = i
				out = append(out, use{name: name})
			}
			out[i].times++
		}
	}
}

// pdfLexer reads PDF objects: numbers (int64, float64), names (pdfName),
// references (pdfRef), arrays ([]any), dictionaries (map[string]any);
// strings and keywords are read past and given as nil or their keyword.
type pdfLexer struct {
	b    []byte
	i    int
	left *int   // values still to read in the scan
	work *int64 // bytes still to read in the scan
}

// lexer reads b from i, drawing on the scan's values.
func (s *pdfScan) lexer(b []byte, i int) *pdfLexer {
	return &pdfLexer{b: b, i: i, left: &s.left, work: &s.work}
}

func (l *pdfLexer) skip() {
	for l.i < len(l.b) {
		c := l.b[l.i]
		switch {
		case isPDFWhite(c):
			l.i++
		case c == '%':
			for l.i < len(l.b) && l.b[l.i] != '\n' && l.b[l.i] != '\r' {
				l.i++
			}
		default:
			return
		}
	}
}

// value reads one object; nil for what it does not keep or cannot read.
func (l *pdfLexer) value(depth int) any {
	if depth == 0 && l.work != nil {
		start := l.i
		defer func() { *l.work -= int64(l.i - start) }()
		if *l.work <= 0 {
			l.i = len(l.b)
			return nil
		}
	}
	if l.left != nil {
		if *l.left <= 0 {
			l.i = len(l.b) // the scan has read all it may
			return nil
		}
		*l.left--
	}
	l.skip()
	if l.i >= len(l.b) || depth > 32 {
		return nil
	}
	b := l.b
	switch c := b[l.i]; {
	case c == '/':
		j := l.i + 1
		for j < len(b) && !isPDFWhite(b[j]) && !isPDFDelim(b[j]) {
			j++
		}
		name := pdfName(b[l.i+1 : j])
		l.i = j
		return name
	case c == '<' && l.i+1 < len(b) && b[l.i+1] == '<':
		l.i += 2
		d := map[string]any{}
		for n := 0; n < 1<<16; n++ {
			l.skip()
			if l.i >= len(b) {
				return d
			}
			if b[l.i] == '>' {
				l.i = min(len(b), l.i+2)
				return d
			}
			k, ok := l.value(depth + 1).(pdfName)
			if !ok {
				if l.i < len(b) && b[l.i] != '/' && b[l.i] != '>' {
					l.i++ // not a key: past it
				}
				continue
			}
			d[string(k)] = l.value(depth + 1)
		}
		return d
	case c == '<':
		j := bytes.IndexByte(b[l.i:], '>')
		if j < 0 {
			l.i = len(b)
		} else {
			l.i += j + 1
		}
		return nil
	case c == '[':
		l.i++
		var a []any
		for n := 0; n < 1<<22; n++ {
			l.skip()
			if l.i >= len(b) {
				return a
			}
			if b[l.i] == ']' {
				l.i++
				return a
			}
			before := l.i
			a = append(a, l.value(depth+1))
			if l.i == before {
				l.i++
			}
		}
		return a
	case c == '(':
		nest := 0
		for l.i < len(b) {
			switch b[l.i] {
			case '\\':
				l.i++
			case '(':
				nest++
			case ')':
				nest--
			}
			l.i++
			if nest == 0 {
				break
			}
		}
		return nil
	case isDigit(c) || c == '-' || c == '+' || c == '.':
		j := l.i + 1
		for j < len(b) && (isDigit(b[j]) || b[j] == '.') {
			j++
		}
		tok := string(b[l.i:j])
		l.i = j
		n, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			f, _ := strconv.ParseFloat(tok, 64)
			return f
		}
		// "N G R" is a reference.
		save := l.i
		l.skip()
		k := l.i
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k > l.i {
			m := k
			for m < len(b) && isPDFWhite(b[m]) {
				m++
			}
			if m < len(b) && b[m] == 'R' && (m+1 == len(b) || isPDFWhite(b[m+1]) || isPDFDelim(b[m+1])) {
				l.i = m + 1
				return pdfRef(n)
			}
		}
		l.i = save
		return n
	default:
		j := l.i
		for j < len(b) && !isPDFWhite(b[j]) && !isPDFDelim(b[j]) {
			j++
		}
		if j == l.i {
			l.i++
			return nil
		}
		kw := string(b[l.i:j])
		l.i = j
		switch kw {
		case "true":
			return true
		case "false":
			return false
		}
		return nil
	}
}
