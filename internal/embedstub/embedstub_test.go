package embedstub

import (
	"testing"

	"github.com/gochunk/gochunk/tokenize"
)

// TestWordPieceGenerated: without ../shared, the tokenizer written is one
// package tokenize reads, and it counts as WordPiece does.
func TestWordPieceGenerated(t *testing.T) {
	tok, err := tokenize.LoadHF(WordPiece(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Count("The cat, sat."); got != 9 { // the c ##a ##t , s ##a ##t .
		t.Errorf("count %d, want 9", got)
	}
}
