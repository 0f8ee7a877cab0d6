package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gochunk/gochunk/internal/cfbgen"
)

// A folder's Outlook messages and Word, Excel and PowerPoint 97-2003
// files are documents (read, or refused by name and reported), not
// binary files left out; an image still is left out (issue 50).
func TestFilesKeepsCompoundFiles(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"mail.msg":  cfbgen.Message{Subject: "s", Body: "b"}.Msg(),
		"old.doc":   cfbgen.Legacy("WordDocument"),
		"notes.txt": []byte("text"),
		"pic.png":   []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := Files{Root: dir}.Docs(context.Background(), func(d Doc) error {
		got = append(got, filepath.Base(d.Path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mail.msg", "notes.txt", "old.doc"}; !slices.Equal(got, want) {
		t.Errorf("walked %v, want %v", got, want)
	}
}
