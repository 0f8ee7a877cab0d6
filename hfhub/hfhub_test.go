package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
	opt := Options{CacheDir: t.TempDir(), Endpoint: srv.URL, Retries: -1}
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

// flakyHub serves one file like the hub, honouring ranges; its first GETs
// are cut after cut bytes (the connection dropped), and its HEADs answer
// 503 while failHeads is positive.
func flakyHub(t *testing.T, body string, cut int, cutGets int, failHeads *atomic.Int64) (*httptest.Server, *[]string) {
	var ranges []string
	var mu sync.Mutex
	var gets atomic.Int64
	sum := sha256.Sum256([]byte(body))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead && failHeads != nil && failHeads.Add(-1) >= 0 {
			w.Header().Set("X-Error-Message", "maintenance")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("X-Repo-Commit", commit)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		from := 0
		if rg := r.Header.Get("Range"); rg != "" {
			from, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(body)-1, len(body)))
			w.Header().Set("Content-Length", strconv.Itoa(len(body)-from))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		if gets.Add(1) <= int64(cutGets) {
			w.Write([]byte(body[from : from+cut]))
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close() // the network drops
			return
		}
		w.Write([]byte(body[from:]))
	}))
	t.Cleanup(srv.Close)
	return srv, &ranges
}

// A download cut by the network resumes where it stopped (an HTTP range)
// and leaves no partial file; a hub that answers 503 is retried.
func TestDownloadResumes(t *testing.T) {
	body := strings.Repeat("0123456789", 20000)
	var failHeads atomic.Int64
	failHeads.Store(2)
	srv, ranges := flakyHub(t, body, 70000, 2, &failHeads)
	cache := t.TempDir()
	p, err := Download(context.Background(), "org/model", "", "model.bin", Options{CacheDir: cache, Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != body {
		t.Fatalf("content of %d bytes, want %d", len(b), len(body))
	}
	if got := strings.Join(*ranges, ","); got != ",bytes=70000-,bytes=140000-" {
		t.Errorf("GET ranges %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "models--org--model", "blobs", "*.incomplete"))
	if len(left) != 0 {
		t.Errorf("partial files left: %v", left)
	}
}

// A download stopped (the context cancelled, as when a process is killed)
// is resumed by the next one, which leaves nothing behind; two downloads
// of one file at once fetch it once.
func TestDownloadInterruptedAndShared(t *testing.T) {
	body := strings.Repeat("abcdefghij", 30000)
	srv, ranges := flakyHub(t, body, 100000, 1, nil)
	cache := t.TempDir()
	opt := Options{CacheDir: cache, Endpoint: srv.URL, Retries: -1}
	if _, err := Download(context.Background(), "org/model", "", "w.bin", opt); err == nil {
		t.Fatal("a cut download without retries succeeded")
	}
	part, _ := filepath.Glob(filepath.Join(cache, "models--org--model", "blobs", "*.incomplete"))
	if len(part) != 1 {
		t.Fatalf("partial files %v, want the one to resume", part)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			p, err := Download(context.Background(), "org/model", "", "w.bin", opt)
			if err == nil {
				if b, _ := os.ReadFile(p); string(b) != body {
					err = fmt.Errorf("content of %d bytes", len(b))
				}
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := strings.Join(*ranges, ","); got != ",bytes=100000-" {
		t.Errorf("GET ranges %q: the second download must resume once, the other wait", got)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "models--org--model", "blobs", "*.incomplete"))
	if len(left) != 0 {
		t.Errorf("partial files left: %v", left)
	}
}

// When the hub cannot be reached, a file already in the cache is used,
// with a warning; the hub's own error message is in the error.
func TestDownloadOfflineFallbackAndHubMessage(t *testing.T) {
	srv, _ := fakeHub(t, map[string]string{"config.json": "{}"})
	cache := t.TempDir()
	if _, err := Download(context.Background(), "org/model", "", "config.json", Options{CacheDir: cache, Endpoint: srv.URL}); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	var warned string
	p, err := Download(context.Background(), "org/model", "", "config.json", Options{CacheDir: cache, Endpoint: srv.URL, Retries: -1, Warn: func(s string) { warned = s }})
	if err != nil || !strings.HasSuffix(p, "config.json") || !strings.Contains(warned, "could not be reached") {
		t.Errorf("fallback: %v %s %q", err, p, warned)
	}
	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Error-Message", "Invalid credentials in Authorization header")
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer deny.Close()
	if _, err := Download(context.Background(), "org/private", "", "config.json", Options{CacheDir: cache, Endpoint: deny.URL}); err == nil || !strings.Contains(err.Error(), "Invalid credentials") {
		t.Errorf("hub message: %v", err)
	}
}
