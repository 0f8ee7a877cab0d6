package chunkers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/gochunk/gochunk"
	paramrange "github.com/gochunk/gochunk/internal/params"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/tokenize"
)

// Env holds what a chunker built from a configuration may need besides the
// configuration itself.
type Env struct {
	// Counter measures chunk sizes; nil means the chunker's default unit:
	// runes for rule-based chunkers, and for those that embed the
	// embedder's own tokenizer, else cl100k_base (see
	// chunkers.DefaultCounter).
	Counter tokenize.Counter
	// Embedder serves the embedding-based chunkers; nil means they use
	// the built-in lexical embedder.
	Embedder gochunk.Embedder
	// LLM serves the LLM-based chunkers, which fail to build without it.
	LLM *llm.Client
}

// CounterOrDefault returns env.Counter, or a rune counter when it is nil.
func (env Env) CounterOrDefault() tokenize.Counter {
	if env.Counter == nil {
		return tokenize.Runes{}
	}
	return env.Counter
}

// Spec describes a chunker that a Registry can build by name.
type Spec struct {
	// Name is the chunker's name on the command line and in the HTTP API.
	Name string
	// Summary is one line saying what the chunker does.
	Summary string
	// Defaults is a pointer to the chunker's configuration struct holding
	// its default values; its exported fields with json and doc tags are its
	// parameters.
	Defaults any
	// Embeds is true for chunkers that use Env.Embedder.
	Embeds bool
	// UsesLLM is true for chunkers that need Env.LLM.
	UsesLLM bool
	// Unit names the tokenizer the chunker counts in when the caller names
	// none, where that is neither runes nor, for chunkers that embed, the
	// embedder's tokens (bytes for fast).
	Unit string
	// Memory is the chunker's peak memory per byte of input with its
	// defaults (resident memory of a whole run on 30 MB of prose over the
	// input's size, measured; see the README), for estimates such as the
	// server's memory budget. 0 means unknown.
	Memory float64
	// New builds the chunker from a JSON configuration (nil or empty means
	// all defaults).
	New func(config []byte, env Env) (gochunk.Chunker, error)
}

// Param is one documented parameter of a chunker.
type Param struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default any    `json:"default"`
	Doc     string `json:"doc"`
	// Range is the valid range of a numeric parameter, "LO,HI" inclusive
	// (more checks may apply, such as overlap below size).
	Range string `json:"range,omitempty"`
}

// Params lists the parameters of s, read from its Defaults.
func (s Spec) Params() []Param {
	if s.Defaults == nil {
		return nil
	}
	v := reflect.ValueOf(s.Defaults)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var out []Param
	collectParams(v, &out)
	return out
}

func collectParams(v reflect.Value, out *[]Param) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			collectParams(v.Field(i), out)
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || name == "" {
			continue
		}
		*out = append(*out, Param{
			Name:    name,
			Type:    typeName(f.Type),
			Default: v.Field(i).Interface(),
			Doc:     f.Tag.Get("doc"),
			Range:   paramrange.Range(f),
		})
	}
}

func typeName(t reflect.Type) string {
	if t == reflect.TypeFor[json.RawMessage]() {
		return "object"
	}
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "int"
	case reflect.Float64, reflect.Float32:
		return "float"
	case reflect.Bool:
		return "bool"
	default:
		return t.Kind().String()
	}
}

// Registry maps chunker names to their specs. The zero value is not usable;
// call NewRegistry. A Registry is safe for concurrent reads once filled.
type Registry struct {
	specs map[string]Spec
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{specs: make(map[string]Spec)}
}

// Register adds s; it fails on an empty or duplicate name or a missing
// constructor.
func (r *Registry) Register(s Spec) error {
	switch {
	case s.Name == "":
		return fmt.Errorf("register chunker: empty name")
	case s.New == nil:
		return fmt.Errorf("register chunker %q: no constructor", s.Name)
	}
	if _, dup := r.specs[s.Name]; dup {
		return fmt.Errorf("register chunker %q: name already taken", s.Name)
	}
	r.specs[s.Name] = s
	return nil
}

// Lookup returns the spec registered under name.
func (r *Registry) Lookup(name string) (Spec, bool) {
	s, ok := r.specs[name]
	return s, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.specs))
	for n := range r.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New builds the chunker registered under name from a JSON configuration.
// A parameter error names the chunker (see ParamError).
func (r *Registry) New(name string, config []byte, env Env) (gochunk.Chunker, error) {
	s, ok := r.specs[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown chunker %q (known: %s)", gochunk.ErrConfig, name, strings.Join(r.Names(), ", "))
	}
	c, err := s.New(config, env)
	if err != nil {
		var re *paramrange.RangeError
		if errors.As(err, &re) { // from a chunker built from parameters that were not decoded here
			err = &ParamError{Param: re.Param, Want: re.Want(), Got: re.Got}
		}
		var pe *ParamError
		if errors.As(err, &pe) && pe.Chunker == "" {
			pe.Chunker = name
			return nil, pe
		}
		return nil, fmt.Errorf("chunker %q: %w", name, err)
	}
	return c, nil
}

// ParamError reports a chunker parameter that is unknown or has a value of
// the wrong type. It wraps ErrConfig; its message is the same from the
// command line and the HTTP API.
type ParamError struct {
	Chunker string   // the chunker, when known
	Param   string   // the parameter's name
	Want    string   // the type wanted ("an integer"); empty for an unknown parameter
	Got     string   // the value given, as JSON
	Known   []string // the chunker's parameters, for an unknown one
}

func (e *ParamError) Error() string {
	of, forC := "", ""
	if e.Chunker != "" {
		of, forC = " of "+e.Chunker, " for "+e.Chunker
	}
	if e.Want == "" {
		return fmt.Sprintf("unknown parameter %q%s (it has: %s)", e.Param, forC, strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("parameter %q%s: want %s, got %s", e.Param, of, e.Want, e.Got)
}

// Unwrap makes a ParamError match ErrConfig.
func (e *ParamError) Unwrap() error { return gochunk.ErrConfig }

// DecodeConfig fills dst, a pointer to a configuration struct already
// holding defaults, from a JSON object. An unknown parameter or a value of
// the wrong type is a *ParamError, so that a typo is reported rather than
// ignored; numbers keep their exact value (a seed of 2^53+1 stays so, one
// that does not fit is an error). Empty input keeps the defaults.
func DecodeConfig(config []byte, dst any) error {
	trimmed := bytes.TrimSpace(config)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return fmt.Errorf("%w: the configuration must be a JSON object of parameters (such as {\"size\": 512}), not %s", gochunk.ErrConfig, jsonKind(trimmed))
	}
	var params []Param
	collectParams(reflect.ValueOf(dst).Elem(), &params)
	known := make([]string, len(params))
	types := map[string]string{}
	for i, p := range params {
		known[i] = p.Name
		types[p.Name] = p.Type
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if _, ok := types[k]; !ok {
			return &ParamError{Param: k, Known: known}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			name := te.Field
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			got := string(fields[name])
			if len(got) > 60 {
				got = got[:57] + "..."
			}
			return &ParamError{Param: name, Want: wantOf(types[name]), Got: got}
		}
		return fmt.Errorf("%w: %v", gochunk.ErrConfig, err)
	}
	if err := paramrange.Check(dst); err != nil {
		var re *paramrange.RangeError
		if errors.As(err, &re) {
			return &ParamError{Param: re.Param, Want: re.Want(), Got: re.Got}
		}
		return err
	}
	return nil
}

// wantOf says what a parameter of a type (as Param.Type names it) takes.
func wantOf(typ string) string {
	switch typ {
	case "int":
		return "an integer"
	case "uint64":
		return "a non-negative integer"
	case "float":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "object":
		return "a JSON object"
	}
	if elem, ok := strings.CutPrefix(typ, "[]"); ok {
		plural := map[string]string{"int": "integers", "float": "numbers", "bool": "booleans", "string": "strings"}[elem]
		if plural == "" {
			plural = elem + " values"
		}
		return "a list of " + plural
	}
	return "a " + typ
}

// Info describes a registered chunker for listings (`gochunk chunkers
// --json`, GET /v1/chunkers).
type Info struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// DefaultUnit is the size unit when the caller names none.
	DefaultUnit  string  `json:"default_unit"`
	UsesEmbedder bool    `json:"uses_embedder"`
	UsesLLM      bool    `json:"uses_llm"`
	Params       []Param `json:"params"`
}

// List describes every registered chunker, by name.
func (r *Registry) List() []Info {
	var out []Info
	for _, n := range r.Names() {
		s := r.specs[n]
		out = append(out, Info{Name: n, Summary: s.Summary, DefaultUnit: DefaultUnit(s), UsesEmbedder: s.Embeds, UsesLLM: s.UsesLLM, Params: s.Params()})
	}
	return out
}

// jsonKind names the kind of JSON value raw starts with.
func jsonKind(raw []byte) string {
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "a list"
	case '{':
		return "a malformed object"
	case 't', 'f':
		return "true or false"
	}
	if json.Valid(raw) {
		return "a number"
	}
	return "malformed JSON"
}
