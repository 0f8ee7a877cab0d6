package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"
)

// The search tool takes gochunk search's knobs: source and where filter
// the hits inside the search; exact and probes reach the vector index.
func TestSearchFiltersAndIndexKnobs(t *testing.T) {
	f := newFixture(t, 0)
	f.index(t)
	cs := f.connect(t, Config{}, nil)
	real, err := filepath.EvalSymlinks(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(real, "notes.txt")
	for _, mode := range []string{"vector", "keyword", "hybrid"} {
		var all, only SearchOutput
		call(t, cs, "search", map[string]any{"query": "checksum", "k": 10, "mode": mode}, &all)
		sources := map[string]bool{}
		for _, h := range all.Hits {
			sources[h.Source] = true
		}
		if !sources[notes] || len(sources) < 2 {
			t.Fatalf("%s: unfiltered hits come from %v; the test wants notes.txt and another file", mode, sources)
		}
		if text, isErr := call(t, cs, "search", map[string]any{"query": "checksum", "k": 10, "mode": mode, "source": notes}, &only); isErr || len(only.Hits) == 0 {
			t.Fatalf("%s filtered by source: %s", mode, text)
		}
		for _, h := range only.Hits {
			if h.Source != notes {
				t.Errorf("%s filtered by source %s: a hit of %s", mode, notes, h.Source)
			}
		}
		var none SearchOutput
		if text, isErr := call(t, cs, "search", map[string]any{"query": "checksum", "mode": mode, "where": map[string]any{"team": "nobody"}}, &none); isErr || len(none.Hits) != 0 {
			t.Errorf("%s where nothing matches: %s %+v", mode, text, none.Hits)
		}
	}
	var exact, probed SearchOutput
	call(t, cs, "search", map[string]any{"query": "checksum archive", "k": 3, "mode": "vector", "exact": true}, &exact)
	call(t, cs, "search", map[string]any{"query": "checksum archive", "k": 3, "mode": "vector", "probes": 2}, &probed)
	if len(exact.Hits) != 3 || len(probed.Hits) != 3 {
		t.Fatalf("exact %d hits, probes %d hits, want 3", len(exact.Hits), len(probed.Hits))
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "x", "probes": -1}, "probes"},
		{map[string]any{"query": "x", "where": map[string]any{"team": []any{"a"}}}, "where"},
		{map[string]any{"query": "x", "where": map[string]any{"": "a"}}, "where"},
	} {
		if text, isErr := call(t, cs, "search", c.args, nil); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: error %v %q, want a tool error naming %q", c.args, isErr, text, c.want)
		}
	}
}
