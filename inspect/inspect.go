// Package inspect renders a document's chunks as a self-contained HTML
// page (no network needed to view it): the text coloured by chunk and, for
// chunkers that explain themselves (gochunk.Tracer), the similarity curve
// with its smoothing, threshold and breakpoints, so a reader sees why each
// chunk ended.
package inspect

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/gochunk/gochunk"
)

type textPiece struct {
	Text  string
	Chunk int // -1 outside every chunk
	Class string
	Title string
}

type point struct{ X, Y float64 }

// WriteHTML writes the page of text's chunks (and the chunker's trace, when
// tr is not nil) to w, under title.
func WriteHTML(w io.Writer, title, text string, chunks []gochunk.Chunk, tr *gochunk.Trace) error {
	// Cut the text at every span boundary and colour each piece by the
	// first chunk covering it.
	cuts := map[int]bool{0: true, len(text): true}
	for _, c := range chunks {
		for _, s := range c.Spans {
			cuts[s.Start], cuts[s.End] = true, true
		}
	}
	pos := make([]int, 0, len(cuts))
	for p := range cuts {
		pos = append(pos, p)
	}
	sort.Ints(pos)
	var pieces []textPiece
	for i := 0; i+1 < len(pos); i++ {
		a, b := pos[i], pos[i+1]
		owner := -1
		for _, c := range chunks {
			for _, s := range c.Spans {
				if s.Start <= a && b <= s.End {
					owner = c.Index
					break
				}
			}
			if owner >= 0 {
				break
			}
		}
		p := textPiece{Text: text[a:b], Chunk: owner, Class: "gap"}
		if owner >= 0 {
			p.Class = fmt.Sprintf("c%d", owner%6)
			p.Title = fmt.Sprintf("chunk %d: %d tokens", owner, chunks[owner].TokenCount)
		}
		pieces = append(pieces, p)
	}
	data := map[string]any{"Title": title, "Pieces": pieces, "Chunks": len(chunks)}
	if tr != nil && len(tr.Curve) > 0 {
		const width, height = 900.0, 220.0
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, series := range [][]float64{tr.Curve, tr.Smoothed} {
			for _, v := range series {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if tr.Threshold != nil {
			lo, hi = min(lo, *tr.Threshold), max(hi, *tr.Threshold)
		}
		if hi-lo < 1e-9 {
			hi = lo + 1
		}
		n := float64(len(tr.Units))
		x := func(unit float64) float64 { return 40 + (width-60)*unit/max(n-1, 1) }
		y := func(v float64) float64 { return 10 + (height-40)*(hi-v)/(hi-lo) }
		line := func(series []float64) string {
			var sb strings.Builder
			for i, v := range series {
				fmt.Fprintf(&sb, "%.1f,%.1f ", x(float64(tr.CurveOffset+i)), y(v))
			}
			return sb.String()
		}
		var bps []float64
		for _, b := range tr.Breakpoints {
			if b > 0 {
				bps = append(bps, x(float64(b)-0.5))
			}
		}
		chart := map[string]any{"W": width, "H": height, "Curve": line(tr.Curve), "Smoothed": line(tr.Smoothed), "Breaks": bps,
			"Name": tr.CurveName, "Lo": fmt.Sprintf("%.3f", lo), "Hi": fmt.Sprintf("%.3f", hi), "Units": len(tr.Units), "Notes": tr.Notes}
		if tr.Threshold != nil {
			chart["ThrY"] = y(*tr.Threshold)
			chart["Thr"] = fmt.Sprintf("%.3f", *tr.Threshold)
		}
		data["Chart"] = chart
	}
	return inspectPage.Execute(w, data)
}

var inspectPage = template.Must(template.New("inspect").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gochunk inspect: {{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.2em}
.text{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.85em;line-height:1.5;border:1px solid #ddd;padding:1em}
.c0{background:#dbeafe}.c1{background:#fde68a}.c2{background:#d1fae5}.c3{background:#fbcfe8}.c4{background:#e9d5ff}.c5{background:#fed7aa}
.gap{color:#999}
svg text{font-size:11px}
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Chunks}} chunks; each colour is one chunk (hover for its size).</p>
{{with .Chart}}<h2>{{.Name}} over {{.Units}} units</h2>
<svg width="{{.W}}" height="{{.H}}" role="img" aria-label="{{.Name}}">
<rect x="40" y="10" width="840" height="180" fill="none" stroke="#ccc"/>
<text x="0" y="18">{{.Hi}}</text><text x="0" y="190">{{.Lo}}</text>
{{range .Breaks}}<line x1="{{.}}" x2="{{.}}" y1="10" y2="190" stroke="#e11d48" stroke-dasharray="3,3"/>{{end}}
<polyline fill="none" stroke="#2563eb" stroke-width="1.5" points="{{.Curve}}"/>
{{if .Smoothed}}<polyline fill="none" stroke="#16a34a" stroke-width="1.5" points="{{.Smoothed}}"/>{{end}}
{{if .Thr}}<line x1="40" x2="880" y1="{{.ThrY}}" y2="{{.ThrY}}" stroke="#f59e0b"/><text x="884" y="{{.ThrY}}">threshold {{.Thr}}</text>{{end}}
</svg>
<p>Blue: the curve; green: smoothed; orange: threshold; red dashes: where chunks start.{{if .Notes}} {{.Notes}}{{end}}</p>
{{end}}
<h2>Text</h2>
<div class="text">{{range .Pieces}}<span class="{{.Class}}"{{if .Title}} title="{{.Title}}"{{end}}>{{.Text}}</span>{{end}}</div>
</body></html>
`))
