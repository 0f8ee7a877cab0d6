// Package inspect shows chunks to people: the playground that gochunk
// serve answers at / (a page that chunks a pasted or dropped document with
// any chunker and configuration, two side by side, and draws the chunks,
// their overlaps and spans, a histogram of their sizes and, for the
// embedding-based chunkers, the similarity curve with its threshold and
// breakpoints), and the same view written as one self-contained HTML file
// (gochunk inspect). The pages load nothing from the network.
package inspect

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/record"
)

//go:embed web
var web embed.FS

// Handler serves the playground: its page at / and its script and style
// under /playground/. The page calls the server's GET /v1/chunkers and
// POST /v1/chunk.
func Handler() http.Handler {
	sub, _ := fs.Sub(web, "web")
	files := http.StripPrefix("/playground/", http.FileServerFS(sub))
	page, _ := web.ReadFile("web/index.html")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// WriteHTML writes the view of text's chunks (and the chunker's trace,
// when tr is not nil) as one HTML file, under title; unit names the size
// unit of the chunks' token counts.
func WriteHTML(w io.Writer, title, text, unit string, chunks []gochunk.Chunk, tr *gochunk.Trace) error {
	recs := make([]record.Record, len(chunks))
	for i, c := range chunks {
		recs[i] = record.FromChunk(c, "")
		recs[i].Spans = c.Spans // every span, also of a one-span chunk
	}
	data, err := json.Marshal(map[string]any{"title": title, "text": text, "unit": unit, "chunks": recs, "trace": tr})
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	css, _ := web.ReadFile("web/app.css")
	js, _ := web.ReadFile("web/app.js")
	// json.Marshal escapes <, > and &, so the data cannot end the script.
	return staticPage.Execute(w, map[string]any{"Title": title, "CSS": template.CSS(css),
		"Data": template.JS(data), "JS": template.JS(js)})
}

var staticPage = template.Must(template.New("inspect").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>gochunk inspect: {{.Title}}</title>
<style>{{.CSS}}</style>
</head><body>
<header><h1>gochunk inspect</h1><span>{{.Title}}</span></header>
<main></main>
<script>window.GOCHUNK_DATA = {{.Data}};</script>
<script>{{.JS}}</script>
</body></html>
`))
