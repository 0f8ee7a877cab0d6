package gochunk_test

import (
	"errors"
	"testing"

	"github.com/gochunk/gochunk"
)

func TestPrepareText(t *testing.T) {
	if _, _, err := gochunk.PrepareText("ok", gochunk.Reject); err != nil {
		t.Error(err)
	}
	_, _, err := gochunk.PrepareText("a\xffb", gochunk.Reject)
	if !errors.Is(err, gochunk.ErrInvalidUTF8) || err.Error() != "invalid UTF-8 at byte 1" {
		t.Errorf("reject: %v", err)
	}
	out, repaired, err := gochunk.PrepareText("a\xff\xfeb", gochunk.Repair)
	if err != nil || !repaired || out != "a\uFFFDb" {
		t.Errorf("repair: %q %v %v", out, repaired, err)
	}
	if _, _, err := gochunk.PrepareText("x", "mend"); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown policy: %v", err)
	}
}

type cfg struct {
	Size int    `json:"size" doc:"the size"`
	Name string `json:"name" doc:"a name"`
}

func TestRegistry(t *testing.T) {
	r := gochunk.NewRegistry()
	spec := gochunk.Spec{Name: "x", Defaults: &cfg{Size: 3}, New: func(config []byte, env gochunk.Env) (gochunk.Chunker, error) {
		c := cfg{Size: 3}
		return nil, gochunk.DecodeConfig(config, &c)
	}}
	if err := r.Register(spec); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(spec); err == nil {
		t.Error("duplicate name accepted")
	}
	if err := r.Register(gochunk.Spec{Name: "y"}); err == nil {
		t.Error("spec without constructor accepted")
	}
	if _, err := r.New("z", nil, gochunk.Env{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := r.New("x", []byte(`{"sise": 1}`), gochunk.Env{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := r.New("x", []byte(`{"size": 1}`), gochunk.Env{}); err != nil {
		t.Errorf("good config: %v", err)
	}
	ps := spec.Params()
	if len(ps) != 2 || ps[0].Name != "size" || ps[0].Default != 3 || ps[0].Type != "int" || ps[1].Doc != "a name" {
		t.Errorf("params %+v", ps)
	}
}

type decodeCfg struct {
	Size  int     `json:"size"`
	Ratio float64 `json:"ratio"`
	Seed  uint64  `json:"seed"`
	Inner
}

type Inner struct {
	Names []string `json:"names"`
}

func TestDecodeConfigErrors(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{"size": "ten"}`, `parameter "size": want an integer, got "ten"`},
		{`{"size": 1.5}`, `parameter "size": want an integer, got 1.5`},
		{`{"names": [1]}`, `parameter "names": want a list of strings, got [1]`},
		{`{"seed": -1}`, `parameter "seed": want a non-negative integer, got -1`},
		{`{"seed": 18446744073709551616}`, `parameter "seed": want a non-negative integer, got 18446744073709551616`},
		{`{"overlap": 3}`, `unknown parameter "overlap" (it has: size, ratio, seed, names)`},
	} {
		var c decodeCfg
		err := gochunk.DecodeConfig([]byte(tc.config), &c)
		var pe *gochunk.ParamError
		if !errors.As(err, &pe) || !errors.Is(err, gochunk.ErrConfig) || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.config, err, tc.want)
		}
	}
	var c decodeCfg
	if err := gochunk.DecodeConfig([]byte(`{"seed": 9007199254740993, "names": ["a"]}`), &c); err != nil || c.Seed != 1<<53+1 || c.Names[0] != "a" {
		t.Errorf("exact values: %+v %v", c, err)
	}
	if err := gochunk.DecodeConfig([]byte(`{"seed": 18446744073709551615}`), &c); err != nil || c.Seed != 1<<64-1 {
		t.Errorf("largest uint64: %d %v", c.Seed, err)
	}
	// The registry names the chunker.
	r := gochunk.NewRegistry()
	r.Register(gochunk.Spec{Name: "demo", Defaults: &decodeCfg{}, New: func(config []byte, env gochunk.Env) (gochunk.Chunker, error) {
		var c decodeCfg
		return nil, gochunk.DecodeConfig(config, &c)
	}})
	if _, err := r.New("demo", []byte(`{"size": "ten"}`), gochunk.Env{}); err == nil || err.Error() != `parameter "size" of demo: want an integer, got "ten"` {
		t.Errorf("registry: %v", err)
	}
}
