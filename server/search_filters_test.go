package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// POST /v1/search takes gochunk search's knobs: a source prefix and
// metadata values filter the hits inside the search (k come back when k
// match), and exact and probes reach the vector index.
func TestSearchEndpointFilters(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pl, err := pipeline.New(ctx, pipeline.Config{Chunker: "sentence", Params: json.RawMessage(`{"size": 40}`)}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for d := range 12 {
		fmt.Fprintf(&docs, `{"id": "team%d/doc%d", "text": "Stock markets fell on day %d. Bond yields rose again. Traders sold shares.", "metadata": {"desk": %q, "open": %v, "floor": %d}}`+"\n",
			d%2, d, d, []string{"rates", "equities", "fx"}[d%3], d%4 == 0, d%3)
	}
	if _, err := index.Run(ctx, st, pl, []index.Source{index.JSONLines{Label: "-", R: strings.NewReader(docs.String())}}, index.Options{Embed: true}); err != nil {
		t.Fatal(err)
	}
	_, srv := newTest(t, func(c *Config) { c.Store = st })
	search := func(body string) []store.Hit {
		t.Helper()
		code, b, _ := post(t, srv.URL+"/v1/search", body)
		var resp api.SearchResponse
		if code != http.StatusOK || json.Unmarshal(b, &resp) != nil {
			t.Fatalf("%s: %d %s", body, code, b)
		}
		return resp.Hits
	}
	counts, err := st.Counts(ctx)
	if err != nil || counts.Chunks%12 != 0 {
		t.Fatalf("%d chunks of 12 documents, %v", counts.Chunks, err)
	}
	perDoc := counts.Chunks / 12
	doc := func(h store.Hit) int {
		var team, d int
		if _, err := fmt.Sscanf(h.Source, "team%d/doc%d", &team, &d); err != nil {
			t.Fatalf("a hit of %q", h.Source)
		}
		return d
	}
	for _, c := range []struct {
		filter string
		keep   func(d int) bool
	}{
		{`"source": "team1/"`, func(d int) bool { return d%2 == 1 }},
		{`"where": {"desk": "fx"}`, func(d int) bool { return d%3 == 2 }},
		{`"where": {"open": true}`, func(d int) bool { return d%4 == 0 }},
		{`"where": {"floor": 1, "desk": "equities"}, "source": "team0/"`, func(d int) bool { return d%2 == 0 && d%3 == 1 }},
		{`"where": {"desk": "none"}`, func(d int) bool { return false }},
	} {
		docs := 0
		for d := range 12 {
			if c.keep(d) {
				docs++
			}
		}
		for _, mode := range []string{"vector", "keyword", "hybrid"} {
			body := fmt.Sprintf(`{"query": "bond yields", "k": 10, "mode": %q, %s}`, mode, c.filter)
			hits := search(body)
			// Keyword search finds the chunks with the words: one or
			// more of each document kept.
			if want := min(10, docs*perDoc); (mode != "keyword" && len(hits) != want) || (mode == "keyword" && (len(hits) < min(docs, 10) || len(hits) > want)) {
				t.Errorf("%s: %d hits, want %d", body, len(hits), want)
			}
			for _, h := range hits {
				if !c.keep(doc(h)) {
					t.Errorf("%s: a hit of %s", body, h.Source)
				}
			}
		}
	}
	// exact and probes are the vector index's knobs: over a store this
	// small both give the exact scan's hits.
	want := search(`{"query": "traders sold shares", "k": 5, "mode": "vector"}`)
	for _, knobs := range []string{`"exact": true`, `"probes": 1`} {
		got := search(`{"query": "traders sold shares", "k": 5, "mode": "vector", ` + knobs + `}`)
		if len(got) != len(want) {
			t.Fatalf("%s: %d hits, want %d", knobs, len(got), len(want))
		}
		for i := range got {
			if got[i].Source != want[i].Source || got[i].ChunkIndex != want[i].ChunkIndex {
				t.Errorf("%s: hit %d is %s#%d, want %s#%d", knobs, i, got[i].Source, got[i].ChunkIndex, want[i].Source, want[i].ChunkIndex)
			}
		}
	}
	for _, bad := range []string{`{"query": "x", "probes": -1}`, `{"query": "x", "where": {"desk": ["fx"]}}`,
		`{"query": "x", "where": {"desk": null}}`, `{"query": "x", "where": {"": "fx"}}`, `{"query": "x", "where": "desk=fx"}`} {
		if code, body, _ := post(t, srv.URL+"/v1/search", bad); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
}
