package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// gochunk search --source and --where keep only the hits they name, and
// still return --k of them; --exact and --probes are accepted; a bad
// --where or --probes is a usage error.
func TestSearchFiltersAndIndexFlags(t *testing.T) {
	var in strings.Builder
	for i := range 12 {
		team := "red"
		if i%3 == 0 {
			team = "blue"
		}
		fmt.Fprintf(&in, `{"id": "dir%d/doc%d", "text": "Harbour boats number %d sail at dawn.", "metadata": {"team": %q}}`+"\n", i%2, i, i, team)
	}
	db := filepath.Join(t.TempDir(), "s.db")
	if _, errs, code := runCmd(t, in.String(), "index", "--store", db, "-"); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	for _, c := range []struct {
		args   []string
		prefix string
		team   string
		want   int
	}{
		{[]string{"--source", "dir1/"}, "dir1/", "", 3},
		{[]string{"--where", "team=blue"}, "", "blue", 3},
		{[]string{"--where", "team=blue", "--source", "dir0/"}, "dir0/", "blue", 2},
		{[]string{"--exact", "--probes", "2"}, "", "", 3},
	} {
		for _, mode := range []string{"vector", "hybrid"} {
			args := append([]string{"search", "--store", db, "--json", "--k", "3", "--mode", mode}, c.args...)
			out, errs, code := runCmd(t, "", append(args, "harbour boats at dawn")...)
			if code != 0 {
				t.Fatalf("%v: %d %s", args, code, errs)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != c.want {
				t.Fatalf("%v: %d hits, want %d: %s", args, len(lines), c.want, out)
			}
			for _, l := range lines {
				var h struct {
					Source string `json:"source"`
				}
				if err := json.Unmarshal([]byte(l), &h); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(h.Source, c.prefix) {
					t.Errorf("%v: a hit of %s", args, h.Source)
				}
				var d, n int
				fmt.Sscanf(h.Source, "dir%d/doc%d", &d, &n)
				if c.team == "blue" && n%3 != 0 { // the documents' metadata: blue for every third
					t.Errorf("%v: a hit of %s, not of team blue", args, h.Source)
				}
			}
		}
	}
	for _, bad := range [][]string{{"--where", "team"}, {"--probes", "-1"}} {
		if _, errs, code := runCmd(t, "", append(append([]string{"search", "--store", db}, bad...), "harbour")...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", bad, code, errs)
		}
	}
}
