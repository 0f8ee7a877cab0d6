package pdfgen

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// The PDFs below are written by hand (objects, a cross-reference table,
// a trailer), small files that expand when read: the inputs of the tests
// and benchmarks that hold PDF reading to its bounds.

// raw builds a PDF object by object.
type raw struct {
	objs    [][]byte // object i+1's body
	streams []bool   // whether object i+1 is a stream
	compact bool     // written as PDF 1.5 writers do (see bytes)
}

func (r *raw) add(body string) int {
	r.objs = append(r.objs, []byte(body))
	r.streams = append(r.streams, false)
	return len(r.objs)
}

// reserve takes an object number for a body set later.
func (r *raw) reserve() int { return r.add("null") }

func (r *raw) set(n int, body string) { r.objs[n-1] = []byte(body) }

// stream adds a stream object: data deflated when flate is set.
func (r *raw) stream(dict string, data []byte, flate bool) int {
	if flate {
		var b bytes.Buffer
		z, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
		z.Write(data)
		z.Close()
		data = b.Bytes()
		dict += " /Filter /FlateDecode"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<< %s /Length %d >>\nstream\n", dict, len(data))
	b.Write(data)
	b.WriteString("\nendstream")
	r.objs = append(r.objs, b.Bytes())
	r.streams = append(r.streams, true)
	return len(r.objs)
}

// bytes writes the file with root as its catalog: a cross-reference
// table, or when compact the dictionaries packed in an object stream and a
// cross-reference stream (PNG Up predictor), as PDF 1.5 writers do.
func (r *raw) bytes(root int) []byte {
	if r.compact {
		return r.compactBytes(root)
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(r.objs))
	for i, o := range r.objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		b.Write(o)
		b.WriteString("\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(r.objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(r.objs)+1, root, xref)
	return b.Bytes()
}

func (r *raw) compactBytes(root int) []byte {
	n := len(r.objs)
	objStm, xrefStm := n+1, n+2
	// The object stream: "num offset" pairs, then the objects.
	var head, body bytes.Buffer
	index := map[int]int{} // packed object -> its index in the stream
	for i, o := range r.objs {
		if r.streams[i] {
			continue
		}
		index[i+1] = len(index)
		fmt.Fprintf(&head, "%d %d ", i+1, body.Len())
		body.Write(o)
		body.WriteByte('\n')
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write(head.Bytes())
	zw.Write(body.Bytes())
	zw.Close()
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, n+3)
	for i, o := range r.objs {
		if !r.streams[i] {
			continue
		}
		offsets[i+1] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		b.Write(o)
		b.WriteString("\nendobj\n")
	}
	offsets[objStm] = b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n", objStm, len(index), head.Len(), z.Len())
	b.Write(z.Bytes())
	b.WriteString("\nendstream\nendobj\n")
	offsets[xrefStm] = b.Len()
	// Rows of 7 bytes (type, 4 of offset or stream, 2 of generation or
	// index), each after a PNG Up filter byte.
	var rows bytes.Buffer
	prev := make([]byte, 7)
	for obj := 0; obj <= xrefStm; obj++ {
		var row []byte
		switch i, packed := index[obj]; {
		case obj == 0:
			row = []byte{0, 0, 0, 0, 0, 0xff, 0xff}
		case packed:
			row = []byte{2, byte(objStm >> 24), byte(objStm >> 16), byte(objStm >> 8), byte(objStm), byte(i >> 8), byte(i)}
		default:
			o := offsets[obj]
			row = []byte{1, byte(o >> 24), byte(o >> 16), byte(o >> 8), byte(o), 0, 0}
		}
		rows.WriteByte(2)
		for k := range row {
			rows.WriteByte(row[k] - prev[k])
		}
		prev = row
	}
	z.Reset()
	zw, _ = zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write(rows.Bytes())
	zw.Close()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root %d 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> /Length %d >>\nstream\n", xrefStm, xrefStm+1, root, z.Len())
	b.Write(z.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", offsets[xrefStm])
	return b.Bytes()
}

// document adds a catalog and a page tree of the given page contents
// (each a content stream object), US Letter, Helvetica as /F1 and the
// named form XObjects in every page's resources; it returns the file.
func (r *raw) document(contents []int, xobjects string) []byte {
	font := r.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	pages := r.reserve()
	var kids []string
	for _, c := range contents {
		p := r.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> %s >> >>", pages, c, font, xobjects))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	r.set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	root := r.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	return r.bytes(root)
}

// textPage is a content stream that writes lines of text down a page.
func textPage(lines []string) []byte {
	var b bytes.Buffer
	b.WriteString("BT /F1 10 Tf 12 TL 72 720 Td\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "(%s) '\n", l)
	}
	b.WriteString("ET\n")
	return b.Bytes()
}

// formNest adds depth forms, each drawing the next twice, the last a
// line of text, and returns the first.
func (r *raw) formNest(depth int) int {
	font := r.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	next := r.stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>", font),
		[]byte("BT /F1 10 Tf 72 700 Td (The last form of a nest of forms.) Tj ET\n"), false)
	for i := 1; i < depth; i++ {
		next = r.stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X %d 0 R >> >>", next),
			[]byte("q /X Do Q q 1 0 0 1 0 -1 cm /X Do Q\n"), false)
	}
	return next
}

// FormBomb is a one-page PDF whose page draws a form XObject twice, each
// form drawing the next twice, depth forms deep; the last writes a line
// of text. Drawn out, the page holds 2^depth lines: about 4.6 KB at depth
// 20 for a million lines.
func FormBomb(depth int) []byte {
	return formBomb(depth, false)
}

// FormBombCompact is FormBomb written as PDF 1.5 writers do: its
// dictionaries in an object stream, its cross-reference a stream.
func FormBombCompact(depth int) []byte {
	return formBomb(depth, true)
}

func formBomb(depth int, compact bool) []byte {
	r := &raw{compact: compact}
	next := r.formNest(depth)
	page := r.stream("", []byte("BT /F1 12 Tf 72 740 Td (A page of nested forms.) Tj ET\nq /X Do Q q /X Do Q\n"), false)
	return r.document([]int{page}, fmt.Sprintf("/XObject << /X %d 0 R >>", next))
}

// BigContent is a one-page PDF whose content stream, Flate-compressed,
// inflates to at least size bytes: a text object of a short line drawn
// again and again (about 281 KB for 100 MB).
func BigContent(size int) []byte {
	unit := "BT /F1 10 Tf 72 700 Td (A line drawn again and again.) Tj ET\n"
	data := []byte(strings.Repeat(unit, (size+len(unit)-1)/len(unit)))
	r := &raw{}
	page := r.stream("", data, true)
	return r.document([]int{page}, "")
}

// ManyChars is a one-page PDF whose content stream, Flate-compressed,
// writes chars characters (lines of 100) in a tiny font: about 30 KB for
// a million.
func ManyChars(chars int) []byte {
	r := &raw{}
	page := r.stream("", manyChars(chars), true)
	return r.document([]int{page}, "")
}

func manyChars(chars int) []byte {
	line := strings.Repeat("word ", 20) // 100 characters
	var b bytes.Buffer
	b.WriteString("BT /F1 1 Tf 1 TL 10 780 Td\n")
	for n := 0; n < chars; n += len(line) {
		if k := n / len(line); k > 0 && k%700 == 0 {
			b.WriteString("2 700 Td\n") // back up the page, beside: the text stays on it
		}
		l := line[:min(len(line), chars-n)]
		fmt.Fprintf(&b, "(%s) '\n", l)
	}
	b.WriteString("ET\n")
	return b.Bytes()
}

// WithBadPage is a PDF of pages of text, one of which (bad, 1-based) is
// a page of chars characters, the others a few lines each.
func WithBadPage(pages, bad, chars int) []byte {
	r := &raw{}
	var contents []int
	for i := 1; i <= pages; i++ {
		if i == bad {
			contents = append(contents, r.stream("", manyChars(chars), true))
			continue
		}
		contents = append(contents, r.stream("", textPage([]string{
			fmt.Sprintf("Page %d begins with a line of its own.", i),
			"The quick brown fox jumps over the lazy dog.",
		}), false))
	}
	return r.document(contents, "")
}

// Plain is a PDF of pages of the given lines, written by hand like the
// attacks above (for tests that compare them with a readable page).
func Plain(pages [][]string) []byte {
	r := &raw{}
	var contents []int
	for _, lines := range pages {
		contents = append(contents, r.stream("", textPage(lines), false))
	}
	return r.document(contents, "")
}

// WithFormBombPage is a PDF of pages of text, one of which (bad, 1-based)
// draws a nest of forms depth deep, as FormBomb's page does.
func WithFormBombPage(pages, bad, depth int) []byte {
	r := &raw{}
	next := r.formNest(depth)
	var contents []int
	for i := 1; i <= pages; i++ {
		if i == bad {
			contents = append(contents, r.stream("", []byte("q /X Do Q q /X Do Q\n"), false))
			continue
		}
		contents = append(contents, r.stream("", textPage([]string{
			fmt.Sprintf("Page %d begins with a line of its own.", i),
			"The quick brown fox jumps over the lazy dog.",
		}), false))
	}
	return r.document(contents, fmt.Sprintf("/XObject << /X %d 0 R >>", next))
}
