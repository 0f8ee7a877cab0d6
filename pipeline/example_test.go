package pipeline_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gochunk/gochunk/pipeline"
	"github.com/gochunk/gochunk/record"
)

// Build a pipeline from a configuration (as gochunk chunk and the server
// do), load a document, chunk it and write its records as JSON Lines.
func Example() {
	ctx := context.Background()
	p, err := pipeline.New(ctx, pipeline.Config{Chunker: "recursive", Params: []byte(`{"size": 40}`)}, pipeline.Options{})
	if err != nil {
		panic(err)
	}
	doc, err := p.Load(ctx, pipeline.Source{ID: "notes.txt", Text: "Chunkers cut text.\n\nEvery chunk knows where it came from."})
	if err != nil {
		panic(err)
	}
	defer doc.Release()
	res, err := p.Run(ctx, doc.Document)
	if err != nil {
		panic(err)
	}
	if err := record.WriteJSONL(os.Stdout, len(res.Chunks), res.AppendJSONL); err != nil {
		panic(err)
	}
	fmt.Println(p.Counter().Name())
	// Output:
	// {"text":"Chunkers cut text.","start":0,"end":18,"start_rune":0,"end_rune":18,"token_count":18,"chunk_index":0,"source":"notes.txt","lines":[1,1]}
	// {"text":"Every chunk knows where it came from.","start":20,"end":57,"start_rune":20,"end_rune":57,"token_count":37,"chunk_index":1,"source":"notes.txt","lines":[3,3]}
	// runes
}
