package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/internal/embedstub"
	"github.com/gochunk/gochunk/tokenize"
)

// TestChunkFitsOllamaModel: a server whose embedder is
// openai:nomic-embed-text (on a stub of Ollama that refuses an input over
// the model's 2,048 tokens, counted in its WordPiece tokenizer) sizes a
// request's chunks in those tokens, a size over the limit lowered to it,
// and embeds them, context included, without meeting the refusal.
func TestChunkFitsOllamaModel(t *testing.T) {
	file := embedstub.WordPiece(t, filepath.Join("..", ".."))
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	cache := embedstub.HubCache(t, "nomic-ai/nomic-embed-text-v1.5", file)
	srv := embedstub.Ollama(t, tok, 2, 2048, 0)
	_, ts := newTest(t, func(c *Config) {
		c.Pipeline.Embedder.Name = "openai:nomic-embed-text"
		c.Pipeline.Embedder.URL = srv.URL
		c.Pipeline.Embedder.CacheDir = cache
		c.Pipeline.Embedder.Offline = true
	})
	var b strings.Builder
	for i := range 9000 {
		b.WriteString([]string{"# Part\n\n", "servers ", "refuse ", "long ", "inputs. "}[min(i%400, 1+i%4)])
	}
	body, _ := json.Marshal(map[string]any{"chunker": "recursive", "config": map[string]any{"size": 100000}, "embed": true,
		"context": map[string]any{"mode": "headings"}, "documents": []map[string]any{{"id": "long.md", "text": b.String()}}})
	code, out, _ := post(t, ts.URL+"/v1/chunk", string(body))
	var resp api.ChunkResponse
	if code != 200 || json.Unmarshal(out, &resp) != nil || len(resp.Documents) != 1 {
		t.Fatalf("status %d: %.300s", code, out)
	}
	chunks := resp.Documents[0].Chunks
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i, c := range chunks {
		if n := tok.Count(c.Text); n > 2046 || c.TokenCount != n || len(c.Embedding) == 0 {
			t.Errorf("chunk %d: %d tokens of the model, token_count %d, %d numbers", i, n, c.TokenCount, len(c.Embedding))
		}
	}
	if _, longest, refused := srv.Stats(); refused > 0 || longest > 2048 {
		t.Errorf("the longest input %d tokens, %d refused", longest, refused)
	}
}
