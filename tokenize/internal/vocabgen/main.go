// Command vocabgen writes the tiktoken vocabularies the tokenize package
// embeds (go generate ./tokenize): for each encoding, every token's bytes
// by rank, each preceded by its length in one byte (0 for a rank with no
// token), their lookup table (package bpeindex) and their merges (package
// merges). The vocabularies are OpenAI's (MIT licence), read from
// github.com/tiktoken-go/tokenizer, which compiles them into Go; the
// package's tests check the files against it.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tiktoken-go/tokenizer"

	"github.com/gochunk/gochunk/tokenize/internal/bpeindex"
	"github.com/gochunk/gochunk/tokenize/internal/merges"
)

func main() {
	out := "vocab"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	for _, enc := range []tokenizer.Encoding{tokenizer.Cl100kBase, tokenizer.O200kBase} {
		codec, err := tokenizer.Get(enc)
		if err != nil {
			log.Fatal(err)
		}
		var buf bytes.Buffer
		var pending int // ranks with no token since the last one written
		for id, misses := 0, 0; misses < 1000; id++ {
			s, err := codec.Decode([]uint{uint(id)})
			if err != nil || s == "" {
				misses++
				pending++
				continue
			}
			if len(s) > 255 {
				log.Fatalf("%s: token %d is %d bytes, over the format's 255", enc, id, len(s))
			}
			for ; pending > 0; pending-- {
				buf.WriteByte(0)
			}
			misses = 0
			buf.WriteByte(byte(len(s)))
			buf.WriteString(s)
		}
		name := filepath.Join(out, string(enc)+".bpe")
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes\n", name, buf.Len())
		// The lookup table, computed once instead of at each start.
		at, slots, err := bpeindex.Build(buf.String())
		if err != nil {
			log.Fatal(err)
		}
		idx := bpeindex.Encode(at, slots)
		name = filepath.Join(out, string(enc)+".idx")
		if err := os.WriteFile(name, idx, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes\n", name, len(idx))
		// The merges, which the vocabulary leaves to be found again.
		data := buf.String()
		token := func(r uint32) string { i := at[r]; return data[i : i+uint32(data[i-1])] }
		ranks := make(map[string]uint32, len(at))
		for r := range uint32(len(at)) {
			if _, dup := ranks[token(r)]; !dup && token(r) != "" {
				ranks[token(r)] = r
			}
		}
		rank := func(s string) (uint32, bool) { r, ok := ranks[s]; return r, ok }
		if len(at) > merges.MaxRanks {
			log.Fatalf("%s: %d ranks, over the merge table's %d", enc, len(at), merges.MaxRanks)
		}
		m := merges.Encode(merges.Build(len(at), token, rank))
		name = filepath.Join(out, string(enc)+".merges")
		if err := os.WriteFile(name, m, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes\n", name, len(m))
	}
}
