// Command capi is gochunk's C API, built as a C shared library
// (go build -buildmode=c-shared) for the Python package (python/gochunk)
// and any other language with a foreign function interface. It builds
// pipelines exactly as the gochunk command line does (package
// pipelineflag) and returns the records gochunk chunk writes, as JSON.
//
// # Functions
//
//	uintptr_t gochunk_chunker_new(char *name, char *params_json, char **err);
//	char *gochunk_chunker_info(uintptr_t h, size_t *out_len, char **err);
//	char *gochunk_chunk(uintptr_t h, char *text, size_t len, size_t *out_len, char **err);
//	char *gochunk_chunk_many(uintptr_t h, char **texts, size_t *lens, char **ids, size_t n,
//	                         int jobs, size_t *out_len, char **err, int64_t *span);
//	char *gochunk_chunk_file(uintptr_t h, char *path, size_t *out_len, char **err);
//	char *gochunk_extract(char *path, char *options_json, size_t *out_len, char **err);
//	void gochunk_chunker_free(uintptr_t h);
//	void gochunk_free(void *p);
//	char *gochunk_version(void);
//
// A chunker is a handle (a runtime/cgo.Handle, never 0) to a pipeline
// built once from a chunker name and a JSON object of parameters: the
// keys of gochunk chunk's --config file (the chunker's parameters, size,
// overlap, tokenizer and the pipeline's flags with _ or -). A handle is
// safe for concurrent use from many threads; gochunk_chunker_free
// releases it (a handle used after that is an error, not a crash).
//
// # Memory
//
// Every char* the library returns (results, error messages, the version)
// is allocated with C malloc and owned by the caller, who releases it with
// gochunk_free (or free). The library never keeps a pointer it was given:
// texts, names and paths are copied before the call returns.
//
// # Errors
//
// A function that fails returns 0 or NULL and sets *err to the message
// gochunk chunk (or extract) prints after its "gochunk chunk: " prefix: a
// file's error names the file once, a text's does not name it (err may be
// NULL to ignore it). A panic is recovered and reported the same way.
//
// # Results
//
// gochunk_chunk, gochunk_chunk_many and gochunk_chunk_file return one JSON
// object, {"docs": [DOC, ...]}, DOC being {"records": [RECORD, ...]} with
// "warning" when loading warned and "error" when that document failed
// (its records are then empty). A RECORD is the JSON object gochunk chunk
// writes on one line, byte for byte, except that when DOC has "sliced":
// true (a text given in memory, chunked as given), its records of one span
// leave "text" out: it is the given text between start_rune and end_rune
// (code points; start and end in bytes). gochunk_chunk_file's docs are the
// file's and its attachments' (an e-mail's), as gochunk chunk FILE writes
// them. When span is not NULL, gochunk_chunk_many stores the call's entry
// and exit times (Unix nanoseconds) in span[0] and span[1]. A list's ids
// (NULL, or NULL entries, for none) name its texts in their records, as
// gochunk chunk names a file; jobs below 1 means one per core.
//
// gochunk_extract returns {"text", "elements", "metadata", "warning"}: what
// gochunk extract (--elements) reads from the file; options_json (NULL for
// the defaults) is {"input": KIND, "pdf_engine": "pdfium" or "poppler"}.
// gochunk_chunker_info returns {"chunker", "unit", "params", "context",
// "parents"} of a handle's pipeline.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"runtime/cgo"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/internal/version"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
	"github.com/gochunk/gochunk/record"
)

func main() {} // required by -buildmode=c-shared

// setErr stores err's message in *dst (when dst is not NULL).
func setErr(dst **C.char, err error) {
	if dst != nil && err != nil {
		*dst = C.CString(err.Error())
	}
}

// recovered turns a panic into an error: a bug in the library must not
// take the host process down.
func recovered(dst **C.char) {
	if r := recover(); r != nil {
		setErr(dst, fmt.Errorf("internal error (please report it): %v\n%s", r, debug.Stack()))
	}
}

// result copies b into C memory, NUL-terminated, setting *n to its length.
func result(b []byte, n *C.size_t) *C.char {
	p := C.malloc(C.size_t(len(b) + 1))
	buf := unsafe.Slice((*byte)(p), len(b)+1)
	copy(buf, b)
	buf[len(b)] = 0
	if n != nil {
		*n = C.size_t(len(b))
	}
	return (*C.char)(p)
}

// chunker is what a handle holds.
type chunker struct {
	pl *pipeline.Pipeline
}

//export gochunk_chunker_new
func gochunk_chunker_new(name, params *C.char, errOut **C.char) (h C.uintptr_t) {
	defer recovered(errOut)
	var js string
	if params != nil {
		js = C.GoString(params)
	}
	var n string
	if name != nil {
		n = C.GoString(name)
	}
	pl, err := newPipeline(context.Background(), n, js)
	if err != nil {
		setErr(errOut, err)
		return 0
	}
	return C.uintptr_t(cgo.NewHandle(&chunker{pl: pl}))
}

//export gochunk_chunker_free
func gochunk_chunker_free(h C.uintptr_t) {
	defer func() { recover() }() // a handle freed twice
	if h != 0 {
		cgo.Handle(h).Delete()
	}
}

// handle returns the chunker of h, or an error for a handle that is not
// one (freed, or never made).
func handle(h C.uintptr_t) (c *chunker, err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("the chunker is closed")
		}
	}()
	if h == 0 {
		return nil, errors.New("the chunker is closed")
	}
	c, ok := cgo.Handle(h).Value().(*chunker)
	if !ok {
		return nil, errors.New("not a chunker handle")
	}
	return c, nil
}

//export gochunk_chunker_info
func gochunk_chunker_info(h C.uintptr_t, n *C.size_t, errOut **C.char) *C.char {
	defer recovered(errOut)
	c, err := handle(h)
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	cfg := c.pl.Config()
	info := map[string]any{
		"chunker": cfg.Chunker,
		"unit":    c.pl.Counter().Name(),
		"params":  cfg.Params,
		"context": cmp.Or(cfg.Context.Mode, "none"),
		"parents": cfg.Parents,
	}
	b, err := json.Marshal(info)
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	return result(b, n)
}

//export gochunk_chunk
func gochunk_chunk(h C.uintptr_t, text *C.char, length C.size_t, n *C.size_t, errOut **C.char) *C.char {
	defer recovered(errOut)
	c, err := handle(h)
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	src := pipeline.Source{Text: goString(text, length)}
	b, err := c.run([]pipeline.Source{src}, 1)
	return finish(b, err, n, errOut)
}

//export gochunk_chunk_many
func gochunk_chunk_many(h C.uintptr_t, texts **C.char, lens *C.size_t, ids **C.char, count C.size_t, jobs C.int, n *C.size_t, errOut **C.char, span *C.int64_t) *C.char {
	start := time.Now().UnixNano()
	defer recovered(errOut)
	if span != nil {
		defer func() {
			s := unsafe.Slice((*int64)(unsafe.Pointer(span)), 2)
			s[0], s[1] = start, time.Now().UnixNano()
		}()
	}
	c, err := handle(h)
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	k := int(count)
	srcs := make([]pipeline.Source, k)
	if k > 0 {
		ts := unsafe.Slice(texts, k)
		ls := unsafe.Slice(lens, k)
		var is []*C.char
		if ids != nil {
			is = unsafe.Slice(ids, k)
		}
		for i := range srcs {
			srcs[i].Text = goString(ts[i], ls[i])
			if is != nil && is[i] != nil {
				// As gochunk chunk names a file: records' source, and
				// the chunkers' hint (the code chunker's language).
				id := C.GoString(is[i])
				srcs[i].ID, srcs[i].Metadata = id, map[string]any{"source": id}
			}
		}
	}
	if jobs < 1 {
		jobs = C.int(runtime.GOMAXPROCS(0))
	}
	b, err := c.run(srcs, int(jobs))
	return finish(b, err, n, errOut)
}

//export gochunk_chunk_file
func gochunk_chunk_file(h C.uintptr_t, path *C.char, n *C.size_t, errOut **C.char) *C.char {
	defer recovered(errOut)
	c, err := handle(h)
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	p := C.GoString(path)
	src := pipeline.Source{Path: p, Metadata: map[string]any{"source": p}}
	b, err := c.run([]pipeline.Source{src}, 1)
	return finish(b, err, n, errOut)
}

// goString copies n bytes at p (C.GoStringN takes an int of C, which a
// text over 2 GiB overflows).
func goString(p *C.char, n C.size_t) string {
	if n == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)))
}

// finish returns b in C memory, or NULL with err set.
func finish(b []byte, err error, n *C.size_t, errOut **C.char) *C.char {
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	return result(b, n)
}

// emptyText is how a record of empty text begins (record.AppendJSON).
const emptyText = `{"text":"",`

// run chunks srcs on up to jobs goroutines and returns their results as
// {"docs": [...]}: each source's (and its attachments') records, warning
// and error.
func (c *chunker) run(srcs []pipeline.Source, jobs int) ([]byte, error) {
	out := bytes.NewBufferString(`{"docs":[`)
	var line []byte
	first := true
	emit := func(it pipeline.Item) error {
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.WriteString(`{"records":[`)
		sliced := false
		if it.Err == nil && it.Source.Text != "" && it.Loaded.Text == it.Source.Text {
			// The caller holds this text: records of one span leave it
			// out, to be sliced from the caller's string by start_rune
			// and end_rune (decoding it again costs as much as chunking).
			sliced = true
			line = line[:0]
			for _, rec := range it.Result.Records() {
				if len(rec.Spans) > 1 { // spans joined by "\n": not a slice
					var err error
					if line, err = record.AppendJSON(line, rec); err != nil {
						return err
					}
					continue
				}
				rec.Text = ""
				n := len(line)
				var err error
				if line, err = record.AppendJSON(line, rec); err != nil {
					return err
				}
				if !bytes.HasPrefix(line[n:], []byte(emptyText)) {
					return errors.New("record layout: text is not first")
				}
				line = append(line[:n+1], line[n+len(emptyText):]...)
			}
		} else if it.Err == nil {
			var err error
			if line, err = it.Result.AppendJSONL(line[:0], 0, len(it.Result.Chunks)); err != nil {
				return err
			}
		}
		if it.Err == nil {
			// Records are lines: a raw newline ends each (JSON escapes
			// those within strings), so commas between them make an array.
			if len(line) > 0 {
				line = line[:len(line)-1]
				for i, b := range line {
					if b == '\n' {
						line[i] = ','
					}
				}
			}
			out.Write(line)
		}
		out.WriteByte(']')
		if sliced {
			out.WriteString(`,"sliced":true`)
		}
		if it.Loaded.Warning != "" {
			out.WriteString(`,"warning":`)
			writeString(out, it.Loaded.Warning)
		}
		if it.Err != nil {
			msg := it.Err.Error()
			if it.Source.Path != "" {
				msg = fileError(it.Source.Path, it.Err) // as gochunk chunk names it
			}
			out.WriteString(`,"error":`)
			writeString(out, msg)
		}
		if it.Source.IsAttachment() {
			out.WriteString(`,"attachment":`)
			writeString(out, it.Source.ID)
		}
		out.WriteByte('}')
		return nil
	}
	var err error
	if len(srcs) == 1 && srcs[0].Path == "" && srcs[0].Reader == nil {
		// One text in memory (it has no attachments): chunked on the
		// calling thread, without Stream's goroutines, whose hand-offs
		// cost a call from C more than the chunking of a short text.
		ctx := context.Background()
		it := pipeline.Item{Source: srcs[0]}
		if it.Loaded, it.Err = c.pl.Load(ctx, srcs[0]); it.Err == nil {
			it.Result, it.Err = c.pl.Run(ctx, it.Loaded.Document)
		}
		err = emit(it)
		it.Loaded.Release()
	} else {
		err = c.pl.Stream(context.Background(), srcs, jobs, false, emit)
	}
	if err != nil {
		return nil, err
	}
	out.WriteString("]}")
	return out.Bytes(), nil
}

// fileError is err's message under the name of the file it concerns,
// named once, as gochunk chunk and extract write it: an error that names
// the file itself (an os error's path, a reader's) does not name it again.
func fileError(name string, err error) string {
	msg := err.Error()
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == name {
		msg = strings.Replace(msg, pe.Error(), pe.Op+": "+pe.Err.Error(), 1)
	}
	for name != "" && strings.HasPrefix(msg, name+": ") {
		msg = msg[len(name)+2:]
	}
	return name + ": " + msg
}

func writeString(w *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	w.Write(b)
}

// extractOptions are gochunk extract's flags.
type extractOptions struct {
	Input     string `json:"input"`
	PDFEngine string `json:"pdf_engine"`
}

//export gochunk_extract
func gochunk_extract(path, options *C.char, n *C.size_t, errOut **C.char) *C.char {
	defer recovered(errOut)
	opt := extractOptions{Input: "auto", PDFEngine: "pdfium"}
	if options != nil {
		dec := json.NewDecoder(strings.NewReader(C.GoString(options)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&opt); err != nil {
			setErr(errOut, fmt.Errorf("%w: extract options: %v (they are: input, pdf_engine)", gochunk.ErrConfig, strings.TrimPrefix(err.Error(), "json: ")))
			return nil
		}
	}
	p := C.GoString(path)
	b, err := extract(context.Background(), p, opt)
	return finish(b, err, n, errOut)
}

// extract is gochunk extract --elements FILE: the text, the layout
// elements, the metadata and the warning of the file at path.
func extract(ctx context.Context, path string, opt extractOptions) ([]byte, error) {
	notice := func(s string) { fmt.Fprintln(os.Stderr, "gochunk:", s) }
	pl, err := pipeline.New(ctx, pipeline.Config{Input: opt.Input, PDFEngine: opt.PDFEngine, PDFNotice: notice}, pipeline.Options{})
	if err != nil {
		return nil, err
	}
	doc, err := pl.Load(ctx, pipeline.Source{Path: path})
	defer doc.Release()
	if err != nil {
		return nil, errors.New(fileError(path, err)) // as gochunk extract names it
	}
	els := doc.Elements
	if els == nil {
		els = []gochunk.Element{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as gochunk extract --elements writes them
	err = enc.Encode(map[string]any{
		"text":     doc.Text,
		"elements": els,
		"metadata": doc.Metadata,
		"warning":  doc.Warning,
	})
	return buf.Bytes(), err
}

//export gochunk_free
func gochunk_free(p unsafe.Pointer) { C.free(p) }

//export gochunk_version
func gochunk_version() *C.char { return C.CString(version.String()) }

// newPipeline builds the pipeline of chunker name with params, a JSON
// object of gochunk chunk --config's keys, exactly as the command line
// builds it: the pipeline's flags registered with their defaults and set
// from the keys that name one, the rest the chunker's parameters.
func newPipeline(ctx context.Context, name, params string) (*pipeline.Pipeline, error) {
	in := map[string]any{}
	if strings.TrimSpace(params) != "" {
		dec := json.NewDecoder(strings.NewReader(params))
		dec.UseNumber() // numbers stay exact, as --config reads them
		if err := dec.Decode(&in); err != nil || in == nil {
			return nil, fmt.Errorf("%w: parameters: want a JSON object of the chunker's parameters and the pipeline's settings", gochunk.ErrConfig)
		}
	}
	fs := flag.NewFlagSet("gochunk", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pf := &pipelineflag.Flags{Stderr: os.Stderr}
	pf.Register(fs)
	if err := fs.Parse(nil); err != nil {
		return nil, err
	}
	if name != "" {
		if err := fs.Set("chunker", name); err != nil {
			return nil, err
		}
	}
	chunkerParams := map[string]any{}
	settings := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(in)) {
		v := in[key]
		flagName := strings.ReplaceAll(key, "_", "-")
		setting := strings.ReplaceAll(key, "-", "_")
		switch {
		case flagName == "chunker" || flagName == "config" || flagName == "progress":
			return nil, fmt.Errorf("%w: %q is not a parameter here: name the chunker as the first argument, and give its parameters and the pipeline's settings (%s) by name", gochunk.ErrConfig, key, strings.Join(settingNames(fs), ", "))
		case flagName == "size" || flagName == "overlap":
			chunkerParams[key] = v // the chunker's, as --config gives them
		case slices.Contains(pipeline.SettingParams, setting):
			chunkerParams[setting] = v // moved onto the configuration by ApplySettings
		case fs.Lookup(flagName) != nil:
			text, err := settingText(v)
			if err == nil {
				err = fs.Set(flagName, text)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", gochunk.ErrConfig, key, err)
			}
			settings[flagName] = true
		default:
			chunkerParams[key] = v
		}
	}
	cfg, err := pf.Config()
	if err != nil {
		return nil, err
	}
	if err := checkParams(fs, cfg.Chunker, chunkerParams); err != nil {
		return nil, err
	}
	rest, err := cfg.ApplySettings(chunkerParams)
	if err != nil {
		return nil, err
	}
	if cfg.Params, err = json.Marshal(rest); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	return pipelineflag.New(ctx, cfg)
}

// settingText is a setting's value as its flag's text.
func settingText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool, json.Number:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("want a single value (a string, number or boolean), not %v", v)
}

// settingNames are the pipeline's settings a chunker takes by name.
func settingNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "chunker", "config", "progress", "size", "overlap":
			return
		}
		names = append(names, strings.ReplaceAll(f.Name, "-", "_"))
	})
	slices.Sort(names)
	return names
}

// checkParams refuses a key that is neither a parameter of chunker name
// nor a pipeline setting, naming both, as gochunk chunk --config does. A
// chunker it does not know is left to pipeline.New to name.
func checkParams(fs *flag.FlagSet, name string, params map[string]any) error {
	spec, ok := chunkers.New().Lookup(name)
	if !ok {
		return nil
	}
	var names []string
	for _, p := range spec.Params() {
		names = append(names, p.Name)
	}
	for _, key := range slices.Sorted(maps.Keys(params)) {
		if slices.Contains(names, key) || slices.Contains(pipeline.SettingParams, key) {
			continue
		}
		return fmt.Errorf("%w: unknown setting %q: not a parameter of %s (it has: %s) nor a setting of the pipeline (%s)",
			gochunk.ErrConfig, key, name, strings.Join(names, ", "), strings.Join(settingNames(fs), ", "))
	}
	return nil
}
