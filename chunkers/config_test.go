package chunkers_test

import (
	"errors"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
)

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
		err := chunkers.DecodeConfig([]byte(tc.config), &c)
		var pe *chunkers.ParamError
		if !errors.As(err, &pe) || !errors.Is(err, gochunk.ErrConfig) || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.config, err, tc.want)
		}
	}
	var c decodeCfg
	if err := chunkers.DecodeConfig([]byte(`{"seed": 9007199254740993, "names": ["a"]}`), &c); err != nil || c.Seed != 1<<53+1 || c.Names[0] != "a" {
		t.Errorf("exact values: %+v %v", c, err)
	}
	if err := chunkers.DecodeConfig([]byte(`{"seed": 18446744073709551615}`), &c); err != nil || c.Seed != 1<<64-1 {
		t.Errorf("largest uint64: %d %v", c.Seed, err)
	}
	// The registry names the chunker.
	r := chunkers.NewRegistry()
	r.Register(chunkers.Spec{Name: "demo", Defaults: &decodeCfg{}, New: func(config []byte, env chunkers.Env) (gochunk.Chunker, error) {
		var c decodeCfg
		return nil, chunkers.DecodeConfig(config, &c)
	}})
	if _, err := r.New("demo", []byte(`{"size": "ten"}`), chunkers.Env{}); err == nil || err.Error() != `parameter "size" of demo: want an integer, got "ten"` {
		t.Errorf("registry: %v", err)
	}
}

type cfg struct {
	Size int    `json:"size" doc:"the size"`
	Name string `json:"name" doc:"a name"`
}

func TestRegistry(t *testing.T) {
	r := chunkers.NewRegistry()
	spec := chunkers.Spec{Name: "x", Defaults: &cfg{Size: 3}, New: func(config []byte, env chunkers.Env) (gochunk.Chunker, error) {
		c := cfg{Size: 3}
		return nil, chunkers.DecodeConfig(config, &c)
	}}
	if err := r.Register(spec); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(spec); err == nil {
		t.Error("duplicate name accepted")
	}
	if err := r.Register(chunkers.Spec{Name: "y"}); err == nil {
		t.Error("spec without constructor accepted")
	}
	if _, err := r.New("z", nil, chunkers.Env{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := r.New("x", []byte(`{"sise": 1}`), chunkers.Env{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := r.New("x", []byte(`{"size": 1}`), chunkers.Env{}); err != nil {
		t.Errorf("good config: %v", err)
	}
	ps := spec.Params()
	if len(ps) != 2 || ps[0].Name != "size" || ps[0].Default != 3 || ps[0].Type != "int" || ps[1].Doc != "a name" {
		t.Errorf("params %+v", ps)
	}
}
