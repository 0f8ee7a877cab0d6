package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// boundaryOnly tells whether the report is of a data set without questions
// whose configurations were scored on boundaries (a segmentation set such as
// ../shared/eval/stitched): its retrieval tables would hold only zeros.
func (r *Report) boundaryOnly() bool {
	if r.Questions > 0 || len(r.Skipped) > 0 {
		return false
	}
	for _, c := range r.Configs {
		if c.Boundary.summary() != "" {
			return true
		}
	}
	return false
}

// writeBoundaryTable prints a boundary-only report: one row per
// configuration with the boundary scores any of them has, then the
// configurations' warnings.
func (r *Report) writeBoundaryTable(w io.Writer) error {
	fmt.Fprintf(w, "dataset %s: no questions; chunk boundaries scored against the gold ones\n\n", r.Dataset)
	type metric struct {
		name string
		get  func(Boundary) *float64
	}
	all := []metric{
		{"seam recall", func(b Boundary) *float64 { return b.SeamRecall }},
		{"boundary precision", func(b Boundary) *float64 { return b.BoundaryPrecision }},
		{"Pk", func(b Boundary) *float64 { return b.Pk }},
		{"WindowDiff", func(b Boundary) *float64 { return b.WindowDiff }},
		{"purity", func(b Boundary) *float64 { return b.Purity }},
		{"NMI", func(b Boundary) *float64 { return b.NMI }},
		{"cohesion", func(b Boundary) *float64 { return b.Cohesion }},
		{"layout consistency", func(b Boundary) *float64 { return b.LayoutConsistency }},
	}
	var shown []metric
	for _, m := range all {
		for _, c := range r.Configs {
			if m.get(c.Boundary) != nil {
				shown = append(shown, m)
				break
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"config", "chunks", "mean tokens"}
	for _, m := range shown {
		head = append(head, m.name)
	}
	fmt.Fprintln(tw, strings.Join(append(head, "chunk s"), "\t")+"\t")
	for _, c := range r.Configs {
		row := []string{c.Name, fmt.Sprint(c.Overall.Chunks), fmt.Sprintf("%.1f", c.Efficiency.MeanTokens)}
		for _, m := range shown {
			if v := m.get(c.Boundary); v != nil {
				row = append(row, fmt.Sprintf("%.3f", *v))
			} else {
				row = append(row, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(append(row, fmt.Sprintf("%.2f", c.Efficiency.ChunkSeconds)), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var warnings []string
	for _, c := range r.Configs {
		for _, warn := range c.Warnings {
			warnings = append(warnings, fmt.Sprintf("%s: warning: %s", c.Name, warn))
		}
	}
	if len(warnings) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(warnings, "\n"))
	}
	return nil
}
