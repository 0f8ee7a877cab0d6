package officedoc

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/rtfdoc"
)

// maxParts bounds the MIME parts of a message, nested ones included.
const maxParts = 1000

// readEmail reads an e-mail (RFC 5322, MIME): its subject as the title,
// its sender, recipients and date as a paragraph, its text body (the
// plain alternative, else the HTML one through package htmldoc), and each
// attachment of a kind this package or htmldoc reads as a section of its
// own ("## Attachment: name"), or, with d.separate, as a File (the
// message names them in its last paragraph); other attachments are named.
// A part that cannot be decoded or read loses only itself: the message
// keeps its body and its other parts, and a warning names the part.
func (d *doc) readEmail(data []byte, depth int) ([]gochunk.Element, error) {
	u, wide := fromUTF16(data)
	if wide {
		data = u // a message saved as UTF-16 ("Unicode"), as Windows tools do
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: the message is empty", ErrFormat)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		// A header line that is not one (no name and colon, stray bytes)
		// loses only itself: the message is read without it.
		fixed, dropped := repairHeader(data)
		if dropped == 0 {
			return nil, fmt.Errorf("%w: the message's header: %v", ErrFormat, err)
		}
		if msg, err = mail.ReadMessage(bytes.NewReader(fixed)); err != nil {
			return nil, fmt.Errorf("%w: the message's header: %v", ErrFormat, err)
		}
		d.warn(fmt.Sprintf("the message's header: %d malformed lines left out", dropped))
	}
	dec := new(mime.WordDecoder)
	dec.CharsetReader = charsetReader
	header := func(k string) string {
		v := d.headerText(k, msg.Header.Get(k))
		if dv, err := dec.DecodeHeader(v); err == nil {
			return dv
		}
		return v
	}
	var els []gochunk.Element
	if s := header("Subject"); s != "" {
		if err := d.emit(&els, heading(1, s)); err != nil {
			return nil, err
		}
	}
	var meta []string
	for _, k := range []string{"From", "To", "Cc", "Date"} {
		if v := header(k); v != "" {
			meta = append(meta, k+": "+oneLine(v))
		}
	}
	if len(meta) > 0 {
		if err := d.emit(&els, gochunk.Element{Type: "paragraph", Text: strings.Join(meta, "\n")}); err != nil {
			return nil, err
		}
	}
	w := &mailWalker{d: d, depth: depth, firstFile: len(d.files), wide: wide}
	if err := w.part(textproto.MIMEHeader(msg.Header), msg.Body, ""); err != nil {
		return nil, err
	}
	body := w.plain
	if len(body) == 0 {
		body = w.html
	}
	els = append(els, body...) // counted as they were read
	els = append(els, w.attached...)
	var notes []string
	if files := d.files[w.firstFile:]; len(files) > 0 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name
		}
		notes = append(notes, "Attached, each a document of its own: "+strings.Join(names, ", "))
	}
	if len(w.skipped) > 0 {
		notes = append(notes, fmt.Sprintf("Attached, not read (past the bound of %d attachments): %s", d.budget.Limits().MaxAttachments, strings.Join(w.skipped, ", ")))
	}
	for _, n := range notes {
		if err := d.emit(&els, gochunk.Element{Type: "paragraph", Text: n}); err != nil {
			return nil, err
		}
	}
	return els, nil
}

// headerText returns a header's raw value as UTF-8: raw 8-bit bytes
// (which RFC 5322 does not allow, but mailers write) that are not UTF-8
// are read as Windows-1252 (Latin-1), with a warning.
func (d *doc) headerText(name, v string) string {
	if utf8.ValidString(v) {
		return v
	}
	d.warn(fmt.Sprintf("header %s: raw 8-bit bytes that are not UTF-8, read as Latin-1 (Windows-1252)", name))
	return latin1(v)
}

// latin1 decodes s as Windows-1252 (of which Latin-1 is a part).
func latin1(s string) string {
	b, err := charmap.Windows1252.NewDecoder().String(s)
	if err != nil {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return b
}

type mailWalker struct {
	d                     *doc
	depth                 int // of the message in attachments
	plain, html, attached []gochunk.Element
	parts                 int
	firstFile             int // d.files before this message's
	skipped               []string
	truncated             bool // the message ends before a closing boundary (said once)
	wide                  bool // the message was UTF-16, its parts' UTF-16 text decoded with it
}

// File is a document found inside another, an e-mail's attachment: its
// name (unique within the message), its media type and its bytes.
type File struct {
	Name  string
	Media string
	Data  []byte
}

// readable reports whether gochunk reads an attachment of this name, media
// type and content as a document: this package's kinds, PDF, HTML, an
// Outlook message, RTF, text.
func readable(name, media string, data []byte) bool {
	ext := strings.ToLower(path.Ext(name))
	switch {
	case Kinds[ext] != "" || Sniff(data) != "":
		return true
	case ext == ".pdf" || media == "application/pdf" || bytes.HasPrefix(data, []byte("%PDF-")):
		return true
	case ext == ".html" || ext == ".htm" || media == "text/html":
		return true
	case ext == ".msg" || media == "application/vnd.ms-outlook":
		return true // read by package msgdoc, which refuses what is no message
	case ext == ".rtf" || media == "application/rtf" || media == "text/rtf" || bytes.HasPrefix(data, []byte(`{\rtf`)):
		return true
	}
	return strings.HasPrefix(media, "text/") && utf8.Valid(data)
}

// part reads one MIME part (recursively for multipart ones), section
// its number as IMAP gives it ("" for the message, "2.1" for the first
// part of its second). A broken part is a warning naming it, not the
// message's loss; the context's end, a bound passed or too many parts end
// the message.
func (w *mailWalker) part(h textproto.MIMEHeader, body io.Reader, section string) error {
	if err := w.d.ctx.Err(); err != nil {
		return err
	}
	if w.parts++; w.parts > maxParts || strings.Count(section, ".") >= 32 {
		return fmt.Errorf("%w: more than %d MIME parts, or nested deeper than 32", ErrTooLarge, maxParts)
	}
	ctype, disposition := h.Get("Content-Type"), h.Get("Content-Disposition")
	media, params, err := mime.ParseMediaType(ctype)
	if err != nil || ctype == "" {
		media, params = "text/plain", map[string]string{"charset": "us-ascii"}
	}
	name := ""
	if _, dp, err := mime.ParseMediaType(disposition); err == nil {
		name = dp["filename"]
	}
	if name == "" {
		name = params["name"]
	}
	if !utf8.ValidString(name) {
		name = latin1(name)
	}
	what := "the message's body" // the part, as warnings name it
	if section != "" {
		what = "part " + section
	}
	if name != "" {
		what = fmt.Sprintf("attachment %q (%s)", name, what)
	}
	if how := encrypted(media, params); how != "" {
		// An encrypted message (PGP/MIME, S/MIME): its parts are
		// ciphertext, not attachments; the message says so.
		w.d.warn(fmt.Sprintf("%s: encrypted (%s): its text cannot be read without the recipient's key; decrypt the message first", what, how))
		return w.d.emit(&w.plain, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(The message is encrypted (%s): its text cannot be read without the recipient's key.)", how)})
	}
	if strings.HasPrefix(media, "multipart/") {
		// Read whole (the message is in memory already); a part cut
		// short keeps what it holds, its multipart reader says where
		// it ends.
		raw, err := io.ReadAll(body)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			w.d.warn(fmt.Sprintf("%s: could not be read (%v): left out", what, err))
			return nil
		}
		raw, fixed := headerlessParts(raw, params["boundary"])
		if fixed > 0 {
			w.d.warn(fmt.Sprintf("%s: %d parts without a header (no blank line after their boundary) read as plain text", what, fixed))
		}
		mr := multipart.NewReader(bytes.NewReader(raw), params["boundary"])
		for k := 1; ; k++ {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				if w.truncated {
					return nil // said where the message ends
				}
				if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "EOF") {
					w.truncated = true
					w.d.warn(fmt.Sprintf("%s: the message is truncated (it ends before the closing boundary, after %d parts): the parts read kept", what, k-1))
					return nil
				}
				w.d.warn(fmt.Sprintf("%s: the MIME structure is broken after %d parts (%v): the rest of it is left out", what, k-1, err))
				return nil
			}
			if media == "multipart/signed" && k > 1 {
				continue // a signed message's signature (RFC 1847): not the message's text
			}
			sub := strconv.Itoa(k)
			if section != "" {
				sub = section + "." + sub
			}
			if err := w.part(p.Header, p, sub); err != nil {
				return err
			}
		}
	}
	data, bad, err := readTransfer(h.Get("Content-Transfer-Encoding"), body)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// The message ends inside this part, before the closing boundary
		// of the multipart it is in: what was read is kept.
		w.truncated = true
		w.d.warn(fmt.Sprintf("%s: the message is truncated (it ends before the part's closing boundary): the %d bytes read kept", what, len(data)))
		err = nil
	}
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("%s: %w", what, err)
		}
		w.d.warn(fmt.Sprintf("%s: could not be read (%v): left out", what, err))
		return nil
	}
	if bad != "" {
		w.d.warn(fmt.Sprintf("%s: %s", what, bad))
	}
	attachment := strings.HasPrefix(strings.ToLower(disposition), "attachment") || name != ""
	if !attachment && (media == "text/plain" || media == "text/html") {
		cs := strings.ToLower(strings.TrimSpace(params["charset"]))
		if w.wide && strings.HasPrefix(cs, "utf-16") || cs == "utf8" || cs == "us-ascii" {
			cs = "utf-8"
		}
		if media == "text/plain" {
			text := toUTF8(data, cs)
			for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
				if strings.TrimSpace(p) != "" {
					if err := w.d.emit(&w.plain, gochunk.Element{Type: "paragraph", Text: p}); err != nil {
						return err
					}
				}
			}
			return nil
		}
		// The HTML is read in its own bytes: the part's charset, when it
		// names one other than UTF-8 or ASCII (which mailers write of
		// UTF-8 too), is the page's, else its <meta> or its bytes say.
		ct := ""
		if cs != "" && cs != "utf-8" {
			ct = "text/html; charset=" + cs
		}
		els, err := htmldoc.ElementsOfType(bytes.NewReader(data), ct, w.d.budget)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		w.html = append(w.html, els...)
		return nil
	}
	if name == "" {
		name = media
	}
	if w.d.separate && readable(name, media, data) {
		if len(w.d.files) >= w.d.budget.Limits().MaxAttachments {
			w.skipped = append(w.skipped, path.Base(name))
			if w.d.skipped++; w.d.skipped == 1 {
				w.d.warn(fmt.Sprintf("%s and those after it: not read, past the bound of %d attachments (the reader limits' MaxAttachments)", what, w.d.budget.Limits().MaxAttachments))
			}
			return nil
		}
		w.d.files = append(w.d.files, File{Name: w.unique(path.Base(name)), Media: media, Data: data})
		return nil
	}
	kind := Kinds[strings.ToLower(path.Ext(name))]
	if kind == "" {
		kind = Sniff(data)
	}
	head := heading(2, "Attachment: "+name)
	var els []gochunk.Element
	switch {
	case kind != "" && kind != "eml" || kind == "eml" && w.depth < 8:
		els, err = w.d.read(kind, data, w.depth+1)
	case media == "text/html" || strings.HasSuffix(strings.ToLower(name), ".html") || strings.HasSuffix(strings.ToLower(name), ".htm"):
		els, err = htmldoc.ElementsWithin(bytes.NewReader(data), w.d.budget)
	case rtfdoc.Is(data):
		// An RTF attachment (text/rtf is text, but its markup is not
		// the document's): read as RTF.
		els, err = rtfdoc.ElementsWithin(w.d.ctx, data, w.d.budget)
	case strings.HasPrefix(media, "text/") && utf8.Valid(data):
		els = []gochunk.Element{{Type: "paragraph", Text: string(data)}}
		err = w.d.budget.Text(int64(len(data)))
	}
	if err != nil {
		if cerr := w.d.ctx.Err(); cerr != nil {
			return cerr
		}
		// An attachment that cannot be read is named with why; the
		// message is not lost.
		w.d.warn(fmt.Sprintf("%s: could not be read: %v", what, err))
		return w.d.emit(&w.attached, head, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(%s could not be read: %v)", name, err)})
	}
	if err := w.d.emit(&w.attached, head); err != nil {
		return err
	}
	if len(els) == 0 {
		if err := w.d.emit(&w.attached, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(%s, %d bytes, not text)", media, len(data))}); err != nil {
			return err
		}
	}
	for i := range els {
		els[i].Page = 0 // a section of the message, which has no pages
	}
	w.attached = append(w.attached, els...) // counted as they were read
	return nil
}

// unique returns name, or name with a number when an earlier attachment
// of the message has it.
func (w *mailWalker) unique(name string) string {
	if name == "" || name == "." || name == "/" {
		name = "attachment"
	}
	files := w.d.files[w.firstFile:]
	taken := func(n string) bool {
		for _, f := range files {
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

// readTransfer reads a part's body, its Content-Transfer-Encoding undone,
// within maxPartBytes. Base64 is decoded leniently, as mail readers do:
// characters outside its alphabet are skipped and a last incomplete group
// dropped, and bad says so; a quoted-printable error keeps what came
// before it. A body cut short (the message ends before its part does) is
// returned with io.ErrUnexpectedEOF: what was read is kept.
func readTransfer(encoding string, body io.Reader) (data []byte, bad string, err error) {
	var r io.Reader = body
	var f *base64Filter
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		f = &base64Filter{r: body}
		r = base64.NewDecoder(base64.RawStdEncoding, f)
	case "quoted-printable":
		r = quotedprintable.NewReader(body)
	}
	data, err = io.ReadAll(io.LimitReader(r, maxPartBytes+1))
	if len(data) > maxPartBytes {
		return nil, "", fmt.Errorf("%w: a MIME part expands past %d bytes", ErrTooLarge, maxPartBytes)
	}
	var corrupt base64.CorruptInputError
	truncated := errors.Is(err, io.ErrUnexpectedEOF)
	switch {
	case err == nil, truncated:
	case f != nil && errors.As(err, &corrupt):
		// RawStdEncoding refuses only a last group of one character.
		f.bad++
	case f == nil && encoding != "" && !errors.Is(err, io.ErrUnexpectedEOF):
		bad = fmt.Sprintf("broken %s encoding (%v): the %d bytes before it kept", strings.ToLower(encoding), err, len(data))
	default:
		return nil, "", err
	}
	if f != nil && f.bad > 0 {
		bad = fmt.Sprintf("broken base64 (%d characters outside its alphabet or left over skipped): the %d bytes decoded kept", f.bad, len(data))
	}
	if truncated {
		return data, bad, io.ErrUnexpectedEOF // the caller keeps data and says so
	}
	return data, bad, nil
}

// base64Filter passes base64's alphabet through and drops the rest: line
// breaks and white space silently, padding and other bytes counted in bad
// (padding is counted only where more text follows it).
type base64Filter struct {
	r       io.Reader
	bad     int
	padding int // '=' seen since the last character of the alphabet
}

func (f *base64Filter) Read(p []byte) (int, error) {
	for {
		k, err := f.r.Read(p)
		j := 0
		for _, c := range p[:k] {
			switch {
			case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
				if f.padding > 0 {
					f.bad += f.padding
					f.padding = 0
				}
				p[j] = c
				j++
			case c == '=':
				f.padding++
			case c == '\r', c == '\n', c == ' ', c == '\t':
			default:
				f.bad++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}

// toUTF8 decodes text in charset (any the WHATWG encoding standard
// names) to UTF-8; bytes that are not text of it are replaced.
func toUTF8(data []byte, charset string) string {
	cs := strings.ToLower(strings.TrimSpace(charset))
	if cs == "" || cs == "utf-8" || cs == "us-ascii" || cs == "utf8" {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	r, err := charsetReader(cs, bytes.NewReader(data))
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD") // an unknown charset: the bytes, repaired
	}
	b, _ := io.ReadAll(r) // the decoders replace what they cannot decode
	return strings.ToValidUTF8(string(b), "\uFFFD")
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

// readMbox reads a mailbox (mbox: messages after "From " lines, with
// ">From " unquoted as mboxrd writes it): each message as a section
// "## Message N: subject" holding what readEmail reads of it, its
// headings one level down; with d.separate, attachments are files named
// "message-N/name". A message that cannot be read is named, with a
// warning; the others are kept.
func (d *doc) readMbox(data []byte, depth int) ([]gochunk.Element, error) {
	var els []gochunk.Element
	n := 0
	for _, msg := range splitMbox(data) {
		if n++; n > maxMessages {
			return nil, fmt.Errorf("%w: more than %d messages", ErrTooLarge, maxMessages)
		}
		first := len(d.files)
		outer := d.where
		d.where = fmt.Sprintf("%smessage %d: ", outer, n)
		m, err := d.readEmail(msg, depth)
		d.where = outer
		for i := first; i < len(d.files); i++ {
			d.files[i].Name = fmt.Sprintf("message-%d/%s", n, d.files[i].Name)
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) || d.ctx.Err() != nil {
				return nil, fmt.Errorf("message %d: %w", n, err)
			}
			d.warn(fmt.Sprintf("message %d: could not be read: %v", n, err))
			if err := d.emit(&els, heading(2, fmt.Sprintf("Message %d", n)), gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(message %d could not be read: %v)", n, err)}); err != nil {
				return nil, err
			}
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
		if err := d.emit(&els, heading(2, h)); err != nil {
			return nil, err
		}
		for _, e := range m {
			if e.Type == "title" || e.Type == "heading" {
				level := len(e.Text) - len(strings.TrimLeft(e.Text, "#"))
				e = heading(level+2, strings.TrimSpace(strings.TrimLeft(e.Text, "#")))
			}
			els = append(els, e) // counted by readEmail
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no \"From \" line starts a message", ErrFormat)
	}
	return els, nil
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

// fromUTF16 returns data as UTF-8 when it is text in UTF-16: with a byte
// order mark, or without one when most of its first bytes' high or low
// halves are zero (ASCII in UTF-16, as a message's headers are), and
// whether it was.
func fromUTF16(data []byte) ([]byte, bool) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	default:
		head := data[:min(len(data), 512)&^1]
		if len(head) < 8 {
			return nil, false
		}
		even, odd := 0, 0
		for i := 0; i < len(head); i += 2 {
			if head[i] == 0 {
				even++
			}
			if head[i+1] == 0 {
				odd++
			}
		}
		n := len(head) / 2
		switch {
		case even*10 >= n*9 && odd == 0:
			enc = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
		case odd*10 >= n*9 && even == 0:
			enc = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
		default:
			return nil, false
		}
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return nil, false
	}
	return out, true
}

// repairHeader returns a message with the lines of its header that are
// not header fields (a name, a colon, a value; or a continuation of the
// field before) left out, and how many were (0 for data without a single
// field: not a message).
func repairHeader(data []byte) ([]byte, int) {
	var out []byte
	dropped, kept := 0, false
	rest := data
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		body := bytes.TrimRight(line, "\r\n")
		if len(body) == 0 { // the end of the header
			if !kept {
				break
			}
			return append(append(out, line...), rest...), dropped
		}
		switch {
		case (body[0] == ' ' || body[0] == '\t') && kept:
		case isFieldName(body):
			kept = true
		default:
			dropped++
			continue
		}
		out = append(out, line...)
	}
	if !kept { // no header at all: not a message
		return data, 0
	}
	return out, dropped
}

// encrypted names the encryption of a part that is an encrypted message
// (RFC 1847's multipart/encrypted, as PGP/MIME writes it; S/MIME's
// enveloped data), or returns "" for any other part.
func encrypted(media string, params map[string]string) string {
	switch media {
	case "multipart/encrypted":
		if strings.Contains(strings.ToLower(params["protocol"]), "pgp") {
			return "PGP/MIME"
		}
		return "multipart/encrypted"
	case "application/pkcs7-mime", "application/x-pkcs7-mime":
		if t := strings.ToLower(params["smime-type"]); t == "enveloped-data" || t == "authenveloped-data" {
			return "S/MIME"
		}
	}
	return ""
}

// headerlessParts returns a multipart body whose parts that start with
// their text, with no header and no blank line after their boundary (as
// some S/MIME signers write the signed part), are given the blank line
// that says they have no header, so that they are read as plain text
// (RFC 2046) rather than their first line taken for a broken header; and
// how many it repaired. Other bodies are returned as they are.
func headerlessParts(body []byte, boundary string) ([]byte, int) {
	if boundary == "" {
		return body, 0
	}
	delim := []byte("--" + boundary)
	var out []byte
	fixed, done := 0, 0 // done: the bytes of body already in out
	for i := 0; i < len(body); {
		end := bytes.IndexByte(body[i:], '\n')
		if end < 0 {
			break
		}
		line := bytes.TrimRight(body[i:i+end], " \t\r")
		next := i + end + 1
		if bytes.Equal(line, delim) && next < len(body) {
			first := body[next:]
			if j := bytes.IndexByte(first, '\n'); j >= 0 {
				first = first[:j]
			}
			first = bytes.TrimRight(first, "\r")
			if len(first) > 0 && first[0] != ' ' && first[0] != '\t' && !isFieldName(first) && !bytes.HasPrefix(first, delim) {
				out = append(append(out, body[done:next]...), '\r', '\n')
				done = next
				fixed++
			}
		}
		i = next
	}
	if fixed == 0 {
		return body, 0
	}
	return append(out, body[done:]...), fixed
}

// isFieldName tells whether a header line starts with a field's name and
// its colon (RFC 5322: printable ASCII but the colon, at least one).
func isFieldName(line []byte) bool {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return false
	}
	for _, c := range line[:i] {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}
