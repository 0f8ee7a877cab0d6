package gochunk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Document is one input text to chunk.
type Document struct {
	// ID names the document (a file name, a database key); it is copied to
	// nothing and only used in error messages and by callers.
	ID string `json:"id,omitempty"`
	// Text is the UTF-8 text to chunk. Offsets of chunks index this string.
	Text string `json:"text"`
	// Metadata is carried along for callers; chunkers may read hints from it
	// (the code chunker reads "language" and "source").
	Metadata map[string]any `json:"metadata,omitempty"`
	// Elements, when set, are the layout elements of Text (from a PDF or a
	// layout tool), in reading order; the layout chunker uses them.
	Elements []Element `json:"elements,omitempty"`
}

// Element is a region of a laid-out document: a title, heading,
// paragraph, list item, table, figure, caption, header or footer, with its
// page and bounding box.
type Element struct {
	// Type is title, heading, paragraph, list_item, table, figure, caption,
	// footnote (a footnote's or endnote's text, "[^1]: …", after the body),
	// header, footer or text.
	Type string `json:"type"`
	Text string `json:"text"`
	// Page is 1-based: a PDF's page, a slide, a sheet; 0 for a document
	// without pages (HTML, Word, EPUB, e-mail), whose chunks are placed by
	// their lines instead.
	Page int `json:"page"`
	// Level is a heading's level (1 to 6) or a list item's nesting (1 for
	// an item of a top-level list, 2 for one nested in it); 0 for other
	// elements, or where the source does not say.
	Level int `json:"level,omitempty"`
	// BBox is x0, y0, x1, y1 in page units, y growing downwards.
	BBox       [4]float64 `json:"bbox"`
	PageWidth  float64    `json:"page_width,omitempty"`
	PageHeight float64    `json:"page_height,omitempty"`
	// Order is the element's position in reading order.
	Order int `json:"order"`
	// Start and End are the byte offsets of Text in the document's text;
	// Excluded elements (repeated headers and footers) are not in it.
	Start     int  `json:"start"`
	End       int  `json:"end"`
	StartRune int  `json:"start_rune"`
	EndRune   int  `json:"end_rune"`
	Excluded  bool `json:"excluded,omitempty"`
	// Label is an optional gold category, for evaluation.
	Label string `json:"label,omitempty"`
}

// Span is a contiguous piece of a document's text.
//
// Start and End are UTF-8 byte offsets (end exclusive), StartRune and EndRune
// the same positions counted in Unicode code points, for callers that index
// text by characters (Python, JavaScript with code points, most evaluation
// data sets).
type Span struct {
	Start     int `json:"start"`
	End       int `json:"end"`
	StartRune int `json:"start_rune"`
	EndRune   int `json:"end_rune"`
}

// Len returns the span's length in bytes.
func (s Span) Len() int { return s.End - s.Start }

// Chunk is one piece of output.
//
// Most chunkers produce chunks of a single span. Chunkers that regroup text
// that is not adjacent (clustering chunkers) produce several spans in reading
// order; the chunk's Text is then the spans' texts joined by a newline.
type Chunk struct {
	// Index is the chunk's position in the chunker's output, from 0.
	Index int `json:"chunk_index"`
	// Text is the chunk's text: the text of its span, or of its spans joined
	// by "\n".
	Text string `json:"text"`
	// Spans locate the chunk in the document, in reading order.
	Spans []Span `json:"spans"`
	// TokenCount is the size of Text in the chunker's token unit.
	TokenCount int `json:"token_count"`
	// Stats are typed facts the chunker measured (sentence counts,
	// language-model usage); zero where it measures none.
	Stats Stats `json:"stats,omitzero"`
	// Metadata holds chunker-specific facts (the code chunker's language
	// and enclosing definitions, for example); nil where the chunker has
	// none (the markdown chunker's heading path is Headings), so a caller
	// that adds keys makes the map first.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Headings is the path of headings the chunk falls under, outermost
	// first (the markdown chunker's). The chunks of one section share one
	// slice: do not modify its elements (assign a new slice instead). A
	// chunk's record carries it in its metadata, under "headings". It is
	// a field rather than a metadata key so that a large document's
	// chunks do not each need a map of their own: 40,000 of them were
	// half the memory the markdown chunker took.
	Headings []string `json:"headings,omitempty"`
}

// Stats are what a chunker measured about a chunk, typed; each is zero
// where the chunker does not measure it.
type Stats struct {
	// Sentences is the number of sentences the chunk holds (the semantic
	// chunkers, which work on sentences, count them).
	Sentences int `json:"num_sentences,omitempty"`
	// LLM is the language-model usage spent on the chunk's document (the
	// LLM chunkers); every chunk of a document points to the same value.
	LLM *LLMUsage `json:"llm,omitempty"`
}

// LLMUsage accounts for the language-model calls spent on a document.
type LLMUsage struct {
	Calls            int     `json:"calls"`
	CachedCalls      int     `json:"cached_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	LatencyMS        float64 `json:"latency_ms"`
	Retries          int     `json:"retries,omitempty"`
	Fallbacks        int     `json:"fallbacks,omitempty"`
	// HTTPAttempts counts the HTTP requests (a call retried after a 429
	// counts one call and two attempts); Retries counts re-asks after an
	// invalid answer.
	HTTPAttempts int `json:"http_attempts,omitempty"`
	// CachedPromptTokens are the prompt tokens the server read from its
	// prompt cache (a document sent again for each of its chunks).
	CachedPromptTokens int `json:"cached_prompt_tokens,omitempty"`
}

// Merge adds o's counts to u's.
func (u *LLMUsage) Merge(o LLMUsage) {
	u.Calls += o.Calls
	u.CachedCalls += o.CachedCalls
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.LatencyMS += o.LatencyMS
	u.Retries += o.Retries
	u.Fallbacks += o.Fallbacks
	u.HTTPAttempts += o.HTTPAttempts
	u.CachedPromptTokens += o.CachedPromptTokens
}

// Start returns the byte offset of the chunk's first span.
func (c Chunk) Start() int {
	if len(c.Spans) == 0 {
		return 0
	}
	return c.Spans[0].Start
}

// End returns the end byte offset of the chunk's last span.
func (c Chunk) End() int {
	if len(c.Spans) == 0 {
		return 0
	}
	return c.Spans[len(c.Spans)-1].End
}

// Offsetter is implemented by chunkers that can give their chunks' byte
// offsets without building the chunks: start and end of each chunk in
// turn, for callers that hold the text (the fast chunker). The caller
// checks that doc.Text is valid UTF-8 (CheckUTF8 or PrepareText);
// Offsets may not.
type Offsetter interface {
	Offsets(ctx context.Context, doc Document) ([]int, error)
}

// WrapDocument names the document id in err, as every chunker reports an
// error about one document ("document \"a.txt\": ..."); a nil error or an
// empty id leaves err as it is.
func WrapDocument(id string, err error) error {
	if err == nil || id == "" {
		return err
	}
	return fmt.Errorf("document %q: %w", id, err)
}

// CheckDocument is the prologue of a chunker's Chunk: the document's text
// must be valid UTF-8, and the error names the document.
func CheckDocument(d Document) error {
	return WrapDocument(d.ID, CheckUTF8(d.Text))
}

// Chunker splits documents into chunks.
//
// Implementations are safe for concurrent use by several goroutines and
// return ctx.Err() (wrapped) when ctx is cancelled.
type Chunker interface {
	Chunk(ctx context.Context, doc Document) ([]Chunk, error)
}

// Errors reported for input that cannot be chunked. They are wrapped with
// context; test for them with errors.Is.
var (
	// ErrInvalidUTF8 reports text that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrConfig reports a configuration that cannot work, such as a zero
	// size or an overlap at least as large as the size.
	ErrConfig = errors.New("invalid configuration")
	// ErrTooSmall reports a size limit smaller than a single character of
	// the input, which no split can satisfy.
	ErrTooSmall = errors.New("size limit smaller than one character")
)

// InvalidUTF8Policy says what to do with text that is not valid UTF-8.
type InvalidUTF8Policy string

const (
	// Reject returns an error naming the first invalid byte (the default).
	Reject InvalidUTF8Policy = "reject"
	// Repair replaces every invalid byte sequence with U+FFFD; offsets then
	// refer to the repaired text.
	Repair InvalidUTF8Policy = "repair"
	// Decode reads a file that is not UTF-8 as text of the legacy encoding
	// it is recognised to be in (Windows-1252, Shift_JIS, GBK, Big5,
	// EUC-KR, KOI8-R, …; see pipeline.Config.InvalidUTF8); offsets then
	// refer to the text as UTF-8. It applies where files are read: for
	// text already in memory, PrepareText treats it as Reject.
	Decode InvalidUTF8Policy = "decode"
)

// CheckUTF8 returns nil when text is valid UTF-8, and otherwise an error
// wrapping ErrInvalidUTF8 that names the byte offset of the first bad byte.
func CheckUTF8(text string) error {
	if utf8.ValidString(text) {
		return nil
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("%w at byte %d", ErrInvalidUTF8, i)
		}
		i += n
	}
	return ErrInvalidUTF8
}

// PrepareText applies policy to text. With Reject it returns text unchanged
// or an error; with Repair it returns text with invalid sequences replaced by
// U+FFFD and reports whether anything was replaced.
func PrepareText(text string, policy InvalidUTF8Policy) (out string, repaired bool, err error) {
	switch policy {
	case "", Reject, Decode:
		return text, false, CheckUTF8(text)
	case Repair:
		if utf8.ValidString(text) {
			return text, false, nil
		}
		return strings.ToValidUTF8(text, "\uFFFD"), true, nil
	default:
		return "", false, fmt.Errorf("%w: unknown invalid-UTF-8 policy %q (want %q, %q or %q)", ErrConfig, policy, Reject, Repair, Decode)
	}
}

// Trace explains the decisions of a chunker that works on a curve over
// units of text (sentences, pieces): the units, the curve, its smoothed
// form, the threshold and the units where chunks start. Chunkers that can
// explain themselves implement Tracer.
type Trace struct {
	Document string `json:"document"`
	Chunker  string `json:"chunker"`
	// Units are the byte ranges of the units the curve is over.
	Units []Span `json:"units"`
	// CurveName says what Curve holds ("distance", "similarity", ...);
	// Curve[i] describes the gap after unit CurveOffset+i.
	CurveName   string    `json:"curve_name,omitempty"`
	Curve       []float64 `json:"curve,omitempty"`
	CurveOffset int       `json:"curve_offset,omitempty"`
	Smoothed    []float64 `json:"smoothed,omitempty"`
	Threshold   *float64  `json:"threshold,omitempty"`
	// Breakpoints are the units where chunks start, before the size limit
	// splits any group further.
	Breakpoints []int  `json:"breakpoints"`
	Notes       string `json:"notes,omitempty"`
}

// ChunkEmbedder is a Chunker whose chunks can come with vectors of its
// own (late chunking pools each chunk's vector from its tokens, embedded
// with the whole document around them): ChunkEmbed returns the chunks and
// one vector per chunk. Callers that embed chunks use those vectors.
type ChunkEmbedder interface {
	Chunker
	ChunkEmbed(ctx context.Context, doc Document) ([]Chunk, [][]float32, error)
}

// Tracer is a Chunker that can also return its Trace.
type Tracer interface {
	Chunker
	ChunkTrace(ctx context.Context, doc Document) ([]Chunk, *Trace, error)
}

// Embedder turns texts into vectors (package embed holds the providers).
//
// Embed returns one vector of Dim() numbers per text, in order. An empty
// text gets a zero vector. Implementations are safe for concurrent use.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the length of every vector.
	Dim() int
	// MaxTokens is the longest input, in the model's tokens, that is
	// embedded whole; 0 means no limit. What happens to longer input is
	// the provider's documented choice.
	MaxTokens() int
	// ModelID names the model and every setting that changes its vectors,
	// so that caches never mix vectors of different models.
	ModelID() string
}
