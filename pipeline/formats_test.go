package pipeline

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/gochunk/gochunk/internal/cfbgen"
)

func formatsPipeline(t *testing.T, cfg Config) *Pipeline {
	t.Helper()
	p, err := New(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func imageBytes(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 4, 4), []color.Color{color.White, color.Black})
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// refused are files of formats gochunk recognises and does not read,
// each made here, with words its refusal must hold.
func refused(t *testing.T) map[string]struct {
	data []byte
	want []string
} {
	var zipped bytes.Buffer
	z := zip.NewWriter(&zipped)
	w, _ := z.Create("notes/a.txt")
	w.Write([]byte("inside an archive"))
	z.Close()
	var gz bytes.Buffer
	g := gzip.NewWriter(&gz)
	g.Write([]byte("text, compressed"))
	g.Close()
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00"), make([]byte, 40)...)
	bmp := make([]byte, 70)
	copy(bmp, "BM")
	binary.LittleEndian.PutUint32(bmp[2:], 70)
	binary.LittleEndian.PutUint32(bmp[14:], 40)
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i * 7919 % 251)
	}
	return map[string]struct {
		data []byte
		want []string
	}{
		"scan.png":     {imageBytes(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }), []string{"an image (PNG)", "only by OCR", "GOCHUNK_OCR_MODEL", "tesseract scan.png out"}},
		"photo.jpg":    {imageBytes(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }), []string{"an image (JPEG)", "only by OCR"}},
		"anim.gif":     {imageBytes(t, func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) }), []string{"an image (GIF)"}},
		"fax.tiff":     {append([]byte("II*\x00\x08\x00\x00\x00"), make([]byte, 64)...), []string{"an image (TIFF)"}},
		"pic.webp":     {append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 64)...), []string{"an image (WebP)"}},
		"old.bmp":      {bmp, []string{"an image (BMP)"}},
		"report.doc":   {cfbgen.Legacy("WordDocument"), []string{"a Word 97-2003 document (.doc)", "soffice --headless --convert-to docx report.doc"}},
		"sheet.xls":    {cfbgen.Legacy("Workbook"), []string{"an Excel 97-2003 workbook (.xls)", "--convert-to xlsx sheet.xls"}},
		"deck.ppt":     {cfbgen.Legacy("PowerPoint Document"), []string{"a PowerPoint 97-2003 presentation (.ppt)", "--convert-to pptx deck.ppt"}},
		"locked.docx":  {cfbgen.Legacy("EncryptedPackage"), []string{"encrypted with a password"}},
		"drawing.vsd":  {cfbgen.Legacy("VisioDocument"), []string{"an OLE2 compound file"}},
		"bundle.zip":   {zipped.Bytes(), []string{"a zip archive", "extract it"}},
		"logs.gz":      {gz.Bytes(), []string{"a gzip-compressed file"}},
		"call.wav":     {wav, []string{"an audio file (WAV)", "transcribe"}},
		"song.mp3":     {append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), make([]byte, 64)...), []string{"an audio file (MP3)"}},
		"clip.mp4":     {append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00"), make([]byte, 64)...), []string{"MP4"}},
		"data.sqlite":  {append([]byte("SQLite format 3\x00"), make([]byte, 84)...), []string{"an SQLite database"}},
		"random.bin":   {noise, []string{"a binary file", "a NUL byte at byte 0"}},
		"my file.jpeg": {imageBytes(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }), []string{"tesseract 'my file.jpeg' out"}},
	}
}

// Every format gochunk recognises and does not read is refused by name,
// from a file, from memory (a request's file) and from a stream, never
// read as text (issue 50: extract printed their bytes).
func TestLoadRefusesFormats(t *testing.T) {
	p := formatsPipeline(t, Config{})
	dir := t.TempDir()
	for name, c := range refused(t) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for how, src := range map[string]Source{
			"file":   {Path: path},
			"memory": {File: c.data, FileName: name, ID: name},
			"stream": {Path: "-", Reader: bytes.NewReader(c.data), ID: name},
		} {
			if how == "stream" && strings.HasSuffix(name, ".docx") {
				continue // a stream has no name; its content is refused all the same (below)
			}
			l, err := p.Load(context.Background(), src)
			var fe *FormatError
			if !errors.Is(err, ErrUnsupportedFormat) || !errors.As(err, &fe) {
				t.Errorf("%s from a %s: %v (text %.40q), want a FormatError", name, how, err, l.Text)
				continue
			}
			if fe.Name != cmpOr(src.ID, src.Path) {
				t.Errorf("%s from a %s: named %q", name, how, fe.Name)
			}
			for _, w := range c.want {
				if how == "file" && !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %q lacks %q", name, err, w)
				}
			}
		}
	}
}

// From standard input, the advice's command names no file.
func TestRefusalFromStandardInput(t *testing.T) {
	_, err := formatsPipeline(t, Config{}).Load(context.Background(), Source{Path: "-", Reader: bytes.NewReader(cfbgen.Legacy("WordDocument"))})
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "--convert-to docx FILE,") {
		t.Errorf("%v", err)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An Outlook message is read as an e-mail is: its text, its attachments
// of kinds gochunk reads as documents of their own, or as sections;
// attachments of a refused format are named, not read.
func TestLoadOutlookMessage(t *testing.T) {
	pngData := imageBytes(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) })
	msg := cfbgen.Message{
		Subject: "Site visit", SenderName: "Ana", SenderEmail: "ana@example.com",
		To: [][2]string{{"Bo", "bo@example.com"}}, Body: "See the notes attached.",
		Attachments: []cfbgen.Attachment{
			{Name: "notes.rtf", Data: []byte(`{\rtf1\ansi Notes from the {\b visit}.\par}`)},
			{Name: "photo.png", Mime: "image/png", Data: pngData},
			{Name: "old.doc", Data: cfbgen.Legacy("WordDocument")},
		},
	}.Msg()
	path := writeFile(t, "visit.msg", msg)
	l, err := formatsPipeline(t, Config{}).Load(context.Background(), Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# Site visit", "From: Ana <ana@example.com>\nTo: Bo <bo@example.com>", "See the notes attached.",
		"Attached, each a document of its own: notes.rtf", "Attached, not read: photo.png (an image (PNG)), old.doc (a Word 97-2003 document (.doc))"} {
		if !strings.Contains(l.Text, w) {
			t.Errorf("missing %q in %q", w, l.Text)
		}
	}
	if len(l.Attachments) != 1 || l.Attachments[0].ID != path+"/notes.rtf" {
		t.Fatalf("attachments %+v", l.Attachments)
	}
	a, err := formatsPipeline(t, Config{}).Load(context.Background(), l.Attachments[0])
	if err != nil || a.Text != "Notes from the visit." {
		t.Errorf("the attachment: %q, %v", a.Text, err)
	}
	// As sections of the message, named as a file of no known extension
	// (its content says what it is).
	s, err := formatsPipeline(t, Config{Attachments: "sections"}).Load(context.Background(), Source{File: msg, FileName: "visit.bin", ID: "visit"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, "## Attachment: notes.rtf\n\nNotes from the visit.") || len(s.Attachments) != 0 || strings.Contains(s.Text, `\rtf`) {
		t.Errorf("sections: %q, %d attachments", s.Text, len(s.Attachments))
	}
}

// RTF is read, never chunked as markup: by extension, by content under
// another name (a .doc that is RTF, as Word's "Save as" makes), and with
// --input rtf, which refuses what is not RTF.
func TestLoadRTF(t *testing.T) {
	rtf := []byte(`{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Arial;}}\pard\outlinelevel0 Minutes\par\pard Caf\'e9 at 9.\par}`)
	p := formatsPipeline(t, Config{})
	for _, name := range []string{"minutes.rtf", "minutes.doc", "minutes"} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, name, rtf)})
		if err != nil || l.Text != "# Minutes\n\nCafé at 9." {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
	}
	pr := formatsPipeline(t, Config{Input: "rtf"})
	if l, err := pr.Load(context.Background(), Source{Path: "-", Reader: bytes.NewReader(rtf)}); err != nil || !strings.HasPrefix(l.Text, "# Minutes") {
		t.Errorf("--input rtf: %q, %v", l.Text, err)
	}
	if _, err := pr.Load(context.Background(), Source{Path: writeFile(t, "x.txt", []byte("plain"))}); err == nil || !strings.Contains(err.Error(), "not RTF") {
		t.Errorf("--input rtf on text: %v", err)
	}
}

// An HTML page named otherwise (a saved page.php, a page with no
// extension) is read as HTML, not chunked as its tags; a text that only
// mentions <html> is text.
func TestLoadSniffsHTML(t *testing.T) {
	p := formatsPipeline(t, Config{})
	page := "\xEF\xBB\xBF<!-- saved -->\n<!DOCTYPE html><html><head><style>p{}</style><script>x()</script></head><body><h1>Opening hours</h1><p>Daily <b>9 to 5</b>.</p></body></html>"
	for _, name := range []string{"index.php", "page"} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, name, []byte(page))})
		if err != nil || l.Text != "# Opening hours\n\nDaily 9 to 5." {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
	}
	for _, text := range []string{"<htmlish> is no tag.", "Use <!DOCTYPE html> first."} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, "t.txt", []byte(text))})
		if err != nil || l.Text != text {
			t.Errorf("%q: %q, %v", text, l.Text, err)
		}
	}
}

// Text stays text: UTF-8 (with a tab, a form feed, an escape), Latin-1
// (repaired by the invalid-UTF-8 policy, not refused), and UTF-16 with a
// byte order mark, decoded.
func TestLoadTextIsText(t *testing.T) {
	p := formatsPipeline(t, Config{InvalidUTF8: "repair"})
	u16 := []byte{0xFF, 0xFE}
	for _, c := range utf16.Encode([]rune("Grüße aus Köln")) {
		u16 = binary.LittleEndian.AppendUint16(u16, c)
	}
	var u16be, u16le, u32 []byte
	u32 = []byte{0xFF, 0xFE, 0, 0}
	for _, c := range utf16.Encode([]rune("Grüße aus Köln\r\nZeile zwei")) {
		u16be = binary.BigEndian.AppendUint16(u16be, c)
		u16le = binary.LittleEndian.AppendUint16(u16le, c)
	}
	for _, r := range "Grüße 😀" {
		u32 = binary.LittleEndian.AppendUint32(u32, uint32(r))
	}
	for name, c := range map[string]struct{ data, want string }{
		"be.txt":   {string(u16be), "Grüße aus Köln\r\nZeile zwei"},
		"le.txt":   {string(u16le), "Grüße aus Köln\r\nZeile zwei"},
		"u32.txt":  {string(u32), "Grüße 😀"},
		"a.txt":    {"col1\tcol2\f\x1b[1mbold\x1b[0m\n", "col1\tcol2\f\x1b[1mbold\x1b[0m\n"},
		"b.txt":    {"caf\xe9 cr\xe8me", "caf\uFFFD cr\uFFFDme"},
		"c.txt":    {string(u16), "Grüße aus Köln"},
		"BMW.txt":  {"BMW and BM are letters, not a bitmap", "BMW and BM are letters, not a bitmap"},
		"id3.txt":  {"ID3 tags are metadata", "ID3 tags are metadata"},
		"empty.md": {"", ""},
	} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, name, []byte(c.data))})
		if err != nil || l.Text != c.want {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
	}
}

// A file of no text extension that is an e-mail or MIME message (an S/MIME
// signed message saved as .p7s, a message saved with no extension, from
// standard input) is read as a message, not printed as its MIME text; a
// text file (by its extension, or by a header that lacks the fields or has
// no end) stays the text it is.
func TestLoadSniffsMessage(t *testing.T) {
	p := formatsPipeline(t, Config{})
	signed := "MIME-Version: 1.0\r\nContent-Type: multipart/signed; protocol=\"application/x-pkcs7-signature\"; micalg=\"sha-256\";\r\n boundary=\"----B\"\r\n\r\nThis is an S/MIME signed message\r\n\r\n------B\r\nThis is a test\r\n\r\n------B\r\nContent-Type: application/x-pkcs7-signature; name=\"smime.p7s\"\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"smime.p7s\"\r\n\r\nAAAA\r\n\r\n------B--\r\n"
	saved := "From: Ann <ann@example.com>\nTo: Bob <bob@example.com>\nSubject: Lunch\nContent-Transfer-Encoding: quoted-printable\n\nSee you at caf=C3=A9 Rio.\n"
	for name, c := range map[string]struct {
		data string
		want string
	}{
		"signed-doc.p7s": {signed, "This is a test"},
		"message":        {saved, "See you at café Rio."},
	} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, name, []byte(c.data))})
		if err != nil || !strings.Contains(l.Text, c.want) || strings.Contains(l.Text, "Content-Type") || strings.Contains(l.Text, "=C3=A9") {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
	}
	if l, err := p.Load(context.Background(), Source{Path: "-", Reader: strings.NewReader(saved)}); err != nil || !strings.Contains(l.Text, "café Rio") {
		t.Errorf("standard input: %q, %v", l.Text, err)
	}
	// Saved as UTF-16 (with a byte order mark, and without).
	u16 := []byte{0xFF, 0xFE}
	var u16be []byte
	for _, c := range utf16.Encode([]rune(strings.ReplaceAll(saved, "caf=C3=A9", "café"))) {
		u16 = binary.LittleEndian.AppendUint16(u16, c)
		u16be = binary.BigEndian.AppendUint16(u16be, c)
	}
	for name, data := range map[string][]byte{"message16": u16, "message16be": u16be} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, name, data)})
		if err != nil || !strings.Contains(l.Text, "See you at café Rio.") || strings.Contains(l.Text, "Subject:") {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
	}
	if l, err := p.Load(context.Background(), Source{Path: writeFile(t, "saved16.txt", u16)}); err != nil || !strings.HasPrefix(l.Text, "From: Ann") {
		t.Errorf("saved16.txt: %q, %v", l.Text, err)
	}
	for _, short := range []string{"\xFF\xFE", "\xFF\xFEA\x00", "\xFF\xFE\x00\x00", "\xFF\xFE\x00\x00A\x00\x00\x00"} {
		if l, err := p.Load(context.Background(), Source{Path: writeFile(t, "short", []byte(short))}); err != nil || strings.Contains(l.Text, "\x00") {
			t.Errorf("%q: %q, %v", short, l.Text, err)
		}
	}
	for name, text := range map[string]string{
		"saved.txt":   saved,                                                          // named text: read as it is
		"notes":       "Subject: the budget\n\nWe met on Monday.\n",                   // one field: no message
		"minutes":     "From: the chair\nDate: Monday\nThe meeting opened at nine.\n", // no blank line ends it
		"readme":      "Note: read this first\nFrom: the team\n",                      // no end either
		"control":     "Package: gochunk\nVersion: 1.0\n\nA chunker.\n",               // fields, not a message's
		"letter.text": "Dear Ann,\nFrom: Bob\nTo: Ann\n\nHi.\n",
	} {
		l, err := p.Load(context.Background(), Source{Path: writeFile(t, name, []byte(text))})
		if err != nil || l.Text != text {
			t.Errorf("%s: %q, %v", name, l.Text, err)
		}
	}
}
