//go:build cgo

package ocr_test

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
	"github.com/gochunk/gochunk/ocr"
)

// int8Lines is text the int8 test pages draw (none of it the
// calibration's).
var int8Lines = []string{
	"Alan Turing was born in Maida Vale, London, on 23 June 1912.",
	"II. The 2,012 orders of McDonald's iPhone, eBay & Co. (p. 147)",
	"were shipped on 2011-05-03 at 09:45; 17% arrived late.",
	"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do",
	"ARTICLE III - TERM AND TERMINATION OF THIS AGREEMENT",
	"Total due: $4,806.19 (incl. VAT 21%) by 30/09/2025, ref. Q-77/b",
	"Pack my box with five dozen liquor jugs, said Wojtek quietly.",
	"the wizard quickly jinxed the gnomes before they vaporized",
}

// TestQuantizeModel rewrites npm's PP-OCRv4 recogniser in int8 and
// checks that ONNX Runtime loads and runs it: every hard-swish
// convolution of 128 channels or more (21 of PPLCNetV3's 28) made
// QLinearConv, the offsets before its depthwise ones gone into zero
// points.
func TestQuantizeModel(t *testing.T) {
	dir := filepath.Join(ocrtest.Models(t), "assets")
	lib := onnxtest.Library(t)
	data, err := os.ReadFile(filepath.Join(dir, "ch_PP-OCRv4_rec_infer.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	fused, err := ocr.FuseModel(data)
	if err != nil {
		t.Fatal(err)
	}
	q, convs, offsets, err := ocr.QuantizeRecognizer(lib, fused)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := ocr.OpCounts(q)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("QLinearConv %d, offsets dropped %d, operators %v", convs, offsets, ops)
	if convs < 20 || offsets < 9 || ops["QLinearConv"] != convs || ops["QLinearMul"] != convs || ops["QLinearAdd"] != convs {
		t.Errorf("QLinearConv %d, offsets dropped %d, operators %v: want every hard-swish convolution rewritten", convs, offsets, ops)
	}
	line := ocrtest.Draw(t, 1000, 48, ocrtest.Text{X: 6, Y: 36, Size: 30, Text: int8Lines[1]})
	in, shape := ocr.RecognizerInput(line)
	out, outShape, err := ocr.RunModel(lib, q, in, shape)
	if err != nil {
		t.Fatal(err)
	}
	if len(outShape) != 3 || len(out) != int(outShape[0]*outShape[1]*outShape[2]) {
		t.Errorf("output %v of %d values", outShape, len(out))
	}
}

// TestInt8ReadsAsFloat reads drawn pages (upright, and turned 1.5° with
// the page's grey levels) with an engine of float models and with
// Options.Int8 engines of 8-bit and of 7-bit weights (CPUs without VNNI):
// the int8 text is within 0.5 % CER of the float text and of the truth
// no more than 0.3 % further. A second int8 engine on the same cache
// reads the rewrite back (the cache holds one file for each width, named
// by it) and gives the same text. A temporary file a killed process left
// in the cache long ago is removed when the rewrite is written.
func TestInt8ReadsAsFloat(t *testing.T) {
	dir := ocrtest.Models(t)
	lib := onnxtest.Library(t)
	fl := ocrtest.Engine(t)
	t.Logf("this CPU's int8 weights: %d bits", ocr.Int8Bits())
	cache := t.TempDir()
	stale := filepath.Join(cache, ".rec-int8-123")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}
	upright := ocrtest.Draw(t, 1700, 520, ocrtest.Lines(90, 80, 30, int8Lines...)...)
	truth := strings.Join(int8Lines, "\n")
	for i, bits := range []int{8, 7} {
		opt := ocr.WithInt8Bits(ocr.Options{ModelDir: dir, ONNXRuntimeLibrary: lib, Int8: true, CacheDir: cache,
			Warn: func(s string) { t.Errorf("%d bits: warned %q", bits, s) }}, bits)
		q1, err := ocr.New(opt)
		if err != nil {
			t.Fatal(err)
		}
		defer q1.Close()
		files, _ := filepath.Glob(filepath.Join(cache, fmt.Sprintf("rec-int8-*-w%d-*.onnx", bits)))
		if all, _ := filepath.Glob(filepath.Join(cache, "rec-int8-*.onnx")); len(files) != 1 || len(all) != i+1 {
			t.Fatalf("%d bits: cache holds %v, want one rewrite for each width", bits, all)
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("a stale temporary file is left in the cache: %v", err)
		}
		q2, err := ocr.New(opt)
		if err != nil {
			t.Fatal(err)
		}
		defer q2.Close()
		for name, img := range map[string]image.Image{"upright": upright, "turned": ocrtest.Rotate(upright, 1.5)} {
			read := func(e *ocr.Engine) string {
				p, err := e.Read(context.Background(), img)
				if err != nil {
					t.Fatal(err)
				}
				return p.Text()
			}
			f, a, b := read(fl), read(q1), read(q2)
			if a != b {
				t.Errorf("%d bits, %s: the cached rewrite reads\n%s\nthe first\n%s", bits, name, b, a)
			}
			d, cf, cq := ocrtest.CER(a, f), ocrtest.CER(f, truth), ocrtest.CER(a, truth)
			t.Logf("%d bits, %s: int8 against float CER %.4f; against the truth float %.4f, int8 %.4f", bits, name, d, cf, cq)
			if d > 0.005 || cq > cf+0.003 {
				t.Errorf("%d bits, %s: int8 read\n%s\nfloat\n%s", bits, name, a, f)
			}
		}
	}
}
