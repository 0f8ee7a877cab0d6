package officedoc

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// maxParts bounds the MIME parts of a message, nested ones included.
const maxParts = 1000

// emailElements reads an e-mail (RFC 5322, MIME): its subject as the
// title, its sender, recipients and date as a paragraph, its text body
// (the plain alternative, else the HTML one through package htmldoc), and
// each attachment of a kind this package or htmldoc reads as a section of
// its own ("## Attachment: name"); other attachments are named.
func emailElements(data []byte) ([]gochunk.Element, error) {
	els, _, err := readEmail(data, false)
	return els, err
}

// readEmail is emailElements; with separate, the attachments of a kind
// gochunk reads (this package's, PDF, HTML, text) are returned as files
// and the message names them instead of holding them.
func readEmail(data []byte, separate bool) ([]gochunk.Element, []File, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	dec := new(mime.WordDecoder)
	dec.CharsetReader = charsetReader
	header := func(k string) string {
		v := msg.Header.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	var els []gochunk.Element
	if s := header("Subject"); s != "" {
		els = append(els, heading(1, s))
	}
	var meta []string
	for _, k := range []string{"From", "To", "Cc", "Date"} {
		if v := header(k); v != "" {
			meta = append(meta, k+": "+oneLine(v))
		}
	}
	if len(meta) > 0 {
		els = append(els, gochunk.Element{Type: "paragraph", Text: strings.Join(meta, "\n")})
	}
	w := &mailWalker{separate: separate}
	if err := w.part(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), "", msg.Body, 0); err != nil {
		return nil, nil, err
	}
	body := w.plain
	if len(body) == 0 {
		body = w.html
	}
	els = append(els, body...)
	els = append(els, w.attached...)
	if len(w.files) > 0 {
		names := make([]string, len(w.files))
		for i, f := range w.files {
			names[i] = f.Name
		}
		els = append(els, gochunk.Element{Type: "paragraph", Text: "Attached, each a document of its own: " + strings.Join(names, ", ")})
	}
	return els, w.files, nil
}

type mailWalker struct {
	plain, html, attached []gochunk.Element
	parts                 int
	separate              bool
	files                 []File
}

// File is a document found inside another, an e-mail's attachment: its
// name (unique within the message), its media type and its bytes.
type File struct {
	Name  string
	Media string
	Data  []byte
}

// readable reports whether gochunk reads an attachment of this name, media
// type and content as a document: this package's kinds, PDF, HTML, text.
func readable(name, media string, data []byte) bool {
	ext := strings.ToLower(path.Ext(name))
	switch {
	case Kinds[ext] != "" || Sniff(data) != "":
		return true
	case ext == ".pdf" || media == "application/pdf" || bytes.HasPrefix(data, []byte("%PDF-")):
		return true
	case ext == ".html" || ext == ".htm" || media == "text/html":
		return true
	}
	return strings.HasPrefix(media, "text/") && utf8.Valid(data)
}

// part reads one MIME part (recursively for multipart ones).
func (w *mailWalker) part(ctype, encoding, disposition string, body io.Reader, depth int) error {
	if w.parts++; w.parts > maxParts || depth > 32 {
		return fmt.Errorf("%w: more than %d MIME parts, or nested deeper than 32", ErrTooLarge, maxParts)
	}
	media, params, err := mime.ParseMediaType(ctype)
	if err != nil || ctype == "" {
		media, params = "text/plain", map[string]string{"charset": "us-ascii"}
	}
	if strings.HasPrefix(media, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%w: %v", ErrFormat, err)
			}
			if err := w.part(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Disposition"), p, depth+1); err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(io.LimitReader(decodeTransfer(encoding, body), maxPartBytes+1))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(data) > maxPartBytes {
		return fmt.Errorf("%w: a MIME part expands past %d bytes", ErrTooLarge, maxPartBytes)
	}
	name := ""
	if _, dp, err := mime.ParseMediaType(disposition); err == nil {
		name = dp["filename"]
	}
	if name == "" {
		name = params["name"]
	}
	attachment := strings.HasPrefix(strings.ToLower(disposition), "attachment") || name != ""
	if !attachment && (media == "text/plain" || media == "text/html") {
		text, err := toUTF8(data, params["charset"])
		if err != nil {
			return err
		}
		if media == "text/plain" {
			for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
				if strings.TrimSpace(p) != "" {
					w.plain = append(w.plain, gochunk.Element{Type: "paragraph", Text: p})
				}
			}
			return nil
		}
		els, err := htmldoc.Elements(strings.NewReader(text))
		if err != nil {
			return err
		}
		w.html = append(w.html, els...)
		return nil
	}
	if name == "" {
		name = media
	}
	if w.separate && readable(name, media, data) {
		w.files = append(w.files, File{Name: w.unique(path.Base(name)), Media: media, Data: data})
		return nil
	}
	kind := Kinds[strings.ToLower(path.Ext(name))]
	if kind == "" {
		kind = Sniff(data)
	}
	head := heading(2, "Attachment: "+name)
	var els []gochunk.Element
	switch {
	case kind != "" && kind != "eml" || kind == "eml" && depth < 8:
		els, err = Elements(kind, data)
	case media == "text/html" || strings.HasSuffix(strings.ToLower(name), ".html") || strings.HasSuffix(strings.ToLower(name), ".htm"):
		els, err = htmldoc.Elements(bytes.NewReader(data))
	case strings.HasPrefix(media, "text/") && utf8.Valid(data):
		els = []gochunk.Element{{Type: "paragraph", Text: string(data)}}
	}
	if err != nil {
		// An attachment that cannot be read is named with why; the
		// message is not lost.
		w.attached = append(w.attached, head, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(%s could not be read: %v)", name, err)})
		return nil
	}
	w.attached = append(w.attached, head)
	if len(els) == 0 {
		w.attached = append(w.attached, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(%s, %d bytes, not text)", media, len(data))})
	}
	w.attached = append(w.attached, els...)
	return nil
}

// unique returns name, or name with a number when an earlier attachment
// has it.
func (w *mailWalker) unique(name string) string {
	if name == "" || name == "." || name == "/" {
		name = "attachment"
	}
	taken := func(n string) bool {
		for _, f := range w.files {
			if f.Name == n {
				return true
			}
		}
		return false
	}
	out := name
	for i := 2; taken(out); i++ {
		ext := path.Ext(name)
		out = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), i, ext)
	}
	return out
}

// decodeTransfer undoes a Content-Transfer-Encoding.
func decodeTransfer(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, newlineDropper{r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// newlineDropper drops the line breaks of base64 text.
type newlineDropper struct{ r io.Reader }

func (n newlineDropper) Read(p []byte) (int, error) {
	for {
		k, err := n.r.Read(p)
		j := 0
		for _, c := range p[:k] {
			if c != '\r' && c != '\n' && c != ' ' && c != '\t' {
				p[j] = c
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}

// toUTF8 decodes text in charset (any the WHATWG encoding standard
// names) to UTF-8.
func toUTF8(data []byte, charset string) (string, error) {
	cs := strings.ToLower(strings.TrimSpace(charset))
	if cs == "" || cs == "utf-8" || cs == "us-ascii" || cs == "utf8" {
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	r, err := charsetReader(cs, bytes.NewReader(data))
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil // an unknown charset: the bytes, repaired
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return string(b), nil
}

func charsetReader(charset string, r io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, err
	}
	return enc.NewDecoder().Reader(r), nil
}

// maxMessages bounds the messages of a mailbox.
const maxMessages = 100_000

// mboxElements reads a mailbox (mbox: messages after "From " lines, with
// ">From " unquoted as mboxrd writes it): each message as a section
// "## Message N: subject" holding what emailElements reads of it, its
// headings one level down.
func mboxElements(data []byte) ([]gochunk.Element, error) {
	els, _, err := readMbox(data, false)
	return els, err
}

// readMbox is mboxElements; with separate, attachments are files named
// "message-N/name" (see readEmail).
func readMbox(data []byte, separate bool) ([]gochunk.Element, []File, error) {
	var els []gochunk.Element
	var files []File
	n := 0
	for _, msg := range splitMbox(data) {
		if n++; n > maxMessages {
			return nil, nil, fmt.Errorf("%w: more than %d messages", ErrTooLarge, maxMessages)
		}
		m, fs, err := readEmail(msg, separate)
		for _, f := range fs {
			f.Name = fmt.Sprintf("message-%d/%s", n, f.Name)
			files = append(files, f)
		}
		if err != nil {
			els = append(els, heading(2, fmt.Sprintf("Message %d", n)), gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(message %d could not be read: %v)", n, err)})
			continue
		}
		subject := ""
		if len(m) > 0 && m[0].Type == "title" {
			subject, m = strings.TrimPrefix(m[0].Text, "# "), m[1:]
		}
		h := fmt.Sprintf("Message %d", n)
		if subject != "" {
			h += ": " + subject
		}
		els = append(els, heading(2, h))
		for _, e := range m {
			if e.Type == "title" || e.Type == "heading" {
				level := len(e.Text) - len(strings.TrimLeft(e.Text, "#"))
				e = heading(level+2, strings.TrimSpace(strings.TrimLeft(e.Text, "#")))
			}
			els = append(els, e)
		}
	}
	if n == 0 {
		return nil, nil, fmt.Errorf("%w: no \"From \" line starts a message", ErrFormat)
	}
	return els, files, nil
}

// splitMbox cuts a mailbox into its messages.
func splitMbox(data []byte) [][]byte {
	var out [][]byte
	var cur []byte
	in := false
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if bytes.HasPrefix(line, []byte("From ")) {
			if in {
				out = append(out, cur)
			}
			cur, in = nil, true
			continue
		}
		if !in {
			continue
		}
		if bytes.HasPrefix(bytes.TrimLeft(line, ">"), []byte("From ")) && line[0] == '>' {
			line = line[1:] // mboxrd: one level of quoting undone
		}
		cur = append(cur, line...)
	}
	if in {
		out = append(out, cur)
	}
	return out
}
