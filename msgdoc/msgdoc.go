// Package msgdoc reads Outlook messages (.msg, .oft: MS-OXMSG, a
// compound file of MAPI properties) as layout elements, as package
// officedoc reads an e-mail: the subject as the title, the sender,
// recipients and date as a paragraph, the body (the plain text, else the
// HTML one through package htmldoc, else the compressed RTF one through
// package rtfdoc), and the attachments as files to read as documents of
// their own (Result.Files). A message attached to the message is read
// as a section of it.
//
// It also tells the kinds of compound file apart (Compound): an Outlook
// message, a Word 97-2003 document, an Excel 97-2003 workbook, a
// PowerPoint 97-2003 presentation, an Office document encrypted with a
// password.
//
// Compound files are read by github.com/richardlehane/mscfb, within
// bounds: no stream is read past the file's size, all of them together
// at most twice it, messages nest at most 8 deep.
package msgdoc

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/richardlehane/mscfb"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/officedoc"
	"github.com/gochunk/gochunk/rtfdoc"
)

// ErrFormat reports data that is not an Outlook message or is broken
// beyond reading.
var ErrFormat = errors.New("not a readable Outlook message")

// Magic is how a compound file (OLE2, CFB) starts.
const Magic = "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"

// The kinds of compound file Compound tells apart.
const (
	KindMsg       = "msg"       // an Outlook message or template
	KindDoc       = "doc"       // a Word 97-2003 document
	KindXls       = "xls"       // an Excel 97-2003 (or 5.0/95) workbook
	KindPpt       = "ppt"       // a PowerPoint 97-2003 presentation
	KindEncrypted = "encrypted" // an Office 2007+ document encrypted with a password
	KindOther     = "cfb"       // another compound file (Visio, Publisher, an installer ...)
)

// Compound returns the kind of compound file data is, by the streams its
// root holds, or "" when data is not a compound file it can read.
func Compound(data []byte) string {
	if !bytes.HasPrefix(data, []byte(Magic)) {
		return ""
	}
	root, err := open(data, false)
	if err != nil {
		return KindOther
	}
	has := func(name string) bool { _, ok := root.entries[name]; return ok }
	switch {
	case has("__properties_version1.0") || root.hasPrefix("__substg1.0_"):
		return KindMsg
	case has("EncryptedPackage") || has("EncryptionInfo"):
		return KindEncrypted
	case has("WordDocument"):
		return KindDoc
	case has("Workbook") || has("Book"):
		return KindXls
	case has("PowerPoint Document"):
		return KindPpt
	}
	return KindOther
}

// Options are a message's reading options.
type Options struct {
	// Limits bound what the message expands to (zero fields: their
	// defaults), its attached messages included.
	Limits htmldoc.Limits
}

// Result is a message read.
type Result struct {
	Elements []gochunk.Element
	// Files are the message's attachments (those of the messages attached
	// to it too), each named uniquely, to be read as documents of their
	// own; the message's last paragraph names them.
	Files []officedoc.File
	// Warnings say what was left out, each naming its part.
	Warnings []string
}

// maxDepth bounds messages attached to messages.
const maxDepth = 8

// Read reads data as an Outlook message. It returns an error wrapping
// ErrFormat for data that is not one, htmldoc.ErrTooLarge when the
// message passes opt.Limits, and ctx's when ctx is done.
func Read(ctx context.Context, data []byte, opt Options) (res Result, err error) {
	defer func() {
		// The compound file reader is not this module's: a panic on a
		// broken file is the file's error, not the process's end.
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("%w: the compound file is broken (%v)", ErrFormat, p)
		}
	}()
	if !bytes.HasPrefix(data, []byte(Magic)) {
		return Result{}, fmt.Errorf("%w: it is not a compound (OLE2) file", ErrFormat)
	}
	root, err := open(data, true)
	if err != nil {
		return Result{}, err
	}
	if Compound(data) != KindMsg {
		return Result{}, fmt.Errorf("%w: a compound file without a message's properties", ErrFormat)
	}
	r := &msgReader{ctx: ctx, budget: htmldoc.NewBudget(opt.Limits, int64(len(data)))}
	els, err := r.message(root, 32, 0)
	if err != nil {
		return Result{}, err
	}
	return Result{Elements: els, Files: r.files, Warnings: r.warnings}, nil
}

// storage is a storage of a compound file: its streams' bytes and its
// storages, by name.
type storage struct {
	entries map[string]*entry
}

type entry struct {
	data []byte   // a stream's
	sub  *storage // a storage's
}

func (s *storage) hasPrefix(p string) bool {
	for name := range s.entries {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// subs returns the storages whose names start with prefix, in order of
// name.
func (s *storage) subs(prefix string) []*storage {
	var names []string
	for name, e := range s.entries {
		if e.sub != nil && strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]*storage, len(names))
	for i, n := range names {
		out[i] = s.entries[n].sub
	}
	return out
}

// open reads a compound file's tree, with the streams' bytes when
// streams is true.
func open(data []byte, streams bool) (*storage, error) {
	doc, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: the compound file is broken (%v)", ErrFormat, err)
	}
	root := &storage{entries: map[string]*entry{}}
	total := int64(0)
	for i, f := range doc.File {
		if i == 0 && len(f.Path) == 0 && f.Name == "Root Entry" {
			continue
		}
		parent := root
		for _, p := range f.Path {
			e, ok := parent.entries[p]
			if !ok || e.sub == nil {
				e = &entry{sub: &storage{entries: map[string]*entry{}}}
				parent.entries[p] = e
			}
			parent = e.sub
		}
		if f.FileInfo().IsDir() {
			if e, ok := parent.entries[f.Name]; !ok || e.sub == nil {
				parent.entries[f.Name] = &entry{sub: &storage{entries: map[string]*entry{}}}
			}
			continue
		}
		e := &entry{}
		parent.entries[f.Name] = e
		if !streams || f.Size == 0 {
			continue
		}
		// A stream holds at most the file's bytes; all together at most
		// twice them (a broken file's chains may share sectors).
		n := min(f.Size, int64(len(data)))
		if total += n; total > 2*int64(len(data)) {
			return nil, fmt.Errorf("%w: its streams declare more bytes than the file holds", ErrFormat)
		}
		e.data, err = io.ReadAll(io.LimitReader(f, n))
		if err != nil && len(e.data) == 0 {
			e.data = nil // a stream that cannot be read is left out
		}
	}
	return root, nil
}

// Property types (MS-OXCDATA 2.11.1).
const (
	typeInt32   = 0x0003
	typeBool    = 0x000B
	typeObject  = 0x000D
	typeString8 = 0x001E
	typeUnicode = 0x001F
	typeTime    = 0x0040
	typeBinary  = 0x0102
)

// Property IDs (MS-OXPROPS).
const (
	propSubject          = 0x0037
	propSubmitTime       = 0x0039
	propSentReprName     = 0x0042
	propSentReprEmail    = 0x0065
	propHeaders          = 0x007D
	propRecipientType    = 0x0C15
	propSenderName       = 0x0C1A
	propSenderEmail      = 0x0C1F
	propDeliveryTime     = 0x0E06
	propBody             = 0x1000
	propRTFCompressed    = 0x1009
	propHTML             = 0x1013
	propDisplayName      = 0x3001
	propEmail            = 0x3003
	propAttachData       = 0x3701
	propAttachFilename   = 0x3704
	propAttachMethod     = 0x3705
	propAttachLongName   = 0x3707
	propAttachMime       = 0x370E
	propSMTPAddress      = 0x39FE
	propInternetCPID     = 0x3FDE
	propMessageCodepage  = 0x3FFD
	propSenderSMTP       = 0x5D01
	propSentReprSMTP     = 0x5D02
	attachEmbeddedMsg    = 5
	recipientTo, recipCc = 1, 2
)

// props is a storage's property stream: fixed-size values by property
// ID.
type props map[uint16]struct {
	typ uint16
	val [8]byte
}

// properties reads the storage's property stream, whose header is
// header bytes long (32 for a message, 24 for an attached one, 8 for a
// recipient or attachment).
func properties(s *storage, header int) props {
	out := props{}
	e := s.entries["__properties_version1.0"]
	if e == nil || len(e.data) < header {
		return out
	}
	b := e.data[header:]
	for ; len(b) >= 16; b = b[16:] {
		tag := binary.LittleEndian.Uint32(b)
		var v struct {
			typ uint16
			val [8]byte
		}
		v.typ = uint16(tag)
		copy(v.val[:], b[8:16])
		out[uint16(tag>>16)] = v
	}
	return out
}

func (p props) int32(id uint16) (int, bool) {
	v, ok := p[id]
	if !ok || v.typ != typeInt32 {
		return 0, false
	}
	return int(int32(binary.LittleEndian.Uint32(v.val[:4]))), true
}

func (p props) time(id uint16) (time.Time, bool) {
	v, ok := p[id]
	if !ok || v.typ != typeTime {
		return time.Time{}, false
	}
	ft := binary.LittleEndian.Uint64(v.val[:])
	if ft == 0 {
		return time.Time{}, false
	}
	// FILETIME: 100 ns since 1601-01-01 UTC.
	const epochDiff = 116444736000000000
	if ft < epochDiff {
		return time.Time{}, false
	}
	ns := int64(ft-epochDiff) * 100
	if ns < 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns).UTC(), true
}

// stream returns the bytes of property id of type typ, if the storage
// has it.
func (s *storage) stream(id, typ uint16) ([]byte, bool) {
	e, ok := s.entries[fmt.Sprintf("__substg1.0_%04X%04X", id, typ)]
	if !ok || e.sub != nil {
		return nil, false
	}
	return e.data, true
}

// str returns string property id: its Unicode form, else its 8-bit form
// in code page cp.
func (s *storage) str(id uint16, cp int) string {
	if b, ok := s.stream(id, typeUnicode); ok {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		for len(u) > 0 && u[len(u)-1] == 0 {
			u = u[:len(u)-1]
		}
		return string(utf16.Decode(u))
	}
	if b, ok := s.stream(id, typeString8); ok {
		b = bytes.TrimRight(b, "\x00")
		if utf8.Valid(b) && (cp == 0 || cp == 65001 || isASCII(b)) {
			return string(b)
		}
		return rtfdoc.Decode(cmp.Or(cp, 1252), b)
	}
	return ""
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

type msgReader struct {
	ctx      context.Context
	budget   *htmldoc.Budget
	files    []officedoc.File
	warnings []string
}

func (r *msgReader) warn(s string) {
	if len(r.warnings) < 100 {
		r.warnings = append(r.warnings, s)
	}
}

func (r *msgReader) emit(els *[]gochunk.Element, es ...gochunk.Element) error {
	for _, e := range es {
		if err := r.budget.Text(int64(len(e.Text)) + 2); err != nil {
			return err
		}
	}
	*els = append(*els, es...)
	return nil
}

// message reads the message in s, whose property stream's header is
// header bytes long, depth messages deep in attachments.
func (r *msgReader) message(s *storage, header, depth int) ([]gochunk.Element, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	p := properties(s, header)
	cp, _ := p.int32(propMessageCodepage)
	if cp == 0 {
		cp, _ = p.int32(propInternetCPID)
	}
	var els []gochunk.Element
	if subj := oneLine(s.str(propSubject, cp)); subj != "" {
		if err := r.emit(&els, heading(1+depth, subj)); err != nil {
			return nil, err
		}
	}
	if meta := r.headerLines(s, p, cp); meta != "" {
		if err := r.emit(&els, gochunk.Element{Type: "paragraph", Text: meta}); err != nil {
			return nil, err
		}
	}
	body, err := r.body(s, p, cp)
	if err != nil {
		return nil, err
	}
	els = append(els, body...) // counted as they were read
	var names []string
	firstFile := len(r.files)
	for i, a := range s.subs("__attach_version1.0_#") {
		att, name, err := r.attachment(a, i+1, cp, depth)
		if err != nil {
			return nil, err
		}
		els = append(els, att...)
		if name != "" {
			names = append(names, name)
		}
	}
	if how := encrypted(r.files[firstFile:]); how != "" {
		// An encrypted message: its attachments are its ciphertext (and
		// PGP/MIME's version part), not documents.
		r.files, names = r.files[:firstFile], nil
		r.warn(fmt.Sprintf("the message is encrypted (%s): its text cannot be read without the recipient's key; decrypt it first", how))
		if err := r.emit(&els, gochunk.Element{Type: "paragraph", Text: fmt.Sprintf("(The message is encrypted (%s): its text cannot be read without the recipient's key.)", how)}); err != nil {
			return nil, err
		}
	}
	if len(names) > 0 {
		if err := r.emit(&els, gochunk.Element{Type: "paragraph", Text: "Attached, each a document of its own: " + strings.Join(names, ", ")}); err != nil {
			return nil, err
		}
	}
	return els, nil
}

// encrypted names the encryption of a message whose attachments are
// files: PGP/MIME (an application/pgp-encrypted part, as Outlook keeps
// such a message); "" for a message that is not encrypted.
func encrypted(files []officedoc.File) string {
	for _, f := range files {
		if strings.EqualFold(f.Media, "application/pgp-encrypted") {
			return "PGP/MIME"
		}
	}
	return ""
}

// headerLines returns the message's sender, recipients and date, a line
// each, as the e-mail reader writes them.
func (r *msgReader) headerLines(s *storage, p props, cp int) string {
	// The Internet headers, where the message came by SMTP, have the
	// date as it was sent and the addresses as written.
	var h mail.Header
	if raw := s.str(propHeaders, cp); raw != "" {
		raw = strings.TrimLeft(strings.ReplaceAll(raw, "\r\n", "\n"), "\n")
		if m, err := mail.ReadMessage(strings.NewReader(strings.TrimRight(raw, "\n") + "\n\n")); err == nil {
			h = m.Header
		}
	}
	dec := new(mime.WordDecoder)
	fromHeader := func(k string) string {
		v := h.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			v = d
		}
		return oneLine(v)
	}
	from := address(s.str(propSenderName, cp), firstAddress(s.str(propSenderSMTP, cp), s.str(propSenderEmail, cp)))
	if from == "" {
		from = address(s.str(propSentReprName, cp), firstAddress(s.str(propSentReprSMTP, cp), s.str(propSentReprEmail, cp)))
	}
	if from == "" {
		from = fromHeader("From")
	}
	var to, cc []string
	for _, rs := range s.subs("__recip_version1.0_#") {
		rp := properties(rs, 8)
		a := address(rs.str(propDisplayName, cp), firstAddress(rs.str(propSMTPAddress, cp), rs.str(propEmail, cp)))
		if a == "" {
			continue
		}
		switch typ, _ := rp.int32(propRecipientType); typ {
		case recipCc:
			cc = append(cc, a)
		case recipientTo, 0:
			to = append(to, a)
		}
	}
	var lines []string
	add := func(k, v string) {
		if v != "" {
			lines = append(lines, k+": "+v)
		}
	}
	add("From", from)
	add("To", cmp.Or(strings.Join(to, ", "), fromHeader("To")))
	add("Cc", cmp.Or(strings.Join(cc, ", "), fromHeader("Cc")))
	date := fromHeader("Date")
	if date == "" {
		t, ok := p.time(propSubmitTime)
		if !ok {
			t, ok = p.time(propDeliveryTime)
		}
		if ok {
			date = t.Format(time.RFC1123Z)
		}
	}
	add("Date", date)
	return strings.Join(lines, "\n")
}

// firstAddress returns the first of the addresses that is an Internet
// one (Exchange's "/O=..." are not).
func firstAddress(addrs ...string) string {
	for _, a := range addrs {
		if a = strings.TrimSpace(a); strings.Contains(a, "@") {
			return a
		}
	}
	return ""
}

// address writes a name and an address as a header does.
func address(name, addr string) string {
	name = oneLine(name)
	switch {
	case name == "" || name == addr:
		return addr
	case addr == "":
		return name
	}
	return name + " <" + addr + ">"
}

// body reads the message's body: the plain text, else the HTML, else
// the compressed RTF.
func (r *msgReader) body(s *storage, p props, cp int) ([]gochunk.Element, error) {
	var els []gochunk.Element
	if text := s.str(propBody, cp); strings.TrimSpace(text) != "" {
		for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
			if strings.TrimSpace(para) != "" {
				if err := r.emit(&els, gochunk.Element{Type: "paragraph", Text: strings.Trim(para, "\n")}); err != nil {
					return nil, err
				}
			}
		}
		return els, nil
	}
	html, ok := s.stream(propHTML, typeBinary)
	if !ok {
		if h := s.str(propHTML, cp); h != "" {
			html, ok = []byte(h), true
		}
	}
	if ok && len(bytes.TrimSpace(html)) > 0 {
		if !utf8.Valid(html) {
			html = []byte(rtfdoc.Decode(cmp.Or(cp, 1252), html))
		}
		els, err := htmldoc.ElementsWithin(bytes.NewReader(html), r.budget)
		if err != nil {
			if errors.Is(err, htmldoc.ErrTooLarge) || r.ctx.Err() != nil {
				return nil, err
			}
			r.warn(fmt.Sprintf("the message's HTML body could not be read: %v", err))
		} else {
			return els, nil
		}
	}
	if comp, ok := s.stream(propRTFCompressed, typeBinary); ok {
		lim := r.budget.Limits().TextLimit(int64(len(comp)))
		rtf, err := decompressRTF(comp, int(min(lim*4, 256<<20)))
		if err != nil {
			r.warn(fmt.Sprintf("the message's RTF body could not be read: %v", err))
			return nil, nil
		}
		els, err := rtfdoc.ElementsWithin(r.ctx, rtf, r.budget)
		if err != nil {
			if errors.Is(err, htmldoc.ErrTooLarge) || r.ctx.Err() != nil {
				return nil, err
			}
			r.warn(fmt.Sprintf("the message's RTF body could not be read: %v", err))
			return nil, nil
		}
		return els, nil
	}
	return nil, nil
}

// attachment reads attachment n of a message: a file is kept in r.files
// (its name returned), a message attached is read as a section.
func (r *msgReader) attachment(a *storage, n, cp, depth int) ([]gochunk.Element, string, error) {
	p := properties(a, 8)
	name := oneLine(cmp.Or(a.str(propAttachLongName, cp), cmp.Or(a.str(propAttachFilename, cp), a.str(propDisplayName, cp))))
	method, _ := p.int32(propAttachMethod)
	if e, ok := a.entries[fmt.Sprintf("__substg1.0_%04X%04X", propAttachData, typeObject)]; ok && e.sub != nil && (method == attachEmbeddedMsg || e.sub.hasPrefix("__substg1.0_")) {
		if depth+1 >= maxDepth {
			r.warn(fmt.Sprintf("attachment %d (%s): a message nested more than %d deep, not read", n, name, maxDepth))
			return nil, "", nil
		}
		els, err := r.message(e.sub, 24, depth+1)
		if err != nil {
			return nil, "", err
		}
		title := cmp.Or(name, fmt.Sprintf("message %d", n))
		head := heading(2+depth, "Attachment: "+title)
		var out []gochunk.Element
		if err := r.emit(&out, head); err != nil {
			return nil, "", err
		}
		return append(out, els...), "", nil
	}
	data, ok := a.stream(propAttachData, typeBinary)
	if !ok {
		if name != "" {
			r.warn(fmt.Sprintf("attachment %d (%s): no data in the message (a link or an OLE object), not read", n, name))
		}
		return nil, "", nil
	}
	if name == "" {
		name = fmt.Sprintf("attachment-%d", n)
	}
	name = r.unique(path.Base(strings.ReplaceAll(name, `\`, "/")))
	r.files = append(r.files, officedoc.File{Name: name, Media: oneLine(a.str(propAttachMime, cp)), Data: data})
	return nil, name, nil
}

// unique returns name, or name with a number when an earlier attachment
// has it.
func (r *msgReader) unique(name string) string {
	if name == "" || name == "." || name == "/" {
		name = "attachment"
	}
	taken := func(n string) bool {
		return slices.ContainsFunc(r.files, func(f officedoc.File) bool { return f.Name == n })
	}
	out := name
	for i := 2; taken(out); i++ {
		ext := path.Ext(name)
		out = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), i, ext)
	}
	return out
}

// heading returns a heading element of level 1 to 6.
func heading(level int, text string) gochunk.Element {
	level = min(max(level, 1), 6)
	typ := "heading"
	if level == 1 {
		typ = "title"
	}
	return gochunk.Element{Type: typ, Text: strings.Repeat("#", level) + " " + oneLine(text)}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
