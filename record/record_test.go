package record

import (
	"bytes"
	"encoding/json"
	"math"
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
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\u2028\u2029", "\xff\xe2\x80", "日本 🎉"} {
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
