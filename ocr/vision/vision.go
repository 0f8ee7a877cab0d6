// Package vision reads page images with a vision chat model on an
// OpenAI-compatible endpoint (gochunk's --ocr openai:MODEL), the second
// route of OCR beside package ocr's PP-OCR models: each page is sent as a
// PNG in a data URL through package llm's client (retries, rate limits,
// the cache of answers, accounting), the model is asked for the page's
// text in reading order (llm's prompt ocr_v1), and the answer's lines
// are placed on the page.
//
// A chat model gives no boxes: each line of the answer gets an
// approximate box, the lines spread down the page in their order at one
// pitch with a blank line's gap between blocks, each as wide as its share
// of the longest line. The boxes keep the layout code's paragraphs and
// reading order; they are not where the text is on the page, and records
// say so (Boxes).
package vision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/apiclient"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/ocr"
)

// Prompt is the versioned prompt asking for a page's text (in package
// llm's prompts); its text is part of every cached answer's key, so a new
// version asks again.
const Prompt = "ocr_v1"

// DefaultMaxSide is the longest side, in pixels, of the image sent: a
// larger page is scaled down to it (OpenAI's models scale an image to
// 2,048 pixels anyway; the request stays a few hundred kilobytes).
const DefaultMaxSide = 2048

// DefaultMaxTokens bounds a page's answer: a dense page of 5,000
// characters is about 1,300 tokens.
const DefaultMaxTokens = 8192

// Boxes is what records say of the boxes of lines read by a vision model
// (the metadata's ocr_boxes): approximate, spread down the page.
const Boxes = "approximate"

// Options configure a Reader. The zero value of each field means its
// default.
type Options struct {
	// Detail is the detail the model looks at a page in: OpenAI's
	// "high" (the default), "low" (85 tokens an image, too coarse for
	// small print) or "auto".
	Detail string
	// MaxSide is the longest side of the image sent (DefaultMaxSide).
	MaxSide int
}

// Reader reads page images with a vision chat model. It is safe for use
// by several goroutines.
type Reader struct {
	client *llm.Client
	prompt *llm.Prompt
	opt    Options

	mu    sync.Mutex
	usage gochunk.LLMUsage
}

// New returns a Reader asking client's model; it asks nothing yet.
func New(client *llm.Client, opt Options) (*Reader, error) {
	if client == nil {
		return nil, errors.New("vision OCR: no chat model (give --ocr openai:MODEL)")
	}
	switch opt.Detail {
	case "":
		opt.Detail = "high"
	case "high", "low", "auto":
	default:
		return nil, fmt.Errorf("vision OCR: detail %q: want high, low or auto", opt.Detail)
	}
	if opt.MaxSide <= 0 {
		opt.MaxSide = DefaultMaxSide
	}
	p, err := llm.LoadPrompt(Prompt)
	if err != nil {
		return nil, err
	}
	return &Reader{client: client, prompt: p, opt: opt}, nil
}

// Name is the engine's name in records: openai:MODEL.
func (r *Reader) Name() string { return "openai:" + r.client.Model() }

// Concurrency returns the pages the Reader reads at once: its client's
// requests in flight (--llm-concurrency). It makes the Reader a
// layout.ConcurrentOCRReader, whose pages are drawn ahead and sent
// together.
func (r *Reader) Concurrency() int { return r.client.Concurrency() }

// Usage returns the accounting of every page read so far: the requests,
// those answered from the cache, and the tokens of the answers the
// server gave (a cached answer spends none).
func (r *Reader) Usage() gochunk.LLMUsage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}

// Read reads a page image: its text as the model answers it, in lines
// with approximate boxes in the image's pixels (see the package comment).
func (r *Reader) Read(ctx context.Context, img image.Image) (*ocr.Page, error) {
	p, _, err := r.ReadPage(ctx, img)
	return p, err
}

// ReadPage is Read, also returning the page's accounting (a page
// answered from the cache counts a cached call and no tokens).
func (r *Reader) ReadPage(ctx context.Context, img image.Image) (*ocr.Page, gochunk.LLMUsage, error) {
	b := img.Bounds()
	if b.Empty() {
		return nil, gochunk.LLMUsage{}, errors.New("vision OCR: the page image is empty")
	}
	data, err := r.encode(img)
	if err != nil {
		return nil, gochunk.LLMUsage{}, fmt.Errorf("vision OCR: encode the page: %w", err)
	}
	req, err := r.prompt.Request(nil)
	if err != nil {
		return nil, gochunk.LLMUsage{}, err
	}
	last := &req.Messages[len(req.Messages)-1]
	last.Images = []llm.Image{{MIME: "image/png", Data: data, Detail: r.opt.Detail}}
	resp, err := r.client.Complete(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, gochunk.LLMUsage{}, ctx.Err()
		}
		return nil, gochunk.LLMUsage{}, r.explain(err)
	}
	u := resp.Usage()
	if resp.Cached {
		u.PromptTokens, u.CompletionTokens, u.CachedPromptTokens = 0, 0, 0 // nothing was spent
	}
	r.mu.Lock()
	r.usage.Merge(u)
	r.mu.Unlock()
	switch {
	case resp.Refusal != "":
		return nil, u, fmt.Errorf("vision OCR: %s refused to read the page: %.200q", r.Name(), resp.Refusal)
	case resp.FinishReason == "length":
		return nil, u, fmt.Errorf("vision OCR: %s's answer reached its token limit and was cut: the page's text is incomplete (no page of text is that long: check the image)", r.Name())
	}
	return &ocr.Page{Width: b.Dx(), Height: b.Dy(), Lines: Lines(Clean(resp.Content), b.Dx(), b.Dy())}, u, nil
}

// explain adds what to do to the errors a user can fix.
func (r *Reader) explain(err error) error {
	var se *apiclient.StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("%w: vision OCR: the endpoint refused the key (%s): set OPENAI_API_KEY to a key of the server (--llm-url): %w", gochunk.ErrConfig, se.Status, err)
		case http.StatusNotFound:
			return fmt.Errorf("%w: vision OCR: the endpoint has no chat completions or no model %q (%s): check --llm-url and the model of --ocr openai:MODEL: %w", gochunk.ErrConfig, r.client.Model(), se.Status, err)
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
			return fmt.Errorf("vision OCR: %s refused the page image (%s; is it a vision model?): %w", r.Name(), se.Status, err)
		}
	}
	if errors.As(err, &se) && se.Code == http.StatusTooManyRequests {
		return fmt.Errorf("vision OCR: %s kept answering 429 Too Many Requests after the retries: lower --llm-rpm or --llm-concurrency: %w", r.Name(), err)
	}
	return fmt.Errorf("vision OCR: %s: %w", r.Name(), err)
}

// encode returns the page as a PNG, in grey where the page has no
// colour (half the bytes of RGB), scaled down to MaxSide by averaging the
// pixels each sent pixel covers (scale). A page drawn for OCR (RGBA) is
// made grey before it is scaled: a 200-dpi Letter page holds its 3.7
// million grey bytes and the 3.2 million sent, not a scaler's buffers.
func (r *Reader) encode(img image.Image) ([]byte, error) {
	b := img.Bounds()
	var src image.Image
	switch m := img.(type) {
	case *image.Gray:
		src = m
	case *image.RGBA:
		src = m
		if g := grey(m); g != nil {
			src = g
		}
	default:
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		src = rgba
		if g := grey(rgba); g != nil {
			src = g
		}
	}
	if w, h := b.Dx(), b.Dy(); max(w, h) > r.opt.MaxSide {
		sw, sh := SentSize(w, h, r.opt.MaxSide)
		src = scale(src, sw, sh)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, src); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// scale returns m (an *image.Gray or *image.RGBA) scaled down to w×h
// pixels: each pixel the average of the pixels of m it covers, weighted
// by how much of each it covers (a box filter: no aliasing of thin
// strokes, as sampling would have). It holds one row of sums, not the
// image at another size.
func scale(m image.Image, w, h int) image.Image {
	var pix []byte
	var stride, n int
	var out image.Image
	var dst []byte
	var dstStride int
	b := m.Bounds()
	switch m := m.(type) {
	case *image.Gray:
		pix, stride, n = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, 1
		g := image.NewGray(image.Rect(0, 0, w, h))
		out, dst, dstStride = g, g.Pix, g.Stride
	case *image.RGBA:
		pix, stride, n = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, 4
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		out, dst, dstStride = c, c.Pix, c.Stride
	default:
		return m
	}
	sw, sh := b.Dx(), b.Dy()
	fx, fy := float64(sw)/float64(w), float64(sh)/float64(h)
	// Each sent column's source columns and their weights.
	type tap struct {
		x int
		w float32
	}
	cols := make([][]tap, w)
	for x := range w {
		cols[x] = spans(float64(x)*fx, float64(x+1)*fx, sw, func(i int, wt float64) tap { return tap{i, float32(wt)} })
	}
	row := make([]float32, w*n) // one source row, scaled across
	acc := make([]float32, w*n) // the sent row's weighted sum
	for y := range h {
		clear(acc)
		for _, r := range spans(float64(y)*fy, float64(y+1)*fy, sh, func(i int, wt float64) tap { return tap{i, float32(wt)} }) {
			src := pix[r.x*stride:]
			clear(row)
			for x, taps := range cols {
				for _, t := range taps {
					for c := range n {
						row[x*n+c] += t.w * float32(src[t.x*n+c])
					}
				}
			}
			for i, v := range row {
				acc[i] += r.w * v
			}
		}
		norm := float32(1 / (fx * fy))
		line := dst[y*dstStride : y*dstStride+w*n]
		for i, v := range acc {
			line[i] = uint8(min(255, v*norm+0.5))
		}
	}
	return out
}

// spans returns the source pixels (0 to n-1) the interval [a, b) covers,
// each with the length of it within the pixel, made by mk.
func spans[T any](a, b float64, n int, mk func(i int, w float64) T) []T {
	var out []T
	for i := int(a); i < n && float64(i) < b; i++ {
		lo, hi := max(a, float64(i)), min(b, float64(i+1))
		if hi > lo {
			out = append(out, mk(i, hi-lo))
		}
	}
	return out
}

// grey returns m as a grey image where every pixel is opaque grey, else
// nil (having allocated nothing).
func grey(m *image.RGBA) *image.Gray {
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range b.Dx() {
			if p := row[4*x : 4*x+4 : 4*x+4]; p[0] != p[1] || p[1] != p[2] || p[3] != 0xff {
				return nil
			}
		}
	}
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := m.Pix[m.PixOffset(b.Min.X, y):]
		out := g.Pix[(y-b.Min.Y)*g.Stride:]
		for x := range b.Dx() {
			out[x] = row[4*x]
		}
	}
	return g
}

// SentSize returns the size of the image sent for a page of w×h pixels.
func SentSize(w, h, maxSide int) (int, int) {
	if maxSide <= 0 {
		maxSide = DefaultMaxSide
	}
	if m := max(w, h); m > maxSide {
		s := float64(maxSide) / float64(m)
		return max(1, int(float64(w)*s+0.5)), max(1, int(float64(h)*s+0.5))
	}
	return w, h
}

// ImageTokens estimates the prompt tokens of an image of w×h pixels as
// OpenAI's GPT-4o counts them: 85 at low detail; at high detail, the
// image fitted in 2,048×2,048, then its short side scaled to 768, 85 plus
// 170 a 512-pixel tile. Other models count otherwise (gpt-4o-mini bills
// more tokens an image; local models their own patches): an estimate.
func ImageTokens(w, h int, detail string) int {
	if detail == "low" || w <= 0 || h <= 0 {
		return 85
	}
	fw, fh := float64(w), float64(h)
	if m := max(fw, fh); m > 2048 {
		fw, fh = fw*2048/m, fh*2048/m
	}
	if s := min(fw, fh); s > 768 {
		fw, fh = fw*768/s, fh*768/s
	}
	tiles := int((fw+511)/512) * int((fh+511)/512)
	return 85 + 170*tiles
}

// Estimate is what reading pages will ask the model for, before it is
// asked: a request a page, the image and the prompt's tokens, and the
// answers' (about a token per 4 characters of a page's text).
type Estimate struct {
	Requests     int
	PromptTokens int
	// CompletionTokens assumes 800 a page (a dense page of about 3,200
	// characters); a page can take up to DefaultMaxTokens.
	CompletionTokens int
}

// completionPerPage is the answer assumed of a page in an Estimate.
const completionPerPage = 800

// Estimate returns the estimate of reading pages page images of w×h
// pixels (their size before scaling to MaxSide).
func (r *Reader) Estimate(pages, w, h int) Estimate {
	text := 0
	if req, err := r.prompt.Request(nil); err == nil {
		for _, m := range req.Messages {
			text += len(m.Content)/4 + 4 // about 4 characters a token, and the message's own
		}
	}
	sw, sh := SentSize(w, h, r.opt.MaxSide)
	per := text + ImageTokens(sw, sh, r.opt.Detail)
	return Estimate{Requests: pages, PromptTokens: pages * per, CompletionTokens: pages * completionPerPage}
}

// Clean returns a model's answer as plain lines: line ends as "\n", a
// code fence around the whole answer removed, spaces at the ends of lines
// and runs of blank lines collapsed to one.
func Clean(answer string) string {
	s := strings.ReplaceAll(answer, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) >= 6 {
		s = strings.TrimSuffix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // the fence's line, with its language
		} else {
			s = ""
		}
	}
	var out []string
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Lines places the lines of text (Clean's form: a blank line between
// blocks) on a page of w×h pixels: top to bottom in their order inside
// margins of a twentieth of the page, one pitch apart (the page's height
// shared among them, at most a fortieth of it), a blank line's gap
// between blocks, each line's box 0.8 pitch high and as wide as its
// share of the longest line's characters. The boxes are approximate (the
// model gives none); they keep the layout's paragraphs and order.
func Lines(text string, w, h int) []ocr.Line {
	if text == "" {
		return nil
	}
	rows := strings.Split(text, "\n")
	longest := 1
	for _, r := range rows {
		longest = max(longest, utf8.RuneCountInString(r))
	}
	mx, my := float64(w)/20, float64(h)/20
	uw, uh := float64(w)-2*mx, float64(h)-2*my
	pitch := min(uh/float64(len(rows)), uh/40)
	lines := make([]ocr.Line, 0, len(rows))
	for i, r := range rows {
		if r == "" {
			continue
		}
		y0 := my + float64(i)*pitch
		x1 := mx + uw*float64(utf8.RuneCountInString(r))/float64(longest)
		box := [4]float64{mx, y0, x1, y0 + 0.8*pitch}
		lines = append(lines, ocr.Line{Text: r, Box: box,
			Quad: [4]ocr.Point{{X: box[0], Y: box[1]}, {X: box[2], Y: box[1]}, {X: box[2], Y: box[3]}, {X: box[0], Y: box[3]}}})
	}
	return lines
}
