package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// ErrEmpty is returned by Search on a store nothing was indexed into.
var ErrEmpty = errors.New("the store holds no index yet: run gochunk index first")

// Search runs q over st. The query's vector (for vector and hybrid search)
// comes from the embedder that indexed the store, whose configuration the
// store keeps, completed by cfg's local settings (caches, ONNX Runtime);
// with override, cfg's embedder is used instead, and must be the same
// model. On a store indexed without vectors a hybrid search is a keyword
// search.
func Search(ctx context.Context, st store.Store, cfg pipeline.EmbedderConfig, override bool, q store.Query) ([]store.Hit, error) {
	if v, err := st.Meta(ctx, "schema_version"); err != nil || v == "" {
		return nil, ErrEmpty
	}
	if q.Mode != store.Keyword {
		dims, err := st.Meta(ctx, "dimensions")
		if err != nil {
			return nil, err
		}
		if dims == "" || dims == "0" {
			if q.Mode == store.Vector {
				return nil, errors.New("the store was indexed without vectors (--no-embed): search it with --mode keyword")
			}
			q.Mode = store.Keyword
		}
	}
	if q.Mode != store.Keyword {
		v, err := queryVector(ctx, st, cfg, override, q.Text)
		if err != nil {
			return nil, err
		}
		q.Vector = v
	}
	return st.Search(ctx, q)
}

func queryVector(ctx context.Context, st store.Store, cfg pipeline.EmbedderConfig, override bool, text string) ([]float32, error) {
	stored, err := st.Meta(ctx, "embedder_config")
	if err != nil {
		return nil, err
	}
	if !override && stored != "" {
		var s pipeline.EmbedderConfig
		if err := json.Unmarshal([]byte(stored), &s); err != nil {
			return nil, fmt.Errorf("the store's embedder configuration: %w", err)
		}
		cfg.Name, cfg.URL, cfg.Dimensions, cfg.ONNXPooling = s.Name, s.URL, s.Dimensions, s.ONNXPooling
	}
	em, err := pipeline.NewEmbedder(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if model, err := st.Meta(ctx, "embedder"); err != nil {
		return nil, err
	} else if model != "" && model != em.ModelID() {
		return nil, fmt.Errorf("the store's vectors were made by %s, the query's would be by %s: search without --embedder, or re-index with it", model, em.ModelID())
	}
	vs, err := em.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	return vs[0], nil
}
