package msgdoc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
	"github.com/gochunk/gochunk/internal/cfbgen"
)

func text(els []gochunk.Element) string {
	var parts []string
	for _, e := range els {
		parts = append(parts, e.Text)
	}
	return strings.Join(parts, "\n\n")
}

// 2024-03-01 10:30:00 UTC as a FILETIME.
const march1 = (1709289000 + 11644473600) * 10000000

// A message written as Outlook writes one: subject, sender, recipients
// by kind, date, plain body, a file and a message attached.
func TestReadMessage(t *testing.T) {
	m := cfbgen.Message{
		Subject: "Quarterly numbers", SenderName: "Ana Lopez", SenderEmail: "ana@example.com",
		To: [][2]string{{"Bo Chen", "bo@example.com"}}, Cc: [][2]string{{"", "cc@example.com"}},
		Body:       "Hello team,\r\n\r\nThe numbers are attached.\r\n",
		SubmitTime: march1,
		Attachments: []cfbgen.Attachment{
			{Name: "numbers.csv", Mime: "text/csv", Data: []byte("q,revenue\n1,100\n")},
			{Name: "numbers.csv", Mime: "text/csv", Data: []byte("again")},
			{Name: "Fwd.msg", Message: &cfbgen.Message{Subject: "Earlier thread", Body: "Forwarded words."}},
		},
	}
	data := m.Msg()
	if k := Compound(data); k != KindMsg {
		t.Fatalf("Compound = %q", k)
	}
	r, err := Read(context.Background(), data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := text(r.Elements)
	for _, want := range []string{
		"# Quarterly numbers",
		"From: Ana Lopez <ana@example.com>\nTo: Bo Chen <bo@example.com>\nCc: cc@example.com\nDate: Fri, 01 Mar 2024 10:30:00 +0000",
		"Hello team,", "The numbers are attached.",
		"## Attachment: Fwd.msg", "## Earlier thread", "Forwarded words.",
		"Attached, each a document of its own: numbers.csv, numbers-2.csv",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if r.Elements[0].Type != "title" {
		t.Errorf("first element %+v, want the subject as title", r.Elements[0])
	}
	if len(r.Files) != 2 || r.Files[0].Name != "numbers.csv" || string(r.Files[0].Data) != "q,revenue\n1,100\n" || r.Files[0].Media != "text/csv" || r.Files[1].Name != "numbers-2.csv" {
		t.Errorf("files %+v", r.Files)
	}
}

// The body is the plain one, else the HTML one, else the RTF one.
func TestReadBodies(t *testing.T) {
	rtf := []byte(`{\rtf1\ansi\ansicpg1252 Caf\'e9 meeting\par moved to Friday.\par}`)
	for _, c := range []struct {
		name string
		m    cfbgen.Message
		want []string
	}{
		{"html", cfbgen.Message{Subject: "s", HTML: "<html><body><h2>Agenda</h2><p>Item <b>one</b></p><script>x()</script></body></html>"}, []string{"## Agenda", "Item one"}},
		{"rtf compressed", cfbgen.Message{Subject: "s", RTF: compress(rtf)}, []string{"Café meeting", "moved to Friday."}},
		{"rtf uncompressed", cfbgen.Message{Subject: "s", RTF: uncompressedRTF(rtf)}, []string{"Café meeting"}},
		{"internet headers", cfbgen.Message{Subject: "s", Body: "b", Headers: "Received: x\r\nFrom: Dee <dee@example.org>\r\nTo: all@example.org\r\nDate: Tue, 2 Jan 2024 09:00:00 -0500\r\n"}, []string{"From: Dee <dee@example.org>", "To: all@example.org", "Date: Tue, 2 Jan 2024 09:00:00 -0500"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Read(context.Background(), c.m.Msg(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := text(r.Elements)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in %q", w, got)
				}
			}
			if strings.Contains(got, `\rtf`) || strings.Contains(got, "<p>") || strings.Contains(got, "x()") {
				t.Errorf("markup in the text: %q", got)
			}
		})
	}
}

// compress writes data as compressed RTF (MS-OXRTFCP): references into
// the dictionary where a run of 3 or more bytes is there, else literals.
func compress(data []byte) []byte {
	var dict [4096]byte
	copy(dict[:], prebuffer)
	w := len(prebuffer)
	var body []byte
	for i := 0; i <= len(data); {
		flagAt := len(body)
		body = append(body, 0)
		for bit := 0; bit < 8; bit++ {
			if i == len(data) {
				body[flagAt] |= 1 << bit
				body = binary.BigEndian.AppendUint16(body, uint16(w<<4)) // the end
				i++
				break
			}
			best, bestLen := 0, 0
			for off := range 4096 {
				n := 0
				for n < 17 && i+n < len(data) && (off+n)&4095 != w && dict[(off+n)&4095] == data[i+n] {
					n++
				}
				if n > bestLen {
					best, bestLen = off, n
				}
			}
			if bestLen >= 3 {
				body[flagAt] |= 1 << bit
				body = binary.BigEndian.AppendUint16(body, uint16(best<<4|(bestLen-2)))
				for k := range bestLen {
					dict[w] = data[i+k]
					w = (w + 1) & 4095
				}
				i += bestLen
				continue
			}
			body = append(body, data[i])
			dict[w] = data[i]
			w = (w + 1) & 4095
			i++
		}
	}
	h := make([]byte, 16)
	binary.LittleEndian.PutUint32(h[0:], uint32(len(body)+12))
	binary.LittleEndian.PutUint32(h[4:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[8:], compressed)
	return append(h, body...)
}

func uncompressedRTF(data []byte) []byte {
	h := make([]byte, 16)
	binary.LittleEndian.PutUint32(h[0:], uint32(len(data)+12))
	binary.LittleEndian.PutUint32(h[4:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[8:], uncompressed)
	return append(h, data...)
}

func TestDecompressRTF(t *testing.T) {
	rtf := []byte(`{\rtf1\ansi\ansicpg1252\pard hello world, hello world, hello world}` + "\r\n")
	c := compress(rtf)
	if len(c)-16 >= len(rtf) {
		t.Fatalf("the test's compressor made no reference: %d bytes for %d", len(c)-16, len(rtf))
	}
	got, err := decompressRTF(c, 1<<20)
	if err != nil || !bytes.Equal(got, rtf) {
		t.Fatalf("got %q, %v", got, err)
	}
	// Bounds: a declared size past the limit, an unknown compression,
	// a header cut short.
	if _, err := decompressRTF(c, 10); !errors.Is(err, errRTF) {
		t.Errorf("over the limit: %v", err)
	}
	bad := bytes.Clone(c)
	copy(bad[8:], "ABCD")
	if _, err := decompressRTF(bad, 1<<20); !errors.Is(err, errRTF) {
		t.Errorf("unknown compression: %v", err)
	}
	if _, err := decompressRTF(c[:10], 1<<20); !errors.Is(err, errRTF) {
		t.Errorf("short header: %v", err)
	}
	// A stream cut short keeps what it holds.
	if got, err := decompressRTF(c[:len(c)-4], 1<<20); err != nil || !bytes.HasPrefix(rtf, got) {
		t.Errorf("cut short: %q, %v", got, err)
	}
}

func TestCompound(t *testing.T) {
	for stream, want := range map[string]string{
		"WordDocument": KindDoc, "Workbook": KindXls, "Book": KindXls,
		"PowerPoint Document": KindPpt, "EncryptedPackage": KindEncrypted, "VisioDocument": KindOther,
	} {
		if got := Compound(cfbgen.Legacy(stream)); got != want {
			t.Errorf("%s: %q, want %q", stream, got, want)
		}
	}
	if got := Compound([]byte("plain text")); got != "" {
		t.Errorf("text: %q", got)
	}
	if got := Compound([]byte(Magic + "broken")); got != KindOther {
		t.Errorf("a broken compound file: %q", got)
	}
}

// Broken and hostile compound files are errors, never a panic or a
// run away: every prefix of a message, and bytes flipped through it.
func TestReadBroken(t *testing.T) {
	data := cfbgen.Message{Subject: "s", Body: strings.Repeat("body ", 2000), Attachments: []cfbgen.Attachment{{Name: "a.txt", Data: []byte("x")}}}.Msg()
	for n := 0; n < len(data); n += 97 {
		Read(context.Background(), data[:n], Options{})
	}
	for i := 0; i < len(data); i += 13 {
		b := bytes.Clone(data)
		b[i] ^= 0xFF
		Read(context.Background(), b, Options{})
	}
	if _, err := Read(context.Background(), []byte("not a message"), Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("text: %v", err)
	}
	if _, err := Read(context.Background(), cfbgen.Legacy("WordDocument"), Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("a Word file: %v", err)
	}
	// The text bound holds.
	lim := htmldoc.Limits{MaxText: 1000}
	if _, err := Read(context.Background(), data, Options{Limits: lim}); !errors.Is(err, htmldoc.ErrTooLarge) {
		t.Errorf("over MaxText: %v", err)
	}
}

// The shared collection's Outlook messages (Unstructured's and
// MarkItDown's test files).
func TestSharedMessages(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "eval", "documents")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/eval/documents is absent")
	}
	for name, want := range map[string][]string{
		"markitdown/test_files/test_outlook_msg.msg":  {"Test Email Message", "test.sender@example.com", "test.recipient@example.com", "This is the body of the test email message"},
		"unstructured/fake-email.msg":                 {"Test Email", "This is a test email to use for unit tests.", "Roses are red"},
		"unstructured/fake-email-attachment.msg":      {"Fake email with attachment", "fake-attachment.txt"},
		"unstructured/fake-email-with-cc-and-bcc.msg": {"Cc: steve@unstructured.io"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Read(context.Background(), data, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := text(r.Elements)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q in %q", name, w, got)
			}
		}
	}
}

// Any input ends in a message or an error: never a panic.
func FuzzRead(f *testing.F) {
	f.Add(cfbgen.Message{Subject: "s", Body: "b", Attachments: []cfbgen.Attachment{{Name: "a.txt", Data: []byte("x")}}}.Msg())
	f.Add(cfbgen.Message{Subject: "s", RTF: uncompressedRTF([]byte(`{\rtf1 x}`))}.Msg())
	f.Add(cfbgen.Legacy("WordDocument"))
	f.Fuzz(func(t *testing.T, data []byte) {
		Read(context.Background(), data, Options{})
		Compound(data)
		decompressRTF(data, 1<<20)
	})
}

// A PGP/MIME message as Outlook keeps it (its version part and its
// ciphertext as attachments) says it is encrypted, with a warning, and
// returns no attachments.
func TestReadEncrypted(t *testing.T) {
	m := cfbgen.Message{Subject: "Plans", SenderEmail: "ana@example.com", Attachments: []cfbgen.Attachment{
		{Name: "ATT00001.pgp-encrypted", Mime: "application/pgp-encrypted", Data: []byte("Version: 1\n")},
		{Name: "ATT00002.bin", Mime: "application/octet-stream", Data: []byte("-----BEGIN PGP MESSAGE-----\nhQEMA\n-----END PGP MESSAGE-----\n")},
	}}
	r, err := Read(context.Background(), m.Msg(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := text(r.Elements)
	if !strings.Contains(got, "(The message is encrypted (PGP/MIME)") || strings.Contains(got, "Attached") || len(r.Files) != 0 {
		t.Errorf("got %q, files %d", got, len(r.Files))
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "decrypt") {
		t.Errorf("warnings %q", r.Warnings)
	}
}
