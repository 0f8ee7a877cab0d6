package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A paper's references in two columns (the shared collection's
// multi-column.pdf): the right column's lines stand half a line off the
// left's, and accents are drawn on lines of their own beside their names
// ("Laszl ´ o Luk ´ acs"). The accents' lines, on the bands of their
// names, were counted as second lines of cells, so the columns read as a
// table's wrapped cells and the references made a table.
func TestPDFTablesReferencesInTwoColumns(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "eval", "documents", "unstructured", "pdf", "multi-column.pdf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: the shared collection is absent (%v)", err)
	}
	for _, tb := range tablesOf(extractElements(t, path)) {
		if strings.Contains(tb, "Kelvin Guu") || strings.Contains(tb, "Retrieval-augmented") {
			t.Errorf("references made a table:\n%.600s", tb)
		}
	}
}

// Two figures side by side, each over a short paragraph (the shared
// collection's chevron-page.pdf: "2.5 kilograms CO₂e/boe" beside "~70%
// electricity"), the paragraphs' lines a little off one another's: a row
// holding lines of both paragraphs is no row of wrapped cells, so the
// paragraphs, going on in lower case, stay prose.
func TestPDFTablesFiguresOverParagraphs(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "eval", "documents", "unstructured", "pdf", "chevron-page.pdf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: the shared collection is absent (%v)", err)
	}
	for _, tb := range tablesOf(extractElements(t, path)) {
		if strings.Contains(tb, "carbon intensity from") {
			t.Errorf("two paragraphs made a table:\n%.600s", tb)
		}
	}
}
