package layout

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdferr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// A PDFEngine reads the words of a PDF's pages with their boxes: Poppler
// (an external program) or a *PDFium (in the process). ExtractPDF orders
// what either reads the same way.
type PDFEngine interface {
	// Name is "poppler" or "pdfium".
	Name() string
	read(ctx context.Context, src pdfSource, opt PDFOptions) ([]pageBlocks, error)
}

// pdfSource is a PDF file (path) or a PDF in memory (data).
type pdfSource struct {
	path string
	data []byte
}

// PDFiumOptions configure NewPDFium.
type PDFiumOptions struct {
	// CacheDir keeps PDFium's compiled machine code between processes:
	// compiling the WebAssembly module takes seconds, loading it back a
	// tenth of one. Empty means the user's cache directory
	// (os.UserCacheDir()/gochunk/pdfium); "-" means none (every process
	// compiles). A directory that cannot be made falls back to none.
	CacheDir string
	// Instances bounds how many PDFs are read at once (each in its own
	// WebAssembly instance, with its own memory); 0 means GOMAXPROCS.
	Instances int
	// MemoryLimit bounds one instance's memory in bytes (a page that
	// needs more is reported as such, and the PDF's other pages read);
	// 0 means DefaultPDFiumMemory (512 MiB). WebAssembly caps it at 4 GiB.
	MemoryLimit int64
	// TotalMemory bounds the memory of all instances together, the most
	// the engine holds in the process whatever the PDFs draw; 0 means
	// DefaultPDFiumTotalMemory (1 GiB).
	TotalMemory int64
	// Notice, when set, hears that the module is being compiled because
	// no compiled code is cached (seconds, once per machine).
	Notice func(string)
}

// PDFium reads PDFs with PDFium, the PDF engine of Chromium, compiled to
// WebAssembly (the build go-pdfium ships) and run by wazero in the
// process: no external program, no cgo, so the static binary reads PDFs
// on a machine without Poppler. The module sees no file system; it reads a
// PDF through a reader. A PDFium is safe for concurrent use; build one and
// share it, and Close it when done (one dropped without Close frees itself
// when collected).
type PDFium struct {
	pool   *poolCloser
	sem    chan struct{}
	budget *wasmBudget
	hooks  *pdfiumHooks
	limit  int64 // an instance's memory
}

// NewPDFium compiles (or loads from opt.CacheDir) the PDFium module.
func NewPDFium(ctx context.Context, opt PDFiumOptions) (*PDFium, error) {
	n := opt.Instances
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	limit := opt.MemoryLimit
	if limit <= 0 {
		limit = DefaultPDFiumMemory
	}
	total := opt.TotalMemory
	if total <= 0 {
		total = DefaultPDFiumTotalMemory
	}
	// PDFium's module asks for about 19 MiB before it reads anything: an
	// instance held below that could not start, so such a bound is refused,
	// and no more instances run at once than the total leaves each its
	// start.
	if limit < MinPDFiumMemory {
		return nil, fmt.Errorf("pdf: PDFiumOptions.MemoryLimit of %d bytes is below the %d MiB PDFium needs to start; give at least that", limit, MinPDFiumMemory>>20)
	}
	if total < MinPDFiumMemory {
		return nil, fmt.Errorf("pdf: PDFiumOptions.TotalMemory of %d bytes is below the %d MiB PDFium needs to start; give at least that", total, MinPDFiumMemory>>20)
	}
	n = max(1, min(n, int(total/MinPDFiumMemory)))
	// The allocator holds an instance to its limit (wazero's own limit,
	// 4 GiB, would fail a page without a word).
	limit = min(limit, 1<<32)
	budget := &wasmBudget{limit: total, instance: limit}
	hooks := &pdfiumHooks{}
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(false).
		WithMemoryLimitPages(65536)
	cache, dir := pdfiumCache(opt.CacheDir)
	if cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	if opt.Notice != nil && !(compiled(dir) && marked(dir)) {
		where := "nowhere: every process compiles it"
		if cache != nil {
			where = dir
		}
		opt.Notice("compiling the PDF engine (PDFium) for this machine, a few seconds, once; its code is kept in " + where)
	}
	pool, err := webassembly.Init(webassembly.Config{
		Context:       experimental.WithFunctionListenerFactory(experimental.WithMemoryAllocator(context.WithoutCancel(ctx), budget), hooks),
		MinIdle:       0,
		MaxIdle:       0,
		MaxTotal:      n,
		FSConfig:      wazero.NewFSConfig(), // no file system
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("pdf: starting PDFium: %w", err)
	}
	if cache != nil {
		// The code compiled now is in the cache: say so for the next
		// process (a failure only makes it give the notice again).
		os.WriteFile(filepath.Join(dir, pdfiumCacheMark()), nil, 0o644)
	}
	e := &PDFium{pool: &poolCloser{pool: pool}, sem: make(chan struct{}, n), budget: budget, hooks: hooks, limit: limit}
	// An engine dropped without Close frees its runtime when collected.
	runtime.AddCleanup(e, func(p *poolCloser) { p.Close() }, e.pool)
	return e, nil
}

// poolCloser closes a pool once, whether Close or the cleanup comes first.
type poolCloser struct {
	pool pdfium.Pool
	once sync.Once
	err  error
}

func (p *poolCloser) GetInstanceWithContext(ctx context.Context) (pdfium.Pdfium, error) {
	return p.pool.GetInstanceWithContext(ctx)
}

func (p *poolCloser) Close() error {
	p.once.Do(func() { p.err = p.pool.Close() })
	return p.err
}

// pdfiumCache returns the compilation cache in dir (see
// PDFiumOptions.CacheDir) and the directory, or nil when there is none.
func pdfiumCache(dir string) (wazero.CompilationCache, string) {
	if dir == "-" {
		return nil, ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, ""
		}
		dir = filepath.Join(base, "gochunk", "pdfium")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, ""
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, ""
	}
	return c, dir
}

// pdfiumCacheMark names the file left in the cache once this build's
// PDFium code is compiled there. wazero keys its compiled code by the
// module and by which of its functions are listened to (pdfiumHooks), so
// an older cache holds code this build compiles again: the notice must be
// given then too. Change the suffix with the functions listened to.
func pdfiumCacheMark() string {
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/klippa-app/go-pdfium" {
				version = m.Version
			}
		}
	}
	return "compiled-go-pdfium-" + version + "-listen-init-textpage"
}

// marked reports whether dir holds the mark this build leaves once it has
// compiled its code there (pdfiumCacheMark).
func marked(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, pdfiumCacheMark()))
	return err == nil
}

// compiled reports whether dir holds compiled code (wazero keeps it in a
// folder per runtime version, a file per module).
func compiled(dir string) bool {
	if dir == "" {
		return false
	}
	found := false
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), "compiled-go-pdfium-") { // not a mark
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// display maps a point of a page's PDF space (y up, before the page's
// rotation) to the page as displayed, w by h points, y down: a page
// rotated a quarter turn clockwise (rot 1) shows its PDF y axis across.
func display(rot int, w, h, x, y float64) (float64, float64) {
	switch rot {
	case 1:
		return y, x
	case 2:
		return w - x, y
	case 3:
		return w - y, h - x
	}
	return x, h - y
}

// PDFMemory is about what reading a PDF of size bytes takes with PDFium,
// for a caller that budgets memory: an instance (64 MiB) and 32 times the
// file (153 pages of 1.1 MB took 100 MB over the process's base, with a
// second instance).
func PDFMemory(size int64) int64 { return 64<<20 + 32*size }

// Name returns "pdfium".
func (e *PDFium) Name() string { return "pdfium" }

// Close frees the engine.
func (e *PDFium) Close() error { return e.pool.Close() }

func (e *PDFium) read(ctx context.Context, src pdfSource, opt PDFOptions) ([]pageBlocks, error) {
	data, free, err := sourceBytes(src)
	if err != nil {
		return nil, err
	}
	defer free()
	if !strings.Contains(string(data[:min(len(data), 1024)]), "%PDF-") { // the header's place, by the standard
		return nil, fmt.Errorf("%w (no %%PDF- header)", ErrCorrupt)
	}
	// Each page is weighed before PDFium draws it, while PDFium opens
	// the PDF.
	b := opt.bounds()
	type weighed struct {
		costs []pageCost
		err   error
	}
	scan := make(chan weighed, 1)
	go func() {
		costs, err := weighMapped(data, b)
		scan <- weighed{costs, err}
	}()
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		<-scan
		return nil, ctx.Err()
	}
	first, err := e.open(ctx, src)
	wd := <-scan
	if err == nil && wd.err != nil {
		first.close()
		err = wd.err
	}
	if err != nil {
		<-e.sem
		return nil, err
	}
	costs := wd.costs
	count, err := first.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: first.doc})
	if err != nil {
		first.close()
		<-e.sem
		if ctx.Err() != nil {
			return nil, ctx.Err() // the instance was killed
		}
		return nil, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	n := count.PageCount
	if n == 0 {
		first.close()
		<-e.sem
		return nil, fmt.Errorf("%w: no pages", ErrNoText)
	}
	if len(costs) != n {
		// The scan and PDFium see other pages, so a page's weight cannot
		// be told to PDFium's: a page over a bound refuses the PDF.
		if err := b.checkAll(costs); err != nil {
			first.close()
			<-e.sem
			return nil, err
		}
		costs = nil
	}
	batch := opt.PagesPerBatch
	if batch <= 0 {
		batch = 20
	}
	pages := make([]pageBlocks, n)
	errs := make([]error, n) // why a page was not read
	cut := make([]int, n)    // a page's characters, when past the bound
	var next, done, chars atomic.Int64
	var mu sync.Mutex
	var docErr error
	// work reads pages with w, each the next page no worker has taken,
	// until none is left; then it closes w and gives its instance back.
	work := func(w *pdfiumWorker) {
		defer func() {
			if w != nil {
				w.close()
			}
			<-e.sem
		}()
		handles := 0 // page objects read in w (readRules)
		for w != nil {
			i := int(next.Add(1) - 1)
			if i >= n || ctx.Err() != nil {
				return
			}
			var p pageBlocks
			var err error
			if costs != nil {
				err = b.check(costs[i])
			}
			if err == nil {
				p, cut[i], err = readPDFiumPage(w, i, b.pageChars, &handles)
				if err != nil && w.mem != nil && w.mem.refused.Load() {
					err = e.memoryError()
				}
				if err != nil && ctx.Err() == nil || handles > maxInstanceHandles {
					// The instance may be left broken, or holds
					// too many handles: the next page is read by
					// a new one.
					w.close()
					w, _ = e.open(ctx, src)
					handles = 0
				}
			}
			if err != nil {
				errs[i] = err
			} else {
				pages[i] = p
				if chars.Add(int64(p.chars)) > int64(b.chars) {
					mu.Lock()
					docErr = fmt.Errorf("%w: it holds more than %s characters (the bound, PDFOptions.MaxChars)", ErrTooLarge, thousands(int64(b.chars)))
					mu.Unlock()
					next.Store(int64(n))
					return
				}
			}
			if d := int(done.Add(1)); opt.Progress != nil && (d%batch == 0 || d == n) {
				mu.Lock()
				opt.Progress(d, n)
				mu.Unlock()
			}
		}
	}
	// A long PDF is read by more instances, one per 8 pages, while the
	// engine has them free: each opens the PDF in its own goroutine, as
	// the first reads the outline, and takes the next page; pages go back
	// in order.
	var wg sync.WaitGroup
	var outline []outlineEntry // headings where it has bookmarks
	wg.Go(func() {
		outline = readOutline(first.inst, first.doc) // while the others read pages
		work(first)
	})
more:
	for range n/8 - 1 {
		select {
		case e.sem <- struct{}{}:
		default:
			break more // no instance free
		}
		wg.Go(func() {
			if next.Load() >= int64(n) {
				<-e.sem // the others took every page meanwhile
				return
			}
			w, err := e.open(ctx, src)
			if err != nil {
				<-e.sem
				return
			}
			work(w)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if docErr != nil {
		return nil, docErr
	}
	// A page that could not be read is reported, and the others kept.
	var out []pageBlocks
	var firstErr error
	for i := range n {
		switch {
		case errs[i] != nil:
			if firstErr == nil {
				firstErr = fmt.Errorf("page %d: %w", i+1, errs[i])
			}
			opt.warn(fmt.Sprintf("page %d left out: %v", i+1, errs[i]))
		case pages[i].page == 0:
			err := fmt.Errorf("page %d: %w: PDFium could not open the PDF again after an earlier page failed", i+1, ErrCorrupt)
			if firstErr == nil {
				firstErr = err
			}
			opt.warn(fmt.Sprintf("page %d left out: %v", i+1, err))
		default:
			if cut[i] > 0 {
				opt.warn(fmt.Sprintf("page %d: only its first %s characters of %s were read (the bound, PDFOptions.MaxPageChars)", i+1, thousands(int64(b.pageChars)), thousands(int64(cut[i]))))
			}
			out = append(out, pages[i])
		}
	}
	if len(out) == 0 {
		return nil, firstErr
	}
	out[0].outline = outline
	return out, nil
}

// memoryError says which of the memory bounds a page passed.
func (e *PDFium) memoryError() error {
	return fmt.Errorf("%w: the page needs more than its memory bound (%s an instance, PDFiumOptions.MemoryLimit; %s for all PDFs read at once, PDFiumOptions.TotalMemory)",
		ErrPDFMemory, byteSize(e.limit), byteSize(e.budget.limit))
}

// pdfiumWorker is an instance with the PDF open.
type pdfiumWorker struct {
	inst   pdfium.Pdfium
	doc    references.FPDF_DOCUMENT
	stop   func() bool
	killed chan struct{} // closed once a cancelled ctx has killed inst
	file   *os.File
	mem    *wasmMemory // inst's memory, released by close
	mod    api.Module  // inst's module, for chars
	hooks  *pdfiumHooks
	chars  *charCalls // made by the first page read
}

// charCalls returns the worker's direct character calls.
func (w *pdfiumWorker) charCalls() (*charCalls, error) {
	if w.chars != nil {
		return w.chars, nil
	}
	if w.mod == nil {
		return nil, errors.New("PDFium's module was not seen starting")
	}
	c, err := newCharCalls(w.hooks, w.mod)
	if err != nil {
		return nil, err
	}
	w.chars = c
	return c, nil
}

// open takes an instance and opens the PDF in it. PDFium reads the PDF
// through a reader as it needs its parts, so the file is never copied
// whole into the instance's memory (nor read whole into the process's, for
// a file). A cancelled ctx kills the instance, which ends the read at its
// next call.
func (e *PDFium) open(ctx context.Context, src pdfSource) (*pdfiumWorker, error) {
	var r io.ReadSeeker
	var size int64
	var file *os.File
	if src.data != nil {
		r, size = bytes.NewReader(src.data), int64(len(src.data))
	} else {
		f, err := os.Open(src.path)
		if err != nil {
			return nil, fmt.Errorf("cannot open the file: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot open the file: %w", err)
		}
		r, size, file = f, st.Size(), f
	}
	if size == 0 {
		if file != nil {
			file.Close()
		}
		return nil, fmt.Errorf("%w: the file is empty", ErrCorrupt)
	}
	// The instance is made here (the pool keeps none idle), its memory
	// allocated as it is: the worker takes that memory, to free it once
	// no call runs in it.
	e.budget.mu.Lock()
	e.budget.last = nil
	e.hooks.take()
	inst, err := e.pool.GetInstanceWithContext(ctx)
	mem := e.budget.last
	e.budget.last = nil
	mod := e.hooks.take()
	if mem != nil {
		mem.mu.Lock()
		mem.owned = true
		mem.mu.Unlock()
	}
	e.budget.mu.Unlock()
	if err != nil {
		if mem != nil {
			mem.release()
		}
		if file != nil {
			file.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if mem != nil && mem.refused.Load() {
			return nil, fmt.Errorf("starting PDFium: %w", e.memoryError())
		}
		return nil, fmt.Errorf("starting PDFium: %w", err)
	}
	w := &pdfiumWorker{inst: inst, file: file, mem: mem, mod: mod, hooks: e.hooks, killed: make(chan struct{})}
	w.stop = context.AfterFunc(ctx, func() {
		defer close(w.killed)
		inst.Kill()
	})
	doc, err := inst.OpenDocument(&requests.OpenDocument{FileReader: r, FileReaderSize: size})
	if err != nil {
		w.close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch {
		case errors.Is(err, pdferr.ErrPassword), errors.Is(err, pdferr.ErrSecurity):
			return nil, fmt.Errorf("%w (PDFium: %v)", ErrEncrypted, err)
		case mem != nil && mem.refused.Load(), isMemoryError(err):
			return nil, fmt.Errorf("opening the PDF: %w", e.memoryError())
		}
		return nil, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	w.doc = doc.Document
	return w, nil
}

// close gives the instance back and frees its memory; no call may run in
// the instance (a kill ends none).
func (w *pdfiumWorker) close() {
	if w.chars != nil {
		w.chars.close()
	}
	if w.stop() { // not killed: close the document, give the instance back
		if w.doc != "" {
			w.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: w.doc})
		}
		w.inst.Close()
	} else {
		<-w.killed
	}
	if w.mem != nil {
		w.mem.release()
	}
	if w.file != nil {
		w.file.Close()
	}
}

func isMemoryError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "out of memory") || strings.Contains(s, "memory") && strings.Contains(s, "grow")
}

// readPDFiumPage reads page index's characters, maxChars at most, and
// groups them into blocks; it returns how many characters the page holds
// when that is more than it read. It adds to handles the handles of page
// objects go-pdfium made (kept until inst is closed).
func readPDFiumPage(w *pdfiumWorker, index, maxChars int, handles *int) (pageBlocks, int, error) {
	inst, doc := w.inst, w.doc
	calls, err := w.charCalls()
	if err != nil {
		return pageBlocks{}, 0, fmt.Errorf("reading PDFium's characters: %w", err)
	}
	size, err := inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: doc, Index: index})
	if err != nil {
		return pageBlocks{}, 0, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	p := pageBlocks{page: index + 1, width: float64(size.Size.Width), height: float64(size.Size.Height)}
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
	rot := 0
	if r, err := inst.FPDFPage_GetRotation(&requests.FPDFPage_GetRotation{Page: page}); err == nil {
		rot = int(r.PageRotation) & 3
	}
	// Building a page's text is most of the cost: it is built once, and
	// each character asked for its code point and its loose box (the
	// font's ascent to descent, as drawn), which keeps a line's band whole
	// where a quote or a period's own box is small.
	calls.textPage = 0
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return pageBlocks{}, 0, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	if calls.textPage == 0 {
		return pageBlocks{}, 0, errors.New("reading PDFium's characters: the text page was not seen loaded")
	}
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return pageBlocks{}, 0, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	// Characters are grouped by the way their text runs on the displayed
	// page (a quarter turn at a time: rotated table headings, axis
	// labels, a landscape page), each group in a frame where it reads
	// left to right.
	var classes [4][]pdfRun
	q := 0 // the way of the last character, for the spaces after it
	var buf [utf8.UTFMax]byte
	cut := 0
	if n.Count > maxChars {
		cut = n.Count
	}
	p.chars = min(n.Count, maxChars)
	classes[0] = make([]pdfRun, 0, p.chars) // most pages' text runs one way
	visible := visibleBox(inst, page)
	probe := newStyleProbe(inst, tp.TextPage, calls) // bold and italic, a call a word
	for i := 0; i < p.chars; i++ {
		r, err := calls.unicodeAt(i)
		if err != nil {
			return pageBlocks{}, 0, fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
		}
		// PDFium hands a character outside the Basic Multilingual Plane
		// (math italics, emoji, CJK Extension B) over as two UTF-16
		// code units, each counted as a character.
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 && i+1 < p.chars {
				if v, err := calls.unicodeAt(i + 1); err == nil {
					if c := utf16.DecodeRune(r, v); c != utf8.RuneError {
						r = c
					}
				}
			}
			if utf16.IsSurrogate(r) {
				continue // half a pair: no character
			}
		}
		if r > unicode.MaxRune || isPDFSpace(r) {
			classes[q] = append(classes[q], pdfRun{text: " "})
			probe.space()
			continue
		}
		b, ok, err := calls.looseBox(i)
		if r > 0xFFFF {
			i++ // its second code unit, read with it
		}
		if err != nil || !ok {
			continue // a character PDFium places nowhere
		}
		l, t, rt, bt := float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])
		if cx, cy := (l+rt)/2, (t+bt)/2; cx < visible[0] || cx > visible[2] || cy < visible[1] || cy > visible[3] {
			continue // placed outside the page's visible box: not shown
		}
		q = 0
		if a, ok := calls.angleAt(i); ok && a != 0 {
			cx, cy := (l+rt)/2, (t+bt)/2
			x0, y0 := display(rot, p.width, p.height, cx, cy)
			x1, y1 := display(rot, p.width, p.height, cx+math.Cos(float64(a)), cy-math.Sin(float64(a))) // PDFium measures the angle clockwise
			q = quarter(x1-x0, y1-y0)
		} else if rot != 0 {
			x0, y0 := display(rot, p.width, p.height, 0, 0)
			x1, y1 := display(rot, p.width, p.height, 1, 0)
			q = quarter(x1-x0, y1-y0)
		}
		run := pdfRun{text: string(buf[:utf8.EncodeRune(buf[:], r)]), style: probe.at(i, l, t, rt, bt)}
		dx0, dy0 := display(rot, p.width, p.height, l, t)
		dx1, dy1 := display(rot, p.width, p.height, rt, bt)
		run.x0, run.y0, run.x1, run.y1 = turn(q, dx0, dy0, dx1, dy1, false)
		run.size = run.y1 - run.y0
		classes[q] = append(classes[q], run)
	}
	// Form fields' values and text boxes are annotations, not content.
	// List markers Chromium draws as shapes, put before their lines.
	classes[0] = insertMarks(classes[0], markRuns(inst, doc, page, rot, p.width, p.height, classes[0]))
	classes[0] = append(classes[0], annotationRuns(inst, page, rot, p.width, p.height)...)
	if n.Count == 0 {
		p.blank = !hasImage(inst, page)
	}
	// Ruling lines are read only where text runs across the page: a
	// ruled table needs a few words in its cells.
	var rules pageRules
	if len(classes[0]) >= 4 {
		var n int
		rules, n = readRules(inst, page, rot, p.width, p.height)
		*handles += n
	}
	for q, runs := range classes {
		var blocks []block
		if q == 0 {
			blocks = groupBlocksRuled(runs, rules)
		} else {
			// Turned text comes in whatever order the page draws it:
			// its lines are taken top to bottom of their frame.
			lines := groupLines(runs)
			sort.SliceStable(lines, func(i, j int) bool { return lines[i].y0 < lines[j].y0 })
			blocks = linesToBlocks(lines)
		}
		for _, b := range blocks {
			b.x0, b.y0, b.x1, b.y1 = turn(q, b.x0, b.y0, b.x1, b.y1, true)
			p.blocks = append(p.blocks, b)
		}
	}
	return p, cut, nil
}

// visibleBox returns the part of a page that is shown, in the page's PDF
// space (left, bottom, right, top): its crop box within its media box
// (inherited or its own), grown by a point for rounding; everything where
// PDFium tells none.
func visibleBox(inst pdfium.Pdfium, page requests.Page) [4]float64 {
	all := [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}
	r, err := inst.FPDF_GetPageBoundingBox(&requests.FPDF_GetPageBoundingBox{Page: page})
	if err != nil {
		return all
	}
	// PDFium's rectangle has its top above its bottom.
	l, rt := float64(min(r.Rect.Left, r.Rect.Right)), float64(max(r.Rect.Left, r.Rect.Right))
	b, t := float64(min(r.Rect.Bottom, r.Rect.Top)), float64(max(r.Rect.Bottom, r.Rect.Top))
	if rt-l < 1 || t-b < 1 {
		return all // not a box
	}
	return [4]float64{l - 1, b - 1, rt + 1, t + 1}
}

// quarter returns the way a direction (dx, dy) on the displayed page (y
// down) runs: 0 right, 1 down, 2 left, 3 up.
func quarter(dx, dy float64) int {
	switch {
	case math.Abs(dx) >= math.Abs(dy) && dx >= 0:
		return 0
	case math.Abs(dx) >= math.Abs(dy):
		return 2
	case dy > 0:
		return 1
	}
	return 3
}

// turn maps a box of the displayed page into the frame where text running
// the way q reads left to right, lines going down (x along the text, y
// toward the glyphs' feet), or back with back.
func turn(q int, x0, y0, x1, y1 float64, back bool) (float64, float64, float64, float64) {
	// The text's way d and its "down" (d turned a quarter clockwise).
	d := [4][2]float64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}[q]
	down := [2]float64{-d[1], d[0]}
	f := func(x, y float64) (float64, float64) {
		if back {
			return x*d[0] + y*down[0], x*d[1] + y*down[1]
		}
		return x*d[0] + y*d[1], x*down[0] + y*down[1]
	}
	ax, ay := f(x0, y0)
	bx, by := f(x1, y1)
	return math.Min(ax, bx), math.Min(ay, by), math.Max(ax, bx), math.Max(ay, by)
}

// Render draws the first maxPages pages of a PDF as PNG images at dpi dots
// per inch, as RenderPDF does with Poppler, so that a chunk's boxes can be
// shown over its page. A page over the bounds (DefaultMaxPageContent and
// the others, as ExtractPDF weighs it), or that PDFium cannot draw, is
// left out and the others drawn; the error is the first page's when none
// could be.
func (e *PDFium) Render(ctx context.Context, pdf []byte, dpi, maxPages int) ([]PageImage, error) {
	var out []PageImage
	var firstErr error
	err := drawPages(ctx, e, pdf, nil, maxPages,
		func(w *pdfiumWorker, i int) ([]byte, error) { return renderPage(w, i, dpi) },
		func(page int, img []byte) error {
			out = append(out, PageImage{Page: page, PNG: img})
			return nil
		},
		func(page int, err error) {
			firstErr = cmp.Or(firstErr, fmt.Errorf("pdf: drawing page %d: %w", page, err))
		})
	if err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// drawPages opens a PDF in one PDFium instance and draws its pages one at
// a time, in order: pages (1-based; nil means the first maxPages, or all
// when maxPages is 0) past the PDF's end are passed over; a page over the
// bounds (weighed as ExtractPDF weighs pages) is not drawn, nor one draw
// fails on (the next is drawn by a new instance, since the failure may
// leave this one broken): skip hears why. A draw error of type
// stopDrawing stops the work instead, and is returned unwrapped. Each page drawn is handed to
// use, whose error stops the work and is returned. The context is checked
// between pages.
func drawPages[T any](ctx context.Context, e *PDFium, pdf []byte, pages []int, maxPages int,
	draw func(w *pdfiumWorker, index int) (T, error), use func(page int, v T) error, skip func(page int, err error)) error {
	b := PDFOptions{}.bounds()
	costs, err := weigh(pdf, b)
	if err != nil {
		return err
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.sem }()
	w, err := e.open(ctx, pdfSource{data: pdf})
	if err != nil {
		return err
	}
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	count, err := w.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: w.doc})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the instance was killed
		}
		return fmt.Errorf("%w (PDFium: %v)", ErrCorrupt, err)
	}
	if len(costs) != count.PageCount {
		// The scan and PDFium see other pages: a page over a bound
		// refuses the PDF, as ExtractPDF does.
		if err := b.checkAll(costs); err != nil {
			return err
		}
		costs = nil
	}
	if pages == nil {
		n := count.PageCount
		if maxPages > 0 {
			n = min(n, maxPages)
		}
		pages = make([]int, n)
		for i := range pages {
			pages[i] = i + 1
		}
	}
	for _, n := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n < 1 || n > count.PageCount {
			continue
		}
		if w == nil {
			skip(n, fmt.Errorf("%w: PDFium could not open the PDF again after an earlier page failed", ErrCorrupt))
			continue
		}
		if costs != nil {
			if err := b.check(costs[n-1]); err != nil {
				skip(n, err)
				continue
			}
		}
		v, err := draw(w, n-1)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if stop, ok := err.(stopDrawing); ok {
				return stop.err
			}
			if w.mem != nil && w.mem.refused.Load() {
				err = e.memoryError()
			}
			skip(n, err)
			w.close()
			w, _ = e.open(ctx, pdfSource{data: pdf})
			continue
		}
		if err := use(n, v); err != nil {
			return err
		}
	}
	return nil
}

// stopDrawing is an error of drawPages' draw that is not the page's
// (a memory reservation refused): it stops the work.
type stopDrawing struct{ err error }

func (s stopDrawing) Error() string { return s.err.Error() }

// renderPage draws page i as a PNG.
func renderPage(w *pdfiumWorker, i, dpi int) ([]byte, error) {
	r, err := w.inst.RenderPageInDPI(&requests.RenderPageInDPI{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: w.doc, Index: i}},
		DPI:  dpi,
	})
	if err != nil {
		return nil, err
	}
	defer r.Cleanup()
	var buf bytes.Buffer
	if err := png.Encode(&buf, r.Result.RenderedImage); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
