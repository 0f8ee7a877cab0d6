package embed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/vec"
)

// Late chunking on a generated model: every token of a document longer
// than the model's limit has its vector (windows stitch without gaps), a
// chunk's vector is the pooled vector of its own tokens, the chunks keep
// the contract, and the pipeline hands those vectors out as the chunks'
// embeddings.
func TestLateChunking(t *testing.T) {
	lib := embed.ONNXRuntimeLibraryForTest(t)
	dir := embed.BERTModelForTest(t, true, "mean", 24)
	ctx := context.Background()
	em, err := embed.LoadONNX(ctx, dir, embed.Options{ONNXBackend: "ort", ONNXRuntimeLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Close()
	text := strings.Repeat("The cat sat. The dog runs.\n\nThe dogs sat. ", 12) + "The cat runs."
	ends, vectors, err := em.TokenVectors(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(ends) < 60 || len(vectors) != len(ends) {
		t.Fatalf("%d token ends, %d vectors", len(ends), len(vectors))
	}
	for i, v := range vectors {
		if len(v) != em.Dim() || vec.Norm(v) == 0 {
			t.Fatalf("token %d has no vector", i)
		}
	}
	// A text within the limit runs in one window, the same every time.
	short := "The cat sat."
	_, a, _ := em.TokenVectors(ctx, short)
	_, b, _ := em.TokenVectors(ctx, short)
	if len(a) != 4 || vec.Cosine(a[0], b[0]) < 0.999999 {
		t.Fatalf("short text: %d tokens", len(a))
	}

	c, err := chunkers.New().New("late", []byte(`{"chunker": "recursive", "config": {"size": 10}}`), chunkers.Env{Embedder: embed.NewCached(em, embed.CacheOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	late := c.(gochunk.ChunkEmbedder)
	chunktest.Check(t, c, text, chunktest.Options{Counter: em.Tokenizer(), Limit: 10})
	chunks, cvs, err := late.ChunkEmbed(ctx, gochunk.Document{Text: text})
	if err != nil || len(chunks) < 5 || len(cvs) != len(chunks) {
		t.Fatalf("%d chunks, %d vectors, %v", len(chunks), len(cvs), err)
	}
	for i, ch := range chunks {
		var own [][]float32
		prev := 0
		for k, e := range ends {
			start := prev + len(text[prev:e]) - len(strings.TrimLeft(text[prev:e], " \n"))
			if start >= ch.Start() && e <= ch.End() {
				own = append(own, vectors[k])
			}
			prev = e
		}
		if want := em.PoolTokens(own); vec.Cosine(want, cvs[i]) < 0.99999 {
			t.Errorf("chunk %d %q: its vector is not the pool of its %d tokens", i, ch.Text, len(own))
		}
	}
	// The pipeline gives the late vectors as the chunks' embeddings.
	p, err := pipeline.New(ctx, pipeline.Config{Chunker: "late", Params: []byte(`{"config": {"size": 10}}`), EmbedChunks: true}, pipeline.Options{Embedder: em})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(ctx, gochunk.Document{Text: text})
	if err != nil || len(res.Embeddings) != len(chunks) || vec.Cosine(res.Embeddings[2], cvs[2]) < 0.99999 {
		t.Fatalf("pipeline: %d embeddings, %v", len(res.Embeddings), err)
	}
	// Without token vectors (a model in pure Go, the lexical embedder) the
	// late chunker says what it needs.
	if _, err := chunkers.New().New("late", nil, chunkers.Env{Embedder: embed.NewLexical(embed.LexicalConfig{})}); err == nil || !strings.Contains(err.Error(), "token vectors") {
		t.Errorf("lexical: %v", err)
	}
}
