package store

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// A dense index search reads through the reader pool: it answers while a
// writer holds the store's write connection (it used to queue behind it).
func TestIVFSearchBesideWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	s, _ := openTemp(t, 16)
	fill(t, s, "d", clustered(rng, ivfMinChunks+100, 16))
	if kind, _ := s.Meta(context.Background(), "ivf_kind"); kind != kindIVF {
		t.Fatalf("index %q, want %s", kind, kindIVF)
	}
	tx, err := s.db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, q := range clustered(rng, 4, 16) {
		hits, err := s.Search(ctx, Query{Vector: q, K: 10, Mode: Vector})
		if err != nil || len(hits) != 10 {
			t.Fatalf("a search beside an open write transaction: %d hits, %v", len(hits), err)
		}
	}
}
