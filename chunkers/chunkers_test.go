package chunkers_test

import (
	"context"
	"errors"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/tokenize"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/chunktest"
)

// Every built-in chunker builds from an empty configuration and keeps the
// contract with its defaults.
func TestDefaults(t *testing.T) {
	r := chunkers.New()
	text := strings.Repeat("A sentence of prose. Another one follows it!\n\n## Heading\n\n- item\n- item\n\n", 200)
	for _, name := range r.Names() {
		spec, _ := r.Lookup(name)
		if spec.UsesLLM || name == "late" {
			// Without a model there is nothing to call: the chunker must say
			// so instead of building. llmchunk tests them with a fake model,
			// embed the late chunker with a generated one.
			if _, err := r.New(name, nil, chunkers.Env{}); !errors.Is(err, gochunk.ErrConfig) {
				t.Errorf("%s without a model: err = %v, want ErrConfig", name, err)
			}
			continue
		}
		for _, config := range []string{"", "{}", "null"} {
			c, err := r.New(name, []byte(config), chunkers.Env{})
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
			counter, err := chunkers.DefaultCounter(spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: limit})
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

// modelEmbedder is a lexical embedder that claims a tokenizer of its own
// (words) and a chunk limit, as static and ONNX models do.
type modelEmbedder struct {
	*embed.Lexical
	limit int
}

func (m modelEmbedder) Tokenizer() tokenize.Counter { return tokenize.Words{} }
func (m modelEmbedder) ChunkLimit() int             { return m.limit }

// Chunkers that embed count in the embedder's own tokens by default, never
// over its limit; without a tokenizer, in cl100k_base; rule-based ones in
// runes.
func TestDefaultUnits(t *testing.T) {
	em := modelEmbedder{embed.NewLexical(embed.LexicalConfig{}), 20}
	for _, tc := range []struct {
		embeds bool
		e      gochunk.Embedder
		want   string
	}{{false, em, "runes"}, {true, nil, "cl100k_base"}, {true, embed.NewLexical(embed.LexicalConfig{}), "cl100k_base"}, {true, em, "words"}} {
		c, err := chunkers.DefaultCounter(chunkers.Spec{Embeds: tc.embeds}, tc.e)
		if err != nil || c.Name() != tc.want {
			t.Errorf("embeds %v: %v %v, want %s", tc.embeds, c, err, tc.want)
		}
	}
	text := strings.Repeat("Tides rise and fall with the moon across every coast of the sea. ", 30)
	r := chunkers.New()
	for _, name := range []string{"semantic", "savgol", "hierarchical", "dp", "cluster", "mst"} {
		config := `{"size": 512}`
		if name == "cluster" {
			config = `{"size": 512, "min_chunk_size": 10}`
		}
		c, err := r.New(name, []byte(config), chunkers.Env{Embedder: em})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ch := range chunks {
			if n := (tokenize.Words{}).Count(ch.Text); n > 20 || ch.TokenCount != n {
				t.Errorf("%s: chunk of %d words (token_count %d) over the embedder's limit of 20", name, n, ch.TokenCount)
			}
		}
	}
}

func TestEverySpecHasAMemoryFactor(t *testing.T) {
	for _, s := range chunkers.Specs() {
		if s.Memory < 1 {
			t.Errorf("%s has no memory factor", s.Name)
		}
	}
}
