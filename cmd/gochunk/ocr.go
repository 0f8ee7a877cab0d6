package main

import (
	"flag"

	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

// ocrFlags registers the OCR flags of a command that builds its own
// pipeline configuration (gochunk extract): --ocr, --ocr-model, --ocr-dpi,
// --ocr-max-pixels, --ocr-int8 and --onnx-library; the returned function sets them
// on a configuration.
func ocrFlags(fs *flag.FlagSet) func(*pipeline.Config) {
	var c pipeline.OCRConfig
	pipelineflag.RegisterOCR(fs, &c)
	lib := fs.String("onnx-library", "", "path of libonnxruntime for OCR (default $GOCHUNK_ONNX_LIBRARY, else the usual places)")
	return func(cfg *pipeline.Config) {
		cfg.OCR = c
		if *lib != "" {
			cfg.Embedder.ONNXLibrary = *lib
		}
	}
}
