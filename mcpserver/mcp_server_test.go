package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/store"
)

// fixture is a directory of documents, a store indexed from it, and a
// server over both.
type fixture struct {
	dir, outside string
	st           store.Store
	pl           *pipeline.Pipeline
}

const guide = `# Installing

Download the binary and put it on your PATH. The installer checks the
checksum of every archive it downloads.

## Upgrading

Run the installer again: it replaces the binary in place and keeps the
configuration file untouched.

# Configuring

The configuration file lives next to the binary. Every setting has a
default; the file only names the ones you change.
`

func newFixture(t *testing.T, parents int) fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	outside := filepath.Join(dir, "private")
	for _, d := range []string{docs, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(docs, "guide.md"), guide)
	write(filepath.Join(docs, "notes.txt"), "Meeting notes.\nThe checksum step was added in March.\nNothing else changed.\n")
	write(filepath.Join(outside, "secret.txt"), "the password is swordfish\n")
	// A link inside the root that leads out of it.
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(docs, "link.txt")); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	pl, err := pipeline.New(ctx, pipeline.Config{Chunker: "recursive", Params: json.RawMessage(`{"size": 24}`), Parents: parents,
		Embedder: pipeline.EmbedderConfig{Name: "lexical"}}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{dir: docs, outside: outside, st: st, pl: pl}
}

func (f fixture) index(t *testing.T) {
	t.Helper()
	real, err := filepath.EvalSymlinks(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Run(context.Background(), f.st, f.pl, []index.Source{index.Files{Root: real}}, index.Options{Embed: true}); err != nil {
		t.Fatal(err)
	}
}

// connect starts a server for cfg (store and pipeline from f) and returns
// a client session to it over the SDK's in-memory transport.
func (f fixture) connect(t *testing.T, cfg Config, copt *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	cfg.Store, cfg.Pipeline, cfg.Where = f.st, f.pl, "index.db"
	if cfg.Roots == nil {
		cfg.Roots = []string{f.dir}
	}
	cfg.Index.Embed = true
	s, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copt)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out; it
// returns the result's text and whether it is an error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return text.String(), res.IsError
}

func TestToolsListed(t *testing.T) {
	f := newFixture(t, 0)
	for _, allow := range []bool{false, true} {
		cs := f.connect(t, Config{AllowIndex: allow}, nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
				t.Errorf("tool %s: description, input or output schema missing", tool.Name)
			}
		}
		want := "chunk extract search sources"
		if allow {
			want = "chunk extract index search sources"
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("allow index %v: tools %s, want %s", allow, got, want)
		}
	}
}

func TestSearchHitsLinkTheirSpans(t *testing.T) {
	f := newFixture(t, 200)
	f.index(t)
	cs := f.connect(t, Config{}, nil)
	var out SearchOutput
	text, isErr := call(t, cs, "search", map[string]any{"query": "installer checksum", "k": 3, "mode": "keyword"}, &out)
	if isErr || len(out.Hits) == 0 {
		t.Fatalf("search: %s %+v", text, out)
	}
	for _, h := range out.Hits {
		if h.Source == "" || h.URI == "" || len(h.Lines) != 2 || h.Text == "" {
			t.Errorf("hit without provenance: %+v", h)
		}
		// The link reads back the hit's exact text.
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: h.URI})
		if err != nil {
			t.Fatalf("read %s: %v", h.URI, err)
		}
		if got := res.Contents[0].Text; got != h.Text {
			t.Errorf("%s reads %q, the hit's text is %q", h.URI, got, h.Text)
		}
		if b, _ := os.ReadFile(h.Source); string(b[h.Start:h.End]) != h.Text {
			t.Errorf("hit %q is not bytes [%d:%d] of %s", h.Text, h.Start, h.End, h.Source)
		}
	}
	if !strings.Contains(text, out.Hits[0].URI) {
		t.Errorf("the text content does not name the hit's link: %s", text)
	}
	// Expanded to the section: the heading above the hit comes with it.
	var sec SearchOutput
	call(t, cs, "search", map[string]any{"query": "replaces the binary in place", "k": 1, "mode": "keyword", "expand": "section"}, &sec)
	if len(sec.Hits) != 1 || sec.Hits[0].Kind != "section" || !strings.HasPrefix(sec.Hits[0].Text, "## Upgrading") {
		t.Errorf("section expansion: %+v", sec.Hits)
	}
}

func TestBadArgumentsAreToolErrors(t *testing.T) {
	f := newFixture(t, 0)
	f.index(t)
	cs := f.connect(t, Config{}, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "x", "mode": "fuzzy"}, "mode"},
		{"search", map[string]any{"query": "x", "k": 0}, "k"},
		{"search", map[string]any{"query": "x", "expand": "window:0"}, "expand"},
		{"search", map[string]any{"query": "x", "merge": 1}, "merge"},
		{"search", map[string]any{"query": "x", "expand": "parent"}, "parents"},
		{"search", map[string]any{}, "query"},
		{"chunk", map[string]any{}, "text"},
		{"chunk", map[string]any{"text": "a b c", "chunker": "nonesuch"}, "chunker"},
		{"chunk", map[string]any{"text": "a b c", "config": map[string]any{"size": -3}}, "size"},
		{"extract", map[string]any{"path": "nonesuch.pdf"}, "no such file"},
		{"extract", map[string]any{"path": "guide.md", "offset": 1 << 30}, "offset"},
		{"sources", map[string]any{"limit": 5000}, "limit"},
		{"chunk", map[string]any{"text": "a b c", "tokenizer": "hf:" + filepath.Join(f.outside, "secret.txt")}, "outside the allowed roots"},
		{"chunk", map[string]any{"text": "a b c", "tokenizer": "hf:../private/secret.txt"}, "outside the allowed roots"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: error %v %q, want a tool error naming %q", c.tool, c.args, isErr, text, c.want)
		}
	}
}

func TestPathsOutsideTheRootsAreRefused(t *testing.T) {
	f := newFixture(t, 0)
	cs := f.connect(t, Config{AllowIndex: true}, nil)
	for _, p := range []string{
		filepath.Join(f.outside, "secret.txt"),
		"../private/secret.txt",
		filepath.Join(f.dir, "..", "private", "secret.txt"),
		"link.txt", // a symbolic link out of the root
		"/etc/passwd",
	} {
		for _, tool := range []string{"extract", "chunk", "index"} {
			args := map[string]any{"path": p}
			if tool == "index" {
				args = map[string]any{"paths": []string{p}}
			}
			text, isErr := call(t, cs, tool, args, nil)
			if !isErr || !strings.Contains(text, "outside the allowed roots") || strings.Contains(text, "swordfish") {
				t.Errorf("%s %s: %v %q, want it refused", tool, p, isErr, text)
			}
		}
	}
	// Inside, relative to the root, it reads.
	var ex ExtractOutput
	if text, isErr := call(t, cs, "extract", map[string]any{"path": "guide.md"}, &ex); isErr || ex.Text != guide {
		t.Errorf("extract guide.md: %v %s", isErr, text)
	}
}

// A root given as a symbolic link: paths under the link as given are
// read (once resolved, they are under its target).
func TestRootGivenAsALink(t *testing.T) {
	f := newFixture(t, 0)
	link := filepath.Join(t.TempDir(), "docs-link")
	if err := os.Symlink(f.dir, link); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, Config{Roots: []string{link}}, nil)
	var ex ExtractOutput
	if text, isErr := call(t, cs, "extract", map[string]any{"path": filepath.Join(link, "guide.md")}, &ex); isErr || ex.Text != guide {
		t.Errorf("a path under the root's link: %v %s", isErr, text)
	}
	if text, isErr := call(t, cs, "extract", map[string]any{"path": filepath.Join(link, "link.txt")}, nil); !isErr || strings.Contains(text, f.outside) {
		t.Errorf("a link out of the root: %v %q (refused, without saying where it leads)", isErr, text)
	}
}

func TestClientRootsNarrow(t *testing.T) {
	f := newFixture(t, 0)
	sub := filepath.Join(f.dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "a.txt"), []byte("in the client's root"), 0o644)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(sub)})
	s, err := New(context.Background(), Config{Store: f.st, Pipeline: f.pl, Roots: []string{f.dir}})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	// Roots are asked for on protocol versions before 2026-07-28, which
	// deprecates them.
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, isErr := call(t, cs, "extract", map[string]any{"path": filepath.Join(f.dir, "guide.md")}, nil); !isErr || !strings.Contains(text, "outside") {
		t.Errorf("a file outside the client's roots: %v %q", isErr, text)
	}
	var ex ExtractOutput
	if text, isErr := call(t, cs, "extract", map[string]any{"path": filepath.Join(sub, "a.txt")}, &ex); isErr || ex.Text != "in the client's root" {
		t.Errorf("a file inside both: %v %q", isErr, text)
	}
}

func TestChunkReturnsTheCLIRecords(t *testing.T) {
	f := newFixture(t, 0)
	cs := f.connect(t, Config{MaxResultBytes: 600}, nil)
	var out ChunkOutput
	text, isErr := call(t, cs, "chunk", map[string]any{"path": "guide.md"}, &out)
	if isErr {
		t.Fatal(text)
	}
	// The same records as the pipeline writes for gochunk chunk.
	real, _ := filepath.EvalSymlinks(filepath.Join(f.dir, "guide.md"))
	var want []map[string]any
	f.pl.Stream(context.Background(), []pipeline.Source{{Path: real, Metadata: map[string]any{"source": real}}}, 1, false, func(it pipeline.Item) error {
		b, _ := it.Result.AppendJSONL(nil, 0, len(it.Result.Chunks))
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m map[string]any
			json.Unmarshal([]byte(line), &m)
			want = append(want, m)
		}
		return nil
	})
	if out.Total != len(want) || len(out.Records) == 0 || len(out.Records) >= out.Total || !strings.Contains(out.Note, "first=") {
		t.Fatalf("a bounded result: total %d (want %d), %d records, note %q", out.Total, len(want), len(out.Records), out.Note)
	}
	got := out.Records
	for len(got) < out.Total {
		var next ChunkOutput
		call(t, cs, "chunk", map[string]any{"path": "guide.md", "first": len(got)}, &next)
		if len(next.Records) == 0 {
			t.Fatalf("paging stalled at %d: %q", len(got), next.Note)
		}
		got = append(got, next.Records...)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Errorf("records\n%s\nwant\n%s", a, b)
	}
	// Another chunker and parameters on a text.
	var words ChunkOutput
	call(t, cs, "chunk", map[string]any{"text": "one two three four five six seven", "chunker": "token", "config": map[string]any{"size": 3}, "tokenizer": "words"}, &words)
	if words.Total != 3 || words.Unit != "words" {
		t.Errorf("token chunker on words: %+v", words)
	}
}

func TestIndexToolAndSources(t *testing.T) {
	f := newFixture(t, 200)
	cs := f.connect(t, Config{AllowIndex: true}, nil)
	if text, isErr := call(t, cs, "search", map[string]any{"query": "checksum"}, nil); !isErr || !strings.Contains(text, "index tool") {
		t.Errorf("search of an empty index: %v %q", isErr, text)
	}
	var sum index.Summary
	if text, isErr := call(t, cs, "index", map[string]any{"paths": []string{"."}}, &sum); isErr || sum.Documents.Added != 2 {
		t.Fatalf("index: %v %s", isErr, text)
	}
	var src SourcesOutput
	call(t, cs, "sources", nil, &src)
	if src.Documents != 2 || src.Chunks == 0 || len(src.List) != 2 || !src.List[0].Current || src.Embedder == "" || len(src.Chunkers) == 0 {
		t.Errorf("sources: %+v", src)
	}
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(res.Resources) != 2 {
		t.Fatalf("resources: %v %+v", err, res)
	}
	doc, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: res.Resources[0].URI})
	if err != nil || doc.Contents[0].Text != guide {
		t.Errorf("read %s: %v %+v", res.Resources[0].URI, err, doc)
	}
	var out SearchOutput
	call(t, cs, "search", map[string]any{"query": "checksum archive", "expand": "parent"}, &out)
	if len(out.Hits) == 0 || out.Hits[0].Kind != "parent" {
		t.Errorf("search after index: %+v", out)
	}
}

func TestURIRoundTrip(t *testing.T) {
	for _, id := range []string{"/a/b c.md", "docs/ü?&=#.txt", "row 17", "%41"} {
		u := SpanURI(id, 3, 9)
		got, start, end, err := ParseURI(u)
		if err != nil || got != id || start != 3 || end != 9 {
			t.Errorf("%q: %s read as %q %d %d %v", id, u, got, start, end, err)
		}
	}
	for _, bad := range []string{"gochunk://doc/", "gochunk://doc/x?start=-1", "gochunk://doc/x?start=5&end=2", "file:///x", "gochunk://doc/%zz"} {
		if _, _, _, err := ParseURI(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// An index made without parents keeps no document texts: a hit's link is
// read from its file, and section expansion says how to index for it.
func TestSpansReadFromFilesWithoutStoredTexts(t *testing.T) {
	f := newFixture(t, 0)
	f.index(t)
	cs := f.connect(t, Config{}, nil)
	var out SearchOutput
	call(t, cs, "search", map[string]any{"query": "configuration file untouched", "k": 2, "mode": "keyword"}, &out)
	if len(out.Hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range out.Hits {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: h.URI})
		if err != nil || res.Contents[0].Text != h.Text || res.Contents[0].Meta["read_from"] != "file" {
			t.Errorf("read %s: %v %+v, want %q from the file", h.URI, err, res, h.Text)
		}
	}
	if text, isErr := call(t, cs, "search", map[string]any{"query": "binary", "expand": "section"}, nil); !isErr || !strings.Contains(text, "--parents") {
		t.Errorf("section expansion without texts: %v %q", isErr, text)
	}
	// A document the store does not hold is not found.
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: DocumentURI("/no/such/doc")}); err == nil {
		t.Error("reading a document the store does not hold: no error")
	}
}

// Arguments of null, or missing, are what an agent may send: each tool
// answers (a result or a tool error), never a crash.
func TestNullArguments(t *testing.T) {
	f := newFixture(t, 0)
	f.index(t)
	cs := f.connect(t, Config{AllowIndex: true}, nil)
	for _, tool := range []string{"search", "chunk", "extract", "index", "sources"} {
		for _, args := range []any{nil, json.RawMessage("null"), map[string]any{}} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil {
				t.Errorf("%s %v: %v", tool, args, err)
				continue
			}
			if tool != "sources" && !res.IsError {
				t.Errorf("%s %s: no error for missing arguments", tool, args)
			}
		}
	}
}

// A result over the bound is cut, with a note; the resource reads the
// rest.
func TestResultsAreBounded(t *testing.T) {
	f := newFixture(t, 200)
	f.index(t)
	cs := f.connect(t, Config{MaxResultBytes: 100}, nil)
	var ex ExtractOutput
	call(t, cs, "extract", map[string]any{"path": "guide.md"}, &ex)
	if ex.NextOffset == 0 || !strings.Contains(ex.Note, "offset=") || len(ex.Text) >= len(guide) {
		t.Errorf("extract bounded to 100 bytes: %d bytes, next %d, note %q", len(ex.Text), ex.NextOffset, ex.Note)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(f.dir, "guide.md"))
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: DocumentURI(real)})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contents[0]
	if len(c.Text) != 100 || c.Meta["truncated"] != true || c.Meta["next"] == nil {
		t.Fatalf("a bounded read: %d bytes, meta %v", len(c.Text), c.Meta)
	}
	var all strings.Builder
	all.WriteString(c.Text)
	for next, _ := c.Meta["next"].(string); next != ""; {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: next})
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(res.Contents[0].Text)
		next, _ = res.Contents[0].Meta["next"].(string)
	}
	if all.String() != guide {
		t.Errorf("the pages read back %q", all.String())
	}
}

// A client that declares roots but lists none, or only roots this
// machine does not have, leaves the server's roots as they are; one whose
// roots do not overlap the server's reads nothing.
func TestClientRootsThatDoNotNarrow(t *testing.T) {
	f := newFixture(t, 0)
	for _, c := range []struct {
		roots []string
		ok    bool
	}{{nil, true}, {[]string{"/no/such/dir/on/this/machine"}, true}, {[]string{f.outside}, false}} {
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		for _, r := range c.roots {
			client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(r)})
		}
		s, err := New(context.Background(), Config{Store: f.st, Pipeline: f.pl, Roots: []string{f.dir}})
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		text, isErr := call(t, cs, "extract", map[string]any{"path": "guide.md"}, nil)
		if isErr == c.ok || !c.ok && !strings.Contains(text, "do not overlap") {
			t.Errorf("client roots %v: error %v %q", c.roots, isErr, text)
		}
		cs.Close()
		ss.Close()
	}
}

// An index run's failures are listed up to a bound, with a note.
func TestIndexFailuresBounded(t *testing.T) {
	f := newFixture(t, 0)
	bad := filepath.Join(f.dir, "bad")
	os.Mkdir(bad, 0o755)
	for i := range maxFailures + 5 {
		os.WriteFile(filepath.Join(bad, fmt.Sprintf("b%03d.pdf", i)), []byte("%PDF-1.4 not a PDF"), 0o644)
	}
	cs := f.connect(t, Config{AllowIndex: true}, nil)
	var out IndexOutput
	if text, isErr := call(t, cs, "index", map[string]any{"paths": []string{"bad"}}, &out); isErr {
		t.Fatal(text)
	}
	if out.Documents.Failed != maxFailures+5 || len(out.Failures) != maxFailures || !strings.Contains(out.Note, "105 documents failed") {
		t.Errorf("failed %d, listed %d, note %q", out.Documents.Failed, len(out.Failures), out.Note)
	}
}

// An index run with a progress token reports its first and last
// documents, with the total, and at most ten notifications a second
// between.
func TestIndexProgress(t *testing.T) {
	f := newFixture(t, 0)
	bulk := filepath.Join(f.dir, "bulk")
	os.Mkdir(bulk, 0o755)
	for i := range 300 {
		os.WriteFile(filepath.Join(bulk, fmt.Sprintf("n%03d.txt", i)), []byte(fmt.Sprintf("note %d\n", i)), 0o644)
	}
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cs := f.connect(t, Config{AllowIndex: true}, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: "index", Arguments: map[string]any{"paths": []string{"bulk"}}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("index: %v %+v", err, res)
	}
	// Notifications are handled apart from the answer: wait for the last.
	for range 100 {
		mu.Lock()
		n := len(got)
		done := n > 0 && got[n-1].Progress == 300
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || got[0].Progress != 1 || got[len(got)-1].Progress != 300 || got[0].Total != 300 || got[0].ProgressToken != "tok" || got[0].Message == "" {
		t.Fatalf("%d notifications, first %+v, last %+v", len(got), got[0], got[len(got)-1])
	}
	t.Logf("%d progress notifications for 300 documents", len(got))
}
