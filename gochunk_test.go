package gochunk_test

import (
	"errors"
	"testing"

	"github.com/gochunk/gochunk"
)

func TestPrepareText(t *testing.T) {
	if _, _, err := gochunk.PrepareText("ok", gochunk.Reject); err != nil {
		t.Error(err)
	}
	_, _, err := gochunk.PrepareText("a\xffb", gochunk.Reject)
	if !errors.Is(err, gochunk.ErrInvalidUTF8) || err.Error() != "invalid UTF-8 at byte 1" {
		t.Errorf("reject: %v", err)
	}
	out, repaired, err := gochunk.PrepareText("a\xff\xfeb", gochunk.Repair)
	if err != nil || !repaired || out != "a\uFFFDb" {
		t.Errorf("repair: %q %v %v", out, repaired, err)
	}
	if _, _, err := gochunk.PrepareText("x", "mend"); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("unknown policy: %v", err)
	}
}

func TestCheckDocument(t *testing.T) {
	err := gochunk.CheckDocument(gochunk.Document{ID: "a.txt", Text: "x\xff"})
	if !errors.Is(err, gochunk.ErrInvalidUTF8) || err.Error() != `document "a.txt": invalid UTF-8 at byte 1` {
		t.Errorf("%v", err)
	}
	if err := gochunk.CheckDocument(gochunk.Document{Text: "ok"}); err != nil {
		t.Error(err)
	}
	if gochunk.WrapDocument("a", nil) != nil || gochunk.WrapDocument("", errors.New("x")).Error() != "x" {
		t.Error("WrapDocument")
	}
}
