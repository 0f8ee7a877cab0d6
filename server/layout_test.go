package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/gochunk/gochunk/api"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

func chunkDocs(t *testing.T, url, body string) api.ChunkResponse {
	t.Helper()
	code, b, _ := post(t, url+"/v1/chunk", body)
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	var resp api.ChunkResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestChunkElements(t *testing.T) {
	_, ts := newTest(t, nil)
	body := `{"chunker": "s2", "tokenizer": "words", "config": {"size": 10}, "documents": [
		{"id": "els", "elements": [
			{"type": "title", "text": "Results", "page": 1, "bbox": [10, 10, 200, 30]},
			{"type": "paragraph", "text": "Glaciers carve valleys as ice moves downhill.", "page": 1, "bbox": [10, 40, 300, 80]},
			{"type": "paragraph", "text": "Compilers translate source code.", "page": 2, "bbox": [10, 40, 300, 80]}]},
		{"id": "bad", "elements": [{"type": "paragraph", "text": "x", "page": 1, "bbox": [50, 50, 10, 10]}]}]}`
	resp := chunkDocs(t, ts.URL, body)
	doc := resp.Documents[0]
	if doc.Error != "" || len(doc.Chunks) == 0 {
		t.Fatalf("%+v", doc)
	}
	var all strings.Builder
	for _, c := range doc.Chunks {
		all.WriteString(c.Text + " ")
		if c.TokenCount > 10 {
			t.Errorf("chunk of %d tokens: %q", c.TokenCount, c.Text)
		}
	}
	for _, want := range []string{"Results", "Glaciers", "Compilers"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("%q lost in %q", want, all.String())
		}
	}
	if resp.Documents[1].Error == "" {
		t.Error("a bounding box of negative size is accepted")
	}
}

// A PDF in a request is read in the process (no Poppler needed), its pages
// drawn on request.
func TestChunkPDF(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var paras []string
	for i := range 60 { // several pages: the running header repeats
		paras = append(paras, fmt.Sprintf("Paragraph %d is about the layout of pages and how text flows in columns.", i))
	}
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pdfgen.TwoColumn("Title", paras, "Header")); err != nil {
		t.Fatal(err)
	}
	_, ts := newTest(t, nil)
	body := fmt.Sprintf(`{"chunker": "s2", "config": {"size": 64}, "render_pages": true, "documents": [{"id": "p", "pdf_base64": %q}, {"id": "broken", "pdf_base64": %q}, {"id": "notb64", "pdf_base64": "!!"}]}`,
		base64.StdEncoding.EncodeToString(buf.Bytes()), base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 nothing")))
	resp := chunkDocs(t, ts.URL, body)
	p := resp.Documents[0]
	if p.Error != "" || len(p.Chunks) == 0 {
		t.Fatalf("%+v", p)
	}
	text := ""
	for _, c := range p.Chunks {
		text += c.Text
	}
	if !strings.Contains(text, "Paragraph 59") || strings.Contains(text, "Header") {
		t.Errorf("chunks of the PDF: %q", text)
	}
	if len(p.Pages) < 2 {
		t.Fatalf("%d pages drawn", len(p.Pages))
	}
	for _, pg := range p.Pages {
		img, err := base64.StdEncoding.DecodeString(pg.PNGBase64)
		if err != nil || !bytes.HasPrefix(img, []byte("\x89PNG")) || pg.Width != 612 || pg.Height != 792 {
			t.Errorf("page %d: %d bytes, %v, %gx%g", pg.Page, len(img), err, pg.Width, pg.Height)
		}
	}
	for _, d := range resp.Documents[1:] {
		if d.Error == "" || strings.Contains(d.Error, "gochunk-") {
			t.Errorf("%s: error %q", d.ID, d.Error)
		}
	}
}

// A PDF whose pages cannot be drawn (here: a page of a million points
// square, too large a bitmap at any resolution) keeps its chunks: the
// drawing failure is the document's warning, not its error.
func TestRenderPagesFailureKeepsChunks(t *testing.T) {
	pdf := bytes.Replace(pdfgen.Plain([][]string{{"Glaciers carve valleys as ice moves downhill."}}),
		[]byte("/MediaBox [0 0 612 792]"), []byte("/MediaBox [0 0 1000000 1000000]"), 1)
	_, ts := newTest(t, nil)
	body := fmt.Sprintf(`{"chunker": "s2", "render_pages": true, "documents": [{"id": "huge", "pdf_base64": %q}]}`, base64.StdEncoding.EncodeToString(pdf))
	doc := chunkDocs(t, ts.URL, body).Documents[0]
	if doc.Error != "" || len(doc.Chunks) == 0 || !strings.Contains(doc.Chunks[0].Text, "Glaciers") {
		t.Fatalf("chunks lost: %+v", doc)
	}
	if len(doc.Pages) != 0 || !strings.Contains(doc.Warning, "render_pages") || !strings.Contains(doc.Warning, "page 1") {
		t.Errorf("%d pages, warning %q", len(doc.Pages), doc.Warning)
	}
}

// What reading a document left out (a PDF's page over its bounds) is the
// document's warning in the response, as gochunk chunk prints it.
func TestChunkReportsReadingWarning(t *testing.T) {
	_, ts := newTest(t, nil)
	body := fmt.Sprintf(`{"chunker": "s2", "documents": [{"id": "bomb", "pdf_base64": %q}]}`, base64.StdEncoding.EncodeToString(pdfgen.WithFormBombPage(3, 2, 20)))
	doc := chunkDocs(t, ts.URL, body).Documents[0]
	if doc.Error != "" || len(doc.Chunks) == 0 {
		t.Fatalf("%+v", doc)
	}
	if !strings.Contains(doc.Warning, "page 2 left out") {
		t.Errorf("warning %q", doc.Warning)
	}
}
