// Package params checks the numeric parameters of configuration structs
// against the valid ranges their fields declare in a struct tag,
// range:"LO,HI" (inclusive), so that every entry point refuses a value
// out of range before any work, in the same words.
package params

import (
	"fmt"
	"math"
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
		lo, hi, ok := strings.Cut(tag, ",")
		if !ok {
			panic(fmt.Sprintf("params: field %s: range tag %q is not LO,HI", f.Name, tag))
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		e := &RangeError{Param: name, Lo: lo, Hi: hi}
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			l, err1 := strconv.ParseInt(lo, 10, 64)
			h, err2 := strconv.ParseInt(hi, 10, 64)
			if err1 != nil || err2 != nil {
				panic(fmt.Sprintf("params: field %s: range tag %q is not two integers", f.Name, tag))
			}
			if x := fv.Int(); x < l || x > h {
				e.Got = strconv.FormatInt(x, 10)
				return e
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			l, err1 := strconv.ParseUint(lo, 10, 64)
			h, err2 := strconv.ParseUint(hi, 10, 64)
			if err1 != nil || err2 != nil {
				panic(fmt.Sprintf("params: field %s: range tag %q is not two integers", f.Name, tag))
			}
			if x := fv.Uint(); x < l || x > h {
				e.Got = strconv.FormatUint(x, 10)
				return e
			}
		case reflect.Float32, reflect.Float64:
			l, err1 := strconv.ParseFloat(lo, 64)
			h, err2 := strconv.ParseFloat(hi, 64)
			if err1 != nil || err2 != nil {
				panic(fmt.Sprintf("params: field %s: range tag %q is not two numbers", f.Name, tag))
			}
			e.Float = true
			if x := fv.Float(); math.IsNaN(x) || x < l || x > h {
				e.Got = strconv.FormatFloat(x, 'g', -1, 64)
				return e
			}
		default:
			panic(fmt.Sprintf("params: field %s of kind %s has a range tag", f.Name, fv.Kind()))
		}
	}
	return nil
}
