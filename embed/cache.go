package embed

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/gochunk/gochunk/internal/diskcache"
	"github.com/gochunk/gochunk/tokenize"
)

// CacheOptions configure Cached.
type CacheOptions struct {
	// Entries bounds the in-memory cache (least recently used vectors are
	// dropped first); 0 means 65536.
	Entries int
	// Bytes, when positive, also bounds the memory the cached vectors
	// take (4 bytes a dimension, or 6 a non-zero number where a vector
	// has few, as a lexical one does, plus about 200 bytes of bookkeeping
	// each), so a model of 4,096 dimensions cannot take gigabytes.
	Bytes int64
	// DirBytes bounds the disk cache in bytes (least recently used vectors
	// removed first); 0 means unbounded.
	DirBytes int64
	// Warn, when set, hears of corrupt disk entries (removed and embedded
	// again) and failed writes.
	Warn func(string)
	// Dir, when set, also keeps vectors on disk under this directory, one
	// small file per vector, so that they survive the process.
	Dir string
}

// Cached wraps an embedder with a cache keyed by the embedder's model id
// and the SHA-256 of each text, so re-chunking or re-evaluating the same
// text does not embed it again. Identical texts in one call are embedded
// once.
type Cached struct {
	inner Embedder
	store *cacheStore
}

type cacheStore struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	lru      *list.List
	items    map[[32]byte]*list.Element
	disk     *diskcache.Dir // nil: memory only
	hits     atomic.Int64
	misses   atomic.Int64
}

type cacheEntry struct {
	key [32]byte
	v   packed
}

// packed is a cached vector, kept as its non-zero entries when that is
// smaller: a lexical vector has a few dozen of its 1,024 dimensions set,
// and 65,536 of them kept dense would take 268 MB. Zero means the bits of
// +0, so the vector comes back bit for bit (-0 included).
type packed struct {
	dim int32
	idx []uint16  // the non-zero entries' positions; nil: val is dense
	val []float32 // the non-zero entries, or the whole vector
}

// pack returns v packed, sharing no memory with it.
func pack(v []float32) packed {
	nz := 0
	for _, x := range v {
		if math.Float32bits(x) != 0 {
			nz++
		}
	}
	// 6 bytes an entry packed against 4 a dimension dense.
	if len(v) > 1<<16 || 6*nz >= 4*len(v) {
		return packed{dim: int32(len(v)), val: append([]float32(nil), v...)}
	}
	p := packed{dim: int32(len(v)), idx: make([]uint16, 0, nz), val: make([]float32, 0, nz)}
	for i, x := range v {
		if math.Float32bits(x) != 0 {
			p.idx = append(p.idx, uint16(i))
			p.val = append(p.val, x)
		}
	}
	return p
}

// expand writes the vector into dst, which must be zero and of its
// length.
func (p packed) expand(dst []float32) {
	if p.idx == nil {
		copy(dst, p.val)
		return
	}
	for k, i := range p.idx {
		dst[i] = p.val[k]
	}
}

// bytes is the memory the vector's numbers take.
func (p packed) bytes() int64 { return int64(2*len(p.idx) + 4*len(p.val)) }

// NewCached wraps e.
func NewCached(e Embedder, opt CacheOptions) *Cached {
	if opt.Entries <= 0 {
		opt.Entries = 65536
	}
	store := &cacheStore{max: opt.Entries, maxBytes: opt.Bytes, lru: list.New(), items: map[[32]byte]*list.Element{}}
	if opt.Dir != "" {
		store.disk = diskcache.Open(opt.Dir, opt.DirBytes, opt.Warn)
	}
	return &Cached{inner: e, store: store}
}

// Dim returns the inner embedder's dimension.
func (c *Cached) Dim() int { return c.inner.Dim() }

// MaxTokens returns the inner embedder's limit.
func (c *Cached) MaxTokens() int { return c.inner.MaxTokens() }

// ModelID returns the inner embedder's model id.
func (c *Cached) ModelID() string { return c.inner.ModelID() }

// Stats returns the number of texts served from the cache and embedded.
func (c *Cached) Stats() (hits, misses int64) { return c.store.hits.Load(), c.store.misses.Load() }

// Tokenizer returns the inner embedder's tokenizer, if it has one.
func (c *Cached) Tokenizer() tokenize.Counter { return tokenizerOf(c.inner) }

// ChunkLimit returns the inner embedder's chunk limit.
func (c *Cached) ChunkLimit() int { return chunkLimitOf(c.inner) }

// ForDocument adapts the inner embedder to a document and keeps the cache.
func (c *Cached) ForDocument(pieces []string) Embedder {
	return &Cached{inner: ForDocument(c.inner, pieces), store: c.store}
}

// ForCollection weighs the inner embedder for a collection and keeps the
// cache (the weighted embedder has a model id of its own).
func (c *Cached) ForCollection(texts []string) Embedder {
	return &Cached{inner: ForCollection(c.inner, texts), store: c.store}
}

func (c *Cached) key(text string) [32]byte {
	h := sha256.New()
	h.Write([]byte(c.inner.ModelID()))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Embed returns cached vectors and embeds the rest. The vectors returned
// are the caller's own copies (those read from the cache share one
// allocation).
func (c *Cached) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	var missTexts []string
	var missKeys [][32]byte
	missIdx := map[[32]byte][]int{}
	var hits []packed
	var hitIdx []int
	for i, t := range texts {
		keys[i] = c.key(t)
		if v, ok := c.store.get(keys[i]); ok {
			hits, hitIdx = append(hits, v), append(hitIdx, i)
			continue
		}
		if _, seen := missIdx[keys[i]]; !seen {
			missTexts, missKeys = append(missTexts, t), append(missKeys, keys[i])
		}
		missIdx[keys[i]] = append(missIdx[keys[i]], i)
	}
	c.store.hits.Add(int64(len(hits)))
	if len(hits) > 0 {
		total := 0
		for _, h := range hits {
			total += int(h.dim)
		}
		backing := make([]float32, total)
		for k, h := range hits {
			v := backing[:h.dim:h.dim]
			backing = backing[h.dim:]
			h.expand(v)
			out[hitIdx[k]] = v
		}
	}
	if len(missTexts) == 0 {
		return out, nil
	}
	c.store.misses.Add(int64(len(missTexts)))
	vs, err := c.inner.Embed(ctx, missTexts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(missTexts) {
		return nil, fmt.Errorf("cached embedder: %w: got %d for %d texts", ErrCount, len(vs), len(missTexts))
	}
	for j, k := range missKeys {
		c.store.put(k, vs[j])
		for n, i := range missIdx[k] {
			if n == 0 {
				out[i] = vs[j]
			} else {
				out[i] = append([]float32(nil), vs[j]...)
			}
		}
	}
	return out, nil
}

func (s *cacheStore) get(k [32]byte) (packed, bool) {
	s.mu.Lock()
	if el, ok := s.items[k]; ok {
		s.lru.MoveToFront(el)
		v := el.Value.(*cacheEntry).v
		s.mu.Unlock()
		return v, true
	}
	s.mu.Unlock()
	if s.disk == nil {
		return packed{}, false
	}
	b, ok := s.disk.Get(s.path(k))
	if !ok || len(b)%4 != 0 || len(b) == 0 {
		return packed{}, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	p := pack(v)
	s.remember(k, p)
	return p, true
}

// put keeps v (a copy: the caller keeps v).
func (s *cacheStore) put(k [32]byte, v []float32) {
	s.remember(k, pack(v))
	if s.disk == nil {
		return
	}
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	s.disk.Put(s.path(k), b)
}

func (s *cacheStore) remember(k [32]byte, v packed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.items[k]; ok {
		s.lru.MoveToFront(el)
		return
	}
	s.items[k] = s.lru.PushFront(&cacheEntry{k, v})
	s.bytes += entryBytes(v)
	for s.lru.Len() > s.max || s.maxBytes > 0 && s.bytes > s.maxBytes && s.lru.Len() > 1 {
		old := s.lru.Back()
		s.lru.Remove(old)
		e := old.Value.(*cacheEntry)
		delete(s.items, e.key)
		s.bytes -= entryBytes(e.v)
	}
}

// entryBytes is the memory a cached vector takes: its numbers, its key and
// the list and map bookkeeping.
func entryBytes(v packed) int64 { return v.bytes() + 192 }

// Bytes returns the memory the cached vectors take.
func (c *Cached) Bytes() int64 {
	c.store.mu.Lock()
	defer c.store.mu.Unlock()
	return c.store.bytes
}

func (s *cacheStore) path(k [32]byte) string {
	h := hex.EncodeToString(k[:])
	return filepath.Join(h[:2], h[2:]+".f32")
}

// Unwrap returns the embedder the cache wraps.
func (c *Cached) Unwrap() Embedder { return c.inner }
