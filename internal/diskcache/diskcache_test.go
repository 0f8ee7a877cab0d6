package diskcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDir(t *testing.T) {
	dir := t.TempDir()
	var warnings []string
	d := Open(dir, 0, func(s string) { warnings = append(warnings, s) })
	d.Put("a/one", []byte("hello"))
	if b, ok := d.Get("a/one"); !ok || string(b) != "hello" {
		t.Fatalf("get: %q %v", b, ok)
	}
	// A torn or edited entry is reported once and never returned.
	os.WriteFile(filepath.Join(dir, "a/one"), []byte("hellp"+magic+"\x00\x00\x00\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "two"), []byte("no footer"), 0o644)
	if _, ok := d.Get("a/one"); ok {
		t.Error("corrupt entry returned")
	}
	if _, ok := d.Get("two"); ok {
		t.Error("entry without checksum returned")
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "corrupt") {
		t.Errorf("warnings %q", warnings)
	}
	if _, err := os.Stat(filepath.Join(dir, "two")); err == nil {
		t.Error("corrupt entry kept")
	}
}

func TestPrune(t *testing.T) {
	dir := t.TempDir()
	d := Open(dir, 0, nil)
	old := time.Now().Add(-time.Hour)
	for i, name := range []string{"x1", "x2", "x3", "x4"} {
		d.Put(name, make([]byte, 100))
		ts := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(dir, name), ts, ts)
	}
	d.Get("x1") // used now: the newest
	os.WriteFile(filepath.Join(dir, "x9.tmp"), []byte("torn"), 0o644)
	tmpOld := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(dir, "x9.tmp"), tmpOld, tmpOld)
	removed, _, err := Prune(dir, 250)
	if err != nil || removed != 3 {
		t.Fatalf("removed %d, %v", removed, err)
	}
	for name, want := range map[string]bool{"x1": true, "x4": true, "x2": false, "x3": false, "x9.tmp": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s kept: %v, want %v", name, err == nil, want)
		}
	}
	if files, bytes, _ := Stat(dir); files != 2 || bytes != 2*(100+8) {
		t.Errorf("stat %d files %d bytes", files, bytes)
	}
}
