package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/embedstub"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/tokenize"
)

// headedText is a Markdown document of sections of n words each.
func headedText(sections, words int) string {
	vocab := strings.Fields("retrieval chunks embedding models tokens context limits servers documents sentences paragraphs headings offsets")
	var b strings.Builder
	for s := range sections {
		b.WriteString("# Section about ")
		b.WriteString(vocab[s%len(vocab)])
		b.WriteString("\n\n")
		for i := range words {
			b.WriteString(vocab[(i*7+s)%len(vocab)])
			if i%13 == 12 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestOpenAIEmbedderSizesChunks: with openai:nomic-embed-text named and
// no tokenizer, chunks (of a rule-based chunker and of one that embeds),
// their context and their parents' children are sized in the model's own
// WordPiece tokens against its limit (Ollama's /api/show); a --size over
// it is lowered to it with a warning that says so; embedding them never
// meets the stub's 400 for an over-long input. Before, the chunks were
// sized in runes or cl100k_base and the stub refused them.
func TestOpenAIEmbedderSizesChunks(t *testing.T) {
	file := embedstub.WordPiece(t, "..")
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	cache := embedstub.HubCache(t, "nomic-ai/nomic-embed-text-v1.5", file)
	const limit = 300 // num_ctx: the model's context as this server runs it
	doc := gochunk.Document{ID: "d", Text: headedText(6, 900)}
	for _, c := range []struct {
		chunker string
		params  string
		parents int
		context string
	}{
		{"recursive", `{"size": 5000}`, 0, ""},
		{"recursive", `{"size": 5000}`, 0, "headings"},
		{"sentence", `{"size": 4000}`, 1000, ""},
		{"semantic", `{"size": 5000}`, 0, ""},
	} {
		srv := embedstub.Ollama(t, tok, 2, 2048, limit)
		var mu sync.Mutex
		var said []string
		cfg := pipeline.Config{Chunker: c.chunker, Params: json.RawMessage(c.params), EmbedChunks: true, Parents: c.parents,
			Context: pipeline.ContextConfig{Mode: c.context},
			Embedder: pipeline.EmbedderConfig{Name: "openai:nomic-embed-text", URL: srv.URL, CacheDir: cache, Offline: true,
				Notice: func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }}}
		p, err := pipeline.New(context.Background(), cfg, pipeline.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.chunker, err)
		}
		if !strings.Contains(p.Counter().Name(), "models--nomic-ai--nomic-embed-text-v1.5") {
			t.Errorf("%s: chunks counted in %s, not the model's tokenizer", c.chunker, p.Counter().Name())
		}
		r, err := p.Run(context.Background(), doc)
		if err != nil {
			t.Fatalf("%s %s: %v", c.chunker, c.context, err)
		}
		for i, ch := range r.Chunks {
			if n := tok.Count(ch.Text); n > limit-2 {
				t.Errorf("%s: chunk %d has %d tokens, over %d", c.chunker, i, n, limit-2)
			}
		}
		inputs, longest, refused := srv.Stats()
		if refused > 0 || longest > limit || inputs < len(r.Chunks) {
			t.Errorf("%s %s: %d inputs for %d chunks, the longest %d tokens, %d refused (limit %d)", c.chunker, c.context, inputs, len(r.Chunks), longest, refused, limit)
		}
		all := strings.Join(said, "\n")
		if !strings.Contains(all, "is over the 298 tokens nomic-embed-text takes") || !strings.Contains(all, "lowered to 298") {
			t.Errorf("%s: no warning that --size was lowered: %s", c.chunker, all)
		}
	}
}
