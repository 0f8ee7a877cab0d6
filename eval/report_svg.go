package eval

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// The report's charts, drawn as SVG on the server side: horizontal bars
// with labels at full length, axes with ticks, 95 % confidence intervals
// (mean ± 1.96 standard errors over questions), scatter plots.

// niceMax rounds v up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// ci95 is the half-width of the 95 % confidence interval of a mean over n
// questions with standard deviation std.
func ci95(std float64, n int) float64 {
	if n <= 1 {
		return 0
	}
	return 1.96 * std / math.Sqrt(float64(n))
}

type barRow struct {
	label      string
	value, err float64 // in the chart's unit
}

// barChart draws rows as horizontal bars with error bars and an x axis.
func barChart(title, unit string, rows []barRow) template.HTML {
	labelW := 60
	for _, r := range rows {
		labelW = max(labelW, 7*len([]rune(r.label))+10)
	}
	const plotW, rowH = 360, 22
	top := 0.0
	for _, r := range rows {
		top = max(top, r.value+r.err)
	}
	top = niceMax(top)
	x := func(v float64) float64 { return float64(labelW) + plotW*v/top }
	h := len(rows)*rowH + 46
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" role="img" aria-label="%s">`, labelW+plotW+60, h, html.EscapeString(title))
	axisY := len(rows)*rowH + 8
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="4" y2="%d" stroke="#eee"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(v), x(v), axisY, x(v), axisY+14, tick(v))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#555"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`,
		labelW, labelW+plotW, axisY, axisY, x(top/2), axisY+30, html.EscapeString(unit))
	for i, r := range rows {
		y := 6 + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, labelW-6, y+12, html.EscapeString(r.label))
		fmt.Fprintf(&b, `<rect class="bar" x="%d" y="%d" width="%.1f" height="14"><title>%s: %.1f ± %.1f</title></rect>`,
			labelW, y+2, x(r.value)-float64(labelW), html.EscapeString(r.label), r.value, r.err)
		if r.err > 0 {
			fmt.Fprintf(&b, `<line class="ci" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><line class="ci" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><line class="ci" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`,
				x(r.value-r.err), x(r.value+r.err), y+9, y+9, x(r.value-r.err), x(r.value-r.err), y+5, y+13, x(r.value+r.err), x(r.value+r.err), y+5, y+13)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%.1f</text>`, x(r.value+r.err)+4, y+12, r.value)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

type point struct {
	label string
	x, y  float64
	mark  bool // drawn larger and red (the best configuration)
}

// scatter draws labelled points with both axes.
func scatter(title, xUnit, yUnit string, pts []point) template.HTML {
	const w, h, left, bottom = 520, 320, 52, 40
	xmax, ymax := 0.0, 0.0
	for _, p := range pts {
		xmax, ymax = max(xmax, p.x), max(ymax, p.y)
	}
	xmax, ymax = niceMax(xmax), niceMax(ymax)
	X := func(v float64) float64 { return left + (w-left-20)*v/xmax }
	Y := func(v float64) float64 { return h - bottom - (h-bottom-14)*v/ymax }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" role="img" aria-label="%s">`, w, h, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		xv, yv := xmax*float64(i)/4, ymax*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="14" y2="%d" stroke="#eee"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`, X(xv), X(xv), h-bottom, X(xv), h-bottom+14, tick(xv))
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`, left, w-20, Y(yv), Y(yv), left-4, Y(yv)+3, tick(yv))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#555"/><line x1="%d" x2="%d" y1="14" y2="%d" stroke="#555"/>`, left, w-20, h-bottom, h-bottom, left, left, h-bottom)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, X(xmax/2), h-6, html.EscapeString(xUnit))
	fmt.Fprintf(&b, `<text x="12" y="%.1f" transform="rotate(-90 12 %.1f)" text-anchor="middle">%s</text>`, Y(ymax/2), Y(ymax/2), html.EscapeString(yUnit))
	for _, p := range pts {
		r, cls := 4, "pt"
		if p.mark {
			r, cls = 6, "pt best"
		}
		fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="%d"><title>%s: %.1f, %.1f</title></circle>`, cls, X(p.x), Y(p.y), r, html.EscapeString(p.label), p.x, p.y)
		if len(pts) <= 12 || p.mark {
			// Labels of points in the right half go to their left, so
			// that they stay inside the chart.
			if X(p.x) > w/2 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, X(p.x)-8, Y(p.y)+3, html.EscapeString(p.label))
			} else {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, X(p.x)+8, Y(p.y)+3, html.EscapeString(p.label))
			}
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// histogram draws the distribution of counts with both axes.
func histogram(title, unit string, counts []int) template.HTML {
	const bins, w, h, left, bottom = 20, 420, 200, 44, 40
	mx := 1
	for _, n := range counts {
		mx = max(mx, n)
	}
	hist := make([]int, bins)
	for _, n := range counts {
		hist[min(bins-1, n*bins/(mx+1))]++
	}
	top := 1
	for _, n := range hist {
		top = max(top, n)
	}
	ymax := niceMax(float64(top))
	bw := float64(w-left-20) / bins
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" role="img" aria-label="%s">`, w, h, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		yv := ymax * float64(i) / 4
		y := float64(h-bottom) - float64(h-bottom-14)*yv/ymax
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`, left, w-20, y, y, left-4, y+3, tick(yv))
		xv := float64(mx+1) * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, float64(left)+float64(w-left-20)*float64(i)/4, h-bottom+14, tick(math.Round(xv)))
	}
	for i, n := range hist {
		bh := float64(h-bottom-14) * float64(n) / ymax
		fmt.Fprintf(&b, `<rect class="hist" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%d–%d: %d chunks</title></rect>`,
			float64(left)+float64(i)*bw+1, float64(h-bottom)-bh, bw-2, bh, i*(mx+1)/bins, (i+1)*(mx+1)/bins-1, n)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#555"/><line x1="%d" x2="%d" y1="14" y2="%d" stroke="#555"/>`, left, w-20, h-bottom, h-bottom, left, left, h-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text><text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">chunks</text>`,
		(left+w-20)/2, h-6, html.EscapeString(unit), (h-bottom)/2, (h-bottom)/2)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
