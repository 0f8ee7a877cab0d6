package params

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

type inner struct {
	Overlap int `json:"overlap" range:"0,1073741824"`
}

type cfg struct {
	inner
	Size   int     `json:"size" range:"1,1073741824"`
	Weight float64 `json:"weight" range:"0,10"`
	Seed   uint64  `json:"seed" range:"0,18446744073709551615"`
	Free   int     `json:"free"`
}

func TestCheck(t *testing.T) {
	ok := cfg{Size: 1, Weight: 10, Seed: math.MaxUint64, Free: -5}
	if err := Check(&ok); err != nil {
		t.Fatalf("in range: %v", err)
	}
	for _, c := range []struct {
		cfg  cfg
		want string
	}{
		{cfg{Size: 0}, `parameter "size": want an integer from 1 to 1073741824, got 0`},
		{cfg{Size: 1 << 61}, `parameter "size": want an integer from 1 to 1073741824, got 2305843009213693952`},
		{cfg{Size: 5, inner: inner{Overlap: -1}}, `parameter "overlap": want an integer from 0 to 1073741824, got -1`},
		{cfg{Size: 5, Weight: math.NaN()}, `parameter "weight": want a number from 0 to 10, got NaN`},
		{cfg{Size: 5, Weight: math.Inf(1)}, `parameter "weight": want a number from 0 to 10, got +Inf`},
	} {
		err := Check(c.cfg)
		if err == nil || err.Error() != c.want || !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "range tag") {
			t.Errorf("a malformed tag: %v", p)
		}
	}()
	Check(struct {
		X int `range:"1-2"`
	}{})
}
