package eval_test

import (
	"fmt"

	"github.com/gochunk/gochunk/eval"
)

// Score one question the way Chroma's evaluation does: the reference
// covers code points [10, 30); the retrieved chunks cover [0, 20) and
// [50, 70).
func ExampleRetrievalScores() {
	q := eval.Question{Text: "q", References: []eval.Reference{{Corpus: "doc", Start: 10, End: 30}}}
	retrieved := []eval.ChunkRef{
		{Corpus: "doc", Spans: []eval.Range{{Start: 0, End: 20}}},
		{Corpus: "doc", Spans: []eval.Range{{Start: 50, End: 70}}},
	}
	s := eval.RetrievalScores(q, retrieved)
	fmt.Printf("recall %.2f precision %.2f IoU %.2f\n", s.Recall, s.Precision, s.IoU)
	// Output:
	// recall 0.50 precision 0.25 IoU 0.20
}
