package eval

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func paragraphs(topic string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s paragraph %d. %s\n\n", topic, i, strings.Repeat("Some words about "+topic+" go here. ", 8))
	}
	return b.String()
}

// StitchSegments draws segments of whole paragraphs, never two neighbours
// from one source, seams where segments start, the same for a seed; the
// written set loads back with its boundaries.
func TestStitchSegments(t *testing.T) {
	srcs := []SeamSource{{"a", paragraphs("alpha", 12)}, {"b", paragraphs("beta", 12)}, {"c", "too short\n\nalso short"}, {"d", paragraphs("delta", 12)}}
	docs, err := StitchSegments(srcs, SeamOptions{Documents: 10, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := StitchSegments(srcs, SeamOptions{Documents: 10, Seed: 7})
	if !reflect.DeepEqual(docs, again) {
		t.Error("the same seed gave other documents")
	}
	for _, d := range docs {
		if len(d.Sources) < 4 || len(d.Sources) > 6 || len(d.Seams) != len(d.Sources)-1 {
			t.Fatalf("%s: %d segments, %d seams", d.Name, len(d.Sources), len(d.Seams))
		}
		for k, s := range d.Seams {
			if d.Sources[k] == d.Sources[k+1] || d.Sources[k+1] == "c" || d.Text[s-2:s] != "\n\n" {
				t.Errorf("%s: seam %d between %s and %s at %q", d.Name, k, d.Sources[k], d.Sources[k+1], d.Text[s-2:min(len(d.Text), s+10)])
			}
			if !strings.HasPrefix(d.Text[s:], map[string]string{"a": "alpha", "b": "beta", "d": "delta"}[d.Sources[k+1]]) {
				t.Errorf("%s: seam %d does not start a %s segment", d.Name, k, d.Sources[k+1])
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "set")
	if err := WriteSeams(dir, docs); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(dir)
	if err != nil || len(ds.Corpora) != 10 || len(ds.Corpora[0].Boundaries) != len(docs[0].Seams)+1 {
		t.Fatalf("loaded back: %v", err)
	}
	if _, err := StitchSegments(srcs[2:3], SeamOptions{}); err == nil {
		t.Error("one usable source: no error")
	}
}
