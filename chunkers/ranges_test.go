package chunkers_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
)

// Every numeric parameter of every chunker declares its valid range, its
// default lies in it, a value just outside it is refused before any work
// with an error naming the parameter and the range, and the range's ends
// build chunkers that chunk a small text (or refuse the combination with
// a configuration error) without a panic or a runaway allocation.
func TestParameterRanges(t *testing.T) {
	reg := chunkers.New()
	text := "# Title\n\nOne sentence here. Another sentence there.\n\n- a list item\n- another\n\nA last paragraph, short."
	for _, info := range reg.List() {
		for _, p := range info.Params {
			if p.Type != "int" && p.Type != "float" && p.Type != "uint64" {
				continue
			}
			what := info.Name + "." + p.Name
			if p.Range == "" {
				t.Errorf("%s: numeric parameter without a range", what)
				continue
			}
			lo, hi, _ := strings.Cut(p.Range, ",")
			if !inRange(fmt.Sprint(p.Default), lo, hi) {
				t.Errorf("%s: default %v outside [%s]", what, p.Default, p.Range)
			}
			for _, bad := range []string{step(lo, -1), step(hi, +1)} {
				_, err := reg.New(info.Name, []byte(fmt.Sprintf(`{%q: %s}`, p.Name, bad)), chunkers.Env{})
				var pe *chunkers.ParamError
				if !errors.As(err, &pe) || pe.Param != p.Name || !errors.Is(err, gochunk.ErrConfig) {
					t.Errorf("%s = %s: %v, want a parameter error naming it", what, bad, err)
				}
				if p.Type != "uint64" && !strings.Contains(fmt.Sprint(err), " from "+lo+" to "+hi) {
					t.Errorf("%s = %s: %q does not give the range", what, bad, err)
				}
			}
			if info.UsesLLM {
				continue // needs a model to chunk
			}
			for _, edge := range []string{lo, hi} {
				c, err := reg.New(info.Name, []byte(fmt.Sprintf(`{%q: %s}`, p.Name, edge)), chunkers.Env{})
				if err != nil {
					if !errors.Is(err, gochunk.ErrConfig) {
						t.Errorf("%s = %s: %v", what, edge, err)
					}
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against a hang, not a timing
				_, err = c.Chunk(ctx, gochunk.Document{Text: text})
				cancel()
				if err != nil && !errors.Is(err, gochunk.ErrConfig) && !errors.Is(err, gochunk.ErrTooSmall) {
					t.Errorf("%s = %s: chunking: %v", what, edge, err)
				}
			}
		}
	}
}

// The reproductions of the issue: a 60-byte request that made mst
// allocate 24 GB or panic, and sizes that overflowed.
func TestHugeParametersRefused(t *testing.T) {
	reg := chunkers.New()
	for _, c := range []struct{ chunker, config, param string }{
		{"mst", `{"distance_threshold": 1000000000}`, "distance_threshold"},
		{"mst", `{"distance_threshold": 4611686018427387904}`, "distance_threshold"},
		{"recursive", `{"size": 2305843009213693952}`, "size"},
		{"token", `{"size": 9223372036854775807}`, "size"},
		{"sentence", `{"size": 4611686018427387904, "overlap": 1}`, "size"},
		{"hierarchical", `{"window": 1000000}`, "window"},
		{"savgol", `{"filter_window": 100001}`, "filter_window"},
	} {
		_, err := reg.New(c.chunker, []byte(c.config), chunkers.Env{})
		var pe *chunkers.ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%s %s: %v", c.chunker, c.config, err)
		}
	}
}

func inRange(v, lo, hi string) bool {
	x, _, err := big.ParseFloat(v, 10, 100, big.ToNearestEven)
	if err != nil {
		return false
	}
	l, _, _ := big.ParseFloat(lo, 10, 100, big.ToNearestEven)
	h, _, _ := big.ParseFloat(hi, 10, 100, big.ToNearestEven)
	return x.Cmp(l) >= 0 && x.Cmp(h) <= 0
}

// step returns the decimal v+d, exactly.
func step(v string, d int64) string {
	x, ok := new(big.Int).SetString(v, 10)
	if !ok {
		f, _, _ := big.ParseFloat(v, 10, 100, big.ToNearestEven)
		return f.Add(f, big.NewFloat(float64(d))).Text('g', 20)
	}
	return x.Add(x, big.NewInt(d)).String()
}
