package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/cfbgen"
	"github.com/gochunk/gochunk/internal/mailgen"
	"github.com/gochunk/gochunk/pipeline"
)

// An e-mail's attached Outlook message and RTF file are documents of their
// own, read as such, whatever media type the sender gave them.
func TestEmailAttachedMessageAndRTF(t *testing.T) {
	ctx := context.Background()
	msg := cfbgen.Message{Subject: "Site visit", SenderName: "Bo", SenderEmail: "bo@example.com", Body: "The bridge needs paint."}.Msg()
	rtf := []byte(`{\rtf1\ansi Notes from the {\b visit}.\par}`)
	eml := mailgen.Message("Forwarded", "Two files attached.",
		mailgen.Attachment{Name: "visit.msg", Media: "application/octet-stream", Data: msg},
		mailgen.Attachment{Name: "notes.rtf", Media: "application/octet-stream", Data: rtf},
		mailgen.Attachment{Name: "noname", Media: "application/rtf", Data: rtf})
	p, err := pipeline.New(ctx, pipeline.Config{}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Load(ctx, pipeline.Source{ID: "m.eml", File: eml, FileName: "m.eml"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m.eml/visit.msg": "The bridge needs paint.", "m.eml/notes.rtf": "Notes from the visit.", "m.eml/noname": "Notes from the visit."}
	if len(l.Attachments) != len(want) {
		t.Fatalf("%d attachments, want %d: %q", len(l.Attachments), len(want), l.Text)
	}
	for _, a := range l.Attachments {
		d, err := p.Load(ctx, a)
		if err != nil || !strings.Contains(d.Text, want[a.ID]) || strings.Contains(d.Text, `\rtf`) {
			t.Errorf("%s: %q, %v", a.ID, d.Text, err)
		}
	}
}
