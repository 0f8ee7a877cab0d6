package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/feeddoc"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/notebookdoc"
)

// textKind returns what a text input named name is read as, by its
// extension and content: "ipynb" for a Jupyter notebook named .ipynb,
// "json-ipynb" for JSON of another name whose keys are a notebook's
// (read as one when it parses as one, else as text), "feed" for an RSS
// or Atom feed named .rss or .atom, "xml-feed" for XML of another name
// whose root element is a feed's (read as one when it reads as one, else
// as text: an .xml of another root stays text), "" for text. Extensions
// that name a text format (.txt, .md, .csv ...) keep their text, except
// .json and .xml, which are the formats' own.
func textKind(name string, data []byte) string {
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case ext == ".ipynb":
		return "ipynb"
	case ext == ".rss" || ext == ".atom":
		return "feed"
	case textExts[ext] && ext != ".json" && ext != ".xml":
		return ""
	case notebookdoc.Is(data):
		return "json-ipynb"
	case feeddoc.Is(data):
		return "xml-feed"
	}
	return ""
}

// loadNotebookOrFeed reads a notebook or a feed (textKind) into out,
// whose text holds its bytes. It reports false, and leaves out as it is,
// for JSON that proves no notebook (json-ipynb) and XML that proves no
// readable feed (xml-feed): only the content chose the reader, so the
// bytes are text, as they were before these readers were.
func (p *Pipeline) loadNotebookOrFeed(ctx context.Context, out *Loaded, src Source, id, kind string) (bool, error) {
	data := unsafeBytes(out.Text)
	b := htmldoc.NewBudget(src.Limits, int64(len(data)))
	var err error
	var els []gochunk.Element
	switch kind {
	case "feed", "xml-feed":
		els, err = feeddoc.ElementsWithin(ctx, data, b)
		if kind == "xml-feed" && errors.Is(err, feeddoc.ErrFormat) {
			return false, nil
		}
	default:
		els, err = notebookdoc.ElementsWithin(ctx, data, b)
		var ve *notebookdoc.VersionError
		switch {
		case errors.As(err, &ve):
			f := format{what: "a Jupyter notebook of nbformat " + ve.NBFormat, reason: "gochunk reads nbformat 4 and 3",
				advice: "convert it with jupyter nbconvert --to notebook --nbformat 4 FILE --output converted.ipynb, then give converted.ipynb"}
			fe := f.refusal(id).(*FormatError)
			fe.Attached = src.IsAttachment()
			return true, fe
		case kind == "json-ipynb" && errors.Is(err, notebookdoc.ErrFormat):
			return false, nil // JSON that mentions a notebook's keys: text
		}
	}
	if err != nil {
		return true, err
	}
	out.Release()
	out.Text, out.Elements = layout.Assemble(els)
	return true, nil
}
