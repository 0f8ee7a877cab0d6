package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pgtest"
)

// filterDocs writes the same 30 documents of 12 chunks into s: two
// directories, document metadata of every JSON kind the filters compare
// (a string, a boolean, a number), and a chunk in each document whose own
// metadata overrides its document's team.
func filterDocs(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.Prepare(ctx, 16); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	vs := clustered(rng, 360, 16)
	var puts []Put
	for d := range 30 {
		id := fmt.Sprintf("dir%d/doc%02d", d%2, d)
		team := []string{"x", "y", "y"}[d%3]
		put := Put{Document: Document{ID: id, Source: "gen", ContentHash: "h", ConfigHash: "c",
			Metadata: map[string]any{"team": team, "public": d%4 == 0, "year": 2020 + d%3}}}
		for i := range 12 {
			r := chunk(id, i, fmt.Sprintf("word%d shared text", i%5), vs[d*12+i]...)
			if i == 3 {
				r.Metadata = map[string]any{"team": "z"}
			}
			put.Chunks = append(put.Chunks, r)
		}
		puts = append(puts, put)
	}
	if err := s.Replace(ctx, puts...); err != nil {
		t.Fatal(err)
	}
}

// filterCases are the filters both stores are asked, with the number of
// chunks each keeps.
var filterCases = []struct {
	prefix string
	meta   map[string]string
	keeps  int
}{
	{"dir1/", nil, 180},
	{"", map[string]string{"team": "x"}, 110},                     // 10 documents, less their chunk 3
	{"", map[string]string{"team": "z"}, 30},                      // chunk 3 of each, by its own metadata
	{"", map[string]string{"public": "1"}, 96},                    // a boolean, as SQLite compares it
	{"", map[string]string{"year": "2021"}, 120},                  // a number
	{"dir0/", map[string]string{"team": "y", "year": "2022"}, 55}, // both, and two keys
	{"dir0/doc04", nil, 12},
	{"nowhere/", nil, 0},
}

// TestFilteredSearchSQLiteAndPostgres: a search with a source prefix and
// metadata filters returns the same chunks from PostgreSQL as from
// SQLite: exactly with Exact, and by the pgvector index within its
// tolerance; every hit passes the filters and K come back when K match.
func TestFilteredSearchSQLiteAndPostgres(t *testing.T) {
	ctx := context.Background()
	lite, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	filterDocs(t, lite)
	queries := clustered(rand.New(rand.NewPCG(6, 6)), 6, 16)
	for _, pg := range []struct {
		name string
		dsn  func(*testing.T) string
	}{{"postgres", func(t *testing.T) string { return pgtest.Start(t) }}, {"pgvector", startPGlite}} {
		t.Run(pg.name, func(t *testing.T) {
			p, err := OpenPostgres(ctx, pg.dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			filterDocs(t, p)
			if pg.name == "pgvector" && !p.Vector {
				t.Fatal("pgvector was not used")
			}
			for _, f := range filterCases {
				name := fmt.Sprintf("%q %v", f.prefix, f.meta)
				for _, k := range []int{10, 60} {
					want := min(k, f.keeps)
					found, all := 0, 0
					for _, q := range queries {
						base := Query{Text: "word3 shared", Vector: q, K: k, Mode: Vector, SourcePrefix: f.prefix, Metadata: f.meta}
						exact := base
						exact.Exact = true
						ref, err := lite.Search(ctx, exact)
						if err != nil {
							t.Fatal(err)
						}
						if len(ref) != want {
							t.Fatalf("%s k=%d: SQLite returned %d hits, want %d", name, k, len(ref), want)
						}
						got, err := p.Search(ctx, exact)
						if err != nil {
							t.Fatal(err)
						}
						sameHits(t, name+" exact", ref, got)
						approx, err := p.Search(ctx, base)
						if err != nil {
							t.Fatal(err)
						}
						if len(approx) != want {
							t.Fatalf("%s k=%d: PostgreSQL's index search returned %d hits, want %d", name, k, len(approx), want)
						}
						in := map[string]bool{}
						for _, h := range approx {
							in[fmt.Sprint(h.Source, h.ChunkIndex)] = true
						}
						for _, h := range ref {
							all++
							if in[fmt.Sprint(h.Source, h.ChunkIndex)] {
								found++
							}
						}
						for _, mode := range []Mode{Keyword, Hybrid} {
							base.Mode = mode
							for _, s := range []Store{lite, p} {
								hits, err := s.Search(ctx, base)
								if err != nil {
									t.Fatal(err)
								}
								if mode == Hybrid && len(hits) != want {
									t.Fatalf("%s %s k=%d: %d hits, want %d", name, mode, k, len(hits), want)
								}
								for _, h := range hits {
									if !strings.HasPrefix(h.Source, f.prefix) {
										t.Fatalf("%s %s: a hit of %s", name, mode, h.Source)
									}
								}
							}
						}
					}
					if all > 0 && float64(found)/float64(all) < 0.95 {
						t.Errorf("%s k=%d: recall@k of PostgreSQL's index search %.3f against SQLite's exact scan", name, k, float64(found)/float64(all))
					}
				}
			}
			// Probes reach pgvector's hnsw.ef_search: one candidate still
			// returns K hits (the scan makes up what the index lacks).
			hits, err := p.Search(ctx, Query{Vector: queries[0], K: 50, Mode: Vector, Probes: 1})
			if err != nil || len(hits) != 50 {
				t.Fatalf("probes 1, k 50: %d hits, %v", len(hits), err)
			}
		})
	}
}

// sameHits fails unless got ranks the chunks of want, allowing two
// chunks whose scores differ by less than float16's rounding to swap
// (SQLite keeps float16 vectors, PostgreSQL float32).
func sameHits(t *testing.T, what string, want, got []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, SQLite %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].Source == want[i].Source && got[i].ChunkIndex == want[i].ChunkIndex {
			continue
		}
		if math.Abs(got[i].Score-want[i].Score) > 1e-3 {
			t.Fatalf("%s: hit %d is %s#%d (%.5f), SQLite's %s#%d (%.5f)", what, i, got[i].Source, got[i].ChunkIndex, got[i].Score,
				want[i].Source, want[i].ChunkIndex, want[i].Score)
		}
	}
	for i := range want {
		if math.Abs(got[i].Score-want[i].Score) > 1e-3 {
			t.Fatalf("%s: hit %d scores %.5f, SQLite's %.5f", what, i, got[i].Score, want[i].Score)
		}
	}
}
