// Package params checks the numeric parameters of configuration structs
// against the valid ranges their fields declare in a struct tag,
// range:"LO,HI" (inclusive), so that every entry point refuses a value
// out of range before any work, in the same words.
package params

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
)

// MaxSize is the largest chunk size any chunker accepts, in any unit: a
// gibi-token. Sizes are added and multiplied inside the chunkers, and a
// bound far below the integers' range keeps that exact.
const MaxSize = 1 << 30

// RangeError reports a parameter outside its declared range. It wraps
// gochunk.ErrConfig.
type RangeError struct {
	Param  string // the parameter's JSON name
	Lo, Hi string // the range, inclusive, as written in the tag
	Float  bool   // a number rather than an integer
	Got    string // the value given
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("parameter %q: want %s, got %s", e.Param, e.Want(), e.Got)
}

// Want says what the parameter takes: "an integer from 1 to 1073741824".
func (e *RangeError) Want() string {
	kind := "an integer"
	if e.Float {
		kind = "a number"
	}
	return fmt.Sprintf("%s from %s to %s", kind, e.Lo, e.Hi)
}

// Unwrap makes a RangeError match gochunk.ErrConfig.
func (e *RangeError) Unwrap() error { return gochunk.ErrConfig }

// within reports whether x lies in [lo, hi], read by parse; NaN lies in
// no range.
func within[T int64 | uint64 | float64](x T, lo, hi string, parse func(string) (T, error)) (bool, error) {
	l, err1 := parse(lo)
	h, err2 := parse(hi)
	if err1 != nil || err2 != nil {
		return false, fmt.Errorf("bad range %q,%q", lo, hi)
	}
	return x >= l && x <= h, nil
}

// Range returns the range tag of field f ("" when it has none).
func Range(f reflect.StructField) string { return f.Tag.Get("range") }

// Check checks every field of the struct cfg is or points to (embedded
// structs included) that has a range tag. NaN and infinities are out of
// every range. A malformed tag panics: it is a programming error, which
// the tests of every package with tags catch.
func Check(cfg any) error {
	v := reflect.ValueOf(cfg)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	return check(v)
}

func check(v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		fv := v.Field(i)
		if f.Anonymous && fv.Kind() == reflect.Struct {
			if err := check(fv); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		tag := Range(f)
		if tag == "" {
			continue
		}
		lo, hi, found := strings.Cut(tag, ",")
		if !found {
			panic(fmt.Sprintf("params: field %s: range tag %q is not LO,HI", f.Name, tag))
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		e := &RangeError{Param: name, Lo: lo, Hi: hi}
		var ok bool
		var err error
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			ok, err = within(fv.Int(), lo, hi, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
			e.Got = strconv.FormatInt(fv.Int(), 10)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			ok, err = within(fv.Uint(), lo, hi, func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) })
			e.Got = strconv.FormatUint(fv.Uint(), 10)
		case reflect.Float32, reflect.Float64:
			ok, err = within(fv.Float(), lo, hi, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
			e.Got, e.Float = strconv.FormatFloat(fv.Float(), 'g', -1, 64), true
		default:
			panic(fmt.Sprintf("params: field %s of kind %s has a range tag", f.Name, fv.Kind()))
		}
		if err != nil {
			panic(fmt.Sprintf("params: field %s: range tag %q is not two numbers of its type", f.Name, tag))
		}
		if !ok {
			return e
		}
	}
	return nil
}
