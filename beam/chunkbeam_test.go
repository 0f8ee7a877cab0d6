package chunkbeam

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/internal/pgtest"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// corpus writes documents to a directory: the development corpora when
// they are here (../../shared), else generated prose; plus one document
// that is not UTF-8.
func corpus(t testing.TB, copies int) (dir string, files []string) {
	dir = t.TempDir()
	texts := map[string]string{}
	for _, name := range []string{"wikitexts.md", "state_of_the_union.md", "chatlogs.md"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name)); err == nil {
			texts[name] = string(b)
		}
	}
	if len(texts) == 0 {
		var sb strings.Builder
		for i := range 400 {
			fmt.Fprintf(&sb, "Sentence %d of the generated text talks about topic %d.\n\n", i, i%13)
		}
		texts["generated.md"] = sb.String()
	}
	for c := range copies {
		for name, text := range texts {
			p := filepath.Join(dir, fmt.Sprintf("%03d-%s", c, name))
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return dir, files
}

// run builds and runs the pipeline on Prism and returns its counters.
func run(t testing.TB, opt Options) map[string]int64 {
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, opt); err != nil {
		t.Fatal(err)
	}
	res, err := prism.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "gochunk" {
			counts[c.Name()] += c.Result()
		}
	}
	return counts
}

// lines reads the lines of the files matching glob, sorted.
func lines(t testing.TB, glob string) []string {
	files, _ := filepath.Glob(glob)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

// The records from Prism are byte for byte gochunk chunk's on the same
// files (order aside), with the same context and parents (embedded text,
// lines, parent spans); the bad document is in the dead-letter output with
// its id and error; the metrics count documents, chunks, bytes, failures.
func TestRecordsEqualGochunkChunk(t *testing.T) {
	dir, files := corpus(t, 2)
	bad := filepath.Join(dir, "bad.md")
	os.WriteFile(bad, []byte("not \xff\xfe UTF-8\n"), 0o644)
	out := filepath.Join(t.TempDir(), "rec")
	counts := run(t, Options{Input: filepath.Join(dir, "*.md"), Output: out, Shards: 3,
		Config: pipeline.Config{Chunker: "markdown", Params: []byte(`{"size": 300}`), Tokenizer: "cl100k_base",
			Context: pipeline.ContextConfig{Mode: "headings"}, Parents: 900}})

	bin := filepath.Join(t.TempDir(), "gochunk")
	build := exec.Command("go", "build", "-o", bin, "./cmd/gochunk")
	build.Dir = ".." // gochunk's own module
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build gochunk: %v\n%s", err, b)
	}
	cli, err := exec.Command(bin, append([]string{"chunk", "--chunker", "markdown", "--size", "300", "--tokenizer", "cl100k_base", "--context", "headings", "--parents", "900"}, files...)...).Output()
	if err != nil {
		t.Fatalf("gochunk chunk: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(cli), "\n"), "\n")
	slices.Sort(want)
	got := lines(t, out+"-0000?-of-00003.jsonl")
	if !slices.Equal(got, want) {
		t.Fatalf("Beam wrote %d records, gochunk chunk %d; they differ", len(got), len(want))
	}
	if !strings.Contains(got[0], `"embed_text":`) || !strings.Contains(got[0], `"parent":{`) || !strings.Contains(got[0], `"lines":[`) {
		t.Errorf("a record without its context, parent or lines: %.300s", got[0])
	}
	dead := lines(t, out+"-failed-*.jsonl")
	if len(dead) != 1 || !strings.Contains(dead[0], `"id":"`+bad+`"`) || !strings.Contains(dead[0], "UTF-8") {
		t.Errorf("dead letters %q", dead)
	}
	var size int64
	for _, f := range files {
		fi, _ := os.Stat(f)
		size += fi.Size()
	}
	if counts["documents"] != int64(len(files)) || counts["chunks"] != int64(len(want)) || counts["failed_documents"] != 1 || counts["bytes"] < size {
		t.Errorf("metrics %v (want %d documents, %d chunks, 1 failed, ≥ %d bytes)", counts, len(files), len(want), size)
	}
}

// JSON Lines input: one document per line; a line without text is a dead
// letter.
func TestJSONLines(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "docs.jsonl")
	os.WriteFile(in, []byte(`{"id": "a", "text": "First document. It has two sentences.", "metadata": {"lang": "en"}}
{"id": 7, "text": "Second one."}
{"id": "nul", "text": null}
`), 0o644)
	out := filepath.Join(t.TempDir(), "rec")
	counts := run(t, Options{Input: in, JSONL: true, Output: out, Config: pipeline.Config{Chunker: "sentence"}})
	got := lines(t, out+"-0*-of-*.jsonl")
	if len(got) != 2 || !strings.Contains(strings.Join(got, "\n"), `"source":"7"`) {
		t.Errorf("records %q", got)
	}
	if dead := lines(t, out+"-failed-*"); len(dead) != 1 || !strings.Contains(dead[0], `"id":"nul"`) {
		t.Errorf("dead letters %q", dead)
	}
	if counts["documents"] != 2 {
		t.Errorf("metrics %v", counts)
	}
}

// BenchmarkPrism measures documents/s of the whole pipeline on Prism.
func BenchmarkPrism(b *testing.B) {
	dir, files := corpus(b, 20)
	b.ResetTimer()
	began := time.Now()
	for range b.N {
		run(b, Options{Input: filepath.Join(dir, "*.md"), Output: filepath.Join(b.TempDir(), "rec"), Shards: 4, Config: pipeline.Config{Chunker: "recursive"}})
	}
	b.ReportMetric(float64(len(files)*b.N)/time.Since(began).Seconds(), "docs/s")
}

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// With --store, every document's chunks land in a real PostgreSQL, as
// gochunk index writes them.
func TestStorePostgres(t *testing.T) {
	dsn := pgtest.Start(t)
	dir, files := corpus(t, 1)
	run(t, Options{Input: filepath.Join(dir, "*.md"), Store: dsn, Config: pipeline.Config{Chunker: "recursive", Params: []byte(`{"size": 500}`), EmbedChunks: true}})
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Counts(context.Background())
	if err != nil || c.Documents != len(files) || c.Chunks == 0 {
		t.Fatalf("store counts %+v, %v (want %d documents)", c, err, len(files))
	}
	b, _ := os.ReadFile(files[0])
	word := ""
	for _, w := range strings.Fields(string(b)) {
		if len(w) >= 7 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
			word = w
			break
		}
	}
	hits, err := st.Search(context.Background(), store.Query{Text: word, K: 3, Mode: store.Keyword})
	if err != nil || len(hits) == 0 {
		t.Errorf("keyword search: %v, %v", hits, err)
	}
}

// An input pattern that matches no file is an error naming it, before the
// pipeline runs (it would otherwise succeed, writing nothing).
func TestNoInputIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, jsonl := range []bool{false, true} {
		_, s := beam.NewPipelineWithRoot()
		glob := filepath.Join(dir, "nothing-*.md")
		err := Build(s, Options{Input: glob, JSONL: jsonl, Output: filepath.Join(dir, "out"), Config: pipeline.Config{Chunker: "recursive"}})
		if err == nil || !strings.Contains(err.Error(), glob) {
			t.Errorf("jsonl %v: %v, want an error naming %s", jsonl, err, glob)
		}
	}
	_, s := beam.NewPipelineWithRoot()
	if err := Build(s, Options{Input: "relative-nothing/*.md", Output: filepath.Join(dir, "out")}); err == nil || !strings.Contains(err.Error(), "relative to") {
		t.Errorf("a relative pattern: %v, want the working directory named", err)
	}
}

// Files of every kind the pipeline reads come in the same way as with
// gochunk chunk: an e-mail beside a markdown file.
func TestMixedFormats(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# Notes\n\nOtters hold hands."), 0o644)
	os.WriteFile(filepath.Join(dir, "b.eml"), []byte("From: keeper@zoo.example\r\nTo: staff@zoo.example\r\nSubject: Feeding times\r\n\r\nThe penguins eat at noon.\r\n"), 0o644)
	var pdf bytes.Buffer
	if err := pdfgen.Write(&pdf, pdfgen.TwoColumn("Census", []string{"The penguins number two hundred and twelve."}, "Zoo")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "c.eml"), mailgen.Message("Reports", "The census is attached.", mailgen.Attachment{Name: "census.pdf", Media: "application/pdf", Data: pdf.Bytes()}), 0o644)
	out := filepath.Join(t.TempDir(), "rec")
	counts := run(t, Options{Input: filepath.Join(dir, "*"), Output: out, Config: pipeline.Config{Chunker: "markdown"}})
	got := strings.Join(lines(t, out+"-*.jsonl"), "\n")
	if counts["failed_documents"] != 0 || !strings.Contains(got, `# Feeding times`) || !strings.Contains(got, "penguins eat at noon") || !strings.Contains(got, "Otters hold hands") {
		t.Errorf("records %s, metrics %v", got, counts)
	}
	// An e-mail's attachment is a document of its own (MESSAGE/NAME).
	if !strings.Contains(got, `c.eml/census.pdf"`) || !strings.Contains(got, "two hundred and twelve") {
		t.Errorf("the attachment's records are missing: %s", got)
	}
}
