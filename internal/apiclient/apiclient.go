// Package apiclient holds what gochunk's clients of OpenAI-compatible APIs
// (embeddings, chat) share: a JSON POST with a bearer key and a per-attempt
// timeout, errors that say whether they are worth retrying, and retries
// with capped exponential backoff that honour Retry-After.
package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retryable marks an error worth retrying; Wait, when positive, is how
// long the server asked to wait (Retry-After).
type Retryable struct {
	Err  error
	Wait time.Duration
}

func (r Retryable) Error() string { return r.Err.Error() }
func (r Retryable) Unwrap() error { return r.Err }

// StatusError is an answer other than 200 OK.
type StatusError struct {
	URL    string
	Code   int
	Status string
	// Body is the start of the answer, for the error message.
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("%s: %s: %s", e.URL, e.Status, e.Body) }

// Backoff is a retry policy: Retries more attempts after the first (0 or
// less: none), waiting Base, 2·Base, 4·Base… up to Max, or what the server
// asked, plus up to a quarter more at random.
type Backoff struct {
	Retries   int
	Base, Max time.Duration
}

// Do calls once until it succeeds, returns an error that is not
// Retryable, the retries are spent, or ctx ends; it returns the last
// error (still Retryable when the retries ran out).
func (b Backoff) Do(ctx context.Context, once func() error) error {
	var last error
	for attempt := 0; attempt <= max(b.Retries, 0); attempt++ {
		if attempt > 0 {
			wait := min(b.Base<<(attempt-1), b.Max)
			var r Retryable
			if errors.As(last, &r) && r.Wait > 0 {
				wait = r.Wait
			}
			wait += time.Duration(rand.Int64N(int64(wait)/4 + 1))
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return fmt.Errorf("%w (after %v)", ctx.Err(), last)
			}
		}
		last = once()
		var r Retryable
		if last == nil || !errors.As(last, &r) || ctx.Err() != nil {
			return last
		}
	}
	return last
}

// Post sends body as JSON to url, with key as a bearer token when set,
// within timeout, and returns the answer of a 200 OK, read up to limit
// bytes. Network and read failures are Retryable, as are 429 and 5xx
// answers (a *StatusError with the server's Retry-After); other statuses
// are a *StatusError.
func Post(ctx context.Context, client *http.Client, url, key string, body []byte, timeout time.Duration, limit int64) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, Retryable{Err: fmt.Errorf("%s: %w", url, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, Retryable{Err: fmt.Errorf("%s: read the answer: %w", url, err)}
	}
	if resp.StatusCode == http.StatusOK {
		return data, nil
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	se := &StatusError{URL: url, Code: resp.StatusCode, Status: resp.Status, Body: msg}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		var wait time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		return nil, Retryable{Err: se, Wait: wait}
	}
	return nil, se
}
