// Package api holds the wire types of gochunk's HTTP API (package server):
// the reference semantic-chunking server's POST /embed, POST /v1/chunk,
// OpenAI's POST /v1/embeddings, and the error body every endpoint answers
// with, for servers and Go clients alike.
package api

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/record"
	"github.com/gochunk/gochunk/store"
)

// The /embed API of the reference semantic-chunking server, field for
// field.

// EmbedRequest is the body of POST /embed.
type EmbedRequest struct {
	Documents []EmbedDocument `json:"documents"`
}

// EmbedDocument is one document of an EmbedRequest.
type EmbedDocument struct {
	ID             string          `json:"id"`
	Text           string          `json:"text"`
	ChunkingConfig *ChunkingConfig `json:"chunking_config,omitempty"`
}

// ChunkingConfig are the DP chunker's parameters, with the reference's
// names; absent fields keep their defaults (optimal_size 470, max_size 512,
// lambda_size 5.0, chunk_penalty 1.0).
type ChunkingConfig struct {
	OptimalSize  *int     `json:"optimal_size,omitempty"`
	MaxSize      *int     `json:"max_size,omitempty"`
	LambdaSize   *float64 `json:"lambda_size,omitempty"`
	ChunkPenalty *float64 `json:"chunk_penalty,omitempty"`
}

// EmbedResponse is the body of a 200 answer to POST /embed.
type EmbedResponse struct {
	Documents []EmbedResult `json:"documents"`
}

// EmbedResult is one document's chunks, or its error.
type EmbedResult struct {
	ID     string       `json:"id"`
	Chunks []EmbedChunk `json:"chunks"`
	Error  string       `json:"error"`
}

// EmbedChunk is one chunk of an EmbedResult.
type EmbedChunk struct {
	Text         string    `json:"text"`
	Embedding    []float32 `json:"embedding"`
	NumSentences int       `json:"num_sentences"`
	TokenCount   int       `json:"token_count"`
	ChunkIndex   int       `json:"chunk_index"`
}

// ChunkRequest is the body of POST /v1/chunk: any registered chunker by
// name with its JSON configuration, over one or many documents.
type ChunkRequest struct {
	// Chunker is a name from GET /v1/chunkers; empty means the server's
	// default (gochunk serve --config's chunker, with its parameters,
	// context and parents; see server.Config.Chunking), else "recursive".
	Chunker string `json:"chunker"`
	// Config holds the chunker's parameters (as in `gochunk chunkers`).
	// It is kept as JSON, so numbers keep their exact value.
	Config json.RawMessage `json:"config,omitempty"`
	// Tokenizer is the size unit; empty means the server's.
	Tokenizer string `json:"tokenizer,omitempty"`
	// Embed asks for an embedding of every chunk.
	Embed bool `json:"embed,omitempty"`
	// Trace asks for each document's text (what the offsets refer to: a
	// PDF's or HTML page's extracted text) and the chunker's trace (the
	// embedding-based chunkers' curve, threshold and breakpoints).
	Trace bool `json:"trace,omitempty"`
	// Context, when set, says what each chunk's embedded text (its
	// record's embed_text, and what embed embeds) carries besides the
	// chunk; absent means the server's setting.
	Context *pipeline.ContextConfig `json:"context,omitempty"`
	// Parents, when set, makes two levels (each chunk's record names its
	// parent span of at most this many tokens; 0: one level); absent
	// means the server's setting.
	Parents *int `json:"parents,omitempty"`
	// RenderPages asks, for each PDF document, for images of its first
	// pages (see ChunkResult.Pages): the playground draws the chunks'
	// boxes over them, drawn by the server's PDF engine (PDFium in the
	// process, or Poppler's pdftoppm).
	RenderPages bool `json:"render_pages,omitempty"`
	// Documents to chunk; Text is a shorthand for one document.
	Documents []ChunkDocument `json:"documents,omitempty"`
	Text      string          `json:"text,omitempty"`
}

// ChunkDocument is a document of a ChunkRequest: text, layout elements
// (the text is assembled from them when absent), a PDF, HTML, or a file
// of any kind the server reads.
type ChunkDocument struct {
	ID       string            `json:"id,omitempty"`
	Text     string            `json:"text,omitempty"`
	Metadata map[string]any    `json:"metadata,omitempty"`
	Elements []gochunk.Element `json:"elements,omitempty"`
	// PDFBase64 is a PDF file, base64-encoded; its text blocks become the
	// document's text and elements (read by the server's PDF engine).
	PDFBase64 string `json:"pdf_base64,omitempty"`
	// HTML is an HTML document: its structure becomes markdown text (see
	// package htmldoc).
	HTML string `json:"html,omitempty"`
	// FileBase64 is a document file of any kind the server reads (PDF,
	// HTML, DOCX, PPTX, XLSX, EPUB, e-mail, text), base64-encoded; its kind
	// comes from FileName's extension, else from its content.
	FileBase64 string `json:"file_base64,omitempty"`
	FileName   string `json:"file_name,omitempty"`
}

// PageImage is a page of a PDF drawn as a PNG, and its size in the units
// of the chunks' boxes (points).
type PageImage struct {
	Page      int     `json:"page"`
	Width     float64 `json:"width"`
	Height    float64 `json:"height"`
	PNGBase64 string  `json:"png_base64"`
}

// ChunkResponse is the body of a 200 answer to POST /v1/chunk.
type ChunkResponse struct {
	Chunker   string        `json:"chunker"`
	Tokenizer string        `json:"tokenizer"`
	Documents []ChunkResult `json:"documents"`
}

// ChunkResult is one document's chunks, or its error.
type ChunkResult struct {
	ID string `json:"id"`
	// AttachmentOf, for a document found inside one of the request's (an
	// e-mail's attachment, "id/name", listed after the request's
	// documents), is the id of the document that holds it.
	AttachmentOf string `json:"attachment_of,omitempty"`
	// Chunks are the records gochunk chunk writes, their source the
	// document's id, byte for byte.
	Chunks []record.Record `json:"chunks"`
	Error  string          `json:"error,omitempty"`
	// Warning, when not empty, says what reading the document left out
	// or changed while its chunks were still made: PDF pages left out
	// or cut, invalid UTF-8 replaced, an attachment not read, page
	// images (render_pages) that could not be drawn.
	Warning string `json:"warning,omitempty"`
	// Text and Trace are there when the request asked for a trace.
	Text  string         `json:"text,omitempty"`
	Trace *gochunk.Trace `json:"trace,omitempty"`
	// Pages are a PDF's first pages drawn, when the request asked for
	// them (render_pages), with each page's size in the units of the
	// chunks' boxes.
	Pages []PageImage `json:"pages,omitempty"`
}

// EmbeddingsRequest is the body of POST /v1/embeddings (OpenAI's API).
type EmbeddingsRequest struct {
	Model          string `json:"model"`
	Input          any    `json:"input"`
	EncodingFormat string `json:"encoding_format,omitempty"`
	Dimensions     int    `json:"dimensions,omitempty"`
	User           string `json:"user,omitempty"`
}

// EmbeddingsResponse is OpenAI's answer shape.
type EmbeddingsResponse struct {
	Object string          `json:"object"`
	Data   []EmbeddingItem `json:"data"`
	Model  string          `json:"model"`
	Usage  Usage           `json:"usage"`
}

// EmbeddingItem is one vector of an EmbeddingsResponse.
type EmbeddingItem struct {
	Object string `json:"object"`
	Index  int    `json:"index"`
	// Embedding is the vector, a []float32, or with encoding_format
	// base64 a string: the vector's little-endian float32 bytes in base64.
	Embedding any `json:"embedding"`
}

// Usage counts the tokens of an EmbeddingsRequest.
type Usage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
	// TruncatedInputs counts the inputs over the model's limit, of which
	// it embedded only the first tokens (absent when none was).
	TruncatedInputs int `json:"truncated_inputs,omitempty"`
}

// ErrorBody is the JSON of every error answer: OpenAI's shape, so that
// clients of either API read it.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong and, in Message, what to fix.
type ErrorDetail struct {
	Message   string `json:"message"`
	Type      string `json:"type"`
	Code      string `json:"code,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// DPParams returns the DP chunker's parameters of a chunking_config, with
// the reference server's algorithm (semantic.ReferenceDPConfig); DP's own
// defaults fill in what the configuration leaves out.
func (c *ChunkingConfig) DPParams() json.RawMessage {
	p := map[string]any{"similarity": "sentences", "reward": "minmax", "structure": "none", "chunk_penalty": 1.0, "min_size": 0}
	if c != nil {
		for k, v := range map[string]any{"size": c.MaxSize, "optimal_size": c.OptimalSize, "lambda_size": c.LambdaSize, "chunk_penalty": c.ChunkPenalty} {
			if !reflect.ValueOf(v).IsNil() {
				p[k] = v
			}
		}
	}
	raw, _ := json.Marshal(p)
	return raw
}

// Texts returns the texts of an embeddings request: its input is a string,
// a list of strings, a list of token ids or a list of such lists (what
// OpenAI accepts); token ids are turned into text with decode. An empty
// input, an empty string or an empty token list is an error, as OpenAI
// answers them.
func (r EmbeddingsRequest) Texts(decode func(ids []int) (string, error)) ([]string, error) {
	one := func(x any, at string) (string, error) {
		switch v := x.(type) {
		case string:
			if v == "" {
				return "", fmt.Errorf("%s is an empty string; send text", at)
			}
			return v, nil
		case []any:
			ids := make([]int, len(v))
			for i, t := range v {
				f, ok := t.(float64)
				if !ok || f < 0 || f != math.Trunc(f) {
					return "", fmt.Errorf("%s[%d] is not a token id (a non-negative integer)", at, i)
				}
				ids[i] = int(f)
			}
			if len(ids) == 0 {
				return "", fmt.Errorf("%s is an empty list of tokens", at)
			}
			return decode(ids)
		}
		return "", fmt.Errorf("%s must be a string or a list of token ids", at)
	}
	switch v := r.Input.(type) {
	case string:
		t, err := one(v, "input")
		return []string{t}, err
	case []any:
		if len(v) == 0 {
			return nil, fmt.Errorf("input is an empty list; send at least one text")
		}
		if _, ok := v[0].(float64); ok { // one list of tokens
			t, err := one(v, "input")
			return []string{t}, err
		}
		out := make([]string, len(v))
		for i, x := range v {
			var err error
			if out[i], err = one(x, fmt.Sprintf("input[%d]", i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("input must be a string, a list of strings, a list of token ids or a list of such lists")
}

// Item returns the answer item of vector v at index i: the vector, or with
// encoding base64 its little-endian float32 bytes in base64 (what OpenAI's
// SDKs ask for by default).
func Item(i int, v []float32, encoding string) EmbeddingItem {
	if encoding != "base64" {
		return EmbeddingItem{Object: "embedding", Index: i, Embedding: v}
	}
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return EmbeddingItem{Object: "embedding", Index: i, Embedding: base64.StdEncoding.EncodeToString(b)}
}

// Model is one model of GET /v1/models (OpenAI's shape).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// ModelList is the answer of GET /v1/models.
type ModelList struct {
	Object string  `json:"object"`
	Data   []Model `json:"data"`
}

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Query string `json:"query"`
	// K is the number of hits (default 10, at most 1000).
	K int `json:"k,omitempty"`
	// Mode is vector, keyword or hybrid (the default).
	Mode string `json:"mode,omitempty"`
	// Expand is none (the default), parent, section or window:N: each
	// hit's record then comes with the span returned for it
	// ("expanded"); Merge, when 2 or more, puts a parent in place of that
	// many of its children among the hits when that is the better use of
	// the hits' budget: the scores of its children among the candidates
	// ranked add up to more than those of the hits its text would push
	// out (see index.Expand).
	Expand string `json:"expand,omitempty"`
	Merge  int    `json:"merge,omitempty"`
	// Exact scans every stored vector instead of using the vector index
	// (what gochunk search --exact does).
	Exact bool `json:"exact,omitempty"`
	// Probes is the vector index's lists read (SQLite), or for the
	// lexical embedder's sparse vectors the query's dimensions used; with
	// PostgreSQL's pgvector, hnsw.ef_search. 0: the store's default.
	Probes int `json:"probes,omitempty"`
	// Source keeps only hits whose source (document id) starts with it.
	Source string `json:"source,omitempty"`
	// Where keeps only hits whose metadata, or else their document's, has
	// each key with the value (a string, number or boolean; compared as
	// text, booleans as 1 and 0).
	Where map[string]any `json:"where,omitempty"`
}

// SearchResponse is the body of a 200 answer to POST /v1/search: the hits,
// best first, each a record of its chunk with its score.
type SearchResponse struct {
	Hits []store.Hit `json:"hits"`
}
