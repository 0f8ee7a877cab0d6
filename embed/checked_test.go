package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// fixed returns the same vectors (or error) whatever it is asked.
type fixed struct {
	vs  [][]float32
	err error
}

func (f fixed) Embed(context.Context, []string) ([][]float32, error) { return f.vs, f.err }
func (fixed) Dim() int                                               { return 2 }
func (fixed) MaxTokens() int                                         { return 0 }
func (fixed) ModelID() string                                        { return "fixed" }

func TestChecked(t *testing.T) {
	ctx := context.Background()
	texts := []string{"a", "b"}
	boom := errors.New("boom")
	nan := float32(math.NaN())
	for _, c := range []struct {
		name string
		e    fixed
		want error
		msg  string
	}{
		{"provider error", fixed{err: boom}, boom, "boom"},
		{"too few", fixed{vs: [][]float32{{1, 0}}}, ErrCount, "1 vectors for 2"},
		{"ragged", fixed{vs: [][]float32{{1, 0}, {1}}}, ErrDimension, "vector 1"},
		{"empty", fixed{vs: [][]float32{{}, {}}}, ErrDimension, "vector 0"},
		{"NaN", fixed{vs: [][]float32{{1, 0}, {nan, 0}}}, nil, "NaN"},
	} {
		_, err := Checked(ctx, c.e, texts)
		if err == nil || !strings.HasPrefix(err.Error(), "embedding:") || !strings.Contains(err.Error(), c.msg) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	vs, err := Checked(ctx, fixed{vs: [][]float32{{1, 0}, {0, 1}}}, texts)
	if err != nil || len(vs) != 2 {
		t.Errorf("good vectors: %v %v", vs, err)
	}
	if vs, err := Checked(ctx, fixed{err: boom}, nil); vs != nil || err != nil {
		t.Errorf("no texts: %v %v", vs, err)
	}
}
