package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestPost(t *testing.T) {
	var status int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(status)
		w.Write([]byte("answer"))
	}))
	defer srv.Close()
	ctx := context.Background()
	status = 200
	if data, err := Post(ctx, srv.Client(), srv.URL, "k", []byte("{}"), time.Second, 1<<20); err != nil || string(data) != "answer" {
		t.Fatalf("200: %q %v", data, err)
	}
	for _, c := range []struct {
		status    int
		retryable bool
	}{{429, true}, {503, true}, {400, false}, {404, false}} {
		status = c.status
		_, err := Post(ctx, srv.Client(), srv.URL, "k", nil, time.Second, 1<<20)
		var r Retryable
		var se *StatusError
		if errors.As(err, &r) != c.retryable || !errors.As(err, &se) || se.Code != c.status || se.Body != "answer" {
			t.Errorf("%d: %v", c.status, err)
		}
		if c.retryable && r.Wait != 7*time.Second {
			t.Errorf("%d: wait %v, want the server's 7s", c.status, r.Wait)
		}
	}
	if _, err := Post(ctx, srv.Client(), "http://127.0.0.1:1", "", nil, time.Second, 1); !errors.As(err, new(Retryable)) {
		t.Errorf("unreachable: %v", err)
	}
}

func TestBackoff(t *testing.T) {
	ctx := context.Background()
	b := Backoff{Retries: 3, Base: time.Microsecond, Max: time.Millisecond}
	calls := 0
	boom := errors.New("boom")
	err := b.Do(ctx, func() error { calls++; return Retryable{Err: boom} })
	if calls != 4 || !errors.Is(err, boom) || !errors.As(err, new(Retryable)) {
		t.Errorf("spent retries: %d calls, %v", calls, err)
	}
	calls = 0
	if err := b.Do(ctx, func() error { calls++; return boom }); calls != 1 || err != boom {
		t.Errorf("not retryable: %d calls, %v", calls, err)
	}
	calls = 0
	if err := b.Do(ctx, func() error {
		calls++
		if calls < 3 {
			return Retryable{Err: boom}
		}
		return nil
	}); err != nil || calls != 3 {
		t.Errorf("third time lucky: %d calls, %v", calls, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	err = Backoff{Retries: 5, Base: time.Hour, Max: time.Hour}.Do(cctx, func() error { calls++; cancel(); return Retryable{Err: boom} })
	if calls != 1 || !errors.Is(err, boom) {
		t.Errorf("cancelled: %d calls, %v", calls, err)
	}
	if err := (Backoff{Retries: -1}).Do(ctx, func() error { calls++; return Retryable{Err: boom} }); !errors.Is(err, boom) {
		t.Errorf("no retries: %v", err)
	}
}
