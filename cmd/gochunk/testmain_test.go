package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gochunk/gochunk/internal/testnote"
)

// TestMain runs the tests, removes the binary they shared, then says in one
// line which optional tools were missing and what their tests would have
// covered (see internal/testnote).
func TestMain(m *testing.M) {
	code := m.Run()
	removeBuiltBinary()
	testnote.Summary("gochunk/cmd/gochunk",
		testnote.Node(),
		testnote.Pandoc(),
		testnote.Pdftotext(),
		testnote.ONNX(),
		testnote.Postgres(),
		testnote.Shared(filepath.Join("..", "..", "..", "shared")))
	os.Exit(code)
}
