package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/tokenize"
)

// readJSON reads the body into dst, answering the error itself (413 for a
// body over the limit, 400 for invalid UTF-8, malformed JSON or unknown
// fields) and reporting whether it did.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, dst any) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.fail(w, r, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body over %d bytes; send fewer or smaller documents", tooBig.Limit))
			return false
		}
		s.fail(w, r, http.StatusBadRequest, "bad_request", "could not read the request body: "+err.Error())
		return false
	}
	if !utf8.Valid(body) {
		at := 0
		for at < len(body) {
			r, size := utf8.DecodeRune(body[at:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			at += size
		}
		s.fail(w, r, http.StatusBadRequest, "invalid_utf8", fmt.Sprintf("request body is not valid UTF-8 (first bad byte at offset %d); send UTF-8 text", at))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_json", "malformed request JSON: "+err.Error())
		return false
	}
	if dec.More() {
		s.fail(w, r, http.StatusBadRequest, "invalid_json", "malformed request JSON: more than one value in the body")
		return false
	}
	return true
}

// timedOut answers 504 when the request's deadline passed.
func (s *Server) timedOut(w http.ResponseWriter, r *http.Request) bool {
	if errors.Is(r.Context().Err(), context.DeadlineExceeded) {
		s.fail(w, r, http.StatusGatewayTimeout, "timeout", fmt.Sprintf("the request did not finish within %s; send fewer documents or raise the request timeout", s.cfg.RequestTimeout))
		return true
	}
	return false
}

// forEach runs fn for indexes [0, n) on up to GOMAXPROCS goroutines.
func forEach(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// embedChunks embeds texts in batches of at most MaxBatchTokens tokens and
// calls done for each text with its vector or the error of its batch.
func (s *Server) embedChunks(ctx context.Context, texts []string, tokens []int, done func(i int, v []float32, err error)) {
	embed.Batches(ctx, s.embedder, texts, tokens, s.cfg.MaxBatchTokens, done)
}

// handleEmbed is the reference server's POST /embed: each document is
// chunked with the DP chunker and its chunking_config, every chunk is
// embedded, and a document's failure is reported in its own error field.
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req EmbedRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	if len(req.Documents) == 0 {
		s.fail(w, r, http.StatusBadRequest, "no_documents", `no documents: send {"documents": [{"id": "...", "text": "..."}]}`)
		return
	}
	if len(req.Documents) > s.cfg.MaxDocuments {
		s.fail(w, r, http.StatusRequestEntityTooLarge, "too_many_documents", fmt.Sprintf("%d documents in one request, the limit is %d; split the batch", len(req.Documents), s.cfg.MaxDocuments))
		return
	}
	ctx := r.Context()
	resp := EmbedResponse{Documents: make([]EmbedResult, len(req.Documents))}
	chunks := make([][]gochunk.Chunk, len(req.Documents))
	seen := map[string]int{}
	for i, d := range req.Documents {
		resp.Documents[i] = EmbedResult{ID: d.ID, Chunks: []EmbedChunk{}}
		switch prev, dup := seen[d.ID]; {
		case d.ID == "":
			resp.Documents[i].Error = "missing id: every document needs a unique id"
		case dup:
			resp.Documents[i].Error = fmt.Sprintf("duplicate id %q (also document %d): ids must be unique", d.ID, prev)
		}
		seen[d.ID] = i
	}
	forEach(len(req.Documents), func(i int) {
		d := req.Documents[i]
		if resp.Documents[i].Error != "" {
			return
		}
		// The reference server's algorithm (semantic.ReferenceDPConfig),
		// built by name like every chunker; DP's own defaults fill in what
		// chunking_config leaves out.
		params := map[string]any{"similarity": "sentences", "reward": "minmax", "structure": "none", "chunk_penalty": 1.0}
		if c := d.ChunkingConfig; c != nil {
			if c.OptimalSize != nil && *c.OptimalSize == 0 {
				resp.Documents[i].Error = "invalid chunking_config: optimal_size must be positive"
				return
			}
			for k, v := range map[string]any{"size": c.MaxSize, "optimal_size": c.OptimalSize, "lambda_size": c.LambdaSize, "chunk_penalty": c.ChunkPenalty} {
				if !reflect.ValueOf(v).IsNil() {
					params[k] = v
				}
			}
		}
		raw, _ := json.Marshal(params)
		ch, err := s.reg.New("dp", raw, chunkers.Env{Counter: s.embedCounter, Embedder: s.embedder})
		if err == nil {
			chunks[i], err = ch.Chunk(ctx, gochunk.Document{ID: d.ID, Text: d.Text})
		}
		if err != nil {
			if errors.Is(err, gochunk.ErrConfig) {
				msg := strings.TrimPrefix(err.Error(), `chunker "dp": `)
				resp.Documents[i].Error = "invalid chunking_config: " + strings.TrimPrefix(msg, gochunk.ErrConfig.Error()+": ")
			} else {
				resp.Documents[i].Error = err.Error()
			}
		}
	})
	if s.timedOut(w, r) {
		return
	}
	for i, cs := range chunks {
		resp.Documents[i].Chunks = make([]EmbedChunk, len(cs))
	}
	s.embedAll(ctx, chunks, func(i, j int, v []float32, err error) {
		d := &resp.Documents[i]
		if err != nil {
			d.Error = "embedding failed: " + err.Error()
			return
		}
		c := chunks[i][j]
		n, _ := c.Metadata["num_sentences"].(int)
		d.Chunks[j] = EmbedChunk{Text: c.Text, Embedding: v, NumSentences: n, TokenCount: c.TokenCount, ChunkIndex: c.Index}
	})
	if s.timedOut(w, r) {
		return
	}
	for i := range resp.Documents {
		outcome := "ok"
		if resp.Documents[i].Error != "" {
			resp.Documents[i].Chunks = []EmbedChunk{}
			outcome = "error"
		}
		s.count("embed", outcome, chunks[i])
	}
	writeJSON(w, http.StatusOK, resp)
}

// embedAll embeds the chunks of every document once, batched across
// documents, and hands each vector (or the batch's error) to set with the
// chunk's document and index.
func (s *Server) embedAll(ctx context.Context, chunks [][]gochunk.Chunk, set func(doc, chunk int, v []float32, err error)) {
	var texts []string
	var tokens []int
	type ref struct{ doc, chunk int }
	var refs []ref
	for i, cs := range chunks {
		for j, c := range cs {
			texts = append(texts, c.Text)
			tokens = append(tokens, c.TokenCount)
			refs = append(refs, ref{i, j})
		}
	}
	s.embedChunks(ctx, texts, tokens, func(k int, v []float32, err error) {
		set(refs[k].doc, refs[k].chunk, v, err)
	})
}

func (s *Server) count(endpoint, outcome string, chunks []gochunk.Chunk) {
	s.m.documents.WithLabelValues(endpoint, outcome).Inc()
	if outcome != "ok" {
		return
	}
	if len(chunks) > 0 {
		if u, ok := chunks[0].Metadata["llm"].(llm.Usage); ok {
			s.m.llmCalls.Add(float64(u.Calls))
			s.m.llmPrompt.Add(float64(u.PromptTokens))
			s.m.llmCompletion.Add(float64(u.CompletionTokens))
			s.m.llmSeconds.Add(u.LatencyMS / 1000)
		}
	}
	s.m.chunks.Add(float64(len(chunks)))
	t := 0
	for _, c := range chunks {
		t += c.TokenCount
	}
	s.m.tokens.Add(float64(t))
}

// handleChunk is POST /v1/chunk: any chunker by name and configuration.
func (s *Server) handleChunk(w http.ResponseWriter, r *http.Request) {
	var req ChunkRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	if req.Text != "" {
		req.Documents = append(req.Documents, ChunkDocument{Text: req.Text})
	}
	if len(req.Documents) == 0 {
		s.fail(w, r, http.StatusBadRequest, "no_documents", `no documents: send "text" or "documents": [{"id": "...", "text": "..."}]`)
		return
	}
	if len(req.Documents) > s.cfg.MaxDocuments {
		s.fail(w, r, http.StatusRequestEntityTooLarge, "too_many_documents", fmt.Sprintf("%d documents in one request, the limit is %d; split the batch", len(req.Documents), s.cfg.MaxDocuments))
		return
	}
	if req.Chunker == "" {
		req.Chunker = "recursive"
	}
	counter := s.counter
	if req.Tokenizer != "" && (counter == nil || req.Tokenizer != counter.Name()) {
		if len(req.Tokenizer) > 3 && req.Tokenizer[:3] == "hf:" {
			s.fail(w, r, http.StatusBadRequest, "invalid_tokenizer", "hf: tokenizers are files of the server's host and cannot be chosen per request; configure the server's tokenizer")
			return
		}
		c, err := tokenize.New(req.Tokenizer)
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, "invalid_tokenizer", err.Error())
			return
		}
		counter = c
	}
	raw := req.Config
	if spec, ok := s.reg.Lookup(req.Chunker); ok && spec.UsesLLM && s.llm == nil {
		s.fail(w, r, http.StatusBadRequest, "no_model", fmt.Sprintf("chunker %q needs a language model; start the server with --llm-model (and --llm-url)", req.Chunker))
		return
	}
	if counter == nil {
		// The chunker's default unit; for those that embed, the counter
		// built once at start (a tiktoken counter keeps a cache).
		spec, _ := s.reg.Lookup(req.Chunker)
		if spec.Embeds && spec.Unit == "" {
			counter = s.embedCounter
		} else if c, err := chunkers.DefaultCounter(spec, s.embedder); err == nil {
			counter = c
		} else {
			s.fail(w, r, http.StatusInternalServerError, "internal", err.Error())
			return
		}
	}
	ch, err := s.reg.New(req.Chunker, raw, chunkers.Env{Counter: counter, Embedder: s.embedder, LLM: s.llm})
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_chunker", err.Error()+"; see GET /v1/chunkers")
		return
	}
	ctx := r.Context()
	resp := ChunkResponse{Chunker: req.Chunker, Tokenizer: counter.Name(), Documents: make([]ChunkResult, len(req.Documents))}
	chunks := make([][]gochunk.Chunk, len(req.Documents))
	forEach(len(req.Documents), func(i int) {
		in := req.Documents[i]
		if in.ID == "" {
			in.ID = fmt.Sprint(i)
		}
		resp.Documents[i] = ChunkResult{ID: in.ID, Chunks: []record.Record{}}
		d, err := s.document(ctx, in)
		if err != nil {
			resp.Documents[i].Error = err.Error()
			return
		}
		cs, err := ch.Chunk(ctx, d)
		if err != nil {
			resp.Documents[i].Error = err.Error()
			return
		}
		chunks[i] = cs
		out := make([]record.Record, len(cs))
		for j, c := range cs {
			out[j] = record.FromChunk(c, in.ID)
		}
		resp.Documents[i].Chunks = out
	})
	if s.timedOut(w, r) {
		return
	}
	if req.Embed {
		s.embedAll(ctx, chunks, func(i, j int, v []float32, err error) {
			d := &resp.Documents[i]
			if err != nil {
				d.Error = "embedding failed: " + err.Error()
				return
			}
			d.Chunks[j].Embedding = v
		})
		if s.timedOut(w, r) {
			return
		}
	}
	for i := range resp.Documents {
		outcome := "ok"
		if resp.Documents[i].Error != "" {
			resp.Documents[i].Chunks = []record.Record{}
			outcome = "error"
		}
		s.count("chunk", outcome, chunks[i])
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleEmbeddings is OpenAI's POST /v1/embeddings.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req EmbeddingsRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	em, ok := s.embedders[req.Model]
	if !ok {
		names := make([]string, 0, len(s.embedders))
		for n := range s.embedders {
			names = append(names, n)
		}
		s.fail(w, r, http.StatusBadRequest, "invalid_model", fmt.Sprintf("model %q is not served; available: %v", req.Model, names))
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for i, x := range in {
			str, ok := x.(string)
			if !ok {
				s.fail(w, r, http.StatusBadRequest, "invalid_input", fmt.Sprintf("input[%d] is not a string; token arrays are not supported, send text", i))
				return
			}
			inputs = append(inputs, str)
		}
	default:
		s.fail(w, r, http.StatusBadRequest, "invalid_input", "input must be a string or a list of strings")
		return
	}
	if len(inputs) == 0 || len(inputs) > s.cfg.MaxDocuments {
		s.fail(w, r, http.StatusBadRequest, "invalid_input", fmt.Sprintf("send between 1 and %d inputs, not %d", s.cfg.MaxDocuments, len(inputs)))
		return
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		s.fail(w, r, http.StatusBadRequest, "invalid_encoding_format", `encoding_format must be "float" or "base64"`)
		return
	}
	if req.Dimensions > 0 && em.Dim() > 0 && req.Dimensions != em.Dim() {
		s.fail(w, r, http.StatusBadRequest, "invalid_dimensions", fmt.Sprintf("model %q has %d dimensions; it cannot give %d", req.Model, em.Dim(), req.Dimensions))
		return
	}
	vs, err := em.Embed(r.Context(), inputs)
	if err != nil {
		if s.timedOut(w, r) {
			return
		}
		s.fail(w, r, http.StatusBadGateway, "embedder_error", "the embedder failed: "+err.Error())
		return
	}
	resp := EmbeddingsResponse{Object: "list", Model: req.Model, Data: make([]EmbeddingItem, len(vs))}
	for i, v := range vs {
		resp.Data[i] = EmbeddingItem{Object: "embedding", Index: i, Embedding: v}
		n := s.embedCounter.Count(inputs[i])
		resp.Usage.PromptTokens += n
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	if req.EncodingFormat == "base64" {
		type b64Item struct {
			Object    string `json:"object"`
			Index     int    `json:"index"`
			Embedding string `json:"embedding"`
		}
		items := make([]b64Item, len(vs))
		for i, v := range vs {
			b := make([]byte, 0, 4*len(v))
			for _, x := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
			items[i] = b64Item{"embedding", i, base64.StdEncoding.EncodeToString(b)}
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": items, "model": req.Model, "usage": resp.Usage})
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleChunkers is GET /v1/chunkers.
func (s *Server) handleChunkers(w http.ResponseWriter, r *http.Request) {
	type entry struct {
		Name    string           `json:"name"`
		Summary string           `json:"summary"`
		Embeds  bool             `json:"uses_embedder"`
		Params  []chunkers.Param `json:"params"`
	}
	var list []entry
	for _, n := range s.reg.Names() {
		spec, _ := s.reg.Lookup(n)
		list = append(list, entry{n, spec.Summary, spec.Embeds, spec.Params()})
	}
	writeJSON(w, http.StatusOK, map[string]any{"chunkers": list})
}

// document turns a request document into a gochunk.Document: a PDF is
// extracted, elements without text are assembled into it.
func (s *Server) document(ctx context.Context, in ChunkDocument) (gochunk.Document, error) {
	d := gochunk.Document{ID: in.ID, Text: in.Text, Metadata: in.Metadata, Elements: in.Elements}
	switch {
	case in.PDFBase64 != "":
		data, err := base64.StdEncoding.DecodeString(in.PDFBase64)
		if err != nil {
			return d, fmt.Errorf("pdf_base64 is not base64: %v", err)
		}
		els, err := layout.ExtractPDFReader(ctx, bytes.NewReader(data), layout.PDFOptions{})
		if err != nil {
			return d, err
		}
		d.Text, d.Elements = layout.Assemble(els)
	case len(in.Elements) > 0 && in.Text == "":
		if err := layout.Validate(in.Elements); err != nil {
			return d, err
		}
		d.Text, d.Elements = layout.Assemble(in.Elements)
	}
	return d, nil
}
