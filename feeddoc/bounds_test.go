package feeddoc

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

func rssOf(body string) []byte {
	return []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>` + body + `</channel></rss>`)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// A description of 100,000 CDATA sections (or of text runs parted by
// comments), 1.5 MB, is read in memory linear in its size: the decoder
// hands over each piece as a token, and joining each one onto the text
// so far allocated 14.7 GB (the sum of every prefix). The bound, 64
// bytes allocated for each byte read, is linear and well above what a
// read takes (the decoder's tokens, the text, one HTML parse of it:
// about 10×), and far below the quadratic cost (about 15,000× here).
func TestTextPiecesLinear(t *testing.T) {
	for name, piece := range map[string]string{"cdata": "<![CDATA[ab ]]>", "comments": "ab <!---->"} {
		t.Run(name, func(t *testing.T) {
			data := rssOf(`<item><title>x</title><description>` + strings.Repeat(piece, 100000) + `</description></item>`)
			var n int
			var err error
			got := allocated(func() {
				e, er := Elements(context.Background(), data)
				n, err = len(e), er
			})
			if err != nil || n < 2 {
				t.Fatalf("%d elements, %v", n, err)
			}
			if limit := 64 * uint64(len(data)); got > limit {
				t.Errorf("%d bytes allocated reading %d bytes, over %d (64×): the text's pieces are joined more than once", got, len(data), limit)
			}
			t.Logf("%d bytes allocated for %d read (%.1f×)", got, len(data), float64(got)/float64(len(data)))
		})
	}
}
