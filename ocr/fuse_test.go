//go:build cgo

package ocr_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
	"github.com/gochunk/gochunk/ocr"
)

// TestFuseModel rewrites npm's PP-OCRv4 recogniser and detector with
// fewer element-wise operators and checks that ONNX Runtime gives the
// same results from both, to float rounding: the recogniser the same
// character at every step of a drawn line, its probabilities within
// 1e-3; the detector's text map within 1e-3.
func TestFuseModel(t *testing.T) {
	dir := filepath.Join(ocrtest.Models(t), "assets")
	lib := onnxtest.Library(t)
	line := ocrtest.Draw(t, 900, 48, ocrtest.Text{X: 6, Y: 36, Size: 30, Text: "III Fujii took 2,012 orders; McDonald's iPhone, eBay."})
	page := ocrtest.Draw(t, 1700, 600, ocrtest.Lines(90, 135, 30, pageLines...)...)
	for _, tc := range []struct {
		file  string
		input func() ([]float32, []int64)
		steps bool // the output is [batch, steps, classes]
	}{
		{"ch_PP-OCRv4_rec_infer.onnx", func() ([]float32, []int64) { return ocr.RecognizerInput(line) }, true},
		{"ch_PP-OCRv4_det_infer.onnx", func() ([]float32, []int64) { return ocr.DetectorInput(page) }, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			fused, err := ocr.FuseModel(data)
			if err != nil {
				t.Fatal(err)
			}
			before, err := ocr.OpCounts(data)
			if err != nil {
				t.Fatal(err)
			}
			after, err := ocr.OpCounts(fused)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("operators before %v\nafter %v", before, after)
			if after["Constant"] != 0 || after["Clip"] != 0 || after["Div"] >= before["Div"] || after["Mul"]+after["Add"] > (before["Mul"]+before["Add"])/2 {
				t.Errorf("operators after %v, before %v: want no Constant or Clip, fewer Div, and Mul and Add halved at least", after, before)
			}
			in, shape := tc.input()
			want, wantShape, err := ocr.RunModel(lib, data, in, shape)
			if err != nil {
				t.Fatal(err)
			}
			got, gotShape, err := ocr.RunModel(lib, fused, in, shape)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(gotShape) != len(wantShape) {
				t.Fatalf("output %v, want %v", gotShape, wantShape)
			}
			worst := 0.0
			for i := range got {
				worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
			}
			t.Logf("largest difference %.3g", worst)
			if worst > 1e-3 {
				t.Errorf("outputs differ by up to %.3g, want at most 1e-3", worst)
			}
			if !tc.steps {
				return
			}
			classes := int(wantShape[2])
			var a, b strings.Builder
			for s := 0; s < int(wantShape[1]); s++ {
				a.WriteString(string(rune('0' + argmax(want[s*classes:(s+1)*classes])%64)))
				b.WriteString(string(rune('0' + argmax(got[s*classes:(s+1)*classes])%64)))
			}
			if a.String() != b.String() {
				t.Errorf("the most likely class differs at some step:\n got %s\nwant %s", b.String(), a.String())
			}
		})
	}
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
