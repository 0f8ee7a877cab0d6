package index

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/pipeline"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Files is a file, or a directory walked recursively, as a source. Hidden
// files and directories (.git, .env), binary files (images too, unless
// Images is set) and symbolic links inside the directory are left out.
type Files struct {
	// Root is the file or directory.
	Root string
	// Images keeps image files (PNG, JPEG, TIFF, GIF, BMP, WebP) in a
	// directory's walk, for a pipeline whose OCR reads them
	// (pipeline.OCRConfig.Enabled); without it they are left out as
	// binary files are.
	Images bool
	// Include, when not empty, keeps only the files that match one of its
	// globs; Exclude leaves out the files and directories that match one
	// of its. A glob (path.Match syntax) matches the path relative to Root
	// (with /) or its last element: "*.md", "docs/*.txt", "vendor".
	Include, Exclude []string
}

// Name implements Source.
func (f Files) Name() string { return filepath.Clean(f.Root) }

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
		if ok, _ := path.Match(g, path.Base(rel)); ok {
			return true
		}
	}
	return false
}

// Docs implements Source, in lexical order.
func (f Files) Docs(ctx context.Context, yield func(Doc) error) error {
	for _, globs := range [][]string{f.Include, f.Exclude} {
		for _, g := range globs {
			if _, err := path.Match(g, ""); err != nil {
				return fmt.Errorf("glob %q: %w", g, err)
			}
		}
	}
	root := filepath.Clean(f.Root)
	info, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("source %s: %w", f.Root, err)
	}
	if !info.IsDir() {
		return yield(Doc{ID: root, Path: root})
	}
	walk := root
	if li, err := os.Lstat(root); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		walk += string(filepath.Separator) // a link to a directory: walk what it points to
	}
	return filepath.WalkDir(walk, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			return yield(Doc{ID: p, Err: err})
		}
		p = filepath.Clean(p)
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if p != root && (strings.HasPrefix(d.Name(), ".") || matchAny(f.Exclude, rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || len(f.Include) > 0 && !matchAny(f.Include, rel) {
			return nil
		}
		if binary(p, f.Images) {
			return nil
		}
		return yield(Doc{ID: p, Path: p})
	})
}

// binary tells whether a file is not a document: a NUL byte in its first
// 8 KB, unless it is a PDF, a compound file (OLE2), a document package
// officedoc reads (named by its extension) or, with images set, an image.
func binary(p string, images bool) bool {
	if officedoc.Kinds[strings.ToLower(filepath.Ext(p))] != "" {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false // reported when read
	}
	defer f.Close()
	buf := make([]byte, 8192)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	// A compound file is an Outlook message (read) or a Word, Excel or
	// PowerPoint 97-2003 file (refused by name, reported): not left out.
	if images && isImage(buf) {
		return false
	}
	return !bytes.HasPrefix(buf, []byte("%PDF-")) && !bytes.HasPrefix(buf, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")) && bytes.IndexByte(buf, 0) >= 0
}

// isImage reports whether data starts as an image file OCR reads: PNG,
// JPEG, TIFF (either byte order), GIF, BMP or WebP.
func isImage(data []byte) bool {
	for _, sig := range []string{"\x89PNG\r\n\x1a\n", "\xFF\xD8\xFF", "II*\x00", "MM\x00*", "GIF87a", "GIF89a", "BM"} {
		if bytes.HasPrefix(data, []byte(sig)) {
			return true
		}
	}
	return len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP"
}

// hashFile returns the content hash of the file at p with meta, reading
// it in a stream (a file of hundreds of megabytes is not held for it).
func hashFile(p string, meta map[string]any) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return finishHash(h, meta), nil
}

// JSONLines is a stream of JSON objects, one a line, as a source:
// {"id": "…", "text": "…", "metadata": {…}} (an id may be a number).
type JSONLines struct {
	// Label names the source in the store ("-" for standard input).
	Label string
	R     io.Reader
}

// Name implements Source.
func (j JSONLines) Name() string { return j.Label }

// Docs implements Source. A line that is not such an object is a failed
// document named by its line number; the others go on.
func (j JSONLines) Docs(ctx context.Context, yield func(Doc) error) error {
	r := bufio.NewReaderSize(j.R, 1<<16)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := yield(jsonDoc(line, n, j.Label)); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", j.Label, err)
		}
	}
}

func jsonDoc(line []byte, n int, label string) Doc {
	src, err := pipeline.ParseJSONLine(line)
	switch {
	case err != nil && src.ID == "":
		return Doc{ID: fmt.Sprintf("%s line %d", label, n), Err: err}
	case err != nil:
		return Doc{ID: src.ID, Err: fmt.Errorf("%w (%s line %d)", err, label, n)}
	}
	return Doc{ID: src.ID, Text: src.Text, Metadata: src.Metadata}
}
