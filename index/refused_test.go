package index

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/store"
)

// In a window of several documents, one the store refuses (PostgreSQL
// takes no NUL character in text) fails alone: the window's others and
// the windows after are written.
func TestWindowWithRefusedDocument(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, pgtest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lines := `{"id": "a", "text": "first good"}
{"id": "nul", "text": "a NUL \u0000 character"}
{"id": "b", "text": "second good"}
{"id": "c", "text": "third good"}
`
	sum, err := Run(ctx, st, newPipeline(t, `{}`), []Source{JSONLines{Label: "-", R: strings.NewReader(lines)}}, Options{Window: 3})
	if !errors.Is(err, ErrFailed) || sum.Documents.Added != 3 || sum.Documents.Failed != 1 || len(sum.Failures) != 1 || sum.Failures[0].ID != "nul" {
		t.Fatalf("%v: %+v", err, sum)
	}
	if sum.Store.Documents != 3 {
		t.Errorf("store holds %d documents, want 3", sum.Store.Documents)
	}
}
