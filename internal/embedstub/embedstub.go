// Package embedstub serves, on loopback, stand-ins for the embedding
// servers people run locally, for tests: Ollama (POST /api/show and
// /v1/embeddings) and Text Embeddings Inference (GET /info and
// /v1/embeddings). Each counts inputs in the model's own tokenizer, as the
// real servers do, and answers 400 for one over the model's limit, so a
// test can prove that a client sizes its texts to fit. It also lays a
// tokenizer.json out in a Hugging Face hub cache as a download would.
package embedstub

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

// Server is a stub embedding server.
type Server struct {
	// URL is the OpenAI-compatible base URL (ending in /v1).
	URL string

	tok     tokenize.Counter
	special int
	limit   int

	mu       sync.Mutex
	inputs   int
	longest  int
	refused  int
	requests []string
}

// Stats returns how many inputs were embedded, the most tokens one had
// (special tokens included), and how many were refused as too long.
func (s *Server) Stats() (inputs, longest, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputs, s.longest, s.refused
}

// Paths returns the paths asked, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Ollama starts a stub of Ollama serving one embedding model whose GGUF
// context_length is limit (its tokens, special tokens included) and
// whose Modelfile sets num_ctx to numCtx when positive; tok counts as the
// model does, adding special tokens to every input.
func Ollama(t testing.TB, tok tokenize.Counter, special, limit, numCtx int) *Server {
	s := &Server{tok: tok, special: special, limit: limit}
	if numCtx > 0 {
		s.limit = min(limit, numCtx)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		s.log(r)
		var req struct {
			Model string `json:"model"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
			http.Error(w, `{"error":"model is required"}`, http.StatusBadRequest)
			return
		}
		params := ""
		if numCtx > 0 {
			params = fmt.Sprintf("num_ctx                        %d", numCtx)
		}
		json.NewEncoder(w).Encode(map[string]any{
			"modelfile":  "FROM /models/blobs/sha256-0",
			"parameters": params,
			"details":    map[string]any{"format": "gguf", "family": "nomic-bert"},
			"model_info": map[string]any{"general.architecture": "nomic-bert", "nomic-bert.context_length": limit, "nomic-bert.embedding_length": 4},
		})
	})
	mux.HandleFunc("POST /v1/embeddings", s.embeddings("the input length exceeds the context length"))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// TEI starts a stub of Text Embeddings Inference whose max_input_length
// is limit (tokens, special tokens included).
func TEI(t testing.TB, tok tokenize.Counter, special, limit int, model string) *Server {
	s := &Server{tok: tok, special: special, limit: limit}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, r *http.Request) {
		s.log(r)
		json.NewEncoder(w).Encode(map[string]any{"model_id": model, "model_type": map[string]any{"embedding": map[string]string{"pooling": "cls"}},
			"max_concurrent_requests": 512, "max_input_length": limit, "max_batch_tokens": 16384, "max_client_batch_size": 32})
	})
	mux.HandleFunc("POST /v1/embeddings", s.embeddings(fmt.Sprintf("Input validation error: `inputs` must have less than %d tokens", limit)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

func (s *Server) log(r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
}

// embeddings answers /v1/embeddings: a vector of four numbers hashed from
// each input, or 400 when one is over the limit.
func (s *Server) embeddings(tooLong string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.log(r)
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, 0, len(req.Input))
		for i, in := range req.Input {
			n := s.tok.Count(in) + s.special
			s.mu.Lock()
			s.longest = max(s.longest, n)
			if n > s.limit {
				s.refused++
				s.mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				json.NewEncoder(w).Encode(map[string]string{"error": tooLong})
				return
			}
			s.inputs++
			s.mu.Unlock()
			h := fnv.New64a()
			h.Write([]byte(in))
			x := h.Sum64()
			data = append(data, item{i, []float32{float32(x & 0xff), float32(x >> 8 & 0xff), float32(x >> 16 & 0xff), 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "stub"})
	}
}

// WordPiece returns the path of a WordPiece tokenizer.json: the real one
// of all-MiniLM-L6-v2 (bert-base-uncased's vocabulary, as nomic-embed-text
// and Arctic Embed use) from ../shared/tokenizers when it is there, else a
// small one written into a temporary directory (lower-case letters,
// digits and punctuation, each a token alone or continuing a word).
func WordPiece(t testing.TB, repoRoot string) string {
	real := filepath.Join(repoRoot, "..", "shared", "tokenizers", "all-MiniLM-L6-v2", "tokenizer.json")
	if _, err := os.Stat(real); err == nil {
		return real
	}
	vocab := map[string]int{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
	for _, c := range strings.Split("abcdefghijklmnopqrstuvwxyz0123456789", "") {
		vocab[c] = len(vocab)
		vocab["##"+c] = len(vocab)
	}
	for _, c := range strings.Split(".,;:!?'\"()-[]/", "") {
		if _, ok := vocab[c]; !ok {
			vocab[c] = len(vocab)
		}
	}
	for _, w := range []string{"the", "and", "of", "to", "in", "is", "it", "##s", "##ed", "##ing"} {
		vocab[w] = len(vocab)
	}
	doc := map[string]any{
		"version":        "1.0",
		"added_tokens":   []any{},
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": nil,
		"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// HubCache returns a Hugging Face hub cache directory holding file (a
// tokenizer.json) as repo's tokenizer.json at main, laid out as a
// download leaves it (refs/main, snapshots/COMMIT/tokenizer.json).
func HubCache(t testing.TB, repo, file string) string {
	dir := t.TempDir()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	root := filepath.Join(dir, "models--"+strings.ReplaceAll(repo, "/", "--"))
	snap := filepath.Join(root, "snapshots", commit)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{os.MkdirAll(snap, 0o755), os.MkdirAll(filepath.Join(root, "refs"), 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(snap, "tokenizer.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "refs", "main"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
