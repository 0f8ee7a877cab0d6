package pipeline

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/tokenize"
)

func contextPipeline(t *testing.T, chunker, params string, c ContextConfig) *Pipeline {
	t.Helper()
	p, err := New(context.Background(), Config{Chunker: chunker, Params: json.RawMessage(params), Context: c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// With context headings, a chunk's embedded text is its document's title
// and heading path before its text; the record's text and offsets stay
// exact, and the record carries both.
func TestContextHeadings(t *testing.T) {
	text := "# Guide\n\nIntro.\n\n## Install\n\nSteps.\n\n```\n# not a heading\n```\n\n### Linux\n\nApt.\n\n## Use\n\nRun it."
	p := contextPipeline(t, "recursive", `{"size": 20}`, ContextConfig{Mode: "headings"})
	res, err := p.Run(context.Background(), gochunk.Document{ID: "/x/guide.md", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Apt.": "Guide > Install > Linux\n\n", "Run it.": "Guide > Use\n\n", "Intro.": "Guide\n\n"}
	found := 0
	for i, rec := range res.Records() {
		if text[rec.Start:rec.End] != rec.Text {
			t.Fatalf("record %d: offsets do not give its text", i)
		}
		for k, w := range want {
			if strings.Contains(rec.Text, k) {
				found++
				if rec.EmbedText != w+rec.Text {
					t.Errorf("chunk %q: embedded as %q, want the prefix %q", rec.Text, rec.EmbedText, w)
				}
			}
		}
	}
	if found != len(want) {
		t.Fatalf("found %d of the %d chunks", found, len(want))
	}
	// A title in the metadata wins; a plain text has no headings.
	res, err = p.Run(context.Background(), gochunk.Document{ID: "/x/notes.txt", Text: "plain", Metadata: map[string]any{"title": "T"}})
	if err != nil || res.EmbedTexts[0] != "T\n\nplain" {
		t.Fatalf("title from metadata: %q, %v", res.EmbedTexts, err)
	}
	// The markdown chunker's own heading paths are used.
	md := contextPipeline(t, "markdown", `{"size": 30}`, ContextConfig{Mode: "headings"})
	res, err = md.Run(context.Background(), gochunk.Document{ID: "guide.md", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Chunks {
		if strings.Contains(c.Text, "Apt.") && !strings.HasPrefix(res.EmbedTexts[i], "Guide > Install > Linux\n\n") {
			t.Errorf("markdown chunk %q embedded as %q", c.Text, res.EmbedTexts[i])
		}
	}
}

// Code chunks are put in their file and the definition they are within.
func TestContextCode(t *testing.T) {
	src := "package shop\n\n// Cart holds items.\ntype Cart struct{ items []string }\n\n" +
		"// Add puts an item in the cart, after checking that it is not there yet and that the cart has room for it.\n" +
		"func (c *Cart) Add(item string) {\n\tfor _, it := range c.items {\n\t\tif it == item {\n\t\t\treturn\n\t\t}\n\t}\n\tc.items = append(c.items, item)\n}\n"
	p := contextPipeline(t, "code", `{"size": 60}`, ContextConfig{Mode: "headings"})
	res, err := p.Run(context.Background(), gochunk.Document{ID: "shop/cart.go", Text: src})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Chunks {
		if !strings.HasPrefix(res.EmbedTexts[i], "shop/cart.go") {
			t.Errorf("chunk %d embedded as %q, want the file's path first", i, res.EmbedTexts[i])
		}
		if w, ok := c.Metadata["within"].(string); ok && !strings.HasPrefix(res.EmbedTexts[i], "shop/cart.go > "+w+"\n\n") {
			t.Errorf("chunk %d within %q embedded as %q", i, w, res.EmbedTexts[i])
		}
	}
	// Nested definitions: the whole path, outermost first.
	py := "class Cart:\n    \"\"\"A shopping cart.\"\"\"\n\n    def add(self, item):\n        if item in self.items:\n            return len(self.items)\n        self.items.append(item)\n        return len(self.items)\n"
	res, err = p.Run(context.Background(), gochunk.Document{ID: "shop/cart.py", Text: py})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks[0].Metadata["parser"] != "tree-sitter" {
		t.Skip("skipping the nested case: no tree-sitter in this build (cgo)")
	}
	found := false
	for i, c := range res.Chunks {
		if strings.Contains(c.Text, "append") {
			found = true
			if !strings.HasPrefix(res.EmbedTexts[i], "shop/cart.py > class Cart > function add\n\n") {
				t.Errorf("a chunk of a method embedded as %q", res.EmbedTexts[i])
			}
		}
	}
	if !found {
		t.Fatalf("no chunk holds the method's body: %+v", res.Chunks)
	}
}

func TestContextTemplate(t *testing.T) {
	p := contextPipeline(t, "recursive", `{"size": 40}`, ContextConfig{Mode: "template",
		Template: "{{.Title}} ({{index .Metadata \"year\"}}), lines {{index .Lines 0}}-{{index .Lines 1}}: {{.Text}}"})
	doc := gochunk.Document{ID: "a.txt", Text: "First line here.\nSecond line here.\nThird line, which is the last one.", Metadata: map[string]any{"title": "Report", "year": 2024}}
	res, err := p.Run(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range res.Records() {
		want := "Report (2024), lines " + itoa(rec.Lines[0]) + "-" + itoa(rec.Lines[1]) + ": " + rec.Text
		if rec.EmbedText != want {
			t.Errorf("chunk %d: %q, want %q", i, rec.EmbedText, want)
		}
	}
	for _, tc := range []struct {
		c    ContextConfig
		want string
	}{
		{ContextConfig{Mode: "summary"}, `context.mode "summary": want none, headings, template or llm`},
		{ContextConfig{Mode: "template", Template: "{{.Title}}"}, "must use {{.Text}}"},
		{ContextConfig{Mode: "template", Template: "{{.Nope}} {{.Text}}"}, "can't evaluate field Nope"},
		{ContextConfig{Mode: "template", Template: "{{.Text"}, "context.template"},
		{ContextConfig{Template: "{{.Text}}"}, "needs context mode template"},
	} {
		_, err := New(context.Background(), Config{Context: tc.c}, Options{})
		if err == nil || !errors.Is(err, gochunk.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.c, err, tc.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Every chunk's lines are those of its first and last byte, whatever the
// chunker (overlapping windows included).
func TestLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "\n", "gamma.", "\n\n", "delta", "é", "\r\n"}
	for _, chunker := range []string{`recursive`, `token`, `sentence`} {
		for trial := range 20 {
			var sb strings.Builder
			for range rng.IntN(400) {
				sb.WriteString(words[rng.IntN(len(words))])
				sb.WriteByte(' ')
			}
			text := sb.String()
			params := `{"size": 12}`
			if chunker == "token" {
				params = `{"size": 12, "overlap": 5}`
			}
			p := contextPipeline(t, chunker, params, ContextConfig{})
			res, err := p.Run(context.Background(), gochunk.Document{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			for i, rec := range res.Records() {
				first := 1 + strings.Count(text[:rec.Start], "\n")
				last := 1 + strings.Count(text[:max(rec.Start, rec.End-1)], "\n")
				if rec.Lines != [2]int{first, last} {
					t.Fatalf("%s, text %d, chunk %d [%d:%d]: lines %v, want [%d %d]", chunker, trial, i, rec.Start, rec.End, rec.Lines, first, last)
				}
			}
		}
	}
}

// A laid-out document's chunks carry the pages and boxes of the elements
// they overlap, from any chunker.
func TestPagesAndBoxes(t *testing.T) {
	els := []gochunk.Element{
		{Type: "title", Text: "Annual report", Page: 1, BBox: [4]float64{72, 60, 400, 90}},
		{Type: "paragraph", Text: strings.Repeat("Revenue grew in every region. ", 6), Page: 1, BBox: [4]float64{72, 100, 540, 300}},
		{Type: "heading", Text: "Outlook", Page: 2, BBox: [4]float64{72, 60, 300, 80}},
		{Type: "paragraph", Text: strings.Repeat("We expect growth to continue. ", 6), Page: 2, BBox: [4]float64{72, 90, 540, 280}},
	}
	for _, chunker := range []string{"recursive", "sentence", "semantic"} {
		p := contextPipeline(t, chunker, `{"size": 80}`, ContextConfig{Mode: "headings"})
		l, err := p.Load(context.Background(), Source{ID: "report.pdf", Elements: els})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), l.Document)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range res.Records() {
			if rec.Lines != [2]int{} || rec.Pages[0] < 1 || rec.Pages[1] < rec.Pages[0] || len(rec.Boxes) == 0 {
				t.Fatalf("%s chunk %d: lines %v pages %v boxes %v", chunker, i, rec.Lines, rec.Pages, rec.Boxes)
			}
			for _, b := range rec.Boxes {
				var el gochunk.Element
				for _, e := range l.Elements {
					if e.BBox == b.BBox {
						el = e
					}
				}
				if el.Page != b.Page || el.End <= rec.Start || el.Start >= rec.End {
					t.Errorf("%s chunk %d [%d:%d]: box %v is not of an element it overlaps", chunker, i, rec.Start, rec.End, b)
				}
			}
			if strings.Contains(rec.Text, "growth") && !strings.HasPrefix(rec.EmbedText, "Annual report > Outlook\n\n") {
				t.Errorf("%s chunk %d embedded as %.40q", chunker, i, rec.EmbedText)
			}
		}
	}
}

// recorder is an embedder that keeps the texts it is given; its limit is
// limit runes.
type recorder struct {
	mu    sync.Mutex
	texts []string
	limit int
}

func (r *recorder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, s := range texts {
		r.texts = append(r.texts, s)
		out[i] = []float32{float32(len(s)), 1}
	}
	return out, nil
}
func (r *recorder) Dim() int                    { return 2 }
func (r *recorder) MaxTokens() int              { return r.limit }
func (r *recorder) ModelID() string             { return "recorder" }
func (r *recorder) Tokenizer() tokenize.Counter { return tokenize.Runes{} }
func (r *recorder) ChunkLimit() int             { return r.limit }

// Chunks are embedded with their context, trimmed (never the chunk) to
// the embedder's limit.
func TestEmbedWithContext(t *testing.T) {
	em := &recorder{limit: 60}
	p, err := New(context.Background(), Config{Chunker: "recursive", Params: json.RawMessage(`{"size": 40}`), EmbedChunks: true,
		Context: ContextConfig{Mode: "template", Template: "{{.Title}} {{.Title}} {{.Title}} | {{.Text}} | {{.Source}}"}}, Options{Embedder: em})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("Some words to chunk here. ", 8)
	res, err := p.Run(context.Background(), gochunk.Document{ID: "a-rather-long-document-name.txt", Text: text, Metadata: map[string]any{"title": "A Title Of Some Length"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(em.texts) != len(res.Chunks) || res.ContextTrimmed != len(res.Chunks) {
		t.Fatalf("%d texts embedded, %d trimmed, for %d chunks", len(em.texts), res.ContextTrimmed, len(res.Chunks))
	}
	for i, c := range res.Chunks {
		got := em.texts[i]
		if got != res.EmbedTexts[i] || !strings.Contains(got, " | "+c.Text+" | ") || len([]rune(got)) > em.limit {
			t.Errorf("chunk %d embedded as %q (%d runes)", i, got, len([]rune(got)))
		}
	}
}

func TestFitContext(t *testing.T) {
	runes := tokenize.Runes{}
	for _, tc := range []struct {
		et, text string
		limit    int
		want     string
		trimmed  bool
	}{
		{"T > H\n\nbody", "body", 20, "T > H\n\nbody", false},
		{"Title > Heading\n\nbody", "body", 10, "ding\n\nbody", true},
		{"pre body post-context", "body", 10, "re body po", true},
		{"ctx body", "body", 3, "body", true},
		{"ctx béé body", "body", 6, "é body", true},
	} {
		got, trimmed := fitContext(tc.et, tc.text, runes, tc.limit)
		if got != tc.want || trimmed != tc.trimmed {
			t.Errorf("fitContext(%q, %d) = %q %v, want %q %v", tc.et, tc.limit, got, trimmed, tc.want, tc.trimmed)
		}
	}
}

func TestWikiHeading(t *testing.T) {
	for line, want := range map[string]struct {
		level int
		title string
	}{
		" = Valkyria Chronicles III = ": {1, "Valkyria Chronicles III"},
		" = = Gameplay = = ":            {2, "Gameplay"},
		"=== Plot ===":                  {3, "Plot"},
		"== Unbalanced =":               {0, ""},
		"= =":                           {0, ""},
		"x = y":                         {0, ""},
		"= a = b =":                     {0, ""},
	} {
		if l, title := wikiHeading(line); l != want.level || title != want.title {
			t.Errorf("%q: %d %q, want %d %q", line, l, title, want.level, want.title)
		}
	}
	heads := textHeadings(" = Game = \n\n text \n\n = = Plot = = \n\n more \n")
	if len(heads) != 2 || heads[0].title != "Game" || heads[1].level != 2 || heads[1].at != 20 {
		t.Errorf("headings %+v", heads)
	}
}

// Two levels: every chunk has a parent that holds it, parents are at most
// their size (but for a chunk larger alone), hold runs of consecutive
// chunks and never cross a section heading.
func TestParents(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	words := []string{"alpha", "beta", "gamma.", "delta", "epsilon,", "zeta"}
	for trial := range 30 {
		var sb strings.Builder
		for range 2 + rng.IntN(6) {
			level := 1 + rng.IntN(3)
			sb.WriteString(strings.Repeat("#", level) + " Heading " + words[rng.IntN(len(words))] + "\n\n")
			for range 1 + rng.IntN(5) {
				for range 5 + rng.IntN(60) {
					sb.WriteString(words[rng.IntN(len(words))] + " ")
				}
				sb.WriteString("\n\n")
			}
		}
		text := sb.String()
		size := 40 + rng.IntN(200)
		for _, chunker := range []string{"recursive", "sentence", "markdown", "recursive cl100k_base"} {
			name, tok, _ := strings.Cut(chunker, " ")
			p, err := New(context.Background(), Config{Chunker: name, Params: json.RawMessage(`{"size": 30}`), Tokenizer: tok, Parents: size}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(context.Background(), gochunk.Document{ID: "d.md", Text: text})
			if err != nil {
				t.Fatal(err)
			}
			var bounds []int
			for _, h := range textHeadings(text) {
				if h.level <= sectionLevel {
					bounds = append(bounds, h.at)
				}
			}
			children := make([]int, len(res.Parents))
			for i, rec := range res.Records() {
				pa := rec.Parent
				if pa == nil || pa.Start > rec.Start || pa.End < rec.End {
					t.Fatalf("trial %d %s chunk %d [%d:%d]: parent %+v", trial, chunker, i, rec.Start, rec.End, pa)
				}
				children[pa.Index]++
			}
			for k, pa := range res.Parents {
				if pa.TokenCount != p.Counter().Count(text[pa.Start:pa.End]) || pa.TokenCount > size && children[k] > 1 {
					t.Errorf("trial %d %s parent %d: %d runes (size %d, %d children)", trial, chunker, k, pa.TokenCount, size, children[k])
				}
				for _, b := range bounds {
					if b > pa.Start && b < pa.End && strings.TrimSpace(text[b:pa.End]) != "" && children[k] > 1 {
						// A heading inside a parent is only allowed inside one chunk.
						inside := false
						for i, c := range res.Chunks {
							if res.ParentOf[i] == k && c.Spans[0].Start < b && c.Spans[len(c.Spans)-1].End > b {
								inside = true
							}
						}
						if !inside {
							t.Errorf("trial %d %s parent %d [%d:%d] crosses the section at %d", trial, chunker, k, pa.Start, pa.End, b)
						}
					}
				}
				if k > 0 && pa.Start < res.Parents[k-1].End {
					t.Errorf("trial %d %s: parents %d and %d overlap", trial, chunker, k-1, k)
				}
			}
		}
	}
}

func TestSection(t *testing.T) {
	text := "Intro.\n\n# A\n\nText a.\n\n## A1\n\nText a1.\n\n# B\n\nText b."
	for _, tc := range []struct {
		at         string
		start, end string
	}{
		{"Intro.", "", "# A"},
		{"Text a.", "# A", "# B"},
		{"Text a1.", "## A1", "# B"},
		{"Text b.", "# B", ""},
	} {
		start, end := Section(text, strings.Index(text, tc.at))
		wantStart, wantEnd := strings.Index(text, tc.start), strings.Index(text, tc.end)
		if tc.start == "" {
			wantStart = 0
		}
		if tc.end == "" {
			wantEnd = len(text)
		}
		if start != wantStart || end != wantEnd {
			t.Errorf("section of %q: [%d:%d], want [%d:%d]", tc.at, start, end, wantStart, wantEnd)
		}
	}
}

// Chunks over the embedder's limit are counted, not cut silently.
// Chunks sized in the model's own unit or in another one.
func TestTruncatedCounted(t *testing.T) {
	for _, tc := range []struct{ tokenizer, params string }{{"runes", `{"size": 80}`}, {"words", `{"size": 14}`}} {
		em := &recorder{limit: 50}
		p, err := New(context.Background(), Config{Chunker: "recursive", Params: json.RawMessage(tc.params), Tokenizer: tc.tokenizer, EmbedChunks: true}, Options{Embedder: em})
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Repeat("Some words to chunk here, and more of them. ", 10)
		res, err := p.Run(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, c := range res.Chunks {
			if len([]rune(c.Text)) > 50 {
				want++
			}
		}
		if want == 0 || res.Truncated != want {
			t.Errorf("%s: %d chunks over the limit, %d counted", tc.tokenizer, want, res.Truncated)
		}
	}
}

// FuzzRefine holds what the pipeline adds to chunks to its contract on
// any text: lines are those of each chunk's ends, every chunk has a parent
// holding it, parents are at most their size unless one chunk alone is
// larger, and context never changes a chunk's text or offsets.
func FuzzRefine(f *testing.F) {
	for _, s := range []string{"# A\n\nx y z.\n\n## B\n\né\r\n\n\n", "", "\n\n\n", "= T =\n\ntext"} {
		f.Add(s, uint8(20), uint8(50))
	}
	f.Fuzz(func(t *testing.T, text string, size, parents uint8) {
		if !utf8.ValidString(text) {
			return
		}
		p, err := New(context.Background(), Config{Chunker: "recursive", Params: json.RawMessage(fmt.Sprintf(`{"size": %d}`, 1+int(size)%64)),
			Parents: 1 + int(parents), Context: ContextConfig{Mode: "headings"}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), gochunk.Document{ID: "d.md", Text: text})
		if err != nil {
			return // a text the chunker refuses
		}
		many := make([]int, len(res.Parents))
		for _, k := range res.ParentOf {
			many[k]++
		}
		for i, rec := range res.Records() {
			if text[rec.Start:rec.End] != rec.Text {
				t.Fatalf("chunk %d: offsets do not give its text", i)
			}
			first := 1 + strings.Count(text[:rec.Start], "\n")
			last := 1 + strings.Count(text[:max(rec.Start, rec.End-1)], "\n")
			if rec.Lines != [2]int{first, last} {
				t.Fatalf("chunk %d: lines %v, want [%d %d]", i, rec.Lines, first, last)
			}
			pa := rec.Parent
			if pa == nil || pa.Start > rec.Start || pa.End < rec.End || text[pa.Start:pa.End] == "" {
				t.Fatalf("chunk %d: parent %+v", i, pa)
			}
			if pa.TokenCount != len([]rune(text[pa.Start:pa.End])) || pa.TokenCount > 1+int(parents) && many[pa.Index] > 1 {
				t.Fatalf("parent %+v of %d chunks over %d", pa, many[pa.Index], 1+int(parents))
			}
			if rec.EmbedText != "" && !strings.HasSuffix(rec.EmbedText, "\n\n"+rec.Text) {
				t.Fatalf("chunk %d embedded as %q", i, rec.EmbedText)
			}
		}
	})
}

// A Word document named otherwise is read as Word (its bytes start as a
// zip); a text file is read as text.
func TestLoadSniffsOfficeZip(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Hello from Word.</w:t></w:r></w:p></w:body></w:document>`))
	z.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "report.dat"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "plain.dat"), []byte("PK is not a zip here."), 0o644)
	p := contextPipeline(t, "recursive", `{"size": 100}`, ContextConfig{})
	for name, want := range map[string]string{"report.dat": "Hello from Word.", "plain.dat": "PK is not a zip here."} {
		l, err := p.Load(context.Background(), Source{Path: filepath.Join(dir, name)})
		if err != nil || l.Text != want {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
		l.Release()
	}
}

// A context template comes from a request: its loops, its output and the
// text its functions make are bounded, and each attack of issue 48 is
// refused before any document, at once, without the memory it asks for.
// Before, the first ran at validation until the process died (100,000
// megabytes of output), the second for 80 s.
func TestContextTemplateBounded(t *testing.T) {
	for _, tc := range []struct{ name, template, want string }{
		// Cheapest first: before the bounds, the later ones would not end.
		{"output", `{{range 100}}{{printf "%060000d" 0}}{{end}}{{.Text}}`, "wrote more than 64.0 KiB"},
		{"a megabyte a step", `{{range 100000}}{{printf "%01000000d" 0}}{{end}}{{.Text}}`, "would make more than"},
		{"a loop of a billion", `{{range 1500000000}}{{end}}{{.Text}}`, "loops more than 100000 times"},
		{"a loop over a variable", `{{$n := 1500000000}}{{range $n}}{{end}}{{.Text}}`, "more than 100000 loop iterations"},
		{"nested loops", `{{range 1000}}{{range 1000}}{{range 1000}}{{end}}{{end}}{{end}}{{.Text}}`, "more than 100000 loop iterations"},
		{"doubling without output", `{{$a := "0123456789"}}{{range 64}}{{$a = printf "%s%s" $a $a}}{{end}}{{.Text}}`, "would make more than"},
		{"doubling by print", `{{$a := "0123456789"}}{{range 64}}{{$a = print $a $a}}{{end}}{{.Text}}`, "would make more than"},
		{"escaping", `{{$a := "<<<<<<<<<<"}}{{range 64}}{{$a = html $a $a}}{{end}}{{.Text}}`, "would make more than"},
		{"recursion", `{{define "x"}}{{template "x"}}{{template "x"}}{{end}}{{template "x"}}{{.Text}}`, `template "x" calls itself`},
		{"mutual recursion", `{{define "a"}}{{template "b"}}{{end}}{{define "b"}}{{template "a"}}{{end}}{{template "a"}}{{.Text}}`, "cannot recurse"},
		{"a long template", strings.Repeat("x", MaxContextTemplateBytes) + "{{.Text}}", "the most is 16.0 KiB"},
	} {
		_, err := New(context.Background(), Config{Context: ContextConfig{Mode: "template", Template: tc.template}}, Options{})
		if err == nil || !errors.Is(err, gochunk.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
		if strings.Contains(err.Error(), stepFunc) || strings.Contains(err.Error(), "executing") {
			t.Errorf("%s: the error names the template's machinery: %v", tc.name, err)
		}
	}
}

// The bounds hold on a document's chunks too, whose fields validation
// does not see: loops over a document's metadata count their steps, and
// a cancelled run stops at its next step.
func TestContextTemplateBoundedOnChunks(t *testing.T) {
	p := contextPipeline(t, "recursive", `{"size": 40}`, ContextConfig{Mode: "template",
		Template: `{{range .Metadata}}{{range $.Metadata}}{{range $.Metadata}}{{end}}{{end}}{{end}}{{.Title}}: {{.Text}}`})
	md := map[string]any{}
	for i := range 100 {
		md[fmt.Sprint("k", i)] = i
	}
	doc := gochunk.Document{ID: "a.txt", Text: "First line here.\nSecond line here.", Metadata: md}
	if _, err := p.Run(context.Background(), doc); err == nil || !strings.Contains(err.Error(), "more than 100000 loop iterations") {
		t.Errorf("100^3 iterations: %v, want the step bound", err)
	}
	// Within the bounds, it runs.
	doc.Metadata = map[string]any{"a": 1, "b": 2}
	res, err := p.Run(context.Background(), doc)
	if err != nil || len(res.EmbedTexts) == 0 || !strings.HasPrefix(res.EmbedTexts[0], "a: First") {
		t.Fatalf("%v %q", err, res.EmbedTexts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run, err := p.context.tmpl.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.execute(ContextFields{Text: "x", Metadata: doc.Metadata}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v, want it stopped", err)
	}
	// The output holds the chunk's text and up to MaxContextBytes more.
	p = contextPipeline(t, "recursive", `{"size": 40}`, ContextConfig{Mode: "template", Template: `{{printf "%060000d" 0}}{{.Text}}{{.Text}}`})
	if _, err := p.Run(context.Background(), gochunk.Document{ID: "a", Text: "Some text."}); err != nil {
		t.Errorf("60,000 bytes of context: %v", err)
	}
}
