package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// ErrEmpty is returned by Search on a store nothing was indexed into.
var ErrEmpty = errors.New("the store holds no index yet: run gochunk index first")

// Searcher searches a store, embedding queries with the embedder that
// indexed it.
type Searcher struct {
	st store.Store
	em gochunk.Embedder // nil when the store has no vectors
}

// NewSearcher returns a searcher of st. The queries' vectors (for vector
// and hybrid search) come from the embedder that indexed the store, whose
// configuration the store keeps, completed by cfg's local settings
// (caches, ONNX Runtime); with override, cfg's embedder is used instead,
// and must be the same model. On a store indexed without vectors a
// hybrid search is a keyword search.
func NewSearcher(ctx context.Context, st store.Store, cfg pipeline.EmbedderConfig, override bool) (*Searcher, error) {
	if v, err := st.Meta(ctx, "schema_version"); err != nil || v == "" {
		return nil, ErrEmpty
	}
	s := &Searcher{st: st}
	dims, err := st.Meta(ctx, "dimensions")
	if err != nil || dims == "" || dims == "0" {
		return s, err
	}
	stored, err := st.Meta(ctx, "embedder_config")
	if err != nil {
		return nil, err
	}
	if !override && stored != "" {
		var c pipeline.EmbedderConfig
		if err := json.Unmarshal([]byte(stored), &c); err != nil {
			return nil, fmt.Errorf("the store's embedder configuration: %w", err)
		}
		cfg.Name, cfg.URL, cfg.Dimensions, cfg.ONNXPooling = c.Name, c.URL, c.Dimensions, c.ONNXPooling
	}
	if s.em, err = pipeline.NewEmbedder(ctx, cfg); err != nil {
		return nil, err
	}
	if model, err := st.Meta(ctx, "embedder"); err != nil {
		return nil, err
	} else if model != "" && model != s.em.ModelID() {
		return nil, fmt.Errorf("the store's vectors were made by %s, the query's would be by %s: search without --embedder, or re-index with it", model, s.em.ModelID())
	}
	return s, nil
}

// Search runs q (its Vector is filled in).
func (s *Searcher) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	return s.SearchExpand(ctx, q, Expand{})
}

// SearchExpand runs q, then returns what x asks for around its hits:
// parents in place of several of their children where that is the better
// use of the hits' budget (x.Merge; the search then ranks more candidates
// than q.K, to fill the places a merge frees), and each hit's
// parent, section or window of chunks (x.Mode), as exact spans of the
// documents the store keeps. Hits whose span a better hit returns already
// are left out.
func (s *Searcher) SearchExpand(ctx context.Context, q store.Query, x Expand) ([]store.Hit, error) {
	if q.K <= 0 {
		q.K = 10
	}
	k := q.K
	if x.Merge >= 2 {
		q.K = max(k, mergeDepth) // candidates to fill the places a merge frees
	}
	hits, err := s.search(ctx, q)
	if err != nil {
		return nil, err
	}
	if x.Merge < 2 && len(hits) > k {
		hits = hits[:k]
	}
	return s.expand(ctx, hits, k, x)
}

func (s *Searcher) search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	if q.Mode == "" {
		q.Mode = store.Hybrid
	}
	if s.em == nil && q.Mode == store.Vector {
		return nil, errors.New("the store was indexed without vectors (--no-embed): search it with --mode keyword")
	}
	if s.em == nil {
		q.Mode = store.Keyword
	}
	if q.Mode != store.Keyword {
		vs, err := s.em.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		q.Vector = vs[0]
	}
	return s.st.Search(ctx, q)
}
