package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/embedstub"
	"github.com/gochunk/gochunk/tokenize"
)

// longProse is a long text of many paragraphs of plain words.
func longProse(paragraphs, words int) string {
	vocab := strings.Fields("local embedding servers refuse inputs longer than the context of the model counted in its own tokenizer")
	var b strings.Builder
	for p := range paragraphs {
		for i := range words {
			b.WriteString(vocab[(i*5+p)%len(vocab)])
			if i%11 == 10 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestChunkFitsOllamaModel: gochunk chunk --embedder openai:nomic-embed-text
// against a stub of Ollama (2,048 tokens, counted in the model's WordPiece
// tokenizer, which is in the hub cache) sizes its chunks in those tokens,
// lowers a --size over the limit with a warning, and never meets the
// stub's 400 for an over-long input; index does the same. A model neither
// known nor told by its server is a warning that says what to pass.
func TestChunkFitsOllamaModel(t *testing.T) {
	file := embedstub.WordPiece(t, filepath.Join("..", ".."))
	tok, err := tokenize.LoadHF(file)
	if err != nil {
		t.Fatal(err)
	}
	cache := embedstub.HubCache(t, "nomic-ai/nomic-embed-text-v1.5", file)
	in := writeFile(t, "long.txt", longProse(40, 700))
	srv := embedstub.Ollama(t, tok, 2, 2048, 0)
	common := []string{"--embedder", "openai:nomic-embed-text:latest", "--embed-url", srv.URL, "--hf-cache", cache, "--offline"}

	out, stderr, code := runCmd(t, "", append([]string{"chunk", "--size", "100000", "--embed-chunks"}, append(common, in)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "--size 100000 is over the 2046 tokens nomic-embed-text:latest takes") {
		t.Errorf("no warning that --size was lowered: %s", stderr)
	}
	t.Logf("stderr: %s", stderr)
	recs := decodeLines(t, out)
	if len(recs) < 2 {
		t.Fatalf("%d records", len(recs))
	}
	for i, r := range recs {
		if n := tok.Count(r.Text); n > 2046 || r.TokenCount > 2046 || r.TokenCount != n {
			t.Errorf("record %d: %d tokens of the model (token_count %d), over 2046 or not its count", i, n, r.TokenCount)
		}
	}
	if inputs, longest, refused := srv.Stats(); refused > 0 || longest > 2048 || inputs == 0 { // equal texts are embedded once
		t.Errorf("chunk: %d inputs for %d records, the longest %d tokens, %d refused", inputs, len(recs), longest, refused)
	}

	db := filepath.Join(t.TempDir(), "index.db")
	if _, stderr, code := runCmd(t, "", append([]string{"index", "--store", db}, append(common, in)...)...); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	if _, longest, refused := srv.Stats(); refused > 0 || longest > 2048 {
		t.Errorf("index: the longest input %d tokens, %d refused", longest, refused)
	}

	// A model gochunk does not know, on a server that does not say.
	other := embedstub.TEI(t, tok, 2, 1<<20, "x")
	_, stderr, code = runCmd(t, "", "chunk", "--embedder", "openai:my-model", "--embed-url", strings.Replace(other.URL, "/v1", "/elsewhere/v1", 1), in)
	if code != 0 {
		t.Fatalf("unknown model: exit %d: %s", code, stderr)
	}
	t.Logf("unknown model: stderr: %s", stderr)
	for _, want := range []string{"openai:my-model", "--tokenizer hf:", "--size"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("unknown model: stderr lacks %q: %s", want, stderr)
		}
	}
}
