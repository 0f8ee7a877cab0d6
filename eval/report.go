package eval

import (
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is the evaluation of several configurations on one data set.
type Report struct {
	Dataset   string    `json:"dataset"`
	Questions int       `json:"questions"`
	Skipped   []Skip    `json:"skipped,omitempty"`
	Retriever string    `json:"retriever"`
	K         int       `json:"k"`
	Configs   []*Result `json:"configs"`
}

func pct(mean, std float64) string { return fmt.Sprintf("%.1f ± %.1f", 100*mean, 100*std) }

// WriteTable prints the overall results as a table like the one of
// Chroma's report (percentages, mean ± standard deviation), then one table
// per corpus.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "dataset %s: %d questions", r.Dataset, r.Questions)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, " (%d skipped)", len(r.Skipped))
	}
	fmt.Fprintf(w, ", retriever %s, top %d\n\n", r.Retriever, r.K)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "config\tchunks\tmean tokens\trecall\tprecision\tprecision Ω\tIoU\tchunk s\t")
	for _, c := range r.Configs {
		o := c.Overall
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%.2f\t\n", c.Name, o.Chunks, c.Efficiency.MeanTokens,
			pct(o.Recall, o.RecallStd), pct(o.Precision, o.PrecisionStd), pct(o.PrecisionOmega, o.PrecisionOmegaStd), pct(o.IoU, o.IoUStd), c.Efficiency.ChunkSeconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, corpus := range r.corpora() {
		fmt.Fprintf(w, "\n%s\n", corpus)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "config\tquestions\tchunks\trecall\tprecision\tprecision Ω\tIoU\t")
		for _, c := range r.Configs {
			m := c.PerCorpus[corpus]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", c.Name, m.Questions, m.Chunks,
				pct(m.Recall, m.RecallStd), pct(m.Precision, m.PrecisionStd), pct(m.PrecisionOmega, m.PrecisionOmegaStd), pct(m.IoU, m.IoUStd))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	var extra []string
	for _, c := range r.Configs {
		if s := c.Boundary.summary(); s != "" {
			extra = append(extra, fmt.Sprintf("%s: %s", c.Name, s))
		}
		for _, warn := range c.Warnings {
			extra = append(extra, fmt.Sprintf("%s: warning: %s", c.Name, warn))
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(extra, "\n"))
	}
	return nil
}

func (b Boundary) summary() string {
	var parts []string
	add := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s %.3f", name, *v))
		}
	}
	add("seam recall", b.SeamRecall)
	add("boundary precision", b.BoundaryPrecision)
	add("Pk", b.Pk)
	add("WindowDiff", b.WindowDiff)
	add("purity", b.Purity)
	add("NMI", b.NMI)
	add("cohesion", b.Cohesion)
	add("layout consistency", b.LayoutConsistency)
	return strings.Join(parts, ", ")
}

func (r *Report) corpora() []string {
	set := map[string]bool{}
	for _, c := range r.Configs {
		for id := range c.PerCorpus {
			set[id] = true
		}
	}
	return sortedKeys(set)
}

// WriteCSV writes one row per configuration and corpus ("overall" for all
// corpora), with every metric and efficiency figure.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"config", "chunker", "tokenizer", "corpus", "questions", "chunks", "recall", "recall_std", "precision", "precision_std",
		"precision_omega", "precision_omega_std", "iou", "iou_std", "mean_tokens", "median_tokens", "max_tokens", "chunk_seconds", "embed_seconds",
		"seam_recall", "boundary_precision", "pk", "window_diff", "purity", "nmi", "cohesion", "layout_consistency"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return f(*x)
	}
	for _, c := range r.Configs {
		rows := append([]string{"overall"}, r.corpora()...)
		for _, corpus := range rows {
			m := c.Overall
			if corpus != "overall" {
				m = c.PerCorpus[corpus]
			}
			e, b := c.Efficiency, c.Boundary
			cw.Write([]string{c.Name, c.Chunker, c.Tokenizer, corpus, strconv.Itoa(m.Questions), strconv.Itoa(m.Chunks),
				f(m.Recall), f(m.RecallStd), f(m.Precision), f(m.PrecisionStd), f(m.PrecisionOmega), f(m.PrecisionOmegaStd), f(m.IoU), f(m.IoUStd),
				f(e.MeanTokens), f(e.MedianTokens), strconv.Itoa(e.MaxTokens), f(e.ChunkSeconds), f(e.EmbedSeconds),
				opt(b.SeamRecall), opt(b.BoundaryPrecision), opt(b.Pk), opt(b.WindowDiff), opt(b.Purity), opt(b.NMI), opt(b.Cohesion), opt(b.LayoutConsistency)})
		}
	}
	cw.Flush()
	return cw.Error()
}

type bar struct {
	Label      string
	X, Y, W, H float64
	Value      string
}

type chart struct {
	Title         string
	Width, Height float64
	Bars          []bar
}

// WriteHTML writes a self-contained page (inline SVG, no script, no network
// at view time) with one bar chart per metric and one histogram of chunk
// sizes per configuration.
func (r *Report) WriteHTML(w io.Writer) error {
	metrics := []struct {
		name string
		get  func(Metrics) float64
	}{
		{"Recall", func(m Metrics) float64 { return m.Recall }},
		{"Precision", func(m Metrics) float64 { return m.Precision }},
		{"Precision Ω", func(m Metrics) float64 { return m.PrecisionOmega }},
		{"IoU", func(m Metrics) float64 { return m.IoU }},
	}
	const bw, gap, h = 48.0, 16.0, 180.0
	var charts []chart
	for _, m := range metrics {
		c := chart{Title: m.name + " (%)", Width: float64(len(r.Configs))*(bw+gap) + gap, Height: h + 20}
		top := 0.0
		for _, cfg := range r.Configs {
			top = max(top, m.get(cfg.Overall))
		}
		top = math.Max(top, 1e-9)
		for i, cfg := range r.Configs {
			v := m.get(cfg.Overall)
			bh := v / top * (h - 20)
			c.Bars = append(c.Bars, bar{cfg.Name, gap + float64(i)*(bw+gap), h - bh, bw, bh, fmt.Sprintf("%.1f", 100*v)})
		}
		charts = append(charts, c)
	}
	var hists []chart
	for _, cfg := range r.Configs {
		counts := cfg.Efficiency.TokenCounts
		if len(counts) == 0 {
			continue
		}
		mx := 1
		for _, n := range counts {
			mx = max(mx, n)
		}
		const bins = 20
		hist := make([]int, bins)
		for _, n := range counts {
			hist[min(bins-1, n*bins/(mx+1))]++
		}
		top := 1
		for _, n := range hist {
			top = max(top, n)
		}
		c := chart{Title: fmt.Sprintf("%s: chunk sizes (tokens, 0 to %d)", cfg.Name, mx), Width: bins*22 + 20, Height: 140}
		for i, n := range hist {
			bh := float64(n) / float64(top) * 110
			lo := i * (mx + 1) / bins
			c.Bars = append(c.Bars, bar{strconv.Itoa(lo), 10 + float64(i)*22, 120 - bh, 18, bh, strconv.Itoa(n)})
		}
		hists = append(hists, c)
	}
	var table strings.Builder
	if err := r.WriteTable(&table); err != nil {
		return err
	}
	return reportPage.Execute(w, map[string]any{"R": r, "Charts": charts, "Hists": hists, "Table": table.String()})
}

var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gochunk eval: {{.R.Dataset}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em} h2{font-size:1.1em;margin-top:2em}
pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:.85em}
.charts{display:flex;flex-wrap:wrap;gap:2em}
svg text{font-size:10px}
.bar{fill:#3b73b9} .hist{fill:#6aa84f}
</style></head><body>
<h1>gochunk eval: {{.R.Dataset}}</h1>
<p>{{.R.Questions}} questions, retriever {{.R.Retriever}}, top {{.R.K}} chunks per question.</p>
<h2>Retrieval metrics (overall)</h2>
<div class="charts">
{{range .Charts}}<figure><figcaption>{{.Title}}</figcaption>
<svg width="{{.Width}}" height="{{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}: {{.Value}}</title></rect>
<text x="{{.X}}" y="{{.Y}}" dy="-2">{{.Value}}</text>
<text x="{{.X}}" y="194">{{printf "%.8s" .Label}}</text>
{{end}}</svg></figure>
{{end}}</div>
<h2>Chunk sizes</h2>
<div class="charts">
{{range .Hists}}<figure><figcaption>{{.Title}}</figcaption>
<svg width="{{.Width}}" height="{{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<rect class="hist" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>from {{.Label}}: {{.Value}} chunks</title></rect>
{{end}}</svg></figure>
{{end}}</div>
<h2>Tables</h2>
<pre>{{.Table}}</pre>
</body></html>
`))
