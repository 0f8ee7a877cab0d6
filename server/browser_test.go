package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/inspect"
	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/pipeline"
)

var screenshots = flag.Bool("screenshots", false, "write the browser tests' screenshots to docs/ (for the README)")

// browser starts headless Chromium (Debian's chromium package; .ci/run
// installs it) through chromedp, or skips the test saying how to get it.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("skipping: no Chromium to drive (apt-get install chromium; .ci/run does it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1400, 1000),
		chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	if err := chromedp.Run(ctx); err != nil {
		t.Skipf("skipping: Chromium does not start here: %v", err)
	}
	return ctx
}

// shownSpans reads, from a pane of the page, each chunk's spans in code
// points as the page draws them: the pieces that carry the chunk,
// adjacent ones merged.
const shownSpans = `(() => {
  const m = {};
  for (const e of document.querySelectorAll('[data-pane="%s"] .text span[data-chunks]')) {
    for (const c of e.dataset.chunks.split(" ")) {
      const l = (m[c] = m[c] || []);
      const s = +e.dataset.s, t = +e.dataset.e;
      if (l.length && l[l.length - 1][1] === s) l[l.length - 1][1] = t; else l.push([s, t]);
    }
  }
  return m;
})()`

// apiSpans asks /v1/chunk for the chunks and returns their spans the same
// way.
func apiSpans(t *testing.T, base, chunker string, config map[string]any, text string) map[string][][2]int {
	t.Helper()
	cfg, _ := json.Marshal(config)
	body, _ := json.Marshal(api.ChunkRequest{Chunker: chunker, Config: cfg, Text: text})
	code, b, _ := post(t, base+"/v1/chunk", string(body))
	var resp api.ChunkResponse
	if code != 200 || json.Unmarshal(b, &resp) != nil {
		t.Fatalf("/v1/chunk: %d %s", code, b)
	}
	out := map[string][][2]int{}
	for _, c := range resp.Documents[0].Chunks {
		spans := c.Spans
		if len(spans) == 0 {
			spans = []gochunk.Span{{StartRune: c.StartRune, EndRune: c.EndRune}}
		}
		for _, s := range spans {
			out[fmt.Sprint(c.ChunkIndex)] = append(out[fmt.Sprint(c.ChunkIndex)], [2]int{s.StartRune, s.EndRune})
		}
	}
	return out
}

func sameSpans(t *testing.T, what string, shown map[string][][2]float64, want map[string][][2]int) {
	t.Helper()
	if len(shown) != len(want) {
		t.Fatalf("%s: the page shows %d chunks, /v1/chunk returns %d", what, len(shown), len(want))
	}
	for c, spans := range want {
		var got [][2]int
		for _, s := range shown[c] {
			got = append(got, [2]int{int(s[0]), int(s[1])})
		}
		if !slices.Equal(got, spans) {
			t.Fatalf("%s: chunk %s shown at %v, /v1/chunk says %v", what, c, got, spans)
		}
	}
}

func shot(t *testing.T, ctx context.Context, name string) {
	var png []byte
	// A tall viewport, so that the parts drawn lazily (content-visibility)
	// are on screen and drawn.
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1400, 1800), chromedp.Sleep(200*time.Millisecond), chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if *screenshots {
		dir = filepath.Join("..", "docs")
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The playground, in a real browser: opened from a URL it chunks at once
// and shows exactly /v1/chunk's chunks; a text pasted and another chunker
// chosen, likewise; two configurations side by side; an embedding-based
// chunker draws its curve; a 1 MB document renders in under 2 s.
func TestPlaygroundInBrowser(t *testing.T) {
	ctx := browser(t)
	_, srv := newTest(t, nil)
	text := "# Planets\n\nJupiter is the largest planet. It has a great red spot, a storm larger than Earth.\n\n" +
		"Saturn has rings of ice and rock. Its moon Titan has lakes of methane.\n\n# Cooking\n\n" +
		"Bread needs flour, water, salt and yeast. Knead the dough, let it rise, then bake it hot.\n\n" +
		"Pasta is boiled in salted water until al dente, then tossed with its sauce."
	q := url.Values{"chunker": {"recursive"}, "size": {"60"}, "overlap": {"10"}, "text": {text}}
	var shown map[string][][2]float64
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/?"+q.Encode()),
		chromedp.WaitVisible(`body[data-state="done"]`), chromedp.Evaluate(fmt.Sprintf(shownSpans, "a"), &shown)); err != nil {
		t.Fatal(err)
	}
	sameSpans(t, "recursive from the URL", shown, apiSpans(t, srv.URL, "recursive", map[string]any{"size": 60, "overlap": 10}, text))
	var hatched int
	chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('.text span.ov').length`, &hatched))
	if hatched == 0 {
		t.Error("overlaps are not drawn")
	}
	shot(t, ctx, "playground.png")

	// Paste another text, switch to the sentence chunker, compare with semantic.
	other := strings.Repeat("The cat sat on the mat. Dogs bark at night. ", 12) + strings.Repeat("Stocks fell sharply today. Bonds rallied on the news. ", 12)
	var curves int
	shown = nil
	err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`body[data-state="ready"]`),
		chromedp.SetValue(`#text`, other, chromedp.ByQuery),
		chromedp.SetValue(`[data-pane="a"] select[name="chunker"]`, "sentence", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('[data-pane="a"] select[name="chunker"]').dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue(`[data-pane="a"] input[name="size"]`, "120", chromedp.ByQuery),
		chromedp.Click(`#compare`, chromedp.ByQuery),
		chromedp.SetValue(`[data-pane="b"] select[name="chunker"]`, "semantic", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('[data-pane="b"] select[name="chunker"]').dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue(`[data-pane="b"] input[name="size"]`, "150", chromedp.ByQuery),
		chromedp.Click(`#run`, chromedp.ByQuery), chromedp.WaitVisible(`body[data-state="done"]`),
		chromedp.Evaluate(fmt.Sprintf(shownSpans, "a"), &shown),
		chromedp.Evaluate(`document.querySelectorAll('[data-pane="b"] svg.curve polyline').length`, &curves))
	if err != nil {
		t.Fatal(err)
	}
	sameSpans(t, "sentence after switching", shown, apiSpans(t, srv.URL, "sentence", map[string]any{"size": 120}, other))
	shown = nil // Evaluate decodes into the map: start from an empty one
	chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(shownSpans, "b"), &shown))
	sameSpans(t, "semantic beside it", shown, apiSpans(t, srv.URL, "semantic", map[string]any{"size": 150}, other))
	if curves == 0 {
		t.Error("the semantic chunker's curve is not drawn")
	}
	// Axis labels are round numbers: whole chunk counts on the histogram,
	// no exponent (a zero printed as -7.07e-9) anywhere.
	var ticks []string
	chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('svg .tick-x, svg .tick-y')].map((e) => e.closest('svg').getAttribute('class') + ':' + e.classList[0] + ':' + e.textContent)`, &ticks))
	if len(ticks) == 0 {
		t.Error("no axis ticks drawn")
	}
	for _, tk := range ticks {
		parts := strings.SplitN(tk, ":", 3)
		if strings.ContainsAny(parts[2], "e") || parts[0] == "histogram" && strings.Contains(parts[2], ".") || parts[2] == "-0" || strings.HasPrefix(parts[2], "-0.0") && strings.Trim(parts[2], "-0.") == "" {
			t.Errorf("axis tick %q", tk)
		}
	}
	var location string
	chromedp.Run(ctx, chromedp.Evaluate(`location.search`, &location))
	if !strings.Contains(location, "b.chunker=semantic") || !strings.Contains(location, "a.chunker=sentence") || !strings.Contains(location, "view=compare") {
		t.Errorf("the URL does not keep the configuration: %s", location)
	}
	shot(t, ctx, "playground-compare.png")

	// A 1 MB document, pasted: rendered, every chunk drawn. The time it took
	// is logged, never asserted: a loaded machine must not fail the test.
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "Paragraph %d talks about topic %d at some length, with a few words more.\n\n", i, i%97)
	}
	var ms float64
	var pieces int
	err = chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`body[data-state="ready"]`),
		chromedp.Evaluate(fmt.Sprintf(`document.querySelector("#text").value = %q`, sb.String()), nil),
		chromedp.Evaluate(`window.t0 = performance.now(); document.querySelector("#run").click()`, nil),
		chromedp.WaitVisible(`body[data-state="done"]`),
		chromedp.Evaluate(`performance.now() - window.t0`, &ms),
		chromedp.Evaluate(`document.querySelectorAll('.text span[data-chunk]').length`, &pieces))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 MB document: %d chunk pieces drawn in %.0f ms", pieces, ms)
	if pieces == 0 {
		t.Error("1 MB document: no chunk drawn")
	}
}

// settled waits until the page has chunked or failed, and returns its
// state ("done" or "error"), its panes and the errors they show.
func settled(t *testing.T, ctx context.Context) (state string, panes int, errs []string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`body[data-state="done"], body[data-state="error"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.body.dataset.state`, &state),
		chromedp.Evaluate(`document.querySelectorAll('.panes .pane').length`, &panes),
		chromedp.Evaluate(`[...document.querySelectorAll('.pane .error')].map((e) => e.textContent)`, &errs)); err != nil {
		t.Fatal(err)
	}
	return state, panes, errs
}

// paneSpans returns the spans pane shows.
func paneSpans(t *testing.T, ctx context.Context, pane string) map[string][][2]float64 {
	t.Helper()
	var shown map[string][][2]float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(shownSpans, pane), &shown)); err != nil {
		t.Fatal(err)
	}
	return shown
}

// Compare mode with the chunkers that have a parameter named compare
// (semantic's blocks or windows, savgol's blocks or window): the page's
// two panes and a pane's compare never share a URL key. A link written
// before the panes had names (compare=1 for two panes) chunks in both;
// each pane's compare set on the page goes to its own key, the saved URL
// keeps the second pane, and opening it again gives both panes their
// settings and their chunks.
func TestPlaygroundCompareParameterInBrowser(t *testing.T) {
	ctx := browser(t)
	_, srv := newTest(t, nil)
	text := strings.Repeat("The cat sat on the mat. Dogs bark at night. Birds sing at dawn. ", 8) +
		strings.Repeat("Stocks fell sharply today. Bonds rallied on the news. Markets closed lower. ", 8) +
		strings.Repeat("Knead the dough well. Let the bread rise. Bake it in a hot oven. ", 8)
	// The parameters change the chunks: the page is seen to send them.
	if b, w := apiSpans(t, srv.URL, "semantic", map[string]any{"size": 60}, text), apiSpans(t, srv.URL, "semantic", map[string]any{"size": 60, "compare": "windows"}, text); fmt.Sprint(b) == fmt.Sprint(w) {
		t.Fatalf("semantic's compare=windows chunks this text as blocks does: %v", b)
	}

	old := url.Values{"chunker": {"semantic"}, "size": {"60"}, "compare": {"1"}, "b.chunker": {"savgol"}, "b.size": {"60"}, "text": {text}}
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/?"+old.Encode())); err != nil {
		t.Fatal(err)
	}
	if state, panes, errs := settled(t, ctx); state != "done" || panes != 2 || len(errs) > 0 {
		t.Fatalf("the link %s: state %s, %d panes, errors %q", old.Encode()[:60], state, panes, errs)
	}
	sameSpans(t, "semantic from the link", paneSpans(t, ctx, "a"), apiSpans(t, srv.URL, "semantic", map[string]any{"size": 60}, text))
	sameSpans(t, "savgol beside it", paneSpans(t, ctx, "b"), apiSpans(t, srv.URL, "savgol", map[string]any{"size": 60}, text))

	// Each pane's own compare, set on the page.
	var location string
	if err := chromedp.Run(ctx,
		chromedp.SetValue(`[data-pane="a"] input[name="compare"]`, "windows", chromedp.ByQuery),
		chromedp.SetValue(`[data-pane="b"] input[name="compare"]`, "window", chromedp.ByQuery),
		chromedp.Click(`#run`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if state, panes, errs := settled(t, ctx); state != "done" || panes != 2 || len(errs) > 0 {
		t.Fatalf("with each pane's compare: state %s, %d panes, errors %q", state, panes, errs)
	}
	semWindows := apiSpans(t, srv.URL, "semantic", map[string]any{"size": 60, "compare": "windows"}, text)
	savWindow := apiSpans(t, srv.URL, "savgol", map[string]any{"size": 60, "compare": "window"}, text)
	sameSpans(t, "semantic with compare=windows", paneSpans(t, ctx, "a"), semWindows)
	sameSpans(t, "savgol with compare=window", paneSpans(t, ctx, "b"), savWindow)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.search`, &location)); err != nil {
		t.Fatal(err)
	}
	saved, _ := url.ParseQuery(strings.TrimPrefix(location, "?"))
	for k, want := range map[string]string{"view": "compare", "a.chunker": "semantic", "a.compare": "windows", "a.size": "60",
		"b.chunker": "savgol", "b.compare": "window", "b.size": "60", "text": text} {
		if got := saved.Get(k); got != want {
			t.Errorf("the saved URL has %s=%q, want %q (%s)", k, got, want, location)
		}
	}
	if saved.Has("compare") || saved.Has("chunker") {
		t.Errorf("the saved URL has keys outside the panes' and the page's: %s", location)
	}

	// The saved URL, opened again: both panes, their settings, their chunks.
	var aCompare, bCompare, bChunker string
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"+location)); err != nil {
		t.Fatal(err)
	}
	if state, panes, errs := settled(t, ctx); state != "done" || panes != 2 || len(errs) > 0 {
		t.Fatalf("the saved URL: state %s, %d panes, errors %q", state, panes, errs)
	}
	if err := chromedp.Run(ctx,
		chromedp.Value(`[data-pane="a"] input[name="compare"]`, &aCompare, chromedp.ByQuery),
		chromedp.Value(`[data-pane="b"] input[name="compare"]`, &bCompare, chromedp.ByQuery),
		chromedp.Value(`[data-pane="b"] select[name="chunker"]`, &bChunker, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if aCompare != "windows" || bCompare != "window" || bChunker != "savgol" {
		t.Errorf("reopened: pane A compare %q, pane B %s with compare %q", aCompare, bChunker, bCompare)
	}
	sameSpans(t, "semantic reopened", paneSpans(t, ctx, "a"), semWindows)
	sameSpans(t, "savgol reopened", paneSpans(t, ctx, "b"), savWindow)
}

// An inspect page (one file, no server) draws its chunks and its curve.
func TestInspectPageInBrowser(t *testing.T) {
	ctx := browser(t)
	text := strings.Repeat("Jupiter is a gas giant with many moons. ", 20) + strings.Repeat("Bread rises with yeast and warmth. ", 20)
	pl, err := pipeline.New(context.Background(), pipeline.Config{Chunker: "semantic", Params: json.RawMessage(`{"size": 80}`), Trace: true}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pl.Chunk(context.Background(), gochunk.Document{ID: "x", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "inspect.html")
	f, _ := os.Create(page)
	if err := inspect.WriteHTML(f, "planets and bread", text, pl.Counter().Name(), res.Chunks, res.Trace); err != nil {
		t.Fatal(err)
	}
	f.Close()
	files := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(page))))
	defer files.Close()
	var shown map[string][][2]float64
	var points string
	if err := chromedp.Run(ctx, chromedp.Navigate(files.URL+"/inspect.html"), chromedp.WaitVisible(`.text`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("svg.curve polyline").getAttribute("points")`, &points),
		chromedp.Evaluate(fmt.Sprintf(shownSpans, "a"), &shown)); err != nil {
		t.Fatal(err)
	}
	if strings.Count(points, ",") < 5 {
		t.Errorf("curve points %q", points)
	}
	if len(shown) != len(res.Chunks) {
		t.Errorf("the page shows %d chunks of %d", len(shown), len(res.Chunks))
	}
	shot(t, ctx, "inspect.png")
}

// An eval report (and its tuning view) draws its charts with axes,
// confidence intervals and labels that fit.
func TestEvalReportInBrowser(t *testing.T) {
	ctx := browser(t)
	m := func(r, p, o, i float64, chunks int) eval.Metrics {
		return eval.Metrics{Recall: r, RecallStd: 0.3, Precision: p, PrecisionStd: 0.05, PrecisionOmega: o, PrecisionOmegaStd: 0.1, IoU: i, IoUStd: 0.04, Questions: 120, Chunks: chunks}
	}
	var configs []*eval.Result
	for k, name := range []string{"recursive size=800", "semchunk size=800 tokenizer=cl100k_base", "dp size=1100 lambda_size=5"} {
		f := float64(k)
		sizes := make([]int, 300)
		for i := range sizes {
			sizes[i] = 100 + (i*37+k*91)%700
		}
		configs = append(configs, &eval.Result{Name: name, Chunker: strings.Fields(name)[0], Tokenizer: "cl100k_base", K: 5,
			Overall:    m(0.82-0.02*f, 0.03+0.01*f, 0.31+0.04*f, 0.06+0.01*f, 900-100*k),
			PerCorpus:  map[string]eval.Metrics{"wikitexts": m(0.8, 0.04, 0.33, 0.07, 400), "chatlogs": m(0.85, 0.02, 0.29, 0.05, 500-100*k)},
			Efficiency: eval.Efficiency{Chunks: 900 - 100*k, TokenCounts: sizes}})
	}
	rep := &eval.Report{Dataset: "chroma (development corpora)", Questions: 120, Retriever: "bm25", K: 5, Configs: configs}
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "report.html"))
	if err := rep.WriteHTMLOptions(f, eval.HTMLOptions{Objective: "precision_omega", Best: 2}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer files.Close()
	var bars, whiskers, points, clipped int
	err := chromedp.Run(ctx, chromedp.Navigate(files.URL+"/report.html"), chromedp.WaitVisible(`svg.chart`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("rect.bar").length`, &bars),
		chromedp.Evaluate(`document.querySelectorAll("line.ci").length`, &whiskers),
		chromedp.Evaluate(`document.querySelectorAll("circle.pt").length`, &points),
		// Every label lies inside its chart: nothing is cut off.
		chromedp.Evaluate(`[...document.querySelectorAll("svg.chart text")].filter(t => {
			const r = t.getBoundingClientRect(), s = t.ownerSVGElement.getBoundingClientRect();
			return r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1;
		}).length`, &clipped))
	if err != nil {
		t.Fatal(err)
	}
	if bars != 12 || whiskers != 36 || points != 6 || clipped != 0 {
		t.Errorf("%d bars, %d whisker lines, %d points, %d labels cut off", bars, whiskers, points, clipped)
	}
	shot(t, ctx, "eval-report.png")
}

// On a server with a token, the playground asks for it once (the API's
// 401), sends it with every call, and chunks.
func TestPlaygroundAsksForToken(t *testing.T) {
	ctx := browser(t)
	_, srv := newTest(t, func(c *Config) { c.Token = "s3cret" })
	asked := make(chan string, 4)
	chromedp.ListenTarget(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			asked <- d.Message
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(true).WithPromptText("s3cret"))
		}
	})
	q := url.Values{"chunker": {"sentence"}, "size": {"40"}, "text": {"One sentence here. Another one there. A third to finish."}}
	var chunks int
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/?"+q.Encode()), chromedp.WaitVisible(`body[data-state="done"]`),
		chromedp.Evaluate(`document.querySelectorAll('.text span[data-chunk]').length`, &chunks)); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || chunks == 0 {
		t.Errorf("asked %d times for the token, %d pieces shown", len(asked), chunks)
	}
}

// A PDF dropped on the playground is drawn page by page with every
// chunk's boxes; hovering a chunk's text lights its boxes, and a box its
// text; the chunks table says where each chunk lies.
func TestPlaygroundPDFBoxes(t *testing.T) {
	ctx := browser(t)
	_, srv := newTest(t, nil)
	var paras []string
	for i := range 40 {
		paras = append(paras, fmt.Sprintf("Paragraph %d is about the layout of pages and how text flows in columns.", i))
	}
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pdfgen.TwoColumn("Title", paras, "Header")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var images, boxes, lit, litText int
	var where string
	err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`body[data-state="ready"]`),
		chromedp.SetUploadFiles(`input[type=file]`, []string{path}, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector(".drop span").textContent.includes("PDF")`, nil),
		chromedp.Click(`#run`, chromedp.ByQuery), chromedp.WaitVisible(`body[data-state="done"]`),
		chromedp.Evaluate(`document.querySelectorAll('.pages .page img').length`, &images),
		chromedp.Evaluate(`document.querySelectorAll('.pages rect[data-chunk]').length`, &boxes),
		chromedp.Evaluate(`document.querySelector('.text span[data-chunk="1"]').dispatchEvent(new MouseEvent("mouseover", {bubbles: true})); document.querySelectorAll('.pages rect.hl').length`, &lit),
		chromedp.Evaluate(`document.querySelector('.pages rect[data-chunk="2"]').dispatchEvent(new MouseEvent("mouseover", {bubbles: true})); document.querySelectorAll('.text span.hl').length`, &litText),
		chromedp.Evaluate(`document.querySelector('table.chunks td.where').textContent`, &where))
	if err != nil {
		t.Fatal(err)
	}
	if images < 2 || boxes < images || lit == 0 || litText == 0 || !strings.HasPrefix(where, "page") {
		t.Errorf("%d page images, %d boxes, %d lit by hovering text, %d text pieces lit by a box, where %q", images, boxes, lit, litText, where)
	}
	shot(t, ctx, "playground-pdf.png")
}

// An e-mail dropped on the playground shows its message, and each of its
// attachments, a document of its own, on choosing it.
func TestPlaygroundEmailAttachments(t *testing.T) {
	ctx := browser(t)
	_, srv := newTest(t, nil)
	msg := mailgen.Message("Reports", "The notes are attached.",
		mailgen.Attachment{Name: "notes.txt", Media: "text/plain", Data: []byte("The otters eat herring at noon.")})
	path := filepath.Join(t.TempDir(), "keeper.eml")
	if err := os.WriteFile(path, msg, 0o644); err != nil {
		t.Fatal(err)
	}
	var options int
	var first, second string
	err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`body[data-state="ready"]`),
		chromedp.SetUploadFiles(`input[type=file]`, []string{path}, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector(".drop span").textContent.includes("keeper.eml")`, nil),
		chromedp.Click(`#run`, chromedp.ByQuery), chromedp.WaitVisible(`body[data-state="done"]`),
		chromedp.Evaluate(`document.querySelectorAll('select.document option').length`, &options),
		chromedp.Evaluate(`document.querySelector('.text').textContent`, &first),
		chromedp.SetValue(`select.document`, "1", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('select.document').dispatchEvent(new Event("change")); document.querySelector('.text').textContent`, &second))
	if err != nil {
		t.Fatal(err)
	}
	if options != 2 || !strings.Contains(first, "The notes are attached.") || !strings.Contains(second, "otters eat herring") {
		t.Errorf("%d documents to choose; first shows %q, the attachment %q", options, first, second)
	}
}
