package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gochunk/gochunk/pipeline"
)

// A document's URI is gochunk://doc/ID, with every byte of its id that is
// not a letter, a digit or one of -._~ percent-encoded (a path's slashes
// too, so that the id is one segment); a span's adds ?start=B&end=B, byte
// offsets into the document's text (as search hits and chunk records give
// them).
const (
	uriPrefix = "gochunk://doc/"
	// SpanTemplate is the resource template of documents and their spans.
	SpanTemplate = "gochunk://doc/{id}{?start,end}"
)

// maxListed bounds the documents listed as resources; the sources tool
// pages through all of them, and the template reads any.
const maxListed = 1000

// DocumentURI returns the gochunk:// URI of the indexed document id.
func DocumentURI(id string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString(uriPrefix)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// SpanURI returns the gochunk:// URI of bytes [start, end) of document
// id's text.
func SpanURI(id string, start, end int) string {
	return fmt.Sprintf("%s?start=%d&end=%d", DocumentURI(id), start, end)
}

// ParseURI reads a gochunk:// URI: the document's id and the span's
// offsets (end is -1 when the URI names the whole document, or gives no
// end).
func ParseURI(uri string) (id string, start, end int, err error) {
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok {
		return "", 0, 0, fmt.Errorf("resource %q: want %s", uri, SpanTemplate)
	}
	esc, query, _ := strings.Cut(rest, "?")
	if id, err = url.PathUnescape(esc); err != nil || id == "" {
		return "", 0, 0, fmt.Errorf("resource %q: the document id is not percent-encoded as gochunk:// URIs write it", uri)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", 0, 0, fmt.Errorf("resource %q: %w", uri, err)
	}
	start, end = 0, -1
	for _, f := range []struct {
		key string
		dst *int
	}{{"start", &start}, {"end", &end}} {
		if v := q.Get(f.key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return "", 0, 0, fmt.Errorf("resource %q: %s=%s: want a byte offset, 0 or more", uri, f.key, v)
			}
			*f.dst = n
		}
	}
	if end >= 0 && end < start {
		return "", 0, 0, fmt.Errorf("resource %q: end %d is before start %d", uri, end, start)
	}
	return id, start, end, nil
}

func (s *Server) addResources() {
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "span",
		Title:       "A span of an indexed document",
		URITemplate: SpanTemplate,
		Description: "The text of an indexed document, or of bytes [start, end) of it (the offsets search hits and chunk records give). " +
			"id is the document's id (the sources tool lists them), percent-encoded.",
		MIMEType: "text/plain",
	}, s.readResource)
}

// refreshResources lists the store's documents (the first maxListed by
// id) as resources.
func (s *Server) refreshResources(ctx context.Context) error {
	if v, err := s.cfg.Store.Meta(ctx, "schema_version"); err != nil || v == "" {
		return nil // nothing indexed yet (a store not yet prepared has no tables)
	}
	docs, err := s.cfg.Store.Documents(ctx)
	if err != nil {
		return fmt.Errorf("list the store's documents: %w", err)
	}
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ids = ids[:min(len(ids), maxListed)]
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for _, id := range s.docs {
		if _, ok := slices.BinarySearch(ids, id); !ok {
			gone = append(gone, DocumentURI(id))
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
	for _, id := range ids {
		if _, ok := slices.BinarySearch(s.docs, id); ok {
			continue
		}
		s.srv.AddResource(&mcp.Resource{URI: DocumentURI(id), Name: id, MIMEType: "text/plain",
			Description: "an indexed document (" + docs[id].Source + ")"}, s.readResource)
	}
	s.docs = ids
	return nil
}

// readResource reads a gochunk:// URI: the span's text from the store
// when it keeps its documents' texts (an index made with parents), else
// from the file, when the document is one under the allowed roots.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, start, end, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	limit := s.cfg.MaxResultBytes
	// One byte past the limit says whether there is more.
	want := start + limit + utf8.UTFMax
	if end >= 0 {
		want = min(end, want)
	}
	text, kept, err := s.cfg.Store.DocumentText(ctx, id, start, want)
	if err != nil {
		return nil, err
	}
	from := "store"
	length := -1
	if !kept {
		docs, err := s.cfg.Store.Documents(ctx)
		if err != nil {
			return nil, err
		}
		if _, ok := docs[id]; !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if text, length, err = s.fileText(ctx, req.Session, id, start, want); err != nil {
			return nil, err
		}
		from = "file"
	}
	// A span given by hand may cut a character: it is widened to whole
	// ones at its start and narrowed at its end.
	for len(text) > 0 && !utf8.RuneStart(text[0]) {
		text, start = text[1:], start+1
	}
	text, cut := clip(text, limit)
	for len(text) > 0 {
		if r, size := utf8.DecodeLastRuneInString(text); r != utf8.RuneError || size > 1 {
			break
		}
		text = text[:len(text)-1]
	}
	meta := mcp.Meta{"source": id, "start": start, "end": start + len(text), "read_from": from}
	if length >= 0 {
		meta["document_bytes"] = length
	}
	if cut {
		next := SpanURI(id, start+len(text), end)
		if end < 0 {
			next = fmt.Sprintf("%s?start=%d", DocumentURI(id), start+len(text))
		}
		meta["truncated"] = true
		meta["next"] = next
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text, Meta: meta}}}, nil
}

// fileText reads bytes [start, end) of the text of document id from its
// file, loaded as the index loaded it, when id is a file under the
// allowed roots; it also returns the text's length.
func (s *Server) fileText(ctx context.Context, ss *mcp.ServerSession, id string, start, end int) (string, int, error) {
	p, err := s.resolve(ctx, ss, id)
	if err != nil {
		if errors.Is(err, errOutside) {
			return "", 0, fmt.Errorf("the index keeps no text of %s (index with parents to keep it) and it is not a file this server may read: %w", id, err)
		}
		return "", 0, fmt.Errorf("the index keeps no text of %s (index with parents to keep it), and its file cannot be read: %w", id, err)
	}
	doc, err := s.cfg.Pipeline.Load(ctx, pipeline.Source{Path: p})
	defer doc.Release()
	if err != nil {
		return "", 0, err
	}
	t := doc.Text
	if start > len(t) {
		return "", len(t), nil
	}
	return strings.Clone(t[start:min(end, len(t))]), len(t), nil
}
