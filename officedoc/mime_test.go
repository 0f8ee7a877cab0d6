package officedoc

import (
	"strings"
	"testing"
)

// A signed message whose signed part starts with its text, with no header
// and no blank line after its boundary (as some S/MIME signers write it),
// is read: the part as plain text, the signature left out; and a MIME
// entity with no sender or subject (a signed message saved as .p7s) is
// sniffed as a message.
func TestEmailSignedHeaderlessPart(t *testing.T) {
	msg := "MIME-Version: 1.0\r\nContent-Type: multipart/signed; protocol=\"application/x-pkcs7-signature\"; micalg=\"sha-256\"; boundary=\"----B\"\r\n\r\n" +
		"This is an S/MIME signed message\r\n\r\n------B\r\nThe meeting moved to Friday.\r\n\r\nBring the report.\r\n\r\n" +
		"------B\r\nContent-Type: application/x-pkcs7-signature; name=\"smime.p7s\"\r\nContent-Transfer-Encoding: base64\r\n" +
		"Content-Disposition: attachment; filename=\"smime.p7s\"\r\n\r\nMIIGmQYJKoZIhvcNAQcCoIIGijCCBoYCAQExDzANBglghkgBZQMEAgEFADAL\r\n\r\n------B--\r\n"
	if k := Sniff([]byte(msg)); k != "eml" {
		t.Errorf("sniffed as %q, want eml", k)
	}
	r, err := Read(t.Context(), "eml", []byte(msg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(strings.Join(texts(r.Elements), "\n"))
	want := "paragraph The meeting moved to Friday.\nparagraph Bring the report."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "without a header") {
		t.Errorf("warnings %q, want one about the part without a header", r.Warnings)
	}
	// Text that only starts like a header is not a MIME entity.
	for _, s := range []string{"MIME-Version: 1.0\n\nContent-Type: text/plain\n", "Note: MIME-Version and Content-Type\nContent-Type: x\n", "Hello\nMIME-Version: 1.0\nContent-Type: text/plain\n"} {
		if k := Sniff([]byte(s)); k != "" {
			t.Errorf("%q sniffed as %q", s, k)
		}
	}
}

// An encrypted message (PGP/MIME, S/MIME) says it is encrypted, with a
// warning, rather than listing its ciphertext as attachments.
func TestEmailEncrypted(t *testing.T) {
	for _, tc := range []struct{ name, ctype, body, how string }{
		{"PGP/MIME", "multipart/encrypted; protocol=\"application/pgp-encrypted\"; boundary=\"b\"",
			"--b\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n--b\r\nContent-Type: application/octet-stream\r\n\r\n-----BEGIN PGP MESSAGE-----\r\nhQEMA\r\n-----END PGP MESSAGE-----\r\n--b--\r\n", "PGP/MIME"},
		{"S/MIME", "application/pkcs7-mime; smime-type=enveloped-data; name=\"smime.p7m\"",
			"MIAGCSqGSIb3DQEHA6CAMIACAQAxggFuMIIBagIBADBSMEUxCzAJBgNVBAYTAkFV\r\n", "S/MIME"},
	} {
		msg := "From: ana@example.com\r\nTo: bo@example.com\r\nSubject: Plans\r\nMIME-Version: 1.0\r\nContent-Type: " + tc.ctype + "\r\n\r\n" + tc.body
		r, err := Read(t.Context(), "eml", []byte(msg), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := strings.Join(texts(r.Elements), "\n")
		if !strings.Contains(got, "paragraph (The message is encrypted ("+tc.how+")") || strings.Contains(got, "Attachment") {
			t.Errorf("%s: got\n%s", tc.name, got)
		}
		if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "decrypt") {
			t.Errorf("%s: warnings %q", tc.name, r.Warnings)
		}
	}
}

// A message cut short inside a nested multipart keeps the parts read
// (its outer multipart is read whole, and the read ends early).
func TestEmailTruncatedNested(t *testing.T) {
	msg := "From: ana@example.com\r\nSubject: Summit\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"out\"\r\n\r\n" +
		"--out\r\nContent-Type: multipart/alternative; boundary=\"in\"\r\n\r\n--in\r\nContent-Type: text/plain\r\n\r\nThe summit is in April.\r\n" +
		"--in\r\nContent-Type: text/html\r\n\r\n<p>The summit is in April.</p><p>Booth"
	r, err := Read(t.Context(), "eml", []byte(msg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts(r.Elements), "\n"); !strings.Contains(got, "The summit is in April.") {
		t.Errorf("the body read before the cut is lost:\n%s", got)
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "truncated") {
		t.Errorf("warnings %q, want one saying the message is truncated", r.Warnings)
	}
}
