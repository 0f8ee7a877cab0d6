package ocr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// ErrImage reports an image that cannot be read: not an image of a
// format read here, corrupt, or over the bounds.
var ErrImage = errors.New("unreadable image")

// maxTIFFPages bounds the pages of a TIFF file.
const maxTIFFPages = 10000

// Format returns the format of an image from its first bytes: "png",
// "jpeg", "gif", "bmp", "tiff" or "webp", or "" for none of them.
func Format(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case bytes.HasPrefix(head, []byte("BM")) && len(head) >= 18:
		return "bmp"
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return "tiff"
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// Images are the pages of an image file: one for PNG, JPEG, BMP, WebP and
// GIF (its first frame), every page of a multi-page TIFF. Each page's
// declared size is checked against the pixel bound before it is decoded,
// so a small file that declares a huge image (a decompression bomb) is
// refused without the memory.
type Images struct {
	format    string
	data      []byte
	ifds      []uint32 // a TIFF's pages' directories
	maxPixels int64
}

// OpenImages reads the structure of an image file (not its pixels) and
// checks that every page's declared width × height is at most maxPixels
// (DefaultMaxPixels when 0). The errors wrap ErrImage.
func OpenImages(data []byte, maxPixels int64) (*Images, error) {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	im := &Images{format: Format(data), data: data, maxPixels: maxPixels}
	if im.format == "" {
		return nil, fmt.Errorf("%w: not a PNG, JPEG, TIFF, WebP, BMP or GIF image", ErrImage)
	}
	if im.format == "tiff" {
		ifds, err := tiffPages(data)
		if err != nil {
			return nil, err
		}
		im.ifds = ifds
	}
	for i := range im.Len() {
		cfg, err := im.config(i)
		if err != nil {
			return nil, fmt.Errorf("%w: %s page %d: %v", ErrImage, im.format, i+1, err)
		}
		if cfg.Width <= 0 || cfg.Height <= 0 {
			return nil, fmt.Errorf("%w: %s page %d declares %d×%d pixels", ErrImage, im.format, i+1, cfg.Width, cfg.Height)
		}
		if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
			return nil, fmt.Errorf("%w: %s page %d declares %d×%d pixels, over the limit of %d a page (--ocr-max-pixels): a larger scan needs a lower resolution", ErrImage, im.format, i+1, cfg.Width, cfg.Height, maxPixels)
		}
	}
	return im, nil
}

// Format returns the file's format ("png", "tiff", ...).
func (im *Images) Format() string { return im.format }

// Len returns the number of pages.
func (im *Images) Len() int {
	if im.format == "tiff" {
		return len(im.ifds)
	}
	return 1
}

// Page decodes page i (from 0).
func (im *Images) Page(i int) (image.Image, error) {
	if i < 0 || i >= im.Len() {
		return nil, fmt.Errorf("ocr: page %d of %d", i+1, im.Len())
	}
	var img image.Image
	var err error
	r := bytes.NewReader(im.data)
	switch im.format {
	case "png":
		img, err = png.Decode(r)
	case "jpeg":
		img, err = jpeg.Decode(r)
	case "gif":
		img, err = gif.Decode(r)
	case "bmp":
		img, err = bmp.Decode(r)
	case "webp":
		img, err = webp.Decode(r)
	case "tiff":
		img, err = tiff.Decode(im.tiffPage(i))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s page %d: %v", ErrImage, im.format, i+1, err)
	}
	return img, nil
}

func (im *Images) config(i int) (image.Config, error) {
	r := bytes.NewReader(im.data)
	switch im.format {
	case "png":
		return png.DecodeConfig(r)
	case "jpeg":
		return jpeg.DecodeConfig(r)
	case "gif":
		return gif.DecodeConfig(r)
	case "bmp":
		return bmp.DecodeConfig(r)
	case "webp":
		return webp.DecodeConfig(r)
	case "tiff":
		return tiff.DecodeConfig(im.tiffPage(i))
	}
	return image.Config{}, errors.New("unknown format")
}

// tiffPage returns the file as a reader whose header points at page i's
// directory: golang.org/x/image/tiff reads the first directory only, and
// directories' offsets are absolute, so the file is otherwise the same.
func (im *Images) tiffPage(i int) io.Reader {
	var head [8]byte
	copy(head[:], im.data[:8])
	order := byteOrder(im.data)
	order.PutUint32(head[4:], im.ifds[i])
	return &overlay{data: im.data, head: head}
}

// overlay reads data with its first 8 bytes replaced by head.
type overlay struct {
	data []byte
	head [8]byte
	off  int64
}

func (o *overlay) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(o.data)) {
		return 0, io.EOF
	}
	n := copy(p, o.data[off:])
	for k := int64(0); k < int64(n) && off+k < 8; k++ {
		p[k] = o.head[off+k]
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (o *overlay) Read(p []byte) (int, error) {
	n, err := o.ReadAt(p, o.off)
	o.off += int64(n)
	return n, err
}

func byteOrder(data []byte) binary.ByteOrder {
	if data[0] == 'M' {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// tiffPages follows a TIFF's chain of image file directories.
func tiffPages(data []byte) ([]uint32, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("%w: a TIFF file of %d bytes", ErrImage, len(data))
	}
	order := byteOrder(data)
	var out []uint32
	seen := map[uint32]bool{}
	for off := order.Uint32(data[4:]); off != 0; {
		if seen[off] {
			return nil, fmt.Errorf("%w: TIFF directories loop at offset %d", ErrImage, off)
		}
		seen[off] = true
		if int64(off)+2 > int64(len(data)) {
			return nil, fmt.Errorf("%w: TIFF directory at offset %d past the end of the file (%d bytes)", ErrImage, off, len(data))
		}
		n := int64(order.Uint16(data[off:]))
		end := int64(off) + 2 + 12*n
		if end+4 > int64(len(data)) {
			return nil, fmt.Errorf("%w: TIFF directory at offset %d runs past the end of the file", ErrImage, off)
		}
		out = append(out, off)
		if len(out) > maxTIFFPages {
			return nil, fmt.Errorf("%w: a TIFF of more than %d pages", ErrImage, maxTIFFPages)
		}
		off = order.Uint32(data[end:])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: a TIFF without pages", ErrImage)
	}
	return out, nil
}
