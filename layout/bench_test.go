package layout

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/internal/textgen"
	"github.com/gochunk/gochunk/tokenize"
)

// BenchmarkPDF100Pages chunks a 100-page two-column PDF end to end:
// extraction (PDFium, and Poppler where installed), reading order,
// lexical embeddings, S2 clustering, at 512 cl100k tokens. The target is
// under 5 s on one core.
//
//	go test ./layout -run '^$' -bench PDF100Pages -benchtime 3x -cpu 1
func BenchmarkPDF100Pages(b *testing.B) {
	var paras []string
	for _, p := range strings.Split(textgen.Prose(560_000, 7), "\n\n") {
		if p = strings.TrimSpace(strings.TrimPrefix(p, "## ")); p != "" {
			paras = append(paras, p)
		}
	}
	pages := pdfgen.TwoColumn("A Long Two-Column Document", paras, "Benchmark Proceedings")
	for len(pages) > 100 {
		pages = pages[:100]
	}
	if len(pages) < 100 {
		b.Fatalf("only %d pages", len(pages))
	}
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pages); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "100.pdf")
	os.WriteFile(path, buf.Bytes(), 0o644)
	counter, err := tokenize.New("cl100k_base")
	if err != nil {
		b.Fatal(err)
	}
	s2, err := NewS2(DefaultS2Config(), counter, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, eng := range pdfEngines(b) {
		b.Run(eng.Name(), func(b *testing.B) {
			for b.Loop() {
				els, err := ExtractPDF(ctx, path, PDFOptions{Engine: eng})
				if err != nil {
					b.Fatal(err)
				}
				text, els := Assemble(els)
				chunks, err := s2.Chunk(ctx, gochunk.Document{Text: text, Elements: els})
				if err != nil || len(chunks) == 0 {
					b.Fatal(err, len(chunks))
				}
				b.ReportMetric(float64(len(els)), "elements")
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/doc")
		})
	}
}

// BenchmarkClustering measures the graph and spectral clustering alone on
// 1k, 10k and 100k elements (random 256-dimensional unit vectors, two
// columns a page): the cost grows linearly, window by window.
//
//	go test ./layout -run '^$' -bench Clustering -benchtime 1x -cpu 1
func BenchmarkClustering(b *testing.B) {
	s, err := NewS2(DefaultS2Config(), tokenize.Words{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1_000, 10_000, 100_000} {
		r := rand.New(rand.NewPCG(1, 2))
		nodes := make([]node, n)
		vs := make([][]float32, n)
		for i := range nodes {
			col, row := (i/8)%2, i%8
			nodes[i] = node{el: i, tokens: 40 + r.IntN(200), cx: 0.1 + 0.4*float64(col), cy: 0.1 + 0.1*float64(row), page: i / 16}
			v := make([]float32, 256)
			for k := range v {
				v[k] = r.Float32() - 0.5
			}
			vs[i] = v
		}
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for b.Loop() {
				pick := func(ids []int) ([][]float32, error) {
					out := make([][]float32, len(ids))
					for k, id := range ids {
						out[k] = vs[id]
					}
					return out, nil
				}
				if _, err := s.groups(context.Background(), nodes, pick); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elements/s")
		})
	}
}

// BenchmarkPDFAttacks reads the small PDFs that expand (issue 48's): each
// is refused, or read within the bounds, in milliseconds; B/op is the Go
// side (PDFium's memory is its own, bounded by PDFiumOptions).
//
//	go test ./layout -run '^$' -bench PDFAttacks -benchmem
func BenchmarkPDFAttacks(b *testing.B) {
	e := pdfiumEngine(b)
	for _, tc := range []struct {
		name string
		pdf  []byte
	}{
		{"form-bomb-20-deep", pdfgen.FormBomb(20)},
		{"deflated-100MB-stream", pdfgen.BigContent(100 << 20)},
		{"million-characters", pdfgen.ManyChars(1_000_000)},
		{"bad-page-of-5", pdfgen.WithFormBombPage(5, 3, 20)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.pdf)))
			for b.Loop() {
				ExtractPDFReader(context.Background(), bytes.NewReader(tc.pdf), PDFOptions{Engine: e})
			}
		})
	}
}

// BenchmarkPDFLong extracts the longest PDF of the shared collection
// (DA-619p.pdf, 619 pages) with a shared PDFium engine: pages per second
// of the whole read, pages split among the engine's instances.
//
//	go test ./layout -run '^$' -bench PDFLong -benchtime 3x -cpu 1,2
func BenchmarkPDFLong(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "eval", "documents", "unstructured", "pdf", "DA-619p.pdf")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("the shared collection is not here (%v)", err)
	}
	e, err := NewPDFium(context.Background(), PDFiumOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	pages := 0
	for b.Loop() {
		els, err := ExtractPDF(context.Background(), path, PDFOptions{Engine: e})
		if err != nil {
			b.Fatal(err)
		}
		pages = els[len(els)-1].Page
	}
	b.ReportMetric(float64(pages)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}
