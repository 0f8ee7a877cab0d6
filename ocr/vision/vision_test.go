package vision

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/llm"
)

// stub is a chat completions endpoint on loopback: handle answers each
// request, given the PNG image it carried (nil when none).
func stub(t *testing.T, handle func(n int64, img image.Image, w http.ResponseWriter)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		handle(n, imageOf(t, req.Messages[len(req.Messages)-1].Content), w)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// imageOf decodes the PNG of a message's image_url part.
func imageOf(t *testing.T, content json.RawMessage) image.Image {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return nil
	}
	for _, p := range parts {
		b64, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/png;base64,")
		if p.Type != "image_url" || !ok {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Errorf("image data: %v", err)
			return nil
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("image: %v", err)
			return nil
		}
		return img
	}
	return nil
}

func answer(w http.ResponseWriter, content, finish string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 800, "completion_tokens": 20}})
}

func page(w, h int) image.Image {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	img.SetGray(w/2, h/2, color.Gray{})
	return img
}

func reader(t *testing.T, srv *httptest.Server, retries int) *Reader {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "vis", Retries: retries})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A page is sent as a PNG (scaled to MaxSide), and the answer's lines
// come back in order with boxes down the page; the same page again is
// answered from the cache.
func TestRead(t *testing.T) {
	var got image.Rectangle
	srv, calls := stub(t, func(n int64, img image.Image, w http.ResponseWriter) {
		if img == nil {
			http.Error(w, "no image", http.StatusBadRequest)
			return
		}
		got = img.Bounds()
		answer(w, "```text\nTitle\n\n\nFirst line\nsecond line  \n```", "stop")
	})
	r := reader(t, srv, 0)
	p, err := r.Read(context.Background(), page(1700, 2200))
	if err != nil {
		t.Fatal(err)
	}
	if got.Dx() != 1583 || got.Dy() != 2048 {
		t.Errorf("image sent %v, want 1583×2048 (the longest side scaled to 2,048)", got)
	}
	if p.Width != 1700 || p.Height != 2200 || len(p.Lines) != 3 || p.Text() != "Title\nFirst line\nsecond line" {
		t.Fatalf("page %d×%d %q", p.Width, p.Height, p.Text())
	}
	for i := 1; i < len(p.Lines); i++ {
		if p.Lines[i].Box[1] <= p.Lines[i-1].Box[3] {
			t.Errorf("line %d box %v not below %v", i, p.Lines[i].Box, p.Lines[i-1].Box)
		}
	}
	if _, err := r.Read(context.Background(), page(1700, 2200)); err != nil || calls.Load() != 1 {
		t.Errorf("the same page again: %v, %d calls, want 1 (cached)", err, calls.Load())
	}
	if u := r.Usage(); u.Calls != 2 || u.CachedCalls != 1 || u.PromptTokens != 800 {
		t.Errorf("usage %+v", u)
	}
}

// Errors name what happened and what to do.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		handle  func(n int64, w http.ResponseWriter)
		want    string
		config  bool
		retries int
	}{
		{"401", func(n int64, w http.ResponseWriter) { http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized) }, "OPENAI_API_KEY", true, 0},
		{"404", func(n int64, w http.ResponseWriter) { http.Error(w, `{"error":"no model"}`, http.StatusNotFound) }, "--llm-url", true, 0},
		{"400", func(n int64, w http.ResponseWriter) {
			http.Error(w, `{"error":"image_url not supported"}`, http.StatusBadRequest)
		}, "vision model", false, 0},
		{"429", func(n int64, w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, "--llm-rpm", false, 1},
		{"not a completion", func(n int64, w http.ResponseWriter) { w.Write([]byte(`<html>proxy</html>`)) }, "not a chat completion", false, 0},
		{"refusal", func(n int64, w http.ResponseWriter) {
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "", "refusal": "I cannot help"}}}})
		}, "refused to read the page", false, 0},
		{"cut", func(n int64, w http.ResponseWriter) { answer(w, "a very long", "length") }, "token limit", false, 0},
	} {
		srv, _ := stub(t, func(n int64, img image.Image, w http.ResponseWriter) { c.handle(n, w) })
		_, err := reader(t, srv, c.retries).Read(context.Background(), page(100, 100))
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, gochunk.ErrConfig) != c.config {
			t.Errorf("%s: %v, want an error saying %q (a configuration error: %v)", c.name, err, c.want, c.config)
		}
	}
}

// A 429 is retried (the client's retries) and the page read.
func TestRead429Retried(t *testing.T) {
	srv, calls := stub(t, func(n int64, img image.Image, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		answer(w, "text", "stop")
	})
	r := reader(t, srv, 2)
	p, err := r.Read(context.Background(), page(100, 100))
	if err != nil || p.Text() != "text" || calls.Load() != 2 || r.Usage().HTTPAttempts != 2 {
		t.Errorf("%v %v, %d calls, usage %+v", p, err, calls.Load(), r.Usage())
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"\n\n  a \r\n\r\n\r\n b\n": "a\n\nb",
		"```\nx\n```":              "x",
		"```markdown\nx\n\ny\n```": "x\n\ny",
		"a\rb":                     "a\nb",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// Lines spread down the page in order, a blank line's gap between
// blocks, inside the page, as wide as their share of the longest line.
func TestLines(t *testing.T) {
	ls := Lines("a title\n\nfirst line here\nsecond", 1000, 2000)
	if len(ls) != 3 {
		t.Fatalf("%d lines", len(ls))
	}
	gap1, gap2 := ls[1].Box[1]-ls[0].Box[1], ls[2].Box[1]-ls[1].Box[1]
	if gap1 < 1.9*gap2 {
		t.Errorf("gaps %g (across a blank line) and %g (within a block)", gap1, gap2)
	}
	for _, l := range ls {
		if l.Box[0] < 0 || l.Box[2] > 1000 || l.Box[1] < 0 || l.Box[3] > 2000 || l.Box[2] <= l.Box[0] {
			t.Errorf("box %v outside the page", l.Box)
		}
	}
	if ls[1].Box[2] <= ls[0].Box[2] || ls[2].Box[2] >= ls[0].Box[2] {
		t.Errorf("widths do not follow the lines' lengths: %v %v %v", ls[0].Box, ls[1].Box, ls[2].Box)
	}
	// Many lines still fit the page.
	many := Lines(strings.Repeat("line\n", 199)+"last", 1000, 2000)
	if b := many[len(many)-1].Box; b[3] > 2000 {
		t.Errorf("the 200th line's box %v is off the page", b)
	}
}

func TestImageTokens(t *testing.T) {
	for _, c := range []struct {
		w, h   int
		detail string
		want   int
	}{{1583, 2048, "high", 765}, {512, 512, "high", 255}, {4096, 8192, "high", 1105}, {1583, 2048, "low", 85}, {100, 100, "auto", 255}} {
		if got := ImageTokens(c.w, c.h, c.detail); got != c.want {
			t.Errorf("ImageTokens(%d, %d, %s) = %d, want %d", c.w, c.h, c.detail, got, c.want)
		}
	}
}

func TestNewOptions(t *testing.T) {
	c, _ := llm.New(llm.Config{Model: "m"})
	if _, err := New(c, Options{Detail: "medium"}); err == nil {
		t.Error("detail medium accepted")
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("no client accepted")
	}
	r, err := New(c, Options{})
	if err != nil || r.Name() != "openai:m" {
		t.Errorf("%v %v", r, err)
	}
	if e := r.Estimate(3, 1700, 2200); e.Requests != 3 || e.PromptTokens < 3*765 || e.PromptTokens > 3*1100 || e.CompletionTokens != 2400 {
		t.Errorf("estimate %+v", e)
	}
}

// sent returns page m as r sends it: encoded, then decoded.
func sent(t *testing.T, r *Reader, m image.Image) image.Image {
	t.Helper()
	data, err := r.encode(m)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// A page without colour is sent in grey (half the bytes), one with
// colour as it is.
func TestEncodeGrey(t *testing.T) {
	c, _ := llm.New(llm.Config{Model: "m"})
	r, _ := New(c, Options{})
	m := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range m.Pix {
		m.Pix[i] = 200
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	for _, colour := range []bool{false, true} {
		if colour {
			m.Set(3, 3, color.RGBA{255, 0, 0, 255})
		}
		img := sent(t, r, m)
		if _, isGrey := img.(*image.Gray); isGrey == colour || img.Bounds().Dx() != 64 {
			t.Errorf("colour %v: sent as %T %v", colour, img, img.Bounds())
		}
	}
}

// A page larger than MaxSide is sent scaled down by averaging: a page of
// one grey stays that grey, a checkerboard of single pixels halved
// becomes its mean (not its black or white pixels, as sampling gives), a
// colour page stays colour. And it is scaled within the page's
// reservation (the vision reader's 32 MiB and 8 bytes a pixel, the page
// as drawn, 4 bytes a pixel, included): a 200-dpi Letter page was scaled
// by x/image/draw's BiLinear, whose buffer alone took 32 bytes for each
// of 1,583 × 2,200 pixels (111 MB), four pages at once 450 MB; now
// encoding it allocates at most 5 bytes a pixel of the page in all (the
// colour page sent, 3.5 of them).
func TestEncodeScaled(t *testing.T) {
	c, _ := llm.New(llm.Config{Model: "m"})
	r, _ := New(c, Options{})
	board := image.NewRGBA(image.Rect(0, 0, 4096, 3000))
	for y := range 3000 {
		for x := range 4096 {
			v := uint8(90)
			if y >= 1500 { // the lower half a checkerboard of single pixels
				v = uint8(255 * ((x + y) % 2))
			}
			board.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	img := sent(t, r, board)
	g, ok := img.(*image.Gray)
	if !ok || img.Bounds() != image.Rect(0, 0, 2048, 1500) {
		t.Fatalf("sent %T %v, want grey 2048×1500", img, img.Bounds())
	}
	for _, p := range []image.Point{{0, 0}, {1000, 300}, {2047, 749}} {
		if v := g.GrayAt(p.X, p.Y).Y; v != 90 {
			t.Errorf("a page of grey 90 sent as %d at %v", v, p)
		}
	}
	for _, p := range []image.Point{{0, 750}, {101, 900}, {2047, 1499}} {
		if v := g.GrayAt(p.X, p.Y).Y; v != 128 {
			t.Errorf("a checkerboard sent as %d at %v, want its mean, 128", v, p)
		}
	}

	const w, h = 1700, 2200
	page := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(250 - 200*((x/7+y/31)%2)) // strokes and gaps
			page.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	for _, colour := range []bool{false, true} {
		if colour {
			page.SetRGBA(10, 10, color.RGBA{255, 0, 0, 255})
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		data, err := r.encode(page)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 5*w*h {
			t.Errorf("colour %v: encoding a page of %d×%d allocated %d bytes, over 5 a pixel", colour, w, h, n)
		} else {
			t.Logf("colour %v: %.2f bytes a pixel", colour, float64(n)/(w*h))
		}
		img, err := png.Decode(bytes.NewReader(data))
		if _, isGrey := img.(*image.Gray); err != nil || isGrey == colour {
			t.Errorf("colour %v: sent as %T (%v)", colour, img, err)
		}
	}
}
