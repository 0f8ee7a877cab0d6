package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
)

// panicky is an embedder with a bug: it panics on every call.
type panicky struct{}

func (panicky) Embed(context.Context, []string) ([][]float32, error) { panic("index out of range [3]") }
func (panicky) Dim() int                                             { return 4 }
func (panicky) MaxTokens() int                                       { return 0 }
func (panicky) ModelID() string                                      { return "panicky" }

// A panic in a chunker or an embedder is an error for that document, with
// the stack, not the death of the process.
func TestPanicBecomesError(t *testing.T) {
	ctx := context.Background()
	doc := gochunk.Document{ID: "d", Text: "One sentence. Another sentence here. And a third one."}
	pl, err := New(ctx, Config{Chunker: "semantic"}, Options{Embedder: panicky{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pl.Chunk(ctx, doc)
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Stage != "chunk" || !strings.Contains(err.Error(), "index out of range") || len(pe.Stack) == 0 {
		t.Fatalf("chunk: %v", err)
	}
	rec, err := New(ctx, Config{Chunker: "recursive", EmbedChunks: true}, Options{Embedder: panicky{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rec.Chunk(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range rec.Embed(ctx, []*Result{&res, &res}) {
		if !errors.As(err, &pe) || pe.Stage != "embed" {
			t.Errorf("embed: %v", err)
		}
	}
	if _, err := rec.Run(ctx, doc); !errors.As(err, &pe) {
		t.Errorf("run: %v", err)
	}
}

// The embedder's and the model's numeric settings are checked against
// their ranges before anything is built.
func TestSettingRanges(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []Config{
		{Embedder: EmbedderConfig{Dimensions: 1 << 20}},
		{Embedder: EmbedderConfig{Concurrency: -3}},
		{Embedder: EmbedderConfig{CacheBytes: -1}},
		{LLM: LLMConfig{RequestsPerMinute: 1 << 40}},
	} {
		if _, err := New(ctx, cfg, Options{}); !errors.Is(err, gochunk.ErrConfig) || !strings.Contains(err.Error(), "want an integer from") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	if _, err := NewEmbedder(ctx, EmbedderConfig{ONNXThreads: 5000}); err == nil || !strings.Contains(err.Error(), `"onnx_threads"`) {
		t.Errorf("onnx_threads 5000: %v", err)
	}
}
