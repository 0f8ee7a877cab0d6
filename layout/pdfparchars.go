package layout

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// A page's characters are read with four PDFium calls each (code point,
// box, angle; weight a word), about two million calls on a 600-page PDF.
// Through go-pdfium each call takes its instance's lock, looks its text
// page and its function up in maps by name, and a box allocates and frees
// PDFium memory and a few Go values: about three times the call itself.
// So the character calls go to the module's exported functions directly,
// resolved once an instance, with one box buffer in PDFium's memory and
// one call stack. go-pdfium keeps the module and its handles to itself;
// wazero's function listeners (asked for each function as the module is
// compiled) hand over the two that are needed: the module, as PDFium
// starts in it, and a text page's address, as PDFium returns it.

// pdfiumHooks listens to two of PDFium's functions in every instance of
// an engine.
type pdfiumHooks struct {
	mu      sync.Mutex
	started api.Module // the module whose FPDF_InitLibrary ran last
	calls   sync.Map   // api.Module → *charCalls, while a worker reads with it
}

// NewFunctionListener implements experimental.FunctionListenerFactory:
// wazero asks it once per function of each module it compiles; it listens
// to none but two.
func (h *pdfiumHooks) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	for _, name := range def.ExportNames() {
		switch name {
		case "FPDF_InitLibrary":
			return startListener{h}
		case "FPDFText_LoadPage":
			return textPageListener{h}
		}
	}
	return nil
}

// take returns the module started last (by the caller, which makes
// instances one at a time) and forgets it.
func (h *pdfiumHooks) take() api.Module {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.started
	h.started = nil
	return m
}

// startListener hears PDFium start in a module.
type startListener struct{ h *pdfiumHooks }

func (l startListener) Before(_ context.Context, mod api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	l.h.mu.Lock()
	l.h.started = mod
	l.h.mu.Unlock()
}

func (startListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (startListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// textPageListener hears a text page loaded, and hands its address to the
// worker reading with the module (the call runs on the worker's
// goroutine).
type textPageListener struct{ h *pdfiumHooks }

func (textPageListener) Before(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
}

func (l textPageListener) After(_ context.Context, mod api.Module, _ api.FunctionDefinition, results []uint64) {
	if c, ok := l.h.calls.Load(mod); ok && len(results) == 1 {
		c.(*charCalls).textPage = results[0]
	}
}

func (textPageListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// charCalls calls PDFium's character functions in one instance. It is
// used by one goroutine at a time, the worker holding the instance.
type charCalls struct {
	hooks    *pdfiumHooks
	mod      api.Module
	textPage uint64 // the text page loaded last (textPageListener); 0 when none
	unicode  api.Function
	box      api.Function
	angle    api.Function
	weight   api.Function
	rect     uint32 // PDFium's memory for one box (4 float32)
	stack    [3]uint64
	// stopped reports whether the instance was killed (a cancelled read
	// closes its module): the direct calls run on in a closed module,
	// where go-pdfium's methods fail, so unicodeAt asks every
	// checkEvery characters.
	stopped func() bool
}

// checkEvery is how many characters unicodeAt reads between two looks at
// whether the read was cancelled: a few microseconds of PDFium's calls,
// against an atomic load.
const checkEvery = 1024

// errStopped is unicodeAt's error once the instance was killed.
var errStopped = errors.New("the read was cancelled: PDFium's instance was stopped")

// newCharCalls resolves the functions in mod and allocates the box
// buffer (never freed: it goes with the instance's memory).
func newCharCalls(h *pdfiumHooks, mod api.Module) (*charCalls, error) {
	c := &charCalls{
		hooks:   h,
		mod:     mod,
		unicode: mod.ExportedFunction("FPDFText_GetUnicode"),
		box:     mod.ExportedFunction("FPDFText_GetLooseCharBox"),
		angle:   mod.ExportedFunction("FPDFText_GetCharAngle"),
		weight:  mod.ExportedFunction("FPDFText_GetFontWeight"),
		stopped: mod.IsClosed,
	}
	malloc := mod.ExportedFunction("malloc")
	if c.unicode == nil || c.box == nil || c.angle == nil || c.weight == nil || malloc == nil {
		return nil, errors.New("the PDFium module lacks a character function")
	}
	// The calls pass 32-bit handles and pointers on a fixed stack: a
	// module whose functions take other arguments (another PDFium build)
	// must fail here, not read other memory.
	i32, f32 := api.ValueTypeI32, api.ValueTypeF32
	for _, want := range []struct {
		f       api.Function
		params  []api.ValueType
		results []api.ValueType
	}{
		{c.unicode, []api.ValueType{i32, i32}, []api.ValueType{i32}},
		{c.box, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}},
		{c.angle, []api.ValueType{i32, i32}, []api.ValueType{f32}},
		{c.weight, []api.ValueType{i32, i32}, []api.ValueType{i32}},
		{malloc, []api.ValueType{i32}, []api.ValueType{i32}},
	} {
		d := want.f.Definition()
		if !slices.Equal(d.ParamTypes(), want.params) || !slices.Equal(d.ResultTypes(), want.results) {
			return nil, fmt.Errorf("the PDFium module's %s is not of the signature gochunk calls: rebuild gochunk against the go-pdfium it was tested with", d.Name())
		}
	}
	c.stack[0] = 16
	if err := malloc.CallWithStack(context.Background(), c.stack[:]); err != nil {
		return nil, fmt.Errorf("allocating in PDFium: %w", err)
	}
	if c.stack[0] == 0 {
		return nil, errors.New("allocating in PDFium: out of memory")
	}
	c.rect = uint32(c.stack[0])
	h.calls.Store(mod, c)
	return c, nil
}

// close stops the listener handing text pages to c.
func (c *charCalls) close() { c.hooks.calls.Delete(c.mod) }

// call calls f on the text page with character i.
func (c *charCalls) call(f api.Function, i int) (uint64, error) {
	c.stack[0], c.stack[1], c.stack[2] = c.textPage, uint64(i), uint64(c.rect)
	if err := f.CallWithStack(context.Background(), c.stack[:]); err != nil {
		return 0, err
	}
	return c.stack[0], nil
}

// unicodeAt returns character i's UTF-16 code unit (FPDFText_GetUnicode).
// Every checkEvery characters it first makes sure the read was not
// cancelled (errStopped), so a page of 200,000 characters stops within a
// thousand of the cancel, not at its end.
func (c *charCalls) unicodeAt(i int) (rune, error) {
	if i%checkEvery == 0 && c.stopped() {
		return 0, errStopped
	}
	r, err := c.call(c.unicode, i)
	return rune(uint32(r)), err
}

// looseBox returns character i's loose box in the page's PDF space
// (left, top, right, bottom; FPDFText_GetLooseCharBox), ok false where
// PDFium places it nowhere.
func (c *charCalls) looseBox(i int) (box [4]float32, ok bool, err error) {
	r, err := c.call(c.box, i)
	if err != nil || int32(r) == 0 {
		return box, false, err
	}
	b, ok := c.mod.Memory().Read(c.rect, 16)
	if !ok {
		return box, false, errors.New("the box is outside PDFium's memory")
	}
	for k := range box {
		box[k] = math.Float32frombits(uint32(b[4*k]) | uint32(b[4*k+1])<<8 | uint32(b[4*k+2])<<16 | uint32(b[4*k+3])<<24)
	}
	return box, true, nil
}

// angleAt returns character i's angle in radians, clockwise
// (FPDFText_GetCharAngle), ok false where PDFium tells none.
func (c *charCalls) angleAt(i int) (float32, bool) {
	r, err := c.call(c.angle, i)
	a := api.DecodeF32(r)
	return a, err == nil && a != -1
}

// weightAt returns character i's font weight (FPDFText_GetFontWeight),
// ok false where PDFium tells none.
func (c *charCalls) weightAt(i int) (int, bool) {
	r, err := c.call(c.weight, i)
	w := int(int32(r))
	return w, err == nil && w != -1
}
