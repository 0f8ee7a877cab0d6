// Package index keeps a store (package store) in step with sources of
// documents, as LangChain's indexing API and pgai's vectorizer do: each
// document is chunked by a pipeline (package pipeline), its chunks are
// embedded, batched across documents by a token budget, and written with
// a hash of the document's content and one of the configuration. A rerun
// skips what did not change, redoes what changed (everything when the
// configuration changed) and removes the documents a source no longer
// holds. Each document is written in one transaction, so a run stopped at
// any moment and started again ends as an uninterrupted run would.
package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/store"
	"github.com/gochunk/gochunk/tokenize"
)

// Doc is one document of a source.
type Doc struct {
	// ID names the document in the store (a file's path, a row's id).
	ID string
	// Path is a file to load (text, markdown, code, HTML or PDF), or Text
	// holds the document.
	Path string
	Text string
	// Metadata is stored with the document (and its chunks' records).
	Metadata map[string]any
	// Err, when set, is why the document cannot be indexed (a NULL text,
	// an unreadable file): it is reported and skipped.
	Err error
}

// Source lists documents.
type Source interface {
	// Name identifies the source in the store: cleanup removes the
	// documents indexed from a source of this name that it no longer holds.
	Name() string
	// Docs calls yield with each document, stopping at its first error.
	Docs(ctx context.Context, yield func(Doc) error) error
}

// Options tune a run.
type Options struct {
	// Embed stores every chunk's vector from the pipeline's embedder;
	// without it the store holds text only (keyword search).
	Embed bool
	// KeepDeleted leaves in the store the documents a source no longer
	// holds (by default they are removed).
	KeepDeleted bool
	// Jobs is the number of documents loaded and chunked at once
	// (default 1); Window the documents embedded together (default 64).
	Jobs, Window int
	// Progress, when set, hears of each document done.
	Progress func(done int, id string)
}

// Tally counts documents by what a run did to them.
type Tally struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Deleted   int `json:"deleted"`
	Failed    int `json:"failed"`
	// KeptPrevious counts the failed documents whose previous chunks the
	// store still holds (see Failure.KeptPrevious).
	KeptPrevious int `json:"kept_previous"`
}

// Failure is a document a run could not index.
type Failure struct {
	ID    string `json:"id"`
	Error string `json:"error"`
	// KeptPrevious is true when the store still holds the chunks of the
	// document's last good version: a document that fails (a file that
	// turned unreadable or invalid, an embedder that failed) is not
	// removed, so that a passing fault does not empty an index; it is
	// removed when its source no longer lists it.
	KeptPrevious bool `json:"kept_previous,omitempty"`
	// Attachment is true for a document found inside another (an
	// e-mail's attachment, ID MESSAGE/NAME) whose message was read:
	// gochunk index reports it as a warning, not a failure of the run.
	Attachment bool `json:"attachment,omitempty"`
}

// Summary is what a run did.
type Summary struct {
	Documents     Tally `json:"documents"`
	ChunksWritten int   `json:"chunks_written"`
	// ChunksEmbedded counts the chunks sent to the embedder, and
	// ChunksReused those of changed documents whose vector the store
	// already held for the same embedded text (and embedder).
	ChunksEmbedded int `json:"chunks_embedded"`
	ChunksReused   int `json:"chunks_reused"`
	// TokensEmbedded counts the tokens of the texts embedded (context
	// included) in the embedder's own tokenizer, or cl100k_base for an
	// embedder without one.
	TokensEmbedded int `json:"tokens_embedded"`
	// InputsTruncated counts the chunks longer than the embedder's limit,
	// of which it embedded only the start: size chunks in the embedder's
	// tokens (the default unit of the chunkers that embed) to have none.
	InputsTruncated int `json:"inputs_truncated"`
	// ContextLLM is what context mode llm asked its chat model.
	ContextLLM gochunk.LLMUsage `json:"context_llm,omitzero"`
	Store      store.Counts     `json:"store"`
	Seconds    float64          `json:"seconds"`
	Failures   []Failure        `json:"failures,omitempty"`
}

// String returns the summary as a line for people.
func (s Summary) String() string {
	d := s.Documents
	kept := ""
	if d.KeptPrevious > 0 {
		kept = fmt.Sprintf(" (%d of them still stored as they were before)", d.KeptPrevious)
	}
	reused := ""
	if s.ChunksReused > 0 {
		reused = fmt.Sprintf(" (%d embedded, %d vectors reused)", s.ChunksEmbedded, s.ChunksReused)
	}
	return fmt.Sprintf("documents: %d added, %d updated, %d unchanged, %d deleted, %d failed%s; %d chunks written%s, %d tokens embedded in %.2fs; the store holds %d documents, %d chunks",
		d.Added, d.Updated, d.Unchanged, d.Deleted, d.Failed, kept, s.ChunksWritten, reused, s.TokensEmbedded, s.Seconds, s.Store.Documents, s.Store.Chunks)
}

// ErrFailed is returned (wrapped, with the count) when documents failed;
// the others were indexed.
var ErrFailed = errors.New("documents failed")

// ConfigHash is the hash of what decides a document's chunks and vectors:
// the pipeline's chunker, parameters, tokenizer and embedder, and the
// options that change the vectors.
func ConfigHash(p *pipeline.Pipeline, opt Options) string {
	cfg := p.Config()
	key := struct {
		Chunker, Tokenizer, Embedder, URL string
		Params                            json.RawMessage
		Dimensions                        int
		Embed                             bool
		Context                           ContextKey `json:",omitzero"`
		Parents                           int        `json:",omitzero"`
	}{cfg.Chunker, cfg.Tokenizer, cfg.Embedder.Name, cfg.Embedder.URL, cfg.Params, cfg.Embedder.Dimensions, opt.Embed, ContextKey(cfg.Context), cfg.Parents}
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// ContextKey is the part of the configuration hash a context option
// adds (none adds nothing, so stores indexed before it stay current).
type ContextKey pipeline.ContextConfig

// contentHash hashes a document's bytes and metadata.
func contentHash(data []byte, meta map[string]any) string {
	h := sha256.New()
	h.Write(data)
	return finishHash(h, meta)
}

// finishHash adds the metadata to a hash of a document's bytes.
func finishHash(h hash.Hash, meta map[string]any) string {
	if len(meta) > 0 {
		b, _ := json.Marshal(meta) // map keys are sorted: stable
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Run indexes the sources into st with p (whose Config.EmbedChunks does
// not matter: opt.Embed decides). It returns the summary, and an error
// wrapping ErrFailed when some documents failed (the others are indexed),
// or the error that stopped it.
func Run(ctx context.Context, st store.Store, p *pipeline.Pipeline, sources []Source, opt Options) (Summary, error) {
	began := time.Now()
	var sum Summary
	dims := 0
	var model, previous string
	if opt.Embed {
		em, err := p.Embedder(ctx)
		if err != nil {
			return sum, err
		}
		dims, model = em.Dim(), em.ModelID()
		if dims == 0 { // a remote model tells its dimension by answering
			v, err := em.Embed(ctx, []string{"dimension probe"})
			if err != nil {
				return sum, fmt.Errorf("embedder %s: %w", model, err)
			}
			dims = len(v[0])
		}
	}
	err := st.Prepare(ctx, dims)
	if err != nil {
		return sum, err
	}
	if opt.Embed {
		if previous, err = st.Meta(ctx, "embedder"); err != nil {
			return sum, err
		}
		if err := st.SetMeta(ctx, "embedder", model); err != nil {
			return sum, err
		}
		if err := st.SetMeta(ctx, "embedder_config", embedderConfig(p)); err != nil {
			return sum, err
		}
	}
	known, err := st.Documents(ctx)
	if err != nil {
		return sum, err
	}
	r := &run{st: st, p: p, opt: opt, known: known, config: ConfigHash(p, opt), sum: &sum, reuse: opt.Embed && previous == model}
	if r.tokens, err = embeddedTokens(ctx, p, opt); err != nil {
		return sum, err
	}
	for _, src := range sources {
		seen := map[string]bool{}
		r.source = src.Name()
		r.seen, r.rechunked = seen, map[string]bool{}
		err := src.Docs(ctx, func(d Doc) error {
			if seen[d.ID] {
				r.fail(d.ID, fmt.Errorf("the id %q appears twice in %s: only its first document is indexed", d.ID, src.Name()))
				return nil
			}
			seen[d.ID] = true
			return r.add(ctx, d)
		})
		if err == nil {
			err = r.flush(ctx)
		}
		if err != nil {
			return sum, err
		}
		if !opt.KeepDeleted {
			if err := r.cleanup(ctx, seen); err != nil {
				return sum, err
			}
		}
	}
	if sum.Store, err = st.Counts(ctx); err != nil {
		return sum, err
	}
	sum.Seconds = time.Since(began).Seconds()
	if sum.Documents.Failed > 0 {
		return sum, fmt.Errorf("%d %w (the others were indexed)", sum.Documents.Failed, ErrFailed)
	}
	return sum, nil
}

// embeddedTokens returns the counter of the summary's TokensEmbedded: the
// embedder's own tokenizer, else cl100k_base (nil without embeddings).
func embeddedTokens(ctx context.Context, p *pipeline.Pipeline, opt Options) (tokenize.Counter, error) {
	if !opt.Embed {
		return nil, nil
	}
	em, err := p.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	if tok, _ := embed.TokenizerOf(em); tok != nil {
		return tok, nil
	}
	return tokenize.New("cl100k_base")
}

// embedderConfig is the embedder part of the configuration, kept in the
// store so that search embeds queries with the same embedder.
func embedderConfig(p *pipeline.Pipeline) string {
	e := p.Config().Embedder
	b, _ := json.Marshal(pipeline.EmbedderConfig{Name: e.Name, URL: e.URL, Dimensions: e.Dimensions, ONNXPooling: e.ONNXPooling})
	return string(b)
}

type run struct {
	st     store.Store
	p      *pipeline.Pipeline
	opt    Options
	known  map[string]store.State
	config string
	source string
	sum    *Summary
	done   int
	// The window of documents to chunk and embed together.
	docs   []Doc
	hashes []string
	// tokens counts the tokens embedded, for the summary.
	tokens tokenize.Counter
	// reuse is true when the store's vectors are the embedder's: a
	// changed document's chunks whose embedded text is unchanged keep
	// their vector.
	reuse bool
	// seen are the current source's documents, attachments included;
	// rechunked those chunked in this run (see cleanup).
	seen, rechunked map[string]bool
	// attachments are the IDs of the attachments met (Failure.Attachment).
	attachments map[string]bool
}

func (r *run) fail(id string, err error) {
	r.sum.Documents.Failed++
	_, kept := r.known[id]
	if kept {
		r.sum.Documents.KeptPrevious++
	}
	r.sum.Failures = append(r.sum.Failures, Failure{ID: id, Error: err.Error(), KeptPrevious: kept, Attachment: r.attachments[id]})
	r.progress(id)
}

func (r *run) progress(id string) {
	r.done++
	if r.opt.Progress != nil {
		r.opt.Progress(r.done, id)
	}
}

// add hashes a document and queues it unless it is unchanged.
func (r *run) add(ctx context.Context, d Doc) error {
	if d.Err != nil {
		r.fail(d.ID, d.Err)
		return nil
	}
	var h string
	if d.Path != "" {
		var err error
		if h, err = hashFile(d.Path, d.Metadata); err != nil {
			r.fail(d.ID, err)
			return nil
		}
	} else {
		h = contentHash([]byte(d.Text), d.Metadata)
	}
	if st, ok := r.known[d.ID]; ok && st.ContentHash == h && st.ConfigHash == r.config && st.Source == r.source {
		r.sum.Documents.Unchanged++
		r.progress(d.ID)
		return nil
	}
	r.docs, r.hashes = append(r.docs, d), append(r.hashes, h)
	if len(r.docs) >= max(r.opt.Window, 1) || r.opt.Window == 0 && len(r.docs) >= 64 {
		return r.flush(ctx)
	}
	return nil
}

// flush chunks, embeds and writes the queued documents.
func (r *run) flush(ctx context.Context) error {
	if len(r.docs) == 0 {
		return nil
	}
	docs, hashes := r.docs, r.hashes
	r.docs, r.hashes = nil, nil
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if r.rechunked == nil {
		r.rechunked = map[string]bool{}
	}
	for _, d := range docs {
		r.rechunked[d.ID] = true
	}
	srcs := make([]pipeline.Source, len(docs))
	for i, d := range docs {
		srcs[i] = pipeline.Source{ID: d.ID, Path: d.Path, Text: d.Text, Metadata: d.Metadata}
	}
	results := make([]*pipeline.Result, len(docs))
	errs := make([]error, len(docs))
	// Chunk only, and embed the window's chunks together below; a chunker
	// that makes its own vectors (late chunking) gives them as it chunks.
	chunking := r.p.Chunking()
	if _, ok := r.p.Chunker().(gochunk.ChunkEmbedder); ok && r.opt.Embed {
		chunking = r.p.Embedding()
	}
	// With two levels, the store keeps the documents' texts, so that a
	// search returns the spans around its hits (see Searcher).
	keepText := r.p.Config().Parents > 0
	texts := make([]string, len(docs))
	i := 0
	err := chunking.Stream(ctx, srcs, max(r.opt.Jobs, 1), false, func(it pipeline.Item) error {
		defer it.Loaded.Release()
		k := i
		if it.Source.IsAttachment() {
			// An e-mail's attachment, after its message: a document of its
			// own, written with the window.
			a := it.Source
			docs = append(docs, Doc{ID: a.ID, Metadata: a.Metadata})
			hashes = append(hashes, contentHash(a.File, a.Metadata))
			results, errs, texts = append(results, nil), append(errs, nil), append(texts, "")
			k = len(docs) - 1
			r.seen[a.ID] = true
			if r.attachments == nil {
				r.attachments = map[string]bool{}
			}
			r.attachments[a.ID] = true
		} else {
			i++
		}
		if it.Err != nil {
			errs[k] = it.Err
			return nil
		}
		res := it.Result
		if keepText {
			texts[k] = strings.Clone(it.Loaded.Text)
		}
		// The chunks' texts may point into a memory-mapped file: keep copies.
		for c := range res.Chunks {
			res.Chunks[c].Text = strings.Clone(res.Chunks[c].Text)
		}
		results[k] = &res
		return nil
	})
	if err != nil {
		return err
	}
	reused := make([][]bool, len(docs))
	if r.opt.Embed && r.reuse {
		for i, res := range results {
			if res == nil || len(res.Embeddings) == len(res.Chunks) {
				continue
			}
			if _, ok := r.known[docs[i].ID]; !ok {
				continue
			}
			stored, err := r.st.Vectors(ctx, docs[i].ID)
			if err != nil {
				return err
			}
			if len(stored) == 0 {
				continue
			}
			res.Embeddings = make([][]float32, len(res.Chunks))
			reused[i] = make([]bool, len(res.Chunks))
			for k, c := range res.Chunks {
				key := c.Text
				if k < len(res.EmbedTexts) && res.EmbedTexts[k] != "" {
					key = res.EmbedTexts[k]
				}
				res.Embeddings[k] = stored[key]
				reused[i][k] = res.Embeddings[k] != nil
			}
		}
	}
	if r.opt.Embed {
		var todo []*pipeline.Result
		var at []int
		for i, res := range results {
			// A large document is embedded batch by batch as the store
			// writes it (see more), not with the window.
			if res != nil && len(res.Chunks) > 0 && len(res.Chunks) <= embedBatch {
				todo, at = append(todo, res), append(at, i)
			}
		}
		for k, err := range r.p.Embedding().Embed(ctx, todo) {
			if err != nil {
				errs[at[k]] = err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	// The window's documents are written in one transaction (each one
	// whole or not at all), then counted.
	var puts []store.Put
	var done []int
	for i, d := range docs {
		if errs[i] != nil {
			r.fail(d.ID, errs[i])
			continue
		}
		res := results[i]
		recs := res.Records()
		for k := range recs {
			recs[k].Source = d.ID
		}
		puts = append(puts, r.put(d, hashes[i], texts[i], res, recs))
		done = append(done, i)
	}
	if err := r.st.Replace(ctx, puts...); err != nil {
		if done, err = r.replaceEach(ctx, docs, hashes, texts, results, done, err); err != nil {
			return err
		}
	}
	for _, i := range done {
		id := docs[i].ID
		if _, ok := r.known[id]; ok {
			r.sum.Documents.Updated++
		} else {
			r.sum.Documents.Added++
		}
		r.known[id] = store.State{Source: r.source, ContentHash: hashes[i], ConfigHash: r.config}
		r.sum.ChunksWritten += len(results[i].Chunks)
		r.sum.ContextLLM.Merge(results[i].ContextUsage)
		r.sum.InputsTruncated += results[i].Truncated
		if r.opt.Embed {
			res := results[i]
			for k, c := range res.Chunks {
				if reused[i] != nil && reused[i][k] {
					r.sum.ChunksReused++
					continue
				}
				r.sum.ChunksEmbedded++
				if k < len(results[i].EmbedTexts) && results[i].EmbedTexts[k] != "" {
					r.sum.TokensEmbedded += r.tokens.Count(results[i].EmbedTexts[k])
				} else {
					r.sum.TokensEmbedded += r.tokens.Count(c.Text)
				}
			}
		}
		r.progress(id)
	}
	return nil
}

// put is what the store keeps of document d: its records, or, for a
// large document embedded batch by batch as the store writes it, a fresh
// iterator over them.
func (r *run) put(d Doc, hash, text string, res *pipeline.Result, recs []record.Record) store.Put {
	put := store.Put{Document: store.Document{ID: d.ID, Source: r.source, ContentHash: hash, ConfigHash: r.config, Metadata: d.Metadata, Text: text}, Chunks: recs}
	if r.opt.Embed && len(res.Chunks) > embedBatch {
		put.Chunks, put.More = nil, r.more(res, recs)
	}
	return put
}

// replaceEach writes the documents done (indexes of docs) one at a time
// after the store refused them together with err, so that a document it
// refuses (PostgreSQL takes no NUL character in text) costs only itself:
// each refused one fails, the others are written, and it returns those.
// When it refuses every one and cannot read its own settings either, the
// store is at fault, not the documents, and err is returned.
func (r *run) replaceEach(ctx context.Context, docs []Doc, hashes, texts []string, results []*pipeline.Result, done []int, err error) ([]int, error) {
	if ctx.Err() != nil {
		return nil, err
	}
	var kept []int
	refused := map[int]error{}
	if len(done) == 1 {
		refused[done[0]] = err
	} else {
		for _, i := range done {
			recs := results[i].Records()
			for k := range recs {
				recs[k].Source = docs[i].ID
			}
			if e := r.st.Replace(ctx, r.put(docs[i], hashes[i], texts[i], results[i], recs)); e != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				refused[i] = e
				continue
			}
			kept = append(kept, i)
		}
	}
	if len(kept) == 0 {
		if _, perr := r.st.Meta(ctx, "embedder"); perr != nil {
			return nil, err
		}
	}
	for _, i := range done {
		if e, ok := refused[i]; ok {
			r.fail(docs[i].ID, e)
		}
	}
	return kept, nil
}

// attachedToUnchanged reports whether id names an attachment of a message
// (an .eml or .mbox document, maybe through forwarded ones) that the
// source still holds and this run did not chunk again.
func (r *run) attachedToUnchanged(id string) bool {
	for j := strings.LastIndexByte(id, '/'); j > 0; j = strings.LastIndexByte(id[:j], '/') {
		parent := id[:j]
		if ext := strings.ToLower(path.Ext(parent)); ext != ".eml" && ext != ".mbox" {
			continue
		}
		if r.seen[parent] {
			return !r.rechunked[parent]
		}
	}
	return false
}

// embedBatch is the most chunks of one document embedded at once: a
// document with more is embedded and written batch by batch, so that its
// vectors are never all held (200 MB of text makes 250,000 chunks, a
// gigabyte of 1,024-dimension vectors).
const embedBatch = 1024

// more returns a store.Put's More for res, whose chunks' records are recs
// (without vectors): each call embeds the next batch, and drops the
// vectors of the batch before, which the store has written.
func (r *run) more(res *pipeline.Result, recs []record.Record) func(context.Context) ([]record.Record, error) {
	next := 0
	return func(ctx context.Context) ([]record.Record, error) {
		if next > 0 {
			for k := max(next-embedBatch, 0); k < next; k++ {
				recs[k].Embedding = nil
			}
		}
		if next >= len(recs) {
			return nil, nil
		}
		end := min(next+embedBatch, len(recs))
		part := &pipeline.Result{Chunks: res.Chunks[next:end]}
		if len(res.EmbedTexts) == len(res.Chunks) {
			part.EmbedTexts = res.EmbedTexts[next:end]
		}
		if len(res.Embeddings) == len(res.Chunks) {
			part.Embeddings = res.Embeddings[next:end] // reused or a late chunker's
		}
		if err := r.p.Embedding().Embed(ctx, []*pipeline.Result{part})[0]; err != nil {
			return nil, err
		}
		for k, v := range part.Embeddings {
			recs[next+k].Embedding = v
		}
		r.sum.InputsTruncated += part.Truncated
		batch := recs[next:end]
		next = end
		return batch, nil
	}
}

// cleanup removes the documents of the current source it no longer holds.
// An attachment ("mail.eml/report.docx") stays while its message is held
// and unchanged; a message chunked again listed its attachments anew.
func (r *run) cleanup(ctx context.Context, seen map[string]bool) error {
	var gone []string
	for id, st := range r.known {
		if st.Source == r.source && !seen[id] && !r.attachedToUnchanged(id) {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	if err := r.st.Delete(ctx, gone...); err != nil {
		return err
	}
	for _, id := range gone {
		delete(r.known, id)
	}
	r.sum.Documents.Deleted += len(gone)
	return nil
}
