package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A document a reader refuses is named in extract's error, as chunk names
// it.
func TestExtractErrorNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.eml")
	if err := os.WriteFile(path, []byte("no header in this message\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"extract", "chunk"} {
		_, errs, code := runCmd(t, "", cmd, "--input", "eml", path)
		if code == 0 || !strings.Contains(errs, path) {
			t.Errorf("%s: exit %d, %q does not name %s", cmd, code, errs, path)
		}
	}
}
