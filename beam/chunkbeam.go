// Package chunkbeam chunks a corpus on Apache Beam: the same pipeline
// (package pipeline of gochunk) and the same records as gochunk chunk, from
// a laptop (Beam's Prism runner, in process) to Flink, Spark or Google
// Cloud Dataflow. It is a module of its own, so that gochunk's library and
// binary do not carry Beam's dependencies.
//
// Documents come from files matched by a glob (text, markdown, HTML, PDF;
// read through Beam's file systems, so gs:// and s3:// globs work where
// their file systems are linked in) or from JSON Lines of {"id", "text",
// "metadata"}. Each is chunked (and its chunks optionally embedded,
// batched across the documents of a bundle); the records are written as
// sharded JSON Lines, PREFIX-SSSSS-of-NNNNN.jsonl. A document that fails
// goes to a dead-letter output with its id and error, and the run goes
// on. Metrics: gochunk.documents, gochunk.chunks, gochunk.bytes,
// gochunk.failed_documents.
package chunkbeam

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// Doc is a document on its way through the pipeline.
type Doc struct {
	ID   string
	Kind string // text, pdf, html, or file (any kind the pipeline reads, by its name and content)
	Data []byte
	// Metadata is the document's metadata as JSON (from JSON Lines).
	Metadata []byte
}

// Options configure Build.
type Options struct {
	// Input is a glob of files, or of JSON Lines files when JSONL is set.
	Input string
	JSONL bool
	// Output is the prefix of the record shards; Shards their number (0:
	// one per 64 MiB of input, at least 1). DeadLetter, when set, is the
	// prefix of the failed documents' shards (else PREFIX-failed).
	Output     string
	Shards     int
	DeadLetter string
	// Config is the chunking configuration (gochunk chunk's flags);
	// Config.EmbedChunks embeds the chunks, batched per bundle.
	Config pipeline.Config
	// Store, when set, is a store (see gochunk index: a postgres:// URL
	// for a cluster) that every document's chunks are written into, in one
	// transaction each, with a hash of its content and one of the
	// configuration; Output may then be empty.
	Store string
}

func init() {
	register.DoFn4x1[context.Context, fileio.ReadableFile, func(Doc), func(string), error](&readFileFn{})
	register.DoFn3x0[string, func(Doc), func(string)](&parseLineFn{})
	register.DoFn4x1[context.Context, Doc, func(string), func(string), error](&chunkFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&writeShardFn{})
	register.DoFn1x2[string, int, string](&keyFn{})
	register.Emitter1[Doc]()
	register.Emitter1[string]()
	register.Iter1[string]()
	beam.RegisterType(reflect.TypeOf((*Doc)(nil)).Elem())
}

// Build adds the pipeline to s.
func Build(s beam.Scope, opt Options) error {
	cfg, err := json.Marshal(opt.Config)
	if err != nil {
		return fmt.Errorf("chunking configuration: %w", err)
	}
	if err := checkInput(context.Background(), opt.Input); err != nil {
		return err
	}
	var docs, badInput beam.PCollection
	if opt.JSONL {
		lines := textio.Read(s, opt.Input)
		docs, badInput = beam.ParDo2(s, &parseLineFn{}, lines)
	} else {
		files := fileio.ReadMatches(s, fileio.MatchFiles(s, opt.Input), fileio.ReadUncompressed())
		docs, badInput = beam.ParDo2(s, &readFileFn{}, files)
	}
	records, failed := beam.ParDo2(s, &chunkFn{Config: cfg, Store: opt.Store}, docs)
	if opt.Output != "" {
		writeShards(s.Scope("records"), opt.Output, ".jsonl", max(opt.Shards, 1), records)
	}
	dead := opt.DeadLetter
	if dead == "" {
		dead = cmp.Or(opt.Output, "gochunk-beam") + "-failed"
	}
	writeShards(s.Scope("dead-letter"), dead, ".jsonl", 1, beam.Flatten(s, failed, badInput))
	return nil
}

// checkInput makes sure the input glob names at least one file: a
// pipeline over nothing would succeed, writing nothing, which hides a
// mistyped pattern or the wrong working directory.
func checkInput(ctx context.Context, glob string) error {
	if glob == "" {
		return errors.New("no input: give a glob of documents (--input)")
	}
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return fmt.Errorf("input %q: %w", glob, err)
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return fmt.Errorf("input %q: %w", glob, err)
	}
	if len(files) == 0 {
		where := ""
		if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(glob) && !strings.Contains(glob, "://") {
			where = " (relative to " + wd + ")"
		}
		return fmt.Errorf("no file matches the input pattern %q%s: check the pattern and the working directory", glob, where)
	}
	return nil
}

// failure is a dead-letter line: the document's id and why it failed.
func failure(id string, err error) string {
	b, _ := json.Marshal(map[string]string{"id": id, "error": err.Error()})
	return string(b)
}

// readFileFn reads a matched file as a document.
type readFileFn struct{}

func (f *readFileFn) ProcessElement(ctx context.Context, rf fileio.ReadableFile, emit func(Doc), dead func(string)) error {
	data, err := rf.Read(ctx)
	if err != nil {
		dead(failure(rf.Metadata.Path, err))
		return nil
	}
	// Text files are text; every other kind the pipeline reads (PDF,
	// HTML, office documents, EPUB, e-mail) is a file it recognises by
	// its name and content.
	kind := "file"
	if ext := strings.ToLower(filepath.Ext(rf.Metadata.Path)); ext == ".txt" || ext == ".md" || ext == ".markdown" || ext == "" {
		kind = "text"
	}
	emit(Doc{ID: rf.Metadata.Path, Kind: kind, Data: data})
	return nil
}

// parseLineFn reads a JSON Lines line as a document (pipeline.ParseJSONLine,
// as gochunk chunk --jsonl and gochunk index - read them).
type parseLineFn struct{}

func (f *parseLineFn) ProcessElement(line string, emit func(Doc), dead func(string)) {
	if strings.TrimSpace(line) == "" {
		return
	}
	src, err := pipeline.ParseJSONLine([]byte(line))
	if err != nil {
		dead(failure(cmp.Or(src.ID, truncate(line, 80)), err))
		return
	}
	var md []byte
	if src.Metadata != nil {
		md, _ = json.Marshal(src.Metadata) // decoded from JSON: encodes
	}
	emit(Doc{ID: src.ID, Kind: "text", Data: []byte(src.Text), Metadata: md})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// chunkFn chunks documents with the pipeline of its configuration, built
// once per worker. With embedding on, the chunks of a bundle's documents
// are embedded together at the end of the bundle (or every 64 documents).
type chunkFn struct {
	Config []byte
	Store  string

	pl      *pipeline.Pipeline
	st      store.Store
	hash    string // of the configuration, kept with each stored document
	pending []*pipeline.Result
	counts  struct{ documents, chunks, bytes, failed beam.Counter }
}

func (f *chunkFn) Setup(ctx context.Context) error {
	var cfg pipeline.Config
	if err := json.Unmarshal(f.Config, &cfg); err != nil {
		return fmt.Errorf("chunking configuration: %w", err)
	}
	pl, err := pipeline.New(ctx, cfg, pipeline.Options{})
	if err != nil {
		return err
	}
	f.pl = pl
	if f.Store != "" {
		if err := f.openStore(ctx); err != nil {
			return err
		}
	}
	f.counts.documents = beam.NewCounter("gochunk", "documents")
	f.counts.chunks = beam.NewCounter("gochunk", "chunks")
	f.counts.bytes = beam.NewCounter("gochunk", "bytes")
	f.counts.failed = beam.NewCounter("gochunk", "failed_documents")
	return nil
}

func (f *chunkFn) ProcessElement(ctx context.Context, d Doc, emit func(string), dead func(string)) error {
	src := pipeline.Source{ID: d.ID, Metadata: map[string]any{"source": d.ID}}
	switch d.Kind {
	case "pdf":
		src.PDF = d.Data
	case "html":
		src.HTML = string(d.Data)
	case "file":
		src.File, src.FileName = d.Data, d.ID
	default:
		src.Text = string(d.Data)
	}
	if len(d.Metadata) > 0 && string(d.Metadata) != "null" {
		// A JSON line's metadata goes on each of its records, as gochunk
		// chunk --jsonl puts it.
		if err := json.Unmarshal(d.Metadata, &src.RecordMetadata); err != nil {
			dead(failure(d.ID, fmt.Errorf("metadata: %w", err)))
			f.counts.failed.Inc(ctx, 1)
			return nil
		}
		maps.Copy(src.Metadata, src.RecordMetadata)
	}
	f.counts.bytes.Inc(ctx, int64(len(d.Data)))
	return f.process(ctx, src, emit, dead)
}

// process loads, chunks and writes (or queues for embedding) one document,
// then its attachments (an e-mail's), each a document of its own.
func (f *chunkFn) process(ctx context.Context, src pipeline.Source, emit func(string), dead func(string)) error {
	loaded, err := f.pl.Load(ctx, src)
	var res pipeline.Result
	if err == nil {
		res, err = f.pl.Chunking().Chunk(ctx, loaded.Document)
	}
	if err != nil {
		dead(failure(src.ID, err))
		f.counts.failed.Inc(ctx, 1)
		return nil
	}
	res.Text = loaded.Text // for the content hash of a stored document
	res.Metadata = src.RecordMetadata
	if f.pl.Config().EmbedChunks {
		f.pending = append(f.pending, &res)
		if len(f.pending) >= 64 {
			if err := f.flush(ctx, emit, dead); err != nil {
				return err
			}
		}
	} else if err := f.write(ctx, res, emit); err != nil {
		return err
	}
	for _, a := range loaded.Attachments {
		if err := f.process(ctx, a, emit, dead); err != nil {
			return err
		}
	}
	return nil
}

// openStore opens the store and prepares it for the embedder's vectors.
func (f *chunkFn) openStore(ctx context.Context) error {
	st, err := store.Open(ctx, f.Store)
	if err != nil {
		return err
	}
	dims, cfg := 0, f.pl.Config()
	if cfg.EmbedChunks {
		em, err := f.pl.Embedder(ctx)
		if err != nil {
			return err
		}
		if dims = em.Dim(); dims == 0 {
			v, err := em.Embed(ctx, []string{"dimension probe"})
			if err != nil {
				return err
			}
			dims = len(v[0])
		}
	}
	if err := st.Prepare(ctx, dims); err != nil {
		st.Close()
		return err
	}
	f.st = st
	f.hash = index.ConfigHash(f.pl, index.Options{Embed: cfg.EmbedChunks})
	return nil
}

// Teardown closes the store.
func (f *chunkFn) Teardown() error {
	if f.st != nil {
		return f.st.Close()
	}
	return nil
}

// FinishBundle embeds and writes what the bundle left pending.
func (f *chunkFn) FinishBundle(ctx context.Context, emit func(string), dead func(string)) error {
	return f.flush(ctx, emit, dead)
}

func (f *chunkFn) flush(ctx context.Context, emit func(string), dead func(string)) error {
	if len(f.pending) == 0 {
		return nil
	}
	errs := f.pl.Embedding().Embed(ctx, f.pending)
	for i, res := range f.pending {
		if errs[i] != nil {
			dead(failure(res.Source, errs[i]))
			f.counts.failed.Inc(ctx, 1)
			continue
		}
		if err := f.write(ctx, *res, emit); err != nil {
			return err
		}
	}
	f.pending = f.pending[:0]
	return nil
}

// write emits a document's records, each a JSON line as gochunk chunk
// writes it.
func (f *chunkFn) write(ctx context.Context, res pipeline.Result, emit func(string)) error {
	if f.st != nil {
		recs := res.Records()
		sum := sha256.Sum256([]byte(res.Text))
		doc := store.Document{ID: res.Source, Source: "gochunk-beam", ContentHash: hex.EncodeToString(sum[:16]), ConfigHash: f.hash}
		if err := f.st.Replace(ctx, store.Put{Document: doc, Chunks: recs}); err != nil {
			return fmt.Errorf("store %s: %w", res.Source, err)
		}
	}
	var buf []byte
	for i := range res.Chunks {
		var err error
		if buf, err = res.AppendJSONL(buf[:0], i, i+1); err != nil {
			return fmt.Errorf("record of %s: %w", res.Source, err)
		}
		emit(string(buf))
	}
	f.counts.documents.Inc(ctx, 1)
	f.counts.chunks.Inc(ctx, int64(len(res.Chunks)))
	return nil
}

// writeShards writes lines into shards of PREFIX-SSSSS-of-NNNNN.EXT, the
// lines of each shard sorted, so a rerun writes the same files.
func writeShards(s beam.Scope, prefix, ext string, shards int, lines beam.PCollection) {
	byShard := beam.ParDo(s, &keyFn{Shards: shards}, lines)
	grouped := beam.GroupByKey(s, byShard)
	beam.ParDo0(s, &writeShardFn{Prefix: prefix, Ext: ext, Shards: shards}, grouped)
}

// keyFn keys a line by its shard: a hash of the line, so the shards are
// even and stable.
type keyFn struct{ Shards int }

func (k *keyFn) ProcessElement(line string) (int, string) {
	h := fnv.New32a()
	io.WriteString(h, line)
	return int(h.Sum32() % uint32(k.Shards)), line
}

// writeShardFn writes the lines of one shard.
type writeShardFn struct {
	Prefix string
	Ext    string
	Shards int
}

func (w *writeShardFn) ProcessElement(ctx context.Context, shard int, lines func(*string) bool) error {
	var all []string
	var line string
	for lines(&line) {
		all = append(all, line)
	}
	sort.Strings(all)
	name := fmt.Sprintf("%s-%05d-of-%05d%s", w.Prefix, shard, w.Shards, w.Ext)
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	out, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	var b bytes.Buffer
	for _, l := range all {
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	if _, err := out.Write(b.Bytes()); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return out.Close()
}
