package chunkers_test

import (
	"errors"
	"strings"
	"testing"

	"gochunk"
	"gochunk/chunkers"
	"gochunk/chunktest"
	"gochunk/tokenize"
)

// Every built-in chunker builds from an empty configuration and keeps the
// contract with its defaults.
func TestDefaults(t *testing.T) {
	r := chunkers.New()
	text := strings.Repeat("A sentence of prose. Another one follows it!\n\n## Heading\n\n- item\n- item\n\n", 200)
	for _, name := range r.Names() {
		spec, _ := r.Lookup(name)
		if spec.UsesLLM {
			// Without a model there is nothing to call: the chunker must say
			// so instead of building. llmchunk tests them with a fake model.
			if _, err := r.New(name, nil, gochunk.Env{}); !errors.Is(err, gochunk.ErrConfig) {
				t.Errorf("%s without a model: err = %v, want ErrConfig", name, err)
			}
			continue
		}
		for _, config := range []string{"", "{}", "null"} {
			c, err := r.New(name, []byte(config), gochunk.Env{})
			if err != nil {
				t.Fatalf("%s with %q: %v", name, config, err)
			}
			limit := 0
			for _, p := range spec.Params() {
				if p.Name == "size" || p.Name == "max_tokens" {
					limit = max(limit, p.Default.(int))
				}
			}
			if limit == 0 {
				t.Fatalf("%s has no size parameter", name)
			}
			chunktest.Check(t, c, text, chunktest.Options{Counter: tokenize.Runes{}, Limit: limit})
		}
	}
}

func TestEverySpecDocumented(t *testing.T) {
	for _, s := range chunkers.Specs() {
		if s.Summary == "" {
			t.Errorf("%s has no summary", s.Name)
		}
		for _, p := range s.Params() {
			if p.Doc == "" {
				t.Errorf("%s.%s has no doc", s.Name, p.Name)
			}
		}
	}
}
