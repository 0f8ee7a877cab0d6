package embed_test

import (
	"context"
	"fmt"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/vec"
)

// The built-in lexical embedder needs no model: texts that share words
// and word pieces are close, others are not.
func ExampleLexical() {
	e := embed.NewLexical(embed.LexicalConfig{})
	vs, err := e.Embed(context.Background(), []string{
		"Glaciers carve deep valleys.",
		"A glacier carved this valley.",
		"Compilers translate source code.",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(vs[0]), e.ModelID())
	fmt.Println(vec.Cosine(vs[0], vs[1]) > vec.Cosine(vs[0], vs[2]))
	// Output:
	// 1024 lexical-v2:d1024:c0:bfalse:sfalse:mtrue
	// true
}

// Rerank passages with a cross-encoder in ONNX Runtime: a model directory
// (model.onnx, tokenizer.json, config.json) or a hub id fetched once into
// the cache. Not run here: it needs the ONNX Runtime library and a model.
func ExampleLoadCrossEncoder() {
	ctx := context.Background()
	ce, err := embed.LoadCrossEncoder(ctx, "cross-encoder/ms-marco-MiniLM-L-6-v2", embed.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ce.Close()
	scores, err := ce.Score(ctx, "when do kittens open their eyes?", []string{
		"Kittens open their eyes after about a week.",
		"Markets fell on Monday.",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(scores[0] > scores[1])
}
