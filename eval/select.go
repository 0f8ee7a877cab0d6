package eval

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Selection is the choice among a report's configurations, given in order
// of simplicity (the simplest first), that tune --select makes: the best
// on the objective, and the simplest configuration the best is not
// significantly better than.
type Selection struct {
	Objective string
	// Best is the configuration with the highest objective among those
	// with recall at least the minimum; Chosen the simplest one whose
	// paired difference from Best has a 95 % interval reaching 0 (Best
	// when none does).
	Best, Chosen int
	// Rows are every configuration, best first.
	Rows []SelectionRow
}

// SelectionRow is one configuration's objective, the 95 % confidence
// interval of its mean over questions, and its paired difference from the
// best with that difference's 95 % bootstrap interval.
type SelectionRow struct {
	Config         int
	Name           string
	Value, CI      float64
	Diff, Lo, Hi   float64
	Eligible       bool // recall at least the minimum
	NotSignificant bool // the best is not significantly better
}

// Select ranks r's configurations on objective and chooses as Selection
// says. Configurations with recall under minRecall, and chunks imported
// from other libraries (they have a report card: they can be the best
// to beat, never the choice), are ranked but never chosen; it is an error
// when no configuration can be.
func Select(r *Report, objective string, minRecall float64) (Selection, error) {
	s := Selection{Objective: objective}
	if _, ok := (Metrics{}).Metric(objective); !ok {
		return s, fmt.Errorf("objective %q: want recall, precision, precision_omega, iou or hit_rate", objective)
	}
	best, order := r.Best(objective, minRecall)
	if best < 0 {
		return s, fmt.Errorf("no configuration reaches recall %.3f", minRecall)
	}
	s.Best, s.Chosen = best, -1
	choosable := func(i int) bool { return r.Configs[i].ReportCard == nil && r.Configs[i].Overall.Recall >= minRecall }
	for _, i := range order {
		c := r.Configs[i]
		v, _ := c.Overall.Metric(objective)
		row := SelectionRow{Config: i, Name: c.Name, Value: v, CI: ci95(metricStd(c.Overall, objective), c.Overall.Questions),
			Eligible: c.Overall.Recall >= minRecall}
		if i != best {
			d, lo, hi, ok := PairedBootstrap(r.Configs[best].Scores, c.Scores, objective, 2000, 1)
			if ok {
				row.Diff, row.Lo, row.Hi = d, lo, hi
				row.NotSignificant = hi >= 0
			}
		} else {
			row.NotSignificant = true
		}
		s.Rows = append(s.Rows, row)
	}
	// The simplest choosable configuration the best is not significantly
	// better than; else the best choosable one.
	for i := range r.Configs {
		if choosable(i) && s.Rows[rowOf(s.Rows, i)].NotSignificant {
			s.Chosen = i
			break
		}
	}
	if s.Chosen < 0 {
		for _, i := range order {
			if choosable(i) {
				s.Chosen = i
				break
			}
		}
	}
	if s.Chosen < 0 {
		return s, fmt.Errorf("no gochunk configuration reaches recall %.3f", minRecall)
	}
	return s, nil
}

func rowOf(rows []SelectionRow, config int) int {
	for k, r := range rows {
		if r.Config == config {
			return k
		}
	}
	return -1
}

// metricStd is the standard deviation over questions of a metric, NaN for
// one without (hit rate).
func metricStd(m Metrics, name string) float64 {
	switch name {
	case "recall":
		return m.RecallStd
	case "precision":
		return m.PrecisionStd
	case "precision_omega":
		return m.PrecisionOmegaStd
	case "iou":
		return m.IoUStd
	case "hit_rate":
		return math.Sqrt(m.HitRate * (1 - m.HitRate))
	}
	return math.NaN()
}

// Write prints the ranking and the choice.
func (s Selection) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rank\tconfig\t%s (%%)\tvs best (%%, 95%% paired interval)\t\n", s.Objective)
	for k, r := range s.Rows {
		vs := "best"
		if r.Config != s.Best {
			vs = fmt.Sprintf("%+.1f [%+.1f, %+.1f]", 100*r.Diff, 100*r.Lo, 100*r.Hi)
			if r.NotSignificant {
				vs += " not significantly worse"
			}
		}
		if !r.Eligible {
			vs += " (under --min-recall)"
		}
		mark := ""
		if r.Config == s.Chosen {
			mark = "  <- chosen"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.1f ± %.1f\t%s%s\t\n", k+1, r.Name, 100*r.Value, 100*r.CI, vs, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	best, chosen := "", ""
	for _, r := range s.Rows {
		if r.Config == s.Best {
			best = r.Name
		}
		if r.Config == s.Chosen {
			chosen = r.Name
		}
	}
	var err error
	if s.Chosen == s.Best {
		_, err = fmt.Fprintf(w, "chosen: %s, the best on %s, significantly better than every simpler configuration\n", best, s.Objective)
	} else {
		_, err = fmt.Fprintf(w, "chosen: %s, simpler than the best (%s), which is not significantly better on %s\n", chosen, best, s.Objective)
	}
	return err
}
