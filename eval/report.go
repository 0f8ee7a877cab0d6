package eval

import (
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
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
	// Comparisons hold every configuration's difference from the first,
	// with paired bootstrap confidence intervals.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// Budget is the number of chunks each corpus was held to, if any.
	Budget map[string]int `json:"budget,omitempty"`
	// NotTried names the configurations Options.Deadline left out.
	NotTried []string `json:"not_tried,omitempty"`
}

// pct prints a mean over n questions with its 95 % confidence interval,
// in percent, as the HTML report does.
func pct(mean, std float64, n int) string {
	return fmt.Sprintf("%.1f ± %.1f", 100*mean, 100*ci95(std, n))
}

// WriteTable prints the overall results as a table like the one of
// Chroma's report (percentages), then one table per corpus; ± is the 95 %
// confidence interval of the mean over questions, as in the HTML report
// (the JSON and CSV keep the standard deviations). A data set without
// questions that was scored on boundaries (a segmentation set) gets one
// table of its boundary scores instead.
func (r *Report) WriteTable(w io.Writer) error {
	if r.boundaryOnly() {
		return r.writeBoundaryTable(w)
	}
	fmt.Fprintf(w, "dataset %s: %d questions", r.Dataset, r.Questions)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, " (%d skipped)", len(r.Skipped))
	}
	fmt.Fprintf(w, ", retriever %s, top %d\n", r.Retriever, r.K)
	if len(r.Budget) > 0 {
		var parts []string
		for _, corpus := range sortedKeys(r.Budget) {
			parts = append(parts, fmt.Sprintf("%s ≤ %d", corpus, r.Budget[corpus]))
		}
		fmt.Fprintf(w, "budget, chunks per corpus: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w, "percentages: mean ± 95% confidence interval of the mean over questions")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "config\tchunks\tmean tokens\trecall\tprecision\tprecision Ω\tIoU\tchunk s\t")
	for _, c := range r.Configs {
		o := c.Overall
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%.2f\t\n", c.Name, o.Chunks, c.Efficiency.MeanTokens,
			pct(o.Recall, o.RecallStd, o.Questions), pct(o.Precision, o.PrecisionStd, o.Questions), pct(o.PrecisionOmega, o.PrecisionOmegaStd, o.Questions), pct(o.IoU, o.IoUStd, o.Questions), c.Efficiency.ChunkSeconds)
		if m := c.Reranked; m != nil {
			fmt.Fprintf(tw, "  reranked (%s)\t\t\t%s\t%s\t%s\t%s\t\t\n", c.Reranker,
				pct(m.Recall, m.RecallStd, m.Questions), pct(m.Precision, m.PrecisionStd, m.Questions), pct(m.PrecisionOmega, m.PrecisionOmegaStd, m.Questions), pct(m.IoU, m.IoUStd, m.Questions))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, corpus := range r.corpora() {
		fmt.Fprintf(w, "\n%s\n", corpus)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "config\tquestions\tchunks\tsize\trecall\tprecision\tprecision Ω\tIoU\t")
		for _, c := range r.Configs {
			m, size := c.PerCorpus[corpus], "-"
			if v, ok := c.BudgetSizes[corpus]; ok {
				size = strconv.Itoa(v)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, m.Questions, m.Chunks, size,
				pct(m.Recall, m.RecallStd, m.Questions), pct(m.Precision, m.PrecisionStd, m.Questions), pct(m.PrecisionOmega, m.PrecisionOmegaStd, m.Questions), pct(m.IoU, m.IoUStd, m.Questions))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := r.writePipelineTable(w); err != nil {
		return err
	}
	var extra []string
	for _, c := range r.Configs {
		if _, ok := c.Latency["end_to_end"]; ok {
			var parts []string
			for _, stage := range []string{"end_to_end", "chunking_amortised", "retrieval", "rerank", "generation"} {
				if l, ok := c.Latency[stage]; ok {
					parts = append(parts, fmt.Sprintf("%s %.4f/%.4f", strings.ReplaceAll(stage, "_", " "), l.P50, l.P95))
				}
			}
			extra = append(extra, fmt.Sprintf("%s: seconds per question, p50/p95: %s", c.Name, strings.Join(parts, ", ")))
		}
		for _, j := range []*Judged{c.Judged, c.JudgedReranked} {
			if j != nil {
				extra = append(extra, fmt.Sprintf("%s: judge %s on %d questions (%s chunks): %s", c.Name, j.Model, j.Questions, j.Contexts, j.usage()))
			}
		}
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

// writePipelineTable prints, when there is a reranker or a judge, the
// table of reference 001: each configuration's retrieval with and without
// the reranker, its retrieval scores, LLM-judged metrics and latency.
func (r *Report) writePipelineTable(w io.Writer) error {
	show := false
	for _, c := range r.Configs {
		show = show || c.Reranked != nil || c.Judged != nil
	}
	if !show {
		return nil
	}
	fmt.Fprint(w, "\nretrieval pipeline: LLM-judged metrics in [0, 1], mean ± 95% confidence interval; seconds per question end to end, p50 / p95\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "config\tretrieval\trecall\tIoU\tLLM context precision\tLLM context recall\tfaithfulness\tanswer relevancy\tlatency\twith generation\t")
	judged := func(j *Judged) string {
		if j == nil {
			return "-\t-\t-\t-"
		}
		f := func(s JudgedStat) string { return fmt.Sprintf("%.2f ± %.2f", s.Mean, ci95(s.Std, j.Questions)) }
		return strings.Join([]string{f(j.ContextPrecision), f(j.ContextRecall), f(j.Faithfulness), f(j.AnswerRelevancy)}, "\t")
	}
	lat := func(c *Result, stage string) string {
		if q, ok := c.Latency[stage]; ok {
			return fmt.Sprintf("%.4f / %.4f", q.P50, q.P95)
		}
		return "-"
	}
	for _, c := range r.Configs {
		o, plain, withGen := c.Overall, "end_to_end", "end_to_end_with_generation"
		if c.Reranked != nil {
			plain, withGen = "end_to_end_without_rerank", "end_to_end_without_rerank_with_generation"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, c.Retriever, pct(o.Recall, o.RecallStd, o.Questions), pct(o.IoU, o.IoUStd, o.Questions), judged(c.Judged), lat(c, plain), lat(c, withGen))
		if m := c.Reranked; m != nil {
			fmt.Fprintf(tw, "%s\t%s + %s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, c.Retriever, c.Reranker, pct(m.Recall, m.RecallStd, m.Questions), pct(m.IoU, m.IoUStd, m.Questions),
				judged(c.JudgedReranked), lat(c, "end_to_end"), lat(c, "end_to_end_with_generation"))
		}
	}
	return tw.Flush()
}

// usage says what the judge's calls took and cost.
func (j *Judged) usage() string {
	u := j.Usage
	s := fmt.Sprintf("%d model calls (%d cached), %d prompt and %d completion tokens", u.Calls, u.CachedCalls, u.PromptTokens, u.CompletionTokens)
	if j.CostUSD != nil {
		s += fmt.Sprintf(", $%.4f this run ($%.4f without the cache)", *j.CostUSD, *j.CostUncachedUSD)
	}
	return s
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

// WriteRanking prints the configurations in order (indexes of
// r.Configs, as Best returns them) with their overall metrics, marking
// best.
func (r *Report) WriteRanking(w io.Writer, order []int, best int) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "config\trecall\tprecision\tprecision Ω\tIoU\t\n")
	for _, i := range order {
		o, mark := r.Configs[i].Overall, ""
		if i == best {
			mark = "  <- best"
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", r.Configs[i].Name, o.Recall, o.Precision, o.PrecisionOmega, o.IoU, mark)
	}
	return tw.Flush()
}

// HTMLOptions add a tuning view to the HTML report: Objective (a metric
// name, see Metrics.Metric) plotted against each configuration's number of
// chunks, with the configuration at index Best marked.
type HTMLOptions struct {
	Objective string
	Best      int
}

// WriteHTML writes the report as one HTML page (no network needed to view
// it): bar charts of every metric with 95 % confidence intervals, recall
// against precision Ω across configurations, per-corpus tables, chunk-size
// distributions, and the text tables.
func (r *Report) WriteHTML(w io.Writer) error { return r.WriteHTMLOptions(w, HTMLOptions{Best: -1}) }

// WriteHTMLOptions is WriteHTML with options.
func (r *Report) WriteHTMLOptions(w io.Writer, opt HTMLOptions) error {
	metrics := []struct{ Name, Key string }{{"Recall", "recall"}, {"Precision", "precision"}, {"Precision Ω", "precision_omega"}, {"IoU", "iou"}}
	stds := func(m Metrics) map[string]float64 {
		return map[string]float64{"recall": m.RecallStd, "precision": m.PrecisionStd, "precision_omega": m.PrecisionOmegaStd, "iou": m.IoUStd}
	}
	var charts []template.HTML
	for _, m := range metrics {
		var rows []barRow
		for _, cfg := range r.Configs {
			v, _ := cfg.Overall.Metric(m.Key)
			rows = append(rows, barRow{cfg.Name, 100 * v, 100 * ci95(stds(cfg.Overall)[m.Key], cfg.Overall.Questions)})
		}
		charts = append(charts, barChart(m.Name, m.Name+" (%), mean and 95% confidence interval", rows))
	}
	var pts []point
	for i, cfg := range r.Configs {
		pts = append(pts, point{label: cfg.Name, x: 100 * cfg.Overall.PrecisionOmega, y: 100 * cfg.Overall.Recall, mark: i == opt.Best})
	}
	tradeoff := scatter("recall against precision Ω", "precision Ω (%)", "recall (%)", pts)
	var tune template.HTML
	if opt.Objective != "" {
		var tp []point
		for i, cfg := range r.Configs {
			v, _ := cfg.Overall.Metric(opt.Objective)
			tp = append(tp, point{label: cfg.Name, x: float64(cfg.Efficiency.Chunks), y: 100 * v, mark: i == opt.Best})
		}
		tune = scatter(opt.Objective+" against chunks", "chunks (all corpora)", opt.Objective+" (%)", tp)
	}
	type figure struct {
		Title string
		SVG   template.HTML
	}
	var hists []figure
	for _, cfg := range r.Configs {
		if len(cfg.Efficiency.TokenCounts) > 0 {
			hists = append(hists, figure{cfg.Name, histogram(cfg.Name, "chunk size ("+cmpOr(cfg.Tokenizer, "tokens")+")", cfg.Efficiency.TokenCounts)})
		}
	}
	type cell struct{ Value, CI string }
	type row struct {
		Config string
		Cells  []cell
		Chunks int
	}
	type corpusTable struct {
		Corpus string
		Rows   []row
	}
	var tables []corpusTable
	for _, corpus := range append([]string{""}, r.corpora()...) {
		t := corpusTable{Corpus: corpus}
		for _, cfg := range r.Configs {
			m, ok := cfg.Overall, true
			if corpus != "" {
				m, ok = cfg.PerCorpus[corpus]
			}
			if !ok {
				continue
			}
			rw := row{Config: cfg.Name, Chunks: m.Chunks}
			for _, mt := range metrics {
				v, _ := m.Metric(mt.Key)
				rw.Cells = append(rw.Cells, cell{fmt.Sprintf("%.1f", 100*v), fmt.Sprintf("± %.1f", 100*ci95(stds(m)[mt.Key], m.Questions))})
			}
			t.Rows = append(t.Rows, rw)
		}
		tables = append(tables, t)
	}
	var text strings.Builder
	if err := r.WriteTable(&text); err != nil {
		return err
	}
	return reportPage.Execute(w, map[string]any{"R": r, "Charts": charts, "Tradeoff": tradeoff, "Tune": tune, "Objective": opt.Objective,
		"Hists": hists, "Tables": tables, "Metrics": metrics, "Text": text.String()})
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{"pp": func(x float64) float64 { return 100 * x }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>gochunk eval: {{.R.Dataset}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#1f2937;max-width:1300px}
h1{font-size:1.35em} h2{font-size:1.05em;margin-top:1.8em}
.charts{display:flex;flex-wrap:wrap;gap:1.2em 2em}
figure{margin:0} figcaption{font-size:.85em;color:#4b5563;margin-bottom:.3em}
svg text{font-size:11px;fill:#374151}
.bar{fill:#3b82f6} .hist{fill:#10b981} .ci{stroke:#111827;stroke-width:1.2}
.pt{fill:#3b82f6;opacity:.85} .pt.best{fill:#dc2626}
table{border-collapse:collapse;font-size:.85em;margin:.4em 0 1em}
td,th{border-bottom:1px solid #e5e7eb;padding:.25em .6em;text-align:right}
td:first-child,th:first-child{text-align:left}
td small{color:#6b7280}
pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:.8em}
</style></head><body>
<h1>gochunk eval: {{.R.Dataset}}</h1>
<p>{{.R.Questions}} questions, retriever {{.R.Retriever}}, top {{.R.K}} chunks per question; {{len .R.Configs}} configurations. Percentages; the bars' whiskers and the ± columns are 95% confidence intervals of the mean over questions.</p>
<h2>Retrieval metrics, all corpora</h2>
<div class="charts">{{range .Charts}}<figure>{{.}}</figure>{{end}}</div>
<h2>Recall against precision Ω</h2>
<div class="charts"><figure><figcaption>each point a configuration</figcaption>{{.Tradeoff}}</figure>
{{if .Tune}}<figure><figcaption>{{.Objective}} against the number of chunks; red: the best configuration</figcaption>{{.Tune}}</figure>{{end}}</div>
{{if .R.Comparisons}}<h2>Differences from {{(index .R.Configs 0).Name}}</h2>
<p>Mean difference over the same questions (percentage points) and its 95% paired bootstrap confidence interval (2,000 resamples); an interval that excludes 0 is a difference beyond noise.</p>
<table><thead><tr><th>configuration</th><th>metric</th><th>difference</th><th>95% interval</th></tr></thead><tbody>
{{range .R.Comparisons}}<tr><td>{{.Config}}</td><td>{{.Metric}}</td><td>{{printf "%+.1f" (pp .Diff)}}</td><td>[{{printf "%+.1f" (pp .Lo)}}, {{printf "%+.1f" (pp .Hi)}}]</td></tr>{{end}}
</tbody></table>{{end}}
<h2>Per corpus</h2>
{{range .Tables}}<h3>{{if .Corpus}}{{.Corpus}}{{else}}all corpora{{end}}</h3>
<table><thead><tr><th>configuration</th>{{range $.Metrics}}<th>{{.Name}}</th>{{end}}<th>chunks</th></tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Config}}</td>{{range .Cells}}<td>{{.Value}} <small>{{.CI}}</small></td>{{end}}<td>{{.Chunks}}</td></tr>{{end}}
</tbody></table>{{end}}
<h2>Chunk sizes</h2>
<div class="charts">{{range .Hists}}<figure><figcaption>{{.Title}}</figcaption>{{.SVG}}</figure>{{end}}</div>
<details><summary>Text tables</summary><pre>{{.Text}}</pre></details>
</body></html>
`))
