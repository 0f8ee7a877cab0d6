package index

import (
	"os"
	"testing"

	"github.com/gochunk/gochunk/internal/testnote"
)

// TestMain runs the tests, then says in one line which optional tools were
// missing and what their tests would have covered (see internal/testnote).
func TestMain(m *testing.M) {
	code := m.Run()
	testnote.Summary("gochunk/index",
		testnote.Postgres())
	os.Exit(code)
}
