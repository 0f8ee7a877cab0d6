// Package hfhub downloads files of models from the Hugging Face hub into
// the standard local cache, the one the huggingface_hub Python library uses,
// so models downloaded by either are shared.
//
// The cache is $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub. A file of repository ORG/NAME at a revision is
// stored once under models--ORG--NAME/blobs/ETAG and linked from
// snapshots/COMMIT/FILE; refs/REVISION holds the commit. With
// HF_HUB_OFFLINE=1 (or Options.Offline) nothing is downloaded and files
// come from the cache only; when the hub cannot be reached, a file already
// in the cache is used (with a warning). The hub's address is $HF_ENDPOINT
// or https://huggingface.co; a token in $HF_TOKEN is sent when set.
//
// Downloads survive the network: requests that fail with a network error,
// 429 or a 5xx are retried with backoff, an interrupted download is
// resumed from its partial file (blobs/ETAG.incomplete) with an HTTP
// range, and processes downloading the same file take turns (a lock file
// beside the blob), so no partial file is left behind for good.
package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/gochunk/gochunk/internal/apiclient"
)

// Options configure a download.
type Options struct {
	// CacheDir overrides the cache directory.
	CacheDir string
	// Endpoint overrides the hub's address.
	Endpoint string
	// Offline uses the cache only.
	Offline bool
	// Token authenticates to the hub; empty means $HF_TOKEN.
	Token string
	// Client makes the requests; nil means a client with a 30-minute
	// overall timeout.
	Client *http.Client
	// Progress is called as bytes arrive (done may equal total at the end).
	Progress func(done, total int64, file string)
	// Warn, when set, hears what the download could not do but worked
	// around (the hub unreachable, a cached file used instead).
	Warn func(string)
	// Retries after a network error, 429 or 5xx; 0 means 4, negative none.
	Retries int
}

// ErrOffline reports a file that is not in the cache while downloads are
// off.
var ErrOffline = errors.New("not in the local cache and downloads are disabled (HF_HUB_OFFLINE)")

// CacheDir returns the cache directory options and the environment name.
func CacheDir(opt Options) string {
	if opt.CacheDir != "" {
		return opt.CacheDir
	}
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		return filepath.Join(d, "hub")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "huggingface", "hub")
	}
	return filepath.Join(os.TempDir(), "huggingface", "hub")
}

func offline(opt Options) bool {
	if opt.Offline {
		return true
	}
	v := strings.ToLower(os.Getenv("HF_HUB_OFFLINE"))
	return v == "1" || v == "true" || v == "yes" || v == "on"
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

var repoRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidRepo reports whether id looks like a hub repository id (ORG/NAME).
func ValidRepo(id string) bool { return repoRe.MatchString(id) && !strings.Contains(id, "..") }

// Download returns the local path of file in repository repo at revision
// ("" means "main"), downloading it into the cache when needed. Files
// stored with Git LFS are checked against their SHA-256.
func Download(ctx context.Context, repo, revision, file string, opt Options) (string, error) {
	// A hub-wide NAME (bert-base-uncased, gpt2) is a repository too: the
	// hub answers for it, or redirects to its ORG/NAME.
	if !ValidRepo(repo) && !(nameRe.MatchString(repo) && !strings.Contains(repo, "..")) {
		return "", fmt.Errorf("hub: %q is not a repository id (ORG/NAME)", repo)
	}
	if file == "" || strings.Contains(file, "..") || strings.HasPrefix(file, "/") {
		return "", fmt.Errorf("hub: bad file name %q", file)
	}
	if revision == "" {
		revision = "main"
	}
	root := filepath.Join(CacheDir(opt), "models--"+strings.ReplaceAll(repo, "/", "--"))
	cached := func() (string, bool) {
		commit := revision
		if b, err := os.ReadFile(filepath.Join(root, "refs", revision)); err == nil {
			commit = strings.TrimSpace(string(b))
		}
		p := filepath.Join(root, "snapshots", commit, filepath.FromSlash(file))
		_, err := os.Stat(p)
		return p, err == nil
	}
	if offline(opt) {
		if p, ok := cached(); ok {
			return p, nil
		}
		return "", fmt.Errorf("hub: %s/%s at %s: %w", repo, file, revision, ErrOffline)
	}
	retries := opt.Retries
	if retries == 0 {
		retries = 4
	}
	backoff := apiclient.Backoff{Retries: retries, Base: 500 * time.Millisecond, Max: 15 * time.Second}
	endpoint := opt.Endpoint
	if endpoint == "" {
		endpoint = os.Getenv("HF_ENDPOINT")
	}
	if endpoint == "" {
		endpoint = "https://huggingface.co"
	}
	url := strings.TrimRight(endpoint, "/") + "/" + repo + "/resolve/" + revision + "/" + file
	client := opt.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	token := opt.Token
	if token == "" {
		token = os.Getenv("HF_TOKEN")
	}

	// HEAD without following redirects: the hub answers with the commit,
	// the ETag (the SHA-256 of LFS files) and the size.
	head, err := newRequest(ctx, http.MethodHead, url, token)
	if err != nil {
		return "", err
	}
	noRedirect := *client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var resp *http.Response
	err = backoff.Do(ctx, func() error {
		var err error
		if resp, err = noRedirect.Do(head); err != nil {
			return apiclient.Retryable{Err: err}
		}
		resp.Body.Close()
		// A relative redirect is the hub's own: a renamed repository
		// (bert-base-uncased is google-bert/bert-base-uncased now).
		// An absolute one is the file's storage, whose headers count.
		for hops := 0; hops < 5 && resp.StatusCode >= 300 && resp.StatusCode < 400 && strings.HasPrefix(resp.Header.Get("Location"), "/"); hops++ {
			next, err := newRequest(ctx, http.MethodHead, strings.TrimRight(endpoint, "/")+resp.Header.Get("Location"), token)
			if err != nil {
				return err
			}
			if resp, err = noRedirect.Do(next); err != nil {
				return apiclient.Retryable{Err: err}
			}
			resp.Body.Close()
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return apiclient.Retryable{Err: hubError(url, resp)}
		}
		return nil
	})
	if err != nil {
		// The hub cannot be reached: a file already in the cache will do.
		if p, ok := cached(); ok && ctx.Err() == nil {
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("the hub could not be reached (%v); using %s/%s from the cache", err, repo, file))
			}
			return p, nil
		}
		return "", fmt.Errorf("hub: %s: %w", url, err)
	}
	if resp.StatusCode >= 400 {
		return "", hubError(url, resp)
	}
	commit := resp.Header.Get("X-Repo-Commit")
	etag := strings.Trim(firstNonEmpty(resp.Header.Get("X-Linked-Etag"), resp.Header.Get("ETag")), `"`)
	etag = strings.TrimPrefix(etag, "W/")
	etag = strings.Trim(etag, `"`)
	if commit == "" || etag == "" || strings.ContainsAny(etag, `/\`) {
		return "", fmt.Errorf("hub: %s: response lacks X-Repo-Commit or ETag", url)
	}
	size, _ := strconv.ParseInt(firstNonEmpty(resp.Header.Get("X-Linked-Size"), resp.Header.Get("Content-Length")), 10, 64)

	blob := filepath.Join(root, "blobs", etag)
	snap := filepath.Join(root, "snapshots", commit, filepath.FromSlash(file))
	if _, err := os.Stat(blob); err != nil {
		if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
			return "", fmt.Errorf("hub: %w", err)
		}
		// One process downloads a blob at a time; the others wait for it.
		lock := flock.New(blob + ".lock")
		if ok, err := lock.TryLockContext(ctx, 100*time.Millisecond); err != nil || !ok {
			return "", fmt.Errorf("hub: lock %s: %v", blob, err)
		}
		defer lock.Unlock()
		if _, err := os.Stat(blob); err != nil { // not fetched meanwhile
			err := backoff.Do(ctx, func() error { return fetch(ctx, client, url, token, blob, etag, size, file, opt.Progress) })
			if err != nil {
				return "", err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		return "", fmt.Errorf("hub: %w", err)
	}
	if _, err := os.Lstat(snap); err != nil {
		rel, _ := filepath.Rel(filepath.Dir(snap), blob)
		// Another download of the same file may make the link first: that
		// is success. Only a file system without links gets a copy.
		if err := os.Symlink(rel, snap); err != nil && !errors.Is(err, fs.ErrExist) {
			if err := copyFile(blob, snap); err != nil {
				return "", fmt.Errorf("hub: %w", err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "refs"), 0o755); err == nil && revision != commit {
		_ = os.WriteFile(filepath.Join(root, "refs", revision), []byte(commit), 0o644)
	}
	return snap, nil
}

func newRequest(ctx context.Context, method, url, token string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	req.Header.Set("User-Agent", "github.com/gochunk/gochunk")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// fetch downloads url into blob through the partial file blob.incomplete,
// resuming it with an HTTP range when one is left from an interrupted
// download, and checks the SHA-256 when the ETag is one. Errors worth
// retrying are apiclient.Retryable.
func fetch(ctx context.Context, client *http.Client, url, token, blob, etag string, size int64, file string, progress func(int64, int64, string)) error {
	part := blob + ".incomplete"
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	done, err := io.Copy(h, f) // the bytes already there
	if err != nil {
		return fmt.Errorf("hub: read %s: %w", part, err)
	}
	req, err := newRequest(ctx, http.MethodGet, url, token)
	if err != nil {
		return err
	}
	if done > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", done))
	}
	resp, err := client.Do(req)
	if err != nil {
		return apiclient.Retryable{Err: fmt.Errorf("hub: download %s: %w", file, err)}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && done > 0:
	case resp.StatusCode == http.StatusOK: // no range served: start over
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("hub: %w", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("hub: %w", err)
		}
		h.Reset()
		done = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		f.Truncate(0) // a partial file longer than the blob: start over
		return apiclient.Retryable{Err: fmt.Errorf("hub: download %s: the partial file does not match; starting over", file)}
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return apiclient.Retryable{Err: hubError(url, resp)}
	default:
		return hubError(url, resp)
	}
	if size <= 0 && resp.ContentLength > 0 {
		size = done + resp.ContentLength
	}
	buf := make([]byte, 1<<16)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := f.Write(buf[:n]); err != nil {
				return fmt.Errorf("hub: write %s: %w", file, err)
			}
			h.Write(buf[:n])
			done += int64(n)
			if progress != nil {
				progress(done, size, file)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			// Keep what arrived: the next attempt resumes from it.
			return apiclient.Retryable{Err: fmt.Errorf("hub: download %s: %w", file, rerr)}
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	if size > 0 && done != size {
		return apiclient.Retryable{Err: fmt.Errorf("hub: download %s: got %d bytes, want %d", file, done, size)}
	}
	if isSHA256(etag) {
		if got := hex.EncodeToString(h.Sum(nil)); got != etag {
			os.Remove(part) // corrupt: the next attempt starts over
			return apiclient.Retryable{Err: fmt.Errorf("hub: download %s: checksum mismatch: sha256 %s, want %s", file, got, etag)}
		}
	}
	if err := os.Rename(part, blob); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	return nil
}

// hubError is the error of a failed answer, with the hub's own message
// (its X-Error-Message header, else the body's "error").
func hubError(url string, resp *http.Response) error {
	msg := resp.Header.Get("X-Error-Message")
	if msg == "" && resp.Body != nil {
		var body struct {
			Error string `json:"error"`
		}
		if b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096)); json.Unmarshal(b, &body) == nil {
			msg = body.Error
		}
	}
	if msg != "" {
		return fmt.Errorf("hub: %s: %s: %s", url, resp.Status, msg)
	}
	return fmt.Errorf("hub: %s: %s", url, resp.Status)
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	// Through a temporary file renamed into place: never through dst
	// itself, which another download may have made a link to src
	// meanwhile (writing through it would truncate src).
	out, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(out.Name())
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(out.Name())
		return err
	}
	return os.Rename(out.Name(), dst)
}
