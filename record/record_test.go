package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

// want encodes v as the command line did before this package.
func want(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAppendJSON(t *testing.T) {
	recs := []Record{
		{Text: "plain", Source: "-"},
		{Text: "quote \" back \\ nl \n cr \r tab \t bell \a bs \b ff \f nul \x00 del \x7f <html>&", Start: 3, End: 9, StartRune: -1, Source: "a\"b"},
		{Text: "日本語 🎉 \u2028 line \u2029 para", TokenCount: 7, ChunkIndex: 2, Source: "é.txt",
			Spans: []gochunk.Span{{Start: 1, End: 2, StartRune: 1, EndRune: 2}, {Start: 5, End: 9, StartRune: 4, EndRune: 8}}},
		{Text: "bad \xff utf8 \xe2\x80", Source: "x", Metadata: map[string]any{"heading": "<A & B>", "n": 3, "list": []any{1.5, "x"}}},
		{Text: "vec", Embedding: []float32{0, 1, -0.5, 1e-7, 3.4e38, 1e21, 123456.78, -2.5e-9, 0.1}},
		{Text: "where", Lines: [2]int{3, 41}, Parent: &Parent{Index: 2, Start: 10, End: 900, StartRune: 9, EndRune: 880, TokenCount: 210}, EmbedText: "Title > Part \"1\"\n\nwhere"},
		{Text: "pdf", Pages: [2]int{2, 3}, Boxes: []Box{{Page: 2, BBox: [4]float64{72, 700.5, 540, 760}}, {Page: 3, BBox: [4]float64{72, 80, 300.25, 96}}}},
	}
	for _, r := range recs {
		got, err := AppendJSON(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(t, r); !bytes.Equal(got, w) {
			t.Errorf("got  %s\nwant %s", got, w)
		}
	}
	if b, err := json.Marshal(recs[2]); err != nil || string(b)+"\n" != string(want(t, recs[2])) {
		t.Errorf("MarshalJSON: %s %v", b, err)
	}
	if _, err := AppendJSON(nil, Record{Embedding: []float32{float32(math.NaN())}}); err == nil {
		t.Error("NaN in an embedding accepted")
	}
	if got := AppendOffsets(nil, 3, 17); string(got) != "{\"start\":3,\"end\":17}\n" {
		t.Errorf("offsets %q", got)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\u2028\u2029", "\xff\xe2\x80", "日本 🎉",
		"eight by", "sixteen bytes ok", "seven b\"and nine by\\tes", "a run of ASCII, then\x7f\x1f and é past eight"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := AppendJSON(nil, Record{Text: s, Source: s})
		if w := want(t, Record{Text: s, Source: s}); !bytes.Equal(out, w) {
			t.Fatalf("%q:\ngot  %s\nwant %s", s, out, w)
		}
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	r := Record{Text: string(bytes.Repeat([]byte("A sentence of prose, with \"quotes\" and a newline.\n"), 20)), Start: 100, End: 1100, Source: "file.txt"}
	b.SetBytes(int64(len(r.Text)))
	var dst []byte
	for b.Loop() {
		dst, _ = AppendJSON(dst[:0], r)
	}
}

// WriteJSONL writes the same bytes as appending every record in turn,
// whatever the number of records and cores, and stops at the first error.
func TestWriteJSONL(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 5000} {
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = Record{Text: strings.Repeat("é", i%7), Start: i, End: i + 1, ChunkIndex: i, Source: "s"}
		}
		appendRange := func(dst []byte, from, to int) ([]byte, error) {
			var err error
			for i := from; i < to && err == nil; i++ {
				dst, err = AppendJSON(dst, recs[i])
			}
			return dst, err
		}
		want, _ := appendRange(nil, 0, n)
		var got bytes.Buffer
		if err := WriteJSONL(&got, n, appendRange); err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d records: %v, %d bytes, want %d", n, err, got.Len(), len(want))
		}
	}
	boom := errors.New("boom")
	err := WriteJSONL(io.Discard, 3000, func(dst []byte, from, to int) ([]byte, error) {
		if from >= 1024 {
			return dst, boom
		}
		return append(dst, "x\n"...), nil
	})
	if err != boom {
		t.Errorf("error %v", err)
	}
}
