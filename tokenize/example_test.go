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
