package tokenize_test

import (
	"fmt"

	"github.com/gochunk/gochunk/tokenize"
)

// Count the same text in several units; tiktoken vocabularies are compiled
// in, so nothing is downloaded.
func ExampleNew() {
	text := "Chunkers cut text into pieces."
	for _, name := range []string{"runes", "words", "bytes", "cl100k_base"} {
		c, err := tokenize.New(name)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, c.Count(text))
	}
	// Output:
	// runes 30
	// words 5
	// bytes 30
	// cl100k_base 7
}

// A cross-encoder reads a query and a passage as one input: EncodePair
// lays them out as the tokenizer's post-processor says (here BERT's
// [CLS] query [SEP] passage [SEP]) with each token's segment, and cuts
// the longer text first to fit the model.
func ExampleHF_EncodePair() {
	tok, err := tokenize.ParseHF([]byte(`{
		"post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 2], "sep": ["[SEP]", 3]},
		"model": {"type": "WordPiece", "unk_token": "[UNK]",
			"vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "cats": 4, "sleep": 5, "all": 6, "day": 7}}}`))
	if err != nil {
		panic(err)
	}
	ids, types := tok.EncodePair("cats", "cats sleep all day", 0)
	fmt.Println(ids, types)
	ids, types = tok.EncodePair("cats", "cats sleep all day", 6)
	fmt.Println(ids, types)
	// Output:
	// [2 4 3 4 5 6 7 3] [0 0 0 1 1 1 1 1]
	// [2 4 3 4 5 3] [0 0 0 1 1 1]
}

// A chunker that needs token ends only near its cuts counts whole segments
// (words with the space before them) up to a budget without listing their
// tokens, then lists the tokens of the next few.
func ExampleTikToken_CountSegments() {
	tk, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		panic(err)
	}
	text := "Chunkers cut text into pieces of a few hundred tokens each."
	end, n := tk.CountSegments(text, 5)
	fmt.Printf("%q: %d tokens\n", text[:end], n)
	ends, next := tk.AppendSegmentTokenEnds(nil, text[end:], 3)
	fmt.Printf("then %q, its tokens ending at %v\n", text[end:end+next], ends)
	// Output:
	// "Chunkers cut text into": 5 tokens
	// then " pieces of a", its tokens ending at [7 10 12]
}
