package layout

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// PageImage is a page of a PDF drawn as a PNG.
type PageImage struct {
	Page int // 1-based
	PNG  []byte
}

// ErrNoRenderer reports that Poppler's pdftoppm is not installed.
var ErrNoRenderer = fmt.Errorf("drawing PDF pages needs Poppler's pdftoppm (Debian/Ubuntu: apt-get install poppler-utils; macOS: brew install poppler)")

var pageFileRe = regexp.MustCompile(`-(\d+)\.png$`)

// RenderPDF draws the first maxPages pages of a PDF as PNG images at dpi
// dots per inch, through Poppler's pdftoppm, so that a chunk's boxes (in
// the page's points, 72 a inch) can be shown over its page.
func RenderPDF(ctx context.Context, pdf []byte, dpi, maxPages int) ([]PageImage, error) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return nil, ErrNoRenderer
	}
	dir, err := os.MkdirTemp("", "gochunk-pages-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "pdftoppm", "-q", "-png", "-r", strconv.Itoa(dpi), "-l", strconv.Itoa(maxPages), in, filepath.Join(dir, "p"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("pdftoppm: %v %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	names, err := filepath.Glob(filepath.Join(dir, "p-*.png"))
	if err != nil {
		return nil, err
	}
	var out []PageImage
	for _, name := range names {
		m := pageFileRe.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		page, _ := strconv.Atoi(m[1])
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, PageImage{Page: page, PNG: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Page < out[j].Page })
	return out, nil
}
