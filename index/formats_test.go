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

// A walk for a pipeline with OCR (Images) keeps the images of every
// format OCR reads, and still leaves out other binary files; without it,
// images are left out (a folder of scans indexed with --ocr-model kept
// only its text files).
func TestFilesKeepsImagesForOCR(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"a.png":     []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"b.jpg":     []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00"),
		"c.tiff":    []byte("II*\x00\x08\x00\x00\x00"),
		"d.tif":     []byte("MM\x00*\x00\x00\x00\x08"),
		"e.gif":     []byte("GIF89a\x01\x00\x01\x00\x00"),
		"f.webp":    []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x00"),
		"g.bmp":     []byte("BM\x3a\x00\x00\x00\x00\x00"),
		"notes.txt": []byte("text"),
		"prog.bin":  []byte("\x7FELF\x02\x01\x01\x00"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, images := range []bool{false, true} {
		var got []string
		err := Files{Root: dir, Images: images}.Docs(context.Background(), func(d Doc) error {
			got = append(got, filepath.Base(d.Path))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"notes.txt"}
		if images {
			want = []string{"a.png", "b.jpg", "c.tiff", "d.tif", "e.gif", "f.webp", "g.bmp", "notes.txt"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("images %v: walked %v, want %v", images, got, want)
		}
	}
}
