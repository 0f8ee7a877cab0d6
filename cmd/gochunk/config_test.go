package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/eval"
)

// Numbers in configuration files keep their exact value on their way to
// the chunker's JSON configuration.
func TestReadParamsExactNumbers(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"c.yaml": "seed: 9007199254740993\nthreshold: 0.1\n",
		"c.json": `{"seed": 9007199254740993, "threshold": 0.1}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		params, err := readParams(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(params)
		if !strings.Contains(string(b), `"seed":9007199254740993`) || !strings.Contains(string(b), `"threshold":0.1`) {
			t.Errorf("%s: %s", name, b)
		}
	}
	a, err := eval.ParseAxis("seed=9007199254740993,abc,true")
	if v := a.Values; err != nil || len(v) != 3 || v[1] != "abc" || v[2] != true {
		t.Errorf("sweep values %v", v)
	} else if b, _ := json.Marshal(v[0]); string(b) != "9007199254740993" {
		t.Errorf("sweep number %s", b)
	}
}
