// Package mailgen writes e-mail messages (RFC 5322, MIME) with
// attachments, for tests of e-mail input.
package mailgen

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Attachment is a file attached to a message.
type Attachment struct {
	Name, Media string
	Data        []byte
}

// Message returns a message from ana@example.com with a plain-text body
// and the attachments, base64-encoded, in a multipart/mixed body.
func Message(subject, body string, atts ...Attachment) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, "From: Ana <ana@example.com>\r\nTo: team@example.com\r\nSubject: %s\r\nDate: Mon, 2 Mar 2026 10:00:00 +0000\r\n", subject)
	sb.WriteString("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n")
	sb.WriteString("--b0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + strings.ReplaceAll(body, "\n", "\r\n") + "\r\n")
	for _, a := range atts {
		fmt.Fprintf(&sb, "--b0\r\nContent-Type: %s; name=\"%s\"\r\nContent-Disposition: attachment; filename=\"%s\"\r\nContent-Transfer-Encoding: base64\r\n\r\n", a.Media, a.Name, a.Name)
		enc := base64.StdEncoding.EncodeToString(a.Data)
		for len(enc) > 76 {
			sb.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		sb.WriteString(enc + "\r\n")
	}
	sb.WriteString("--b0--\r\n")
	return []byte(sb.String())
}
