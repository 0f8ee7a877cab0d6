package eval

import (
	"strings"
	"testing"
)

// Select keeps the simplest configuration the best is not significantly
// better than, and the best when it is significantly better than every
// simpler one; configurations under the minimum recall are never chosen.
func TestSelect(t *testing.T) {
	scores := func(rs ...float64) []QuestionScores {
		var out []QuestionScores
		for _, r := range rs {
			out = append(out, QuestionScores{Recall: r})
		}
		return out
	}
	result := func(name string, s []QuestionScores) *Result {
		m := 0.0
		for _, q := range s {
			m += q.Recall
		}
		return &Result{Name: name, Scores: s, Overall: Metrics{Recall: m / float64(len(s)), Questions: len(s)}}
	}
	n := 40
	simple, close, better := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		simple[i] = 0.5 + 0.01*float64(i%5)
		close[i] = simple[i] + []float64{0.02, -0.02}[i%2] // same mean, noisy
		better[i] = simple[i] + 0.2
	}
	r := &Report{Configs: []*Result{result("simple", scores(simple...)), result("complex", scores(close...))}}
	r.Configs[1].Overall.Recall += 1e-9 // the complex one ranks first
	s, err := Select(r, "recall", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Best != 1 || s.Chosen != 0 {
		t.Errorf("not significantly better: best %d, chosen %d, want 1 and 0", s.Best, s.Chosen)
	}
	r.Configs[1] = result("complex", scores(better...))
	if s, _ = Select(r, "recall", 0); s.Best != 1 || s.Chosen != 1 {
		t.Errorf("significantly better: best %d, chosen %d, want 1 and 1", s.Best, s.Chosen)
	}
	var b strings.Builder
	s.Write(&b)
	if !strings.Contains(b.String(), "chosen: complex, the best") {
		t.Errorf("report:\n%s", b.String())
	}
	if s, _ = Select(r, "recall", 0.6); s.Chosen != 1 {
		t.Errorf("the one under min recall chosen: %d", s.Chosen)
	}
	if _, err := Select(r, "recall", 0.99); err == nil {
		t.Error("no configuration reaches 0.99, yet one was chosen")
	}
}
