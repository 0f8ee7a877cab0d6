package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve --config reads the configuration file chunk reads: its chunker,
// parameters, context and parents are how a request that names no chunker
// is chunked; a request that names one takes none of them. The file was
// refused before ("parents" is a setting of a chunking run).
func TestServeConfigChunksRequestsWithoutChunker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipeline.yaml")
	if err := os.WriteFile(path, []byte("chunker: markdown\nsize: 40\nparents: 200\ncontext: headings\nport: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := serveInProcess(t, nil, "--config", path)
	text := "# Otters\n\n" + strings.Repeat("Otters hold hands while they sleep. ", 12) + "\n\n## Food\n\n" + strings.Repeat("They eat sea urchins and crabs. ", 12)
	type response struct {
		Chunker   string `json:"chunker"`
		Documents []struct {
			Chunks []struct {
				TokenCount int             `json:"token_count"`
				Parent     json.RawMessage `json:"parent"`
				EmbedText  string          `json:"embed_text"`
				Metadata   map[string]any  `json:"metadata"`
			} `json:"chunks"`
		} `json:"documents"`
	}
	post := func(body map[string]any) response {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := http.Post("http://"+s.addr+"/v1/chunk", "application/json", strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out response
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || len(out.Documents) != 1 {
			t.Fatalf("POST /v1/chunk %s: %d %v %+v", b, resp.StatusCode, err, out)
		}
		return out
	}
	def := post(map[string]any{"text": text})
	if def.Chunker != "markdown" || len(def.Documents[0].Chunks) < 4 {
		t.Fatalf("a request without a chunker: chunker %q, %d chunks; want markdown's chunks of 40 runes", def.Chunker, len(def.Documents[0].Chunks))
	}
	for i, c := range def.Documents[0].Chunks {
		if c.TokenCount > 40 || c.Parent == nil || !strings.Contains(c.EmbedText, "Otters") || c.Metadata["headings"] == nil {
			t.Errorf("default chunk %d: %d tokens, parent %s, embed text %q, metadata %v; want at most 40, a parent, the headings context and path", i, c.TokenCount, c.Parent, c.EmbedText, c.Metadata)
		}
	}
	// The request's own parameters and parents replace the file's.
	own := post(map[string]any{"text": text, "config": map[string]any{"size": 1000}, "parents": 0})
	if own.Chunker != "markdown" || len(own.Documents[0].Chunks) != 1 || own.Documents[0].Chunks[0].Parent != nil {
		t.Errorf("a request with its own config and parents: %+v", own)
	}
	named := post(map[string]any{"text": text, "chunker": "recursive"})
	if named.Chunker != "recursive" {
		t.Fatalf("a request naming recursive got %q", named.Chunker)
	}
	for i, c := range named.Documents[0].Chunks {
		if c.Parent != nil || c.EmbedText != "" || c.TokenCount <= 40 && len(named.Documents[0].Chunks) > 1 {
			t.Errorf("a request naming its chunker took the file's settings: chunk %d %+v", i, c)
		}
	}
}
