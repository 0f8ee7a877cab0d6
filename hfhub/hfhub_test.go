package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

// fakeHub serves files like the hub's resolve endpoint: HEAD answers with
// the commit, the ETag (the SHA-256 for "LFS" files) and the size; GET
// sends the bytes (corrupted for names starting with "bad").
func fakeHub(t *testing.T, files map[string]string) (*httptest.Server, *atomic.Int64) {
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prefix := "/org/model/resolve/main/"
		if !strings.HasPrefix(r.URL.Path, prefix) {
			http.NotFound(w, r)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, prefix)
		body, ok := files[name]
		if !ok {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		sum := sha256.Sum256([]byte(body))
		w.Header().Set("X-Repo-Commit", commit)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		gets.Add(1)
		if strings.HasPrefix(name, "bad") {
			body = strings.ToUpper(body)
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &gets
}

func TestDownload(t *testing.T) {
	srv, gets := fakeHub(t, map[string]string{"model.safetensors": "weights!", "bad.bin": "corrupt me"})
	cache := t.TempDir()
	opt := Options{CacheDir: cache, Endpoint: srv.URL}
	ctx := context.Background()
	var progressed int64
	opt.Progress = func(done, total int64, file string) { progressed = done }
	p, err := Download(ctx, "org/model", "", "model.safetensors", opt)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "weights!" || progressed != 8 {
		t.Errorf("content %q, progress %d", b, progressed)
	}
	want := filepath.Join(cache, "models--org--model", "snapshots", commit, "model.safetensors")
	if p != want {
		t.Errorf("path %s, want %s", p, want)
	}
	if ref, _ := os.ReadFile(filepath.Join(cache, "models--org--model", "refs", "main")); string(ref) != commit {
		t.Errorf("refs/main = %q", ref)
	}
	// Second time: from the cache, no GET.
	if _, err := Download(ctx, "org/model", "main", "model.safetensors", opt); err != nil || gets.Load() != 1 {
		t.Errorf("second download: %v, %d GETs", err, gets.Load())
	}
	// Offline: the cache answers; a file never downloaded is an error.
	off := Options{CacheDir: cache, Offline: true}
	if q, err := Download(ctx, "org/model", "", "model.safetensors", off); err != nil || q != want {
		t.Errorf("offline: %v %s", err, q)
	}
	if _, err := Download(ctx, "org/model", "", "other.json", off); !errors.Is(err, ErrOffline) {
		t.Errorf("offline miss: %v", err)
	}
	t.Setenv("HF_HUB_OFFLINE", "1")
	if _, err := Download(ctx, "org/model", "", "other.json", Options{CacheDir: cache, Endpoint: srv.URL}); !errors.Is(err, ErrOffline) {
		t.Errorf("HF_HUB_OFFLINE=1 not honoured: %v", err)
	}
}

func TestDownloadErrors(t *testing.T) {
	srv, _ := fakeHub(t, map[string]string{"bad.bin": "corrupt me"})
	opt := Options{CacheDir: t.TempDir(), Endpoint: srv.URL}
	ctx := context.Background()
	if _, err := Download(ctx, "org/model", "", "bad.bin", opt); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("corrupt download: %v", err)
	}
	if _, err := Download(ctx, "org/model", "", "missing.json", opt); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing file: %v", err)
	}
	for _, bad := range []string{"noslash", "../etc/passwd", "a/b/c"} {
		if _, err := Download(ctx, bad, "", "x", opt); err == nil {
			t.Errorf("repo %q accepted", bad)
		}
	}
	if _, err := Download(ctx, "org/model", "", "../x", opt); err == nil {
		t.Error("file ../x accepted")
	}
}

func TestCacheDir(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HOME", "/tmp/hfhome")
	if got := CacheDir(Options{}); got != "/tmp/hfhome/hub" {
		t.Errorf("HF_HOME: %s", got)
	}
	t.Setenv("HF_HUB_CACHE", "/tmp/hubcache")
	if got := CacheDir(Options{}); got != "/tmp/hubcache" {
		t.Errorf("HF_HUB_CACHE: %s", got)
	}
	if got := CacheDir(Options{CacheDir: "/x"}); got != "/x" {
		t.Errorf("option: %s", got)
	}
}
