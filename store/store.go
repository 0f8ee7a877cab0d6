// Package store keeps chunks and their vectors where they can be searched:
// one SQLite file (the embedded default: a pure-Go driver, no server) or a
// PostgreSQL database (a pgvector column with an HNSW index when the
// extension is there, real[] otherwise).
//
// A store holds documents (an id, the source they were indexed from, a
// hash of their content and one of the configuration that chunked them)
// and their chunks (the records of package record, with their vectors).
// A document's chunks are replaced in one transaction, so a reader never
// sees half a document, and a run stopped at any moment leaves every
// document either as it was or as it is now. Package index builds on it.
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk/record"
)

// SchemaVersion is the version of the tables a store creates; it is kept
// in the store so later versions can migrate.
const SchemaVersion = 2

// ErrSchema reports a store written by a newer gochunk.
var ErrSchema = errors.New("store: unknown schema version")

// Document is what a store keeps of a document besides its chunks.
type Document struct {
	// ID names the document in its source (a file path, a row id).
	ID string
	// Source is what it was indexed from (a directory, "-", a table):
	// cleanup removes documents of a source that it no longer holds.
	Source string
	// ContentHash and ConfigHash tell whether the document or the
	// configuration that chunked it changed since.
	ContentHash string
	ConfigHash  string
	// Metadata is the document's own (from JSON Lines or table columns).
	Metadata map[string]any
	// Text, when set, is kept with the document, so that search can
	// return the spans around a chunk (its parent, section or window).
	Text string
}

// Put is a document with its chunks, to store.
type Put struct {
	Document
	Chunks []record.Record
	// More, when set, is called after Chunks are written, for the next
	// batch of the document's chunks, until it returns none or an error
	// (which aborts the transaction): a document too large to hold all
	// its vectors at once is written as it is embedded, still whole or
	// not at all.
	More func(ctx context.Context) ([]record.Record, error)
}

// State is a stored document's hashes and source.
type State struct {
	Source      string
	ContentHash string
	ConfigHash  string
}

// Mode is a kind of search.
type Mode string

// The kinds of search.
const (
	Vector  Mode = "vector"  // nearest vectors by cosine similarity
	Keyword Mode = "keyword" // full-text search (SQLite FTS5's BM25, PostgreSQL's ts_rank)
	Hybrid  Mode = "hybrid"  // both, fused by reciprocal rank
)

// ParseMode reads a search mode by name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Vector, Keyword, Hybrid:
		return m, nil
	case "":
		return Hybrid, nil
	}
	return "", fmt.Errorf("search mode %q: want vector, keyword or hybrid", s)
}

// Query is a search.
type Query struct {
	// Text is the query; Keyword and Hybrid search match its words.
	Text string
	// Vector is the query's embedding, for Vector and Hybrid search.
	Vector []float32
	// K is the number of hits (default 10).
	K    int
	Mode Mode
	// Exact scans every stored vector instead of using the vector index
	// (the SQLite store's IVF; it scans by itself while it has no index),
	// and has the SQLite store's keyword search score every chunk that
	// holds a query word (bm25All) instead of skipping those that cannot
	// reach the k best: the same ranking, the reference in tests.
	Exact bool
	// Probes is the number of the SQLite vector index's lists a vector
	// search reads (0: as many as the query needs, within IVFProbes), or
	// with an index of sparse vectors the number of the query's
	// dimensions, largest first (0: all of them): more finds more of the exact nearest neighbours,
	// fewer answers sooner. PostgreSQL's pgvector index has its own
	// setting (hnsw.ef_search).
	Probes int
	// SourcePrefix keeps only the chunks of documents whose id (a hit's
	// source: the file's path, or the id a JSON line gave) starts with it.
	SourcePrefix string
	// Metadata keeps only the chunks whose metadata, or else their
	// document's, has each key with the value (compared as text: numbers
	// as SQLite writes them, booleans as 1 and 0). Filters apply inside
	// the search: a filtered search returns K hits when K chunks match.
	Metadata map[string]string
}

// Hit is a chunk a search found.
type Hit struct {
	record.Record
	// Score is the cosine similarity (vector), the text rank (keyword; higher
	// is better) or the fused reciprocal-rank score (hybrid).
	Score float64 `json:"score"`
	// Expanded, when a search asked for more than the chunk (package
	// index's Expand), is the span returned for it.
	Expanded *Expansion `json:"expanded,omitempty"`
}

// Expansion is the span of a document a search returns around a hit: its
// parent, its section, a window of chunks, or the parent that replaced
// several of its children among the hits ("merged").
type Expansion struct {
	Kind      string `json:"kind"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	StartRune int    `json:"start_rune"`
	EndRune   int    `json:"end_rune"`
	Text      string `json:"text"`
	// Chunks are the indexes of the document's chunks among the hits
	// that the span stands for (the hit's, and with merged, the others').
	Chunks []int `json:"chunks,omitempty"`
}

// MarshalJSON writes the hit's record with its score (and expansion).
func (h Hit) MarshalJSON() ([]byte, error) {
	b, err := record.AppendJSON(nil, h.Record)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, "\n")
	b = append(b[:len(b)-1], `,"score":`...)
	b = strconv.AppendFloat(b, h.Score, 'g', -1, 64)
	if h.Expanded != nil {
		var x bytes.Buffer
		enc := json.NewEncoder(&x)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(h.Expanded); err != nil {
			return nil, err
		}
		b = append(append(b, `,"expanded":`...), bytes.TrimRight(x.Bytes(), "\n")...)
	}
	return append(b, '}'), nil
}

// Span is a chunk's offsets (those of its first and last span).
type Span struct {
	Index                          int
	Start, End, StartRune, EndRune int
}

// Counts are a store's totals.
type Counts struct {
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	// Bytes is the size of a SQLite store's file, and BytesPerChunk that
	// over its chunks (0 for PostgreSQL).
	Bytes         int64   `json:"bytes,omitempty"`
	BytesPerChunk float64 `json:"bytes_per_chunk,omitempty"`
	// VectorIndex describes a SQLite store's vector index ("ivf: 316
	// lists"; "exact" while the store is scanned whole).
	VectorIndex string `json:"vector_index,omitempty"`
}

// Store is a place chunks are kept and searched. Its methods are safe for
// concurrent use.
type Store interface {
	// Prepare creates the schema on first use, or checks it, for vectors of
	// dims dimensions (0: none). When the store held vectors of another
	// dimension, its chunks are removed and every document is marked
	// stale, so the next run re-embeds them.
	Prepare(ctx context.Context, dims int) error
	// Documents returns the stored documents' states by id.
	Documents(ctx context.Context) (map[string]State, error)
	// Replace stores each document with its chunks in place of whatever
	// it had, all in one transaction.
	Replace(ctx context.Context, puts ...Put) error
	// Delete removes documents and their chunks.
	Delete(ctx context.Context, ids ...string) error
	// Counts returns the totals.
	Counts(ctx context.Context) (Counts, error)
	// Vectors returns the stored vectors of a document's chunks by the
	// text they were made of (the chunk's embedded text, or its text), so
	// that re-indexing an edited document embeds only what changed.
	Vectors(ctx context.Context, id string) (map[string][]float32, error)
	// DocumentText returns the bytes [start, end) of the text kept with
	// a document (clipped to the text; ok is false when no text was kept,
	// or there is no such document), read from the store without the rest
	// of the text; Offsets the byte and code-point offsets of its chunks
	// from index from to index to (inclusive).
	DocumentText(ctx context.Context, id string, start, end int) (text string, ok bool, err error)
	Offsets(ctx context.Context, id string, from, to int) ([]Span, error)
	// Search finds chunks.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Meta reads and SetMeta writes a setting the store keeps (the
	// embedder that made its vectors, for example); Meta returns "" for
	// an unset key.
	Meta(ctx context.Context, key string) (string, error)
	SetMeta(ctx context.Context, key, value string) error
	Close() error
}

// RunLocker is a store that one indexing run at a time may fill: a run
// reads what the store holds, then writes by it, so two at once would
// write over each other (SQLite; a PostgreSQL store's writers coordinate
// through the database).
type RunLocker interface {
	// LockRun takes the store for one run, waiting while another run
	// (of this process or another) holds it; waiting, when set, is called
	// once if it must wait, with what holds the store. Cancelling ctx
	// stops the wait. The hold ends with release, or with the process.
	LockRun(ctx context.Context, waiting func(holder string)) (release func() error, err error)
}

// Open opens (creating it if needed) the store at dsn: a PostgreSQL
// connection string (postgres://… or postgresql://…, or key=value pairs
// with host=) or the path of a SQLite file.
func Open(ctx context.Context, dsn string) (Store, error) {
	if dsn == "" {
		return nil, errors.New("store: empty location: give a SQLite file or a postgres:// URL")
	}
	if IsPostgres(dsn) {
		return OpenPostgres(ctx, dsn)
	}
	return OpenSQLite(ctx, dsn)
}

// MigrationReporter is a store that tells of a long migration of its
// tables (the SQLite store, when Prepare brings a large store written by
// an earlier gochunk up to date): report hears a line when it begins and
// one when it ends.
type MigrationReporter interface {
	ReportMigration(report func(msg string))
}

// IsPostgres tells whether dsn names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") ||
		strings.Contains(dsn, "host=") || strings.Contains(dsn, "dbname=")
}

// fuse merges ranked lists by reciprocal rank fusion (Cormack et al.,
// 2009; k = 60): a chunk's score is the sum of 1/(60 + rank) over the
// lists it is in.
func fuse(k int, lists ...[]Hit) []Hit {
	type key struct {
		doc   string
		index int
	}
	score := map[key]float64{}
	first := map[key]Hit{}
	for _, l := range lists {
		for r, h := range l {
			id := key{h.Source, h.ChunkIndex}
			score[id] += 1 / float64(60+r+1)
			if _, ok := first[id]; !ok {
				first[id] = h
			}
		}
	}
	out := make([]Hit, 0, len(first))
	for id, h := range first {
		h.Score = score[id]
		out = append(out, h)
	}
	sortHits(out)
	return out[:min(k, len(out))]
}

// sortHits orders hits by score, then document and chunk, so equal
// scores come out in a stable order.
func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.Source != b.Source:
			return strings.Compare(a.Source, b.Source)
		}
		return a.ChunkIndex - b.ChunkIndex
	})
}

// candidate is a chunk a scan over vectors scored: by its row id (SQLite)
// or its document and index (PostgreSQL without pgvector).
type candidate struct {
	rowid int64
	doc   string
	index int
	score float64
}

// topK keeps the k best candidates of a scan, best first (ties in the
// order seen).
type topK struct {
	k    int
	best []candidate
}

func (t *topK) offer(c candidate) {
	if len(t.best) == t.k && c.score <= t.best[len(t.best)-1].score {
		return
	}
	i, _ := slices.BinarySearchFunc(t.best, c.score, func(a candidate, s float64) int {
		if a.score >= s {
			return -1
		}
		return 1
	})
	t.best = slices.Insert(t.best, i, c)
	if len(t.best) > t.k {
		t.best = t.best[:t.k]
	}
}

// cosine returns the cosine similarity of two vectors (0 when either is
// zero or their lengths differ).
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

// words returns the query's words, lowercased, for keyword search.
func words(q string) []string {
	w := wordRE.FindAllString(strings.ToLower(q), -1)
	slices.Sort(w)
	return slices.Compact(w)
}

// search runs q's vector and keyword searches, as its mode asks, and
// fuses them for hybrid search.
func search(q Query, vector, keyword func(Query) ([]Hit, error)) ([]Hit, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	var lists [][]Hit
	for _, s := range []struct {
		skip bool
		name string
		run  func(Query) ([]Hit, error)
	}{{q.Mode == Keyword, "vector", vector}, {q.Mode == Vector, "keyword", keyword}} {
		if s.skip {
			continue
		}
		hits, err := s.run(q)
		if err != nil {
			return nil, fmt.Errorf("%s search: %w", s.name, err)
		}
		lists = append(lists, hits)
	}
	if q.Mode != Hybrid {
		return lists[0], nil
	}
	return fuse(q.K, lists...), nil
}

// rowsOf is what database/sql's and pgx's rows share.
type rowsOf interface {
	scanner
	Next() bool
	Err() error
}

// collect scans scored hits from rows.
func collect(rows rowsOf) ([]Hit, error) {
	var hits []Hit
	for rows.Next() {
		h, err := scanHit(rows, true)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

func (q *Query) check() error {
	if q.K <= 0 {
		q.K = 10
	}
	if q.Mode == "" {
		q.Mode = Hybrid
	}
	if q.Mode != Keyword && len(q.Vector) == 0 {
		return fmt.Errorf("%s search needs the query's vector (a store indexed without embeddings can only do keyword search)", q.Mode)
	}
	return nil
}
