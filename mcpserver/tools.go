package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunkers"
	"github.com/gochunk/gochunk/index"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/store"
)

// maxHits bounds the k of a search.
const maxHits = 100

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"what to find: a question or keywords"`
	K      int    `json:"k,omitempty" jsonschema:"how many hits to return, 1 to 100 (default 10)"`
	Mode   string `json:"mode,omitempty" jsonschema:"vector (by meaning), keyword (by words: full-text search) or hybrid (both, fused by rank; the default)"`
	Expand string `json:"expand,omitempty" jsonschema:"what each hit returns: none (its chunk, the default), parent (its parent chunk; needs an index made with parents), section (from the heading above it to the next heading of its level) or window:N (the chunk with N chunks on each side)"`
	Merge  int    `json:"merge,omitempty" jsonschema:"when this many (2 or more) hits are children of one parent, return the parent in their place if their scores and those of its other children among the candidates add up to more than those of the hits its text would push out (auto-merging; needs an index made with parents); 0 never"`
	Source string `json:"source,omitempty" jsonschema:"keep only hits whose source (a file path or document id) starts with this prefix"`
	// Where's values are strings, numbers or booleans (the schema says so).
	Where  map[string]any `json:"where,omitempty" jsonschema:"keep only hits whose metadata, or else their document's, has each key with the value (compared as text; booleans as 1 and 0)"`
	Exact  bool           `json:"exact,omitempty" jsonschema:"scan every stored vector instead of using the vector index (slower; the reference the index is measured against)"`
	Probes int            `json:"probes,omitempty" jsonschema:"lists of the vector index read (more: nearer the exact scan; fewer: sooner); 0 the store's default"`
}

// Hit is one search result: the text returned for a chunk that matched
// (the chunk itself, or its parent, section or window), where it lies in
// its source, and the gochunk:// URI of that exact span.
type Hit struct {
	Rank       int            `json:"rank" jsonschema:"1 for the best hit"`
	Source     string         `json:"source" jsonschema:"the document: a file path or an id"`
	ChunkIndex int            `json:"chunk_index" jsonschema:"the matched chunk's index in its document"`
	Score      float64        `json:"score" jsonschema:"cosine similarity (vector), text rank (keyword) or fused rank score (hybrid); higher is better"`
	Kind       string         `json:"kind" jsonschema:"what text holds: chunk, parent, section, window or merged (a parent returned for several of its children)"`
	Text       string         `json:"text"`
	Start      int            `json:"start" jsonschema:"byte offset of text in the document's text"`
	End        int            `json:"end" jsonschema:"byte offset where text ends (exclusive)"`
	StartRune  int            `json:"start_rune" jsonschema:"start in code points"`
	EndRune    int            `json:"end_rune" jsonschema:"end in code points"`
	Lines      []int          `json:"lines,omitempty" jsonschema:"first and last line (1-based) of the matched chunk in a text document"`
	Pages      []int          `json:"pages,omitempty" jsonschema:"first and last page of the matched chunk in a laid-out document (PDF)"`
	Chunks     []int          `json:"chunks,omitempty" jsonschema:"the chunks the text stands for, when it is more than the matched chunk"`
	URI        string         `json:"uri" jsonschema:"the gochunk:// resource of this span: read it for the text (more of it when cut)"`
	Truncated  bool           `json:"truncated,omitempty" jsonschema:"text was cut to keep the result small; read uri for all of it"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// SearchOutput is the search tool's result.
type SearchOutput struct {
	Hits []Hit  `json:"hits"`
	Note string `json:"note,omitempty"`
}

// ChunkInput is the chunk tool's arguments.
type ChunkInput struct {
	Text      string         `json:"text,omitempty" jsonschema:"the text to chunk (give text or path)"`
	Path      string         `json:"path,omitempty" jsonschema:"a file under an allowed root to chunk: text, markdown, code, HTML, PDF, office documents, EPUB, e-mail"`
	Chunker   string         `json:"chunker,omitempty" jsonschema:"the chunker (default: the server's); the sources tool lists each with its parameters"`
	Config    map[string]any `json:"config,omitempty" jsonschema:"the chunker's parameters, as gochunk chunk --params takes them, e.g. {\"size\": 512, \"overlap\": 64}; also context (none, headings) and parents (a size)"`
	Tokenizer string         `json:"tokenizer,omitempty" jsonschema:"the unit sizes are counted in: cl100k_base, o200k_base, chars, words, a Hugging Face model id…; default the chunker's own"`
	First     int            `json:"first,omitempty" jsonschema:"index of the first chunk to return, to page through a long result (default 0)"`
}

// ChunkOutput is the chunk tool's result: the records gochunk chunk
// writes, one a chunk.
type ChunkOutput struct {
	Source   string           `json:"source"`
	Chunker  string           `json:"chunker"`
	Unit     string           `json:"unit" jsonschema:"what token_count counts"`
	Total    int              `json:"total" jsonschema:"the chunks of the input, all of them"`
	First    int              `json:"first" jsonschema:"index of the first record returned"`
	Records  []map[string]any `json:"records" jsonschema:"the chunks as gochunk chunk writes them: text, start, end (bytes), start_rune, end_rune, token_count, chunk_index, source, lines or pages, metadata"`
	Warnings []string         `json:"warnings,omitempty"`
	Note     string           `json:"note,omitempty"`
}

// ExtractInput is the extract tool's arguments.
type ExtractInput struct {
	Path     string `json:"path" jsonschema:"a file under an allowed root: PDF, HTML, office document, EPUB, e-mail, markdown or text"`
	Offset   int    `json:"offset,omitempty" jsonschema:"byte offset of the text to start from, to page through a long document (default 0)"`
	Elements bool   `json:"elements,omitempty" jsonschema:"also return the layout elements (type, text, page, bbox, offsets) of a laid-out document such as a PDF"`
}

// Table is a table element of a document.
type Table struct {
	Page  int    `json:"page,omitempty"`
	Start int    `json:"start" jsonschema:"byte offset in the text"`
	End   int    `json:"end"`
	Text  string `json:"text" jsonschema:"its start, up to 500 bytes"`
}

// ExtractOutput is the extract tool's result: the text chunk offsets
// refer to, and the document's structure.
type ExtractOutput struct {
	Path       string             `json:"path"`
	Length     int                `json:"length" jsonschema:"bytes of the whole text"`
	Offset     int                `json:"offset"`
	Text       string             `json:"text" jsonschema:"the text from offset, exactly as the chunkers see it"`
	NextOffset int                `json:"next_offset,omitempty" jsonschema:"where the rest of the text starts when it was cut: call again with this offset"`
	Pages      int                `json:"pages,omitempty"`
	Headings   []pipeline.Heading `json:"headings,omitempty" jsonschema:"the headings (start in bytes, level, title), as section expansion reads them"`
	Tables     []Table            `json:"tables,omitempty"`
	Elements   []gochunk.Element  `json:"elements,omitempty"`
	Metadata   map[string]any     `json:"metadata,omitempty"`
	Warning    string             `json:"warning,omitempty"`
	Note       string             `json:"note,omitempty"`
}

// IndexInput is the index tool's arguments.
type IndexInput struct {
	Paths   []string `json:"paths" jsonschema:"files or directories under the allowed roots to add or refresh; directories are walked (hidden files and binaries left out)"`
	Include []string `json:"include,omitempty" jsonschema:"index only files matching one of these globs (of the path under the directory, or the name): *.md, docs/*.txt"`
	Exclude []string `json:"exclude,omitempty" jsonschema:"leave out files and directories matching one of these globs"`
}

// IndexOutput is the index tool's result: what gochunk index --json
// prints, with a note when its list of failures was cut.
type IndexOutput struct {
	index.Summary
	Note string `json:"note,omitempty"`
}

// maxFailures bounds the failures an index result lists.
const maxFailures = 100

// SourcesInput is the sources tool's arguments.
type SourcesInput struct {
	Prefix string `json:"prefix,omitempty" jsonschema:"list only the documents whose id starts with this"`
	Offset int    `json:"offset,omitempty" jsonschema:"skip this many documents of the list (default 0)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"list at most this many documents, 1 to 1000 (default 100)"`
}

// Document is an indexed document as the sources tool lists it.
type Document struct {
	ID      string `json:"id"`
	Source  string `json:"source" jsonschema:"what it was indexed from: a directory, a file, -, a table"`
	Current bool   `json:"current" jsonschema:"indexed with the configuration the index tool uses now"`
	URI     string `json:"uri" jsonschema:"its gochunk:// resource"`
}

// Chunker is a chunker the chunk tool can use.
type Chunker struct {
	Name        string           `json:"name"`
	Summary     string           `json:"summary"`
	DefaultUnit string           `json:"default_unit"`
	Params      []chunkers.Param `json:"params,omitempty"`
}

// SourcesOutput is the sources tool's result.
type SourcesOutput struct {
	Store         string         `json:"store"`
	Documents     int            `json:"documents"`
	Chunks        int            `json:"chunks"`
	Embedder      string         `json:"embedder,omitempty" jsonschema:"the model that made the store's vectors (none: keyword search only)"`
	Configuration map[string]any `json:"configuration" jsonschema:"what the index and chunk tools chunk with: chunker, config, tokenizer, parents, context"`
	Roots         []string       `json:"roots" jsonschema:"the directories whose files the tools may read"`
	IndexAllowed  bool           `json:"index_allowed"`
	List          []Document     `json:"list"`
	Chunkers      []Chunker      `json:"chunkers,omitempty"`
	Note          string         `json:"note,omitempty"`
}

// schema returns the JSON schema of T with fix applied.
func schema[T any](fix func(s *jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err)) // the types above: fixed at build time
	}
	if fix != nil {
		fix(s)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func (s *Server) addTools() {
	names := pipeline.Names()
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "search",
		Title: "Search the index",
		Description: "Searches the indexed documents for passages about a query and returns the best hits: each with its text, " +
			"its source, lines (text) or pages (PDF), score and a gochunk:// resource link to its exact span. " +
			"expand returns more than the matched chunk (its parent, its section, or a window of neighbouring chunks); " +
			"merge returns a parent in place of several of its children when their scores say it is the better use of the hits. " +
			"source (a path prefix) and where (metadata values) keep only the hits that match, inside the search: k hits come back when k chunks match.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		InputSchema: schema[SearchInput](func(sc *jsonschema.Schema) {
			p := sc.Properties
			// No defaults in the schemas: the SDK's validator would write
			// them into the arguments (and fails on arguments of null);
			// the handlers apply them.
			p["k"].Minimum, p["k"].Maximum = ptr(1.0), ptr(float64(maxHits))
			p["mode"].Enum = []any{"hybrid", "vector", "keyword"}
			p["expand"].Pattern = `^(none|parent|section|window:[1-9][0-9]{0,3})$`
			p["merge"].Minimum, p["merge"].Maximum = ptr(0.0), ptr(1000.0)
			p["query"].MinLength = ptr(1)
			p["probes"].Minimum = ptr(0.0)
			p["where"].AdditionalProperties = &jsonschema.Schema{Types: []string{"string", "number", "boolean"}}
		}),
	}, s.searchTool)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "chunk",
		Title: "Chunk text or a file",
		Description: "Splits a text, or a file under the allowed roots, into chunks with any of gochunk's chunkers and parameters, " +
			"and returns the records gochunk chunk writes: each chunk's text, exact byte and code-point offsets, token count, " +
			"and lines or pages. Long results are paged: call again with first.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		InputSchema: schema[ChunkInput](func(sc *jsonschema.Schema) {
			sc.Properties["chunker"].Enum = toAny(names)
			sc.Properties["first"].Minimum = ptr(0.0)
		}),
	}, s.chunkTool)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "extract",
		Title: "Extract a file's text and structure",
		Description: "Reads a file under the allowed roots (PDF, HTML, office documents, EPUB, e-mail, markdown, text) and returns " +
			"the text chunk offsets refer to, with its pages, headings and tables, and on request its layout elements. " +
			"Long texts are paged: call again with next_offset.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		InputSchema: schema[ExtractInput](func(sc *jsonschema.Schema) {
			sc.Properties["offset"].Minimum = ptr(0.0)
			sc.Properties["path"].MinLength = ptr(1)
		}),
	}, s.extractTool)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "sources",
		Title: "What the index holds",
		Description: "Says what the index holds: its documents (paged), their counts and chunks, the embedder of its vectors, " +
			"the configuration the index and chunk tools use, the chunkers with their parameters, and the directories files are read from.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		InputSchema: schema[SourcesInput](func(sc *jsonschema.Schema) {
			p := sc.Properties
			p["offset"].Minimum = ptr(0.0)
			p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(1000.0)
		}),
	}, s.sourcesTool)
	if s.cfg.AllowIndex {
		mcp.AddTool(s.srv, &mcp.Tool{
			Name:  "index",
			Title: "Add or refresh files in the index",
			Description: "Chunks, embeds and stores files and directories under the allowed roots, keeping the index in step: " +
				"new and changed files are (re)indexed, unchanged ones skipped, and files a directory no longer holds removed. " +
				"Reports progress per document; cancelling stops it, keeping the documents already done.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
			InputSchema: schema[IndexInput](func(sc *jsonschema.Schema) {
				sc.Properties["paths"].MinItems = ptr(1)
			}),
		}, s.indexTool)
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// clip cuts t to at most n bytes, at a character boundary.
func clip(t string, n int) (string, bool) {
	if len(t) <= n {
		return t, false
	}
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n], true
}

func (s *Server) searchTool(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	var out SearchOutput
	mode, err := store.ParseMode(in.Mode)
	if err != nil {
		return nil, out, err
	}
	x, err := index.ParseExpand(in.Expand)
	if err != nil {
		return nil, out, err
	}
	if in.Merge == 1 || in.Merge < 0 || in.Merge > 1000 {
		return nil, out, fmt.Errorf("merge %d: want 2 to 1000 children of one parent, or 0", in.Merge)
	}
	x.Merge = in.Merge
	k := cmp.Or(in.K, 10)
	if k < 1 || k > maxHits {
		return nil, out, fmt.Errorf("k %d: want 1 to %d hits", in.K, maxHits)
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, out, errors.New("query: empty; give words to search for")
	}
	if in.Probes < 0 {
		return nil, out, fmt.Errorf("probes %d: want 1 or more lists of the vector index, or 0 for the default", in.Probes)
	}
	meta, err := store.MetadataFilter(in.Where)
	if err != nil {
		return nil, out, err
	}
	se, err := s.searcher(ctx)
	if err != nil {
		return nil, out, s.storeError(err)
	}
	hits, err := se.SearchExpand(ctx, store.Query{Text: in.Query, K: k, Mode: mode, Exact: in.Exact, Probes: in.Probes, SourcePrefix: in.Source, Metadata: meta}, x)
	if err != nil {
		return nil, out, s.storeError(err)
	}
	budget := s.cfg.MaxResultBytes
	out.Hits = []Hit{}
	res := &mcp.CallToolResult{}
	var text strings.Builder
	for i, h := range hits {
		hit := Hit{Rank: i + 1, Source: h.Source, ChunkIndex: h.ChunkIndex, Score: h.Score, Kind: "chunk", Text: h.Text,
			Start: h.Start, End: h.End, StartRune: h.StartRune, EndRune: h.EndRune, Metadata: h.Metadata}
		if e := h.Expanded; e != nil {
			hit.Kind, hit.Text, hit.Start, hit.End, hit.StartRune, hit.EndRune, hit.Chunks = e.Kind, e.Text, e.Start, e.End, e.StartRune, e.EndRune, e.Chunks
		}
		if h.Lines != [2]int{} {
			hit.Lines = h.Lines[:]
		}
		if h.Pages != [2]int{} {
			hit.Pages = h.Pages[:]
		}
		hit.URI = SpanURI(h.Source, hit.Start, hit.End)
		// Each hit gets an equal share of what is left, at least 1,000
		// bytes: a long first hit does not crowd out the others.
		share := max(budget/(len(hits)-i), 1000)
		hit.Text, hit.Truncated = clip(hit.Text, share)
		budget -= len(hit.Text)
		out.Hits = append(out.Hits, hit)
		where := ""
		switch {
		case hit.Pages != nil:
			where = fmt.Sprintf(", pages %d-%d", hit.Pages[0], hit.Pages[1])
		case hit.Lines != nil:
			where = fmt.Sprintf(", lines %d-%d", hit.Lines[0], hit.Lines[1])
		}
		fmt.Fprintf(&text, "%d. %s%s (%s, score %.4f) %s\n%s\n", i+1, h.Source, where, hit.Kind, h.Score, hit.URI, hit.Text)
		if hit.Truncated {
			text.WriteString("[cut: read the link for the rest]\n")
		}
		text.WriteString("\n")
		res.Content = append(res.Content, &mcp.ResourceLink{URI: hit.URI, Name: fmt.Sprintf("%s [%d:%d]", h.Source, hit.Start, hit.End),
			MIMEType: "text/plain", Description: fmt.Sprintf("hit %d: %s %d of %s", i+1, hit.Kind, h.ChunkIndex, h.Source)})
		if budget <= 0 && i+1 < len(hits) {
			out.Note = fmt.Sprintf("%d of %d hits returned: the rest would pass the result's %d bytes; ask for fewer (k) or read the hits' links", i+1, len(hits), s.cfg.MaxResultBytes)
			break
		}
	}
	if len(hits) == 0 {
		out.Note = "no hits: try other words, or mode keyword for exact terms"
		text.WriteString(out.Note)
	} else if out.Note != "" {
		text.WriteString(out.Note)
	}
	res.Content = append([]mcp.Content{&mcp.TextContent{Text: text.String()}}, res.Content...)
	return res, out, nil
}

// storeError words the errors of an empty or unreadable store for an
// agent.
func (s *Server) storeError(err error) error {
	if errors.Is(err, index.ErrEmpty) {
		if s.cfg.AllowIndex {
			return errors.New("the index is empty: add files with the index tool first")
		}
		return errors.New("the index is empty: index files with gochunk index (or start gochunk mcp with --allow-index and use the index tool)")
	}
	return err
}

// reserve takes n bytes from the memory budget, if there is one.
func (s *Server) reserve(ctx context.Context, n int64) (func(), error) {
	if s.cfg.Reserve == nil {
		return func() {}, nil
	}
	release, err := s.cfg.Reserve(ctx, n+64<<10)
	if err != nil {
		return nil, fmt.Errorf("not enough memory for this input now (%w); try a smaller file or retry later", err)
	}
	return release, nil
}

func (s *Server) chunkTool(ctx context.Context, req *mcp.CallToolRequest, in ChunkInput) (*mcp.CallToolResult, ChunkOutput, error) {
	var out ChunkOutput
	if (in.Text == "") == (in.Path == "") {
		return nil, out, errors.New("give either text (the text to chunk) or path (a file under an allowed root), not both")
	}
	if in.First < 0 {
		return nil, out, fmt.Errorf("first %d: want 0 or more", in.First)
	}
	// A tokenizer file is a file like the others: read only under the
	// roots (the server's own, configured one aside).
	if p, ok := strings.CutPrefix(in.Tokenizer, "hf:"); ok && in.Tokenizer != s.cfg.Pipeline.Config().Tokenizer {
		real, err := s.resolve(ctx, req.Session, p)
		if err != nil {
			return nil, out, fmt.Errorf("tokenizer: %w", err)
		}
		in.Tokenizer = "hf:" + real
	}
	pl, err := s.chunkPipeline(ctx, in)
	if err != nil {
		return nil, out, err
	}
	src := pipeline.Source{ID: "text", Text: in.Text}
	size := int64(len(in.Text))
	if in.Path != "" {
		p, err := s.resolve(ctx, req.Session, in.Path)
		if err != nil {
			return nil, out, err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, out, err
		}
		if fi.IsDir() {
			return nil, out, fmt.Errorf("path %q is a directory: chunk takes one file (index takes directories)", in.Path)
		}
		src = pipeline.Source{Path: p, Metadata: map[string]any{"source": p}}
		size = fi.Size()
	}
	release, err := s.reserve(ctx, int64(max(pl.Spec().Memory, 1)*float64(size)))
	if err != nil {
		return nil, out, err
	}
	defer release()
	out = ChunkOutput{Source: cmp.Or(src.Path, src.ID), Chunker: pl.Config().Chunker, Unit: pl.Counter().Name(), First: in.First, Records: []map[string]any{}}
	budget := s.cfg.MaxResultBytes
	var line []byte
	full := false
	err = pl.Stream(ctx, []pipeline.Source{src}, 1, false, func(it pipeline.Item) error {
		if it.Loaded.Warning != "" {
			out.Warnings = append(out.Warnings, it.Loaded.Warning)
		}
		if it.Err != nil {
			return it.Err
		}
		for _, rec := range it.Result.Records() {
			n := out.Total
			out.Total++
			if n < in.First || full {
				continue
			}
			if line, err = record.AppendJSON(line[:0], rec); err != nil {
				return err
			}
			if len(line) > budget && len(out.Records) > 0 {
				full = true
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				return err
			}
			budget -= len(line)
			out.Records = append(out.Records, m)
		}
		return nil
	})
	if err != nil {
		return nil, ChunkOutput{}, err
	}
	if last := in.First + len(out.Records); last < out.Total {
		out.Note = fmt.Sprintf("chunks %d to %d of %d returned (the result is bounded to %d bytes): call again with first=%d for the rest", in.First, last-1, out.Total, s.cfg.MaxResultBytes, last)
		if len(out.Records) == 0 {
			out.Note = fmt.Sprintf("the input has %d chunks: first=%d is past the last", out.Total, in.First)
		}
	}
	return nil, out, nil
}

// chunkPipeline derives the pipeline of a chunk call from the server's:
// another chunker, parameters or tokenizer, and the context and parents
// settings among the parameters, as the HTTP API's /v1/chunk does.
func (s *Server) chunkPipeline(ctx context.Context, in ChunkInput) (*pipeline.Pipeline, error) {
	base := s.cfg.Pipeline
	cfg := base.Config()
	if in.Chunker == "" && in.Config == nil && in.Tokenizer == "" {
		return base, nil
	}
	chunker := cmp.Or(in.Chunker, cfg.Chunker)
	params := cfg.Params
	if in.Config != nil || chunker != cfg.Chunker {
		rest, err := cfg.ApplySettings(in.Config)
		if err != nil {
			return nil, err
		}
		if params, err = json.Marshal(rest); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if rest == nil {
			params = nil
		}
	}
	pl, err := base.With(ctx, chunker, params, cmp.Or(in.Tokenizer, cfg.Tokenizer))
	if err != nil {
		return nil, err
	}
	if cfg.Context != base.Config().Context {
		if pl, err = pl.WithContext(cfg.Context); err != nil {
			return nil, err
		}
	}
	if cfg.Parents != pl.Config().Parents {
		if pl, err = pl.WithParents(cfg.Parents); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

func (s *Server) extractTool(ctx context.Context, req *mcp.CallToolRequest, in ExtractInput) (*mcp.CallToolResult, ExtractOutput, error) {
	var out ExtractOutput
	p, err := s.resolve(ctx, req.Session, in.Path)
	if err != nil {
		return nil, out, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, out, err
	}
	if fi.IsDir() {
		return nil, out, fmt.Errorf("path %q is a directory: extract takes one file", in.Path)
	}
	if in.Offset < 0 {
		return nil, out, fmt.Errorf("offset %d: want 0 or more", in.Offset)
	}
	release, err := s.reserve(ctx, 3*fi.Size())
	if err != nil {
		return nil, out, err
	}
	defer release()
	doc, err := s.cfg.Pipeline.Load(ctx, pipeline.Source{Path: p})
	defer doc.Release()
	if err != nil {
		return nil, out, err
	}
	text := doc.Text
	out = ExtractOutput{Path: p, Length: len(text), Offset: in.Offset, Warning: doc.Warning, Metadata: doc.Metadata}
	if in.Offset > len(text) {
		return nil, ExtractOutput{}, fmt.Errorf("offset %d: the text has %d bytes", in.Offset, len(text))
	}
	from := in.Offset
	for from < len(text) && !utf8.RuneStart(text[from]) {
		from++
	}
	out.Offset = from
	budget := s.cfg.MaxResultBytes
	out.Headings = pipeline.Headings(text, doc.Elements)
	for _, el := range doc.Elements {
		out.Pages = max(out.Pages, el.Page)
		if el.Type == "table" && !el.Excluded {
			t, _ := clip(el.Text, 500)
			out.Tables = append(out.Tables, Table{Page: el.Page, Start: el.Start, End: el.End, Text: t})
			budget -= len(t)
		}
	}
	for _, h := range out.Headings {
		budget -= len(h.Title) + 32
	}
	if in.Elements {
		for i, el := range doc.Elements {
			if budget-len(el.Text)-128 < s.cfg.MaxResultBytes/4 {
				out.Note = fmt.Sprintf("%d of %d elements returned (the result is bounded to %d bytes); their offsets say where each is in the text. ", i, len(doc.Elements), s.cfg.MaxResultBytes)
				break
			}
			budget -= len(el.Text) + 128
			out.Elements = append(out.Elements, el)
		}
	}
	var cut bool
	out.Text, cut = clip(text[from:], max(budget, s.cfg.MaxResultBytes/4))
	if cut {
		out.NextOffset = from + len(out.Text)
		out.Note += fmt.Sprintf("text cut at byte %d of %d (the result is bounded to %d bytes): call again with offset=%d for the rest", out.NextOffset, len(text), s.cfg.MaxResultBytes, out.NextOffset)
	}
	out.Note = strings.TrimSpace(out.Note)
	return nil, out, nil
}

func (s *Server) indexTool(ctx context.Context, req *mcp.CallToolRequest, in IndexInput) (*mcp.CallToolResult, IndexOutput, error) {
	var out IndexOutput
	sum := &out.Summary
	if len(in.Paths) == 0 {
		return nil, out, errors.New("paths: empty; give files or directories under the allowed roots")
	}
	var srcs []index.Source
	for _, p := range in.Paths {
		real, err := s.resolve(ctx, req.Session, p)
		if err != nil {
			return nil, out, err
		}
		srcs = append(srcs, index.Files{Root: real, Include: in.Include, Exclude: in.Exclude, Images: s.cfg.Pipeline.Config().OCR.Enabled()})
	}
	if !s.indexing.TryLock() {
		return nil, out, errors.New("another index run is going on: wait for it to finish, then call index again")
	}
	defer s.indexing.Unlock()
	// The documents are counted first, for the progress notifications'
	// total; the walk reads no more than each file's first bytes.
	total, largest := 0, int64(0)
	for _, src := range srcs {
		err := src.Docs(ctx, func(d index.Doc) error {
			total++
			if fi, err := os.Stat(d.Path); err == nil {
				largest = max(largest, fi.Size())
			}
			return nil
		})
		if err != nil {
			return nil, out, err
		}
	}
	opt := s.cfg.Index
	jobs := max(opt.Jobs, 1)
	release, err := s.reserve(ctx, int64(max(s.cfg.Pipeline.Spec().Memory, 1)*float64(largest))*int64(jobs))
	if err != nil {
		return nil, out, err
	}
	defer release()
	// A notification per document, at most ten a second (the first and
	// the last always): a large tree does not flood the client.
	token := req.Params.GetProgressToken()
	var last time.Time
	opt.Progress = func(done int, id string) {
		if token == nil || req.Session == nil || done > 1 && done < total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(done), Total: float64(total), Message: id})
	}
	*sum, err = index.Run(ctx, s.cfg.Store, s.cfg.Pipeline, srcs, opt)
	s.forgetSearcher()
	if rerr := s.refreshResources(context.WithoutCancel(ctx)); rerr != nil && err == nil {
		err = rerr
	}
	if ctx.Err() != nil {
		d := sum.Documents
		return nil, out, fmt.Errorf("index cancelled after %d of %d documents (each document done is stored whole): call index again to finish; unchanged documents are skipped", d.Added+d.Updated+d.Unchanged+d.Failed, total)
	}
	if err != nil && !errors.Is(err, index.ErrFailed) {
		return nil, out, err
	}
	if sum.Failures == nil {
		sum.Failures = []index.Failure{}
	}
	if n := len(sum.Failures); n > maxFailures {
		sum.Failures = sum.Failures[:maxFailures]
		out.Note = fmt.Sprintf("%d documents failed: the first %d are listed; gochunk index lists them all", n, maxFailures)
	}
	return nil, out, nil
}

func (s *Server) sourcesTool(ctx context.Context, req *mcp.CallToolRequest, in SourcesInput) (*mcp.CallToolResult, SourcesOutput, error) {
	limit := cmp.Or(in.Limit, 100)
	if limit < 1 || limit > 1000 || in.Offset < 0 {
		return nil, SourcesOutput{}, fmt.Errorf("limit %d, offset %d: want a limit of 1 to 1000 and an offset of 0 or more", in.Limit, in.Offset)
	}
	roots, err := s.allowedRoots(ctx, req.Session)
	if err != nil {
		return nil, SourcesOutput{}, err
	}
	cfg := s.cfg.Pipeline.Config()
	conf := map[string]any{"chunker": cfg.Chunker, "tokenizer": cmp.Or(cfg.Tokenizer, s.cfg.Pipeline.Counter().Name()), "embedder": cfg.Embedder.Name}
	if len(cfg.Params) > 0 {
		var params map[string]any
		if json.Unmarshal(cfg.Params, &params) == nil {
			conf["config"] = params
		}
	}
	if cfg.Parents > 0 {
		conf["parents"] = cfg.Parents
	}
	if cfg.Context.Mode != "" {
		conf["context"] = cfg.Context.Mode
	}
	out := SourcesOutput{Store: s.cfg.Where, Configuration: conf, Roots: append([]string{}, roots...), IndexAllowed: s.cfg.AllowIndex, List: []Document{}}
	for _, c := range chunkers.New().List() {
		out.Chunkers = append(out.Chunkers, Chunker{Name: c.Name, Summary: c.Summary, DefaultUnit: c.DefaultUnit, Params: c.Params})
	}
	if v, err := s.cfg.Store.Meta(ctx, "schema_version"); err != nil || v == "" {
		out.Note = s.storeError(index.ErrEmpty).Error()
		return nil, out, nil
	}
	counts, err := s.cfg.Store.Counts(ctx)
	if err != nil {
		return nil, SourcesOutput{}, err
	}
	out.Documents, out.Chunks = counts.Documents, counts.Chunks
	if out.Embedder, err = s.cfg.Store.Meta(ctx, "embedder"); err != nil {
		return nil, SourcesOutput{}, err
	}
	docs, err := s.cfg.Store.Documents(ctx)
	if err != nil {
		return nil, SourcesOutput{}, err
	}
	current := index.ConfigHash(s.cfg.Pipeline, s.cfg.Index)
	ids := slices.Sorted(maps.Keys(docs))
	ids = slices.DeleteFunc(ids, func(id string) bool { return !strings.HasPrefix(id, in.Prefix) })
	for i := in.Offset; i < len(ids) && len(out.List) < limit; i++ {
		st := docs[ids[i]]
		out.List = append(out.List, Document{ID: ids[i], Source: st.Source, Current: st.ConfigHash == current, URI: DocumentURI(ids[i])})
	}
	if end := in.Offset + len(out.List); end < len(ids) {
		out.Note = fmt.Sprintf("documents %d to %d of %d listed: call again with offset=%d for more", in.Offset, end-1, len(ids), end)
	}
	return nil, out, nil
}
