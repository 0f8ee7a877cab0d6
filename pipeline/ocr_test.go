package pipeline

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
)

var ocrLines = []string{
	"Scanned contracts and faxed forms exist only as images.",
	"Their text is read by OCR into the same layout elements.",
}

// scans returns a page image of known text as a PNG and as the only
// content of a one-page PDF (US Letter at 200 dpi).
func scans(t *testing.T) (pngData, pdfData []byte) {
	img := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, ocrLines...)...)
	return ocrtest.PNG(t, img), ocrtest.ScanPDF(t, img)
}

func TestLoadWithOCR(t *testing.T) {
	pngData, pdfData := scans(t)
	dir := t.TempDir()
	pngPath, pdfPath := filepath.Join(dir, "scan.png"), filepath.Join(dir, "scan.pdf")
	os.WriteFile(pngPath, pngData, 0o644)
	os.WriteFile(pdfPath, pdfData, 0o644)
	ctx := context.Background()
	cfg := Config{OCR: OCRConfig{Model: ocrtest.Models(t)}}
	cfg.Embedder.ONNXLibrary = onnxtest.Library(t)
	p, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(ocrLines, " ")
	for _, src := range []Source{{Path: pngPath}, {File: pngData, FileName: "upload.png", ID: "upload"}, {Path: pdfPath}, {PDF: pdfData, ID: "mem.pdf"}} {
		name := src.Path + src.ID
		l, err := p.Load(ctx, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c := ocrtest.CER(l.Text, want); c > 0.02 {
			t.Errorf("%s: CER %.3f: %q", name, c, l.Text)
		}
		if len(l.Elements) == 0 || l.Elements[0].Page != 1 || l.Elements[0].BBox[2] == 0 {
			t.Fatalf("%s: elements %+v", name, l.Elements)
		}
		for _, e := range l.Elements {
			if !e.Excluded && l.Text[e.Start:e.End] != e.Text {
				t.Errorf("%s: element offsets [%d, %d) hold %q, not %q", name, e.Start, e.End, l.Text[e.Start:e.End], e.Text)
			}
		}
		isPDF := strings.HasSuffix(name, ".pdf")
		if isPDF && (l.Metadata["ocr_pages"] != 1 || l.Elements[0].PageWidth != 612) {
			t.Errorf("%s: metadata %v, page width %g", name, l.Metadata, l.Elements[0].PageWidth)
		}
		if !isPDF && (l.Metadata["ocr"] != "pp-ocr" || l.Metadata["image_format"] != "png" || l.Elements[0].PageWidth != 1700) {
			t.Errorf("%s: metadata %v, page width %g", name, l.Metadata, l.Elements[0].PageWidth)
		}
	}
	// Without OCR (never, or no model): the image is refused by name
	// and the scan has no text.
	t.Setenv("GOCHUNK_OCR_MODEL", "")
	for _, c := range []OCRConfig{{Mode: "never", Model: cfg.OCR.Model}, {}} {
		q, err := New(ctx, Config{OCR: c}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Load(ctx, Source{Path: pngPath}); !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("%+v: image: %v", c, err)
		}
		if _, err := q.Load(ctx, Source{Path: pdfPath}); err == nil {
			t.Errorf("%+v: the scan read without OCR", c)
		}
	}
	// Not an image, named as one.
	bad := filepath.Join(dir, "bad.png")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	if _, err := p.Load(ctx, Source{Path: bad}); err == nil || !strings.Contains(err.Error(), "bad.png") {
		t.Errorf("a broken PNG: %v", err)
	}
	if _, err := New(ctx, Config{OCR: OCRConfig{Mode: "sometimes"}}, Options{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("mode sometimes: %v", err)
	}
}

// loadOCR loads src with a pipeline whose OCR, in mode, runs on the test
// models.
func loadOCR(t *testing.T, mode string, src Source) Loaded {
	t.Helper()
	ctx := context.Background()
	cfg := Config{OCR: OCRConfig{Mode: mode, Model: ocrtest.Models(t)}}
	cfg.Embedder.ONNXLibrary = onnxtest.Library(t)
	p, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Load(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestOCRMixedPDF: a PDF of a page with text and a scanned page reads
// the first from its text layer and the second by OCR (auto), or both by
// OCR (always).
func TestOCRMixedPDF(t *testing.T) {
	img := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, ocrLines...)...)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	pdf.SetFont("Helvetica", "", 12)
	pdf.AddPage()
	pdf.Text(72, 100, "A born-digital page with its own text layer.")
	pdf.AddPage()
	pdf.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	pdf.ImageOptions("scan", 0, 0, 612, 792, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"auto", "always"} {
		l := loadOCR(t, mode, Source{PDF: out.Bytes(), ID: "mixed.pdf"})
		want := "A born-digital page with its own text layer.\n\n" + strings.Join(ocrLines, " ")
		if c := ocrtest.CER(l.Text, want); c > 0.02 {
			t.Errorf("%s: CER %.3f: %q", mode, c, l.Text)
		}
		ocrPages := map[string]int{"auto": 1, "always": 2}[mode]
		if l.Metadata["ocr_pages"] != ocrPages {
			t.Errorf("%s: ocr_pages %v, want %d", mode, l.Metadata["ocr_pages"], ocrPages)
		}
		if n := len(l.Elements); n < 2 || l.Elements[0].Page != 1 || l.Elements[n-1].Page != 2 {
			t.Errorf("%s: elements %+v", mode, l.Elements)
		}
	}
}

// TestOCRImageOnTextPage: in Mode auto, a page with a text layer and a
// pasted scan of text reads both, the scan's text between the text above
// and below it; never reads the text layer alone.
func TestOCRImageOnTextPage(t *testing.T) {
	scan := ocrtest.Draw(t, 1000, 250, ocrtest.Lines(20, 80, 30, ocrLines...)...)
	var buf bytes.Buffer
	if err := png.Encode(&buf, scan); err != nil {
		t.Fatal(err)
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	pdf.SetFont("Helvetica", "", 12)
	pdf.AddPage()
	pdf.Text(72, 100, "A born-digital page with its own text layer.")
	pdf.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	pdf.ImageOptions("scan", 72, 150, 360, 90, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	pdf.Text(72, 300, "Text of the layer below the pasted scan.")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"auto", "never"} {
		l := loadOCR(t, mode, Source{PDF: out.Bytes(), ID: "pasted.pdf"})
		want := "A born-digital page with its own text layer.\n\n" + strings.Join(ocrLines, " ") + "\n\nText of the layer below the pasted scan."
		ocrPages := 1
		if mode == "never" {
			want = "A born-digital page with its own text layer.\n\nText of the layer below the pasted scan."
			ocrPages = 0
		}
		if c := ocrtest.CER(l.Text, want); c > 0.02 {
			t.Errorf("%s: CER %.3f:\n got %q\nwant %q", mode, c, l.Text, want)
		}
		if got, _ := l.Metadata["ocr_pages"].(int); got != ocrPages {
			t.Errorf("%s: ocr_pages %v, want %d", mode, l.Metadata["ocr_pages"], ocrPages)
		}
		for _, e := range l.Elements {
			if !e.Excluded && l.Text[e.Start:e.End] != e.Text {
				t.Errorf("%s: element offsets [%d, %d) hold %q, not %q", mode, e.Start, e.End, l.Text[e.Start:e.End], e.Text)
			}
		}
	}
}

// TestLoadWithOCRInt8 checks that OCRConfig.Int8 reaches the engine: the
// page reads as with the float recogniser, and the rewritten recogniser
// is kept in the user's cache directory.
func TestLoadWithOCRInt8(t *testing.T) {
	pngData, _ := scans(t)
	cfg := Config{OCR: OCRConfig{Model: ocrtest.Models(t), Int8: true}}
	cfg.Embedder.ONNXLibrary = onnxtest.Library(t)
	// The models and ONNX Runtime are found first: the test's own
	// cache directory is for the rewrite alone.
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	ctx := context.Background()
	p, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Load(ctx, Source{File: pngData, FileName: "scan.png"})
	if err != nil {
		t.Fatal(err)
	}
	if c := ocrtest.CER(l.Text, strings.Join(ocrLines, " ")); c > 0.02 {
		t.Errorf("int8: CER %.3f: %q", c, l.Text)
	}
	kept, _ := filepath.Glob(filepath.Join(cache, "gochunk", "ocr", "*"))
	if len(kept) == 0 {
		t.Errorf("no int8 recogniser kept under %s: Int8 did not reach the OCR engine", cache)
	}
}
