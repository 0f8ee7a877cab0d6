package server

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk/pipeline"
)

// unsupportedDocument returns the message of the 415 answer to a request
// one of whose documents is of a format gochunk recognises and does not
// read (an image, a Word 97-2003 file, an archive ...): the document's
// name, the format and what to do; for an image, noOCR (the server's
// words: what its operator starts it with) replaces the command line's
// advice. An attachment refused is its own document's error, not the
// request's.
func unsupportedDocument(errs []error, noOCR string) (string, bool) {
	for _, err := range errs {
		if fe, ok := errors.AsType[*pipeline.FormatError](err); ok && !fe.Attached {
			if strings.HasPrefix(fe.Format, "an image") && noOCR != "" {
				return fmt.Sprintf("document %q: %s: gochunk reads an image's text only by OCR, and %s", fe.Name, fe.Format, noOCR), true
			}
			return fmt.Sprintf("document %q: %v", fe.Name, fe), true
		}
	}
	return "", false
}

// decodeError says what is wrong with a request body that did not decode
// into dst, in the API's words: the JSON field and what it takes, never a
// Go type or struct name.
func decodeError(err error, dst any) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the body is empty; send a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends before its JSON does; send a complete JSON object"
	case errors.As(err, &syn):
		msg := strings.TrimPrefix(syn.Error(), "invalid character ")
		return fmt.Sprintf("not valid JSON at byte %d (%s)", syn.Offset, msg)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("the body must be a JSON object of the request's fields, not %s", typ.Value)
		}
		return fmt.Sprintf("field %q: want %s, got %s", typ.Field, wantOf(typ.Type), article(typ.Value))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		field, _ := strconv.Unquote(name)
		return fmt.Sprintf("unknown field %q (known: %s)", field, strings.Join(fieldsOf(reflect.TypeOf(dst)), ", "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// wantOf says in JSON's terms what a Go type takes.
func wantOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t == reflect.TypeFor[json.RawMessage]() {
			return "a JSON value"
		}
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(wantOf(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// article names the kind of JSON value that came ("string" -> "a string").
func article(v string) string {
	switch {
	case v == "":
		return "something else"
	case strings.HasPrefix(v, "number"):
		return "a " + v // "number", "number 1.5"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "bool":
		return "true or false"
	}
	return "a " + v
}

// fieldsOf lists the JSON field names of the struct t points to.
func fieldsOf(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			out = append(out, fieldsOf(f.Type)...)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		out = append(out, strings.ToLower(cmp.Or(name, f.Name)))
	}
	return out
}

// loneSurrogate returns the offset of the first \uXXXX escape in body that
// is half of a UTF-16 surrogate pair without its other half (which
// encoding/json would silently turn into U+FFFD), or -1.
func loneSurrogate(body []byte) int {
	hex := func(at int) (rune, bool) {
		if at+6 > len(body) || body[at] != '\\' || body[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(body[at+2:at+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 >= len(body) {
			continue
		}
		if body[i+1] != 'u' {
			i++ // an escape of one character, such as \\ or \"
			continue
		}
		r, ok := hex(i)
		if !ok {
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if lo, ok := hex(i + 6); ok && lo >= 0xDC00 && lo < 0xE000 {
				i += 11
				continue
			}
			return i
		case r >= 0xDC00 && r < 0xE000:
			return i
		}
		i += 5
	}
	return -1
}
