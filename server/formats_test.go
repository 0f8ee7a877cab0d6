package server

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/internal/cfbgen"
	"github.com/gochunk/gochunk/internal/mailgen"
)

// A document of a format gochunk recognises and does not read gets 415,
// naming the document, the format and what to do; an Outlook message and
// RTF are read (issue 50: a PNG or a .doc was chunked as its bytes).
func TestChunkUnsupportedFormat(t *testing.T) {
	_, ts := newTest(t, nil)
	file := func(name string, data []byte) string {
		body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"file_base64": base64.StdEncoding.EncodeToString(data), "file_name": name}, {"text": "Another document."}}})
		return string(body)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"scan.png":   {png, `document \"scan.png\": an image (PNG): gochunk reads an image's text only by OCR`},
		"report.doc": {cfbgen.Legacy("WordDocument"), `soffice --headless --convert-to docx report.doc`},
	} {
		code, b, _ := post(t, ts.URL+"/v1/chunk", file(name, c.data))
		var e api.ErrorBody
		if code != 415 || json.Unmarshal(b, &e) != nil || !strings.Contains(string(b), c.want) || !strings.Contains(string(b), "unsupported_format") {
			t.Errorf("%s: %d %s", name, code, b)
		}
	}
	for name, data := range map[string][]byte{
		"mail.msg":  cfbgen.Message{Subject: "Penguin census", Body: "Two hundred and twelve."}.Msg(),
		"notes.rtf": []byte(`{\rtf1\ansi Two hundred and twelve.\par}`),
	} {
		code, b, _ := post(t, ts.URL+"/v1/chunk", file(name, data))
		var resp api.ChunkResponse
		if code != 200 || json.Unmarshal(b, &resp) != nil || len(resp.Documents[0].Chunks) == 0 || !strings.Contains(resp.Documents[0].Chunks[0].Text, "Two hundred and twelve.") || strings.Contains(string(b), `\\rtf`) {
			t.Errorf("%s: %d %s", name, code, b)
		}
	}
}

// An e-mail's attachment of a refused format (a password-protected
// DOCX) is that attachment's error; the message and the request are
// answered (200), not refused with 415.
func TestChunkAttachmentUnsupported(t *testing.T) {
	_, ts := newTest(t, nil)
	msg := mailgen.Message("Contract", "The signed copy is attached.",
		mailgen.Attachment{Name: "contract.docx", Media: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: cfbgen.Legacy("EncryptedPackage")})
	body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"id": "m", "file_base64": base64.StdEncoding.EncodeToString(msg), "file_name": "m.eml"}}})
	code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
	var resp api.ChunkResponse
	if code != 200 || json.Unmarshal(b, &resp) != nil || len(resp.Documents) != 2 {
		t.Fatalf("%d %s", code, b)
	}
	if len(resp.Documents[0].Chunks) == 0 || resp.Documents[0].Error != "" {
		t.Errorf("the message: %+v", resp.Documents[0])
	}
	if d := resp.Documents[1]; d.ID != "m/contract.docx" || !strings.Contains(d.Error, "encrypted with a password") {
		t.Errorf("the attachment: %+v", d)
	}
}
