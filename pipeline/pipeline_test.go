package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/tokenize"
)

// Configurations that cannot work are errors wrapping gochunk.ErrConfig,
// whose text names what to fix.
func TestNewErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  pipeline.Config
		want string
		is   error
	}{
		{"unknown chunker", pipeline.Config{Chunker: "nope"}, `unknown chunker "nope" (known: `, nil},
		{"unknown tokenizer", pipeline.Config{Tokenizer: "gpt9"}, `unknown tokenizer "gpt9"`, tokenize.ErrUnknown},
		{"input kind", pipeline.Config{Input: "xml"}, `input "xml": want auto, text, pdf, html, elements, docx, pptx, xlsx, odt, ods, odp, epub, eml, mbox, msg or rtf`, nil},
		{"utf-8 policy", pipeline.Config{InvalidUTF8: "fix"}, `invalid_utf8 "fix": want reject, repair or decode`, nil},
		{"no model", pipeline.Config{Chunker: "llm-split"}, `chunker "llm-split": invalid configuration: the LLM chunkers need a chat model`, pipeline.ErrNoModel},
		{"mistyped parameter", pipeline.Config{Chunker: "savgol", Params: []byte(`{"size": "ten"}`)}, `parameter "size" of savgol: want an integer, got "ten"`, nil},
		{"unknown parameter", pipeline.Config{Chunker: "savgol", Params: []byte(`{"overlap": 3}`)}, `unknown parameter "overlap" for savgol (it has: `, nil},
		{"seed beyond float64", pipeline.Config{Chunker: "s2", Params: []byte(`{"seed": 18446744073709551616}`)}, `parameter "seed" of s2`, nil},
		{"embedder", pipeline.Config{Chunker: "semantic", Embedder: pipeline.EmbedderConfig{Name: "word2vec"}}, `bad embedder name "word2vec"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pipeline.New(ctx, tc.cfg, pipeline.Options{})
			if err == nil || !errors.Is(err, gochunk.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrConfig saying %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
		})
	}
	// Exact numbers: 2^64-1 and 2^53+1 are seeds, not rounded floats.
	for _, seed := range []string{"18446744073709551615", "9007199254740993"} {
		if _, err := pipeline.New(ctx, pipeline.Config{Chunker: "s2", Params: []byte(`{"seed": ` + seed + `}`)}, pipeline.Options{}); err != nil {
			t.Errorf("seed %s: %v", seed, err)
		}
	}
}

// Load reads files, readers and documents in memory, and applies the
// invalid-UTF-8 policy.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	os.WriteFile(path, []byte("Hello there.\n\nSecond paragraph."), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("caf\xe9 au lait"), 0o644)
	p, err := pipeline.New(ctx, pipeline.Config{}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := p.Load(ctx, pipeline.Source{Path: path})
	if err != nil || doc.Text != "Hello there.\n\nSecond paragraph." || doc.ID != path {
		t.Fatalf("file: %q %q %v", doc.ID, doc.Text, err)
	}
	doc.Release()
	doc, err = p.Load(ctx, pipeline.Source{Path: "-", Reader: strings.NewReader("from a reader"), ID: "stdin"})
	if err != nil || doc.Text != "from a reader" || doc.ID != "stdin" {
		t.Fatalf("reader: %+v %v", doc, err)
	}
	doc, err = p.Load(ctx, pipeline.Source{Path: bad})
	if _, cerr := p.Run(ctx, doc.Document); err != nil || !errors.Is(cerr, gochunk.ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8 rejected: %v, %v", err, cerr)
	}
	if _, oerr := p.Offsets(ctx, doc.Document); !errors.Is(oerr, gochunk.ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8 rejected by Offsets: %v", oerr)
	}
	if _, err := p.Load(ctx, pipeline.Source{Path: filepath.Join(dir, "missing.txt")}); err == nil {
		t.Error("missing file loaded")
	}
	repair, _ := pipeline.New(ctx, pipeline.Config{InvalidUTF8: gochunk.Repair}, pipeline.Options{})
	doc, err = repair.Load(ctx, pipeline.Source{Path: bad})
	if err != nil || doc.Text != "caf\uFFFD au lait" || doc.Warning == "" {
		t.Errorf("repaired: %q %q %v", doc.Text, doc.Warning, err)
	}
	els := []gochunk.Element{{Type: "title", Text: "Title", Page: 1}, {Type: "paragraph", Text: "Body text.", Page: 1, Order: 1}}
	doc, err = p.Load(ctx, pipeline.Source{ID: "e", Elements: els})
	if err != nil || doc.Text != "Title\n\nBody text." || len(doc.Elements) != 2 || doc.Elements[1].Start != 7 {
		t.Errorf("elements: %q %+v %v", doc.Text, doc.Elements, err)
	}
	if doc, err := p.Load(ctx, pipeline.Source{ID: "empty"}); err != nil || doc.Text != "" {
		t.Errorf("empty document: %q %v", doc.Text, err)
	}
}

// Stream keeps the order of its sources whatever their size, reports a
// source's failure in its item and goes on, and returns emit's error.
func TestStream(t *testing.T) {
	ctx := context.Background()
	p, err := pipeline.New(ctx, pipeline.Config{Params: []byte(`{"size": 20}`)}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []pipeline.Source
	for i := range 60 {
		srcs = append(srcs, pipeline.Source{ID: fmt.Sprint(i), Text: strings.Repeat(fmt.Sprintf("word%d ", i), 1+(i*37)%50)})
	}
	srcs[7] = pipeline.Source{ID: "7", Path: filepath.Join(t.TempDir(), "missing")}
	var got []string
	err = p.Stream(ctx, srcs, 4, false, func(it pipeline.Item) error {
		got = append(got, it.Source.ID)
		if (it.Err != nil) != (it.Source.ID == "7") {
			t.Errorf("source %s: error %v", it.Source.ID, it.Err)
		}
		for _, c := range it.Result.Chunks {
			if strings.TrimSpace(strings.ReplaceAll(c.Text, "word"+it.Source.ID, "")) != "" {
				t.Errorf("source %s got chunk %q", it.Source.ID, c.Text)
			}
		}
		return nil
	})
	if err != nil || len(got) != 60 {
		t.Fatalf("%d items, %v", len(got), err)
	}
	for i, id := range got {
		if id != fmt.Sprint(i) {
			t.Fatalf("item %d is source %s", i, id)
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := p.Stream(ctx, srcs, 2, true, func(it pipeline.Item) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("emit's error: %v after %d items", err, n)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.Stream(cctx, srcs, 2, false, func(pipeline.Item) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Run embeds every chunk when asked, and With shares the embedder.
func TestRunEmbedsChunks(t *testing.T) {
	ctx := context.Background()
	p, err := pipeline.New(ctx, pipeline.Config{EmbedChunks: true, Params: []byte(`{"size": 30}`)}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(ctx, gochunk.Document{ID: "d", Text: "Cats purr and sleep all day. Dogs bark at the mail carrier. Birds sing at dawn."})
	if err != nil || len(res.Chunks) < 2 || len(res.Embeddings) != len(res.Chunks) {
		t.Fatalf("%d chunks, %d embeddings, %v", len(res.Chunks), len(res.Embeddings), err)
	}
	recs := res.Records()
	if recs[1].Embedding == nil || recs[1].Source != "d" || recs[1].ChunkIndex != 1 {
		t.Errorf("record %+v", recs[1])
	}
	q, err := p.With(ctx, "semantic", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	e1, _ := p.Embedder(ctx)
	e2, _ := q.Embedder(ctx)
	if e1 != e2 || q.Counter().Name() != "cl100k_base" {
		t.Errorf("With: embedder shared %v, unit %s", e1 == e2, q.Counter().Name())
	}
}

// HTML is read by extension or kind, in memory too, its structure kept as
// markdown for the markdown chunker.
func TestLoadHTML(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "page.html")
	page := "<html><body><h1>Title</h1><p>First paragraph.</p><h2>Part</h2><ul><li>one</li><li>two</li></ul><script>x()</script></body></html>"
	os.WriteFile(path, []byte(page), 0o644)
	p, err := pipeline.New(ctx, pipeline.Config{Chunker: "markdown", Params: []byte(`{"size": 30}`)}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nFirst paragraph.\n\n## Part\n\n- one\n\n- two"
	for _, src := range []pipeline.Source{{Path: path}, {ID: "mem", HTML: page}} {
		doc, err := p.Load(ctx, src)
		if err != nil || doc.Text != want || len(doc.Elements) != 5 {
			t.Fatalf("%+v: %q, %d elements, %v", src.Path, doc.Text, len(doc.Elements), err)
		}
		res, err := p.Run(ctx, doc.Document)
		if err != nil || len(res.Chunks) < 2 || !strings.HasPrefix(res.Chunks[1].Text, "## Part") {
			t.Errorf("markdown chunks of HTML: %d, %v", len(res.Chunks), err)
		}
	}
}
