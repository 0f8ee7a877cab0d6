package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
)

// A photographed page (PNG) and a two-page TIFF go through extract and
// chunk with --ocr-model: their text, chunks at exact offsets into it,
// pages and boxes on them.
func TestOCRChunkImages(t *testing.T) {
	models, lib := ocrtest.Models(t), onnxtest.Library(t)
	lines := []string{"Scanned contracts and faxed forms exist only as images.", "Their text is read by OCR into the same layout elements."}
	page := ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, lines...)...)
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := png.Encode(&buf, page); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "photo.png"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "fax.tiff"), ocrtest.TIFF(page, page), 0o644)
	want := strings.Join(lines, " ")
	out, errs, code := runCmd(t, "", "extract", "--ocr-model", models, "--onnx-library", lib, filepath.Join(dir, "photo.png"))
	if code != 0 || ocrtest.CER(out, want) > 0.02 {
		t.Fatalf("extract: exit %d, %q, %s", code, out, errs)
	}
	for name, pages := range map[string]int{"photo.png": 1, "fax.tiff": 2} {
		out, errs, code := runCmd(t, "", "chunk", "--ocr-model", models, "--onnx-library", lib, "--size", "40", filepath.Join(dir, name))
		if code != 0 {
			t.Fatalf("chunk %s: exit %d: %s", name, code, errs)
		}
		var text strings.Builder
		last := 0
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var r struct {
				Text       string `json:"text"`
				Start, End int
				Pages      []int `json:"pages"`
				Boxes      []struct {
					Page int        `json:"page"`
					BBox [4]float64 `json:"bbox"`
				} `json:"boxes"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			if r.End-r.Start != len(r.Text) || r.Start < last {
				t.Errorf("%s: chunk [%d, %d) of %d bytes", name, r.Start, r.End, len(r.Text))
			}
			last = r.Start
			if len(r.Pages) != 2 || r.Pages[0] < 1 || r.Pages[1] > pages || len(r.Boxes) == 0 {
				t.Errorf("%s: pages %v boxes %v", name, r.Pages, r.Boxes)
			}
			for _, b := range r.Boxes {
				if b.BBox[0] < 150 || b.BBox[2] > 1700 || b.BBox[1] < 200 || b.BBox[3] > 500 {
					t.Errorf("%s: box %v, want about the lines drawn at x 200, y 270-390", name, b.BBox)
				}
			}
			text.WriteString(r.Text + " ")
		}
		if c := ocrtest.CER(text.String(), strings.Repeat(want+" ", pages)); c > 0.03 {
			t.Errorf("%s: CER %.3f: %q", name, c, text.String())
		}
	}
}
