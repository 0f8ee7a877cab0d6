package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gochunk/gochunk"
)

// served is a `gochunk serve` running in this process.
type served struct {
	addr string // where its "serving" log line says it listens
	mu   sync.Mutex
	logs []map[string]any
	stop func() int // stops it and returns its exit code
}

// records returns the log records written so far.
func (s *served) records() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.logs...)
}

// serveInProcess runs `gochunk serve args...` with no listening address
// or token from the environment but those of environ, and waits for its
// "serving" line.
func serveInProcess(t *testing.T, environ map[string]string, args ...string) *served {
	t.Helper()
	for _, name := range []string{"GOCHUNK_ADDR", "PORT", "GOCHUNK_TOKEN"} {
		t.Setenv(name, "") // restored when the test ends
		os.Unsetenv(name)
	}
	for k, v := range environ {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	s := &served{}
	code := make(chan int, 1)
	go func() {
		code <- runContext(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, pw)
		pw.Close()
	}()
	up := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				rec = map[string]any{"msg": sc.Text()} // the command's own error line
			}
			s.mu.Lock()
			s.logs = append(s.logs, rec)
			s.mu.Unlock()
			if rec["msg"] == "serving" {
				addr, _ := rec["addr"].(string)
				up <- addr
			}
		}
		io.Copy(io.Discard, pr) // a PDF engine's late line must not block
	}()
	var once sync.Once
	exit := -1
	s.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case exit = <-code:
			case <-time.After(60 * time.Second):
				t.Errorf("serve did not stop after its context ended")
			}
		})
		return exit
	}
	t.Cleanup(func() { s.stop() })
	select {
	case s.addr = <-up:
	case c := <-code:
		t.Fatalf("serve %v exited with %d before serving: %v", args, c, s.records())
	case <-time.After(120 * time.Second):
		t.Fatalf("serve %v: no \"serving\" line: %v", args, s.records())
	}
	return s
}

// tokenWarnings returns the warning records about a missing token.
func tokenWarnings(recs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if msg, _ := r["msg"].(string); r["level"] == "WARN" && strings.Contains(msg, "without a token") {
			out = append(out, r)
		}
	}
	return out
}

// Without --addr, gochunk serve listens on loopback only, says where, and
// does not warn.
func TestServeListensOnLoopbackByDefault(t *testing.T) {
	s := serveInProcess(t, nil, "--port", "0")
	ap, err := netip.ParseAddrPort(s.addr)
	if err != nil || !ap.Addr().IsLoopback() {
		t.Fatalf("without --addr, serve listens on %q; want a loopback address", s.addr)
	}
	resp, err := http.Get("http://" + s.addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /healthz at %s: %v %v", s.addr, resp, err)
	}
	resp.Body.Close()
	if w := tokenWarnings(s.records()); len(w) > 0 {
		t.Errorf("a loopback server warns: %v", w)
	}
	if code := s.stop(); code != exitOK {
		t.Errorf("exit code %d after its context ended", code)
	}
}

// Listening on every interface without a token warns at start, naming the
// address and the fix; with a token it does not.
func TestServeWarnsBeyondLoopbackWithoutToken(t *testing.T) {
	s := serveInProcess(t, nil, "--addr", "0.0.0.0:0")
	if ap, err := netip.ParseAddrPort(s.addr); err != nil || !ap.Addr().IsUnspecified() {
		t.Fatalf("--addr 0.0.0.0:0 listens on %q", s.addr)
	}
	w := tokenWarnings(s.records())
	if len(w) != 1 || w[0]["addr"] != "0.0.0.0:0" || !strings.Contains(w[0]["msg"].(string), "--token") {
		t.Errorf("want one warning naming the address and --token, got %v (all: %v)", w, s.records())
	}
	s.stop()

	s = serveInProcess(t, nil, "--addr", "0.0.0.0:0", "--token", "s3cret")
	if w := tokenWarnings(s.records()); len(w) > 0 {
		t.Errorf("a server with a token warns: %v", w)
	}
}

// --addr takes a host alone (at --port), HOST:PORT or :PORT; the default
// is loopback; beyond loopback are every interface and addresses or names
// that are not loopback ones.
func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		port int
		want string
	}{
		{"", 8080, "127.0.0.1:8080"},
		{"", 9000, "127.0.0.1:9000"},
		{"0.0.0.0", 8080, "0.0.0.0:8080"}, // the container's GOCHUNK_ADDR with PORT
		{"0.0.0.0:9000", 8080, "0.0.0.0:9000"},
		{":8080", 9000, ":8080"},
		{"::1", 8080, "[::1]:8080"},
		{"[::1]", 8080, "[::1]:8080"},
		{"[::]:8081", 8080, "[::]:8081"},
		{"localhost", 7000, "localhost:7000"},
		{"0.0.0.0:", 8080, "0.0.0.0:8080"},
	} {
		got, err := listenAddr(tc.addr, tc.port)
		if err != nil || got != tc.want {
			t.Errorf("listenAddr(%q, %d) = %q, %v; want %q", tc.addr, tc.port, got, err, tc.want)
		}
	}
	for _, bad := range []struct {
		addr string
		port int
	}{{"1:2:3", 8080}, {"0.0.0.0:http-alt", 8080}, {"0.0.0.0:70000", 8080}, {"", -1}, {"[::1", 8080}} {
		if got, err := listenAddr(bad.addr, bad.port); !errors.Is(err, gochunk.ErrConfig) || !strings.Contains(err.Error(), "want") {
			t.Errorf("listenAddr(%q, %d) = %q, %v; want a configuration error saying what to give", bad.addr, bad.port, got, err)
		}
	}
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": false, "127.8.9.10:80": false, "[::1]:8080": false, "[::ffff:127.0.0.1]:8080": false, "localhost:8080": false,
		":8080": true, "0.0.0.0:8080": true, "[::]:8080": true, "192.168.1.20:8080": true, "[fe80::1%eth0]:8080": true,
	} {
		if got := beyondLoopback(t.Context(), addr); got != want {
			t.Errorf("beyondLoopback(%q) = %v; want %v", addr, got, want)
		}
	}
}

// The container's image (the Dockerfile's ENV) listens on every
// interface, so that a published port reaches it, at PORT.
func TestServeDockerfileListensOnEveryInterface(t *testing.T) {
	df, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{}
	for line := range strings.Lines(string(df)) {
		if rest, ok := strings.CutPrefix(line, "ENV "); ok {
			for _, kv := range strings.Fields(rest) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					environ[k] = v
				}
			}
		}
	}
	if environ["PORT"] == "" {
		t.Fatalf("the Dockerfile sets no PORT: %v", environ)
	}
	environ["PORT"] = "0" // a free port
	s := serveInProcess(t, environ)
	if ap, err := netip.ParseAddrPort(s.addr); err != nil || !ap.Addr().IsUnspecified() {
		t.Fatalf("with the image's environment %v, serve listens on %q; want every interface", environ, s.addr)
	}
}
