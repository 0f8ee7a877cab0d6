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
