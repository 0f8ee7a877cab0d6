// Package hfhub downloads files of models from the Hugging Face hub into
// the standard local cache, the one the huggingface_hub Python library uses,
// so models downloaded by either are shared.
//
// The cache is $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub. A file of repository ORG/NAME at a revision is
// stored once under models--ORG--NAME/blobs/ETAG and linked from
// snapshots/COMMIT/FILE; refs/REVISION holds the commit. With
// HF_HUB_OFFLINE=1 (or Options.Offline) nothing is downloaded and files
// come from the cache only. The hub's address is $HF_ENDPOINT or
// https://huggingface.co; a token in $HF_TOKEN is sent when set.
package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
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

var repoRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidRepo reports whether id looks like a hub repository id (ORG/NAME).
func ValidRepo(id string) bool { return repoRe.MatchString(id) && !strings.Contains(id, "..") }

// Download returns the local path of file in repository repo at revision
// ("" means "main"), downloading it into the cache when needed. Files
// stored with Git LFS are checked against their SHA-256.
func Download(ctx context.Context, repo, revision, file string, opt Options) (string, error) {
	if !ValidRepo(repo) {
		return "", fmt.Errorf("hub: %q is not a repository id (ORG/NAME)", repo)
	}
	if file == "" || strings.Contains(file, "..") || strings.HasPrefix(file, "/") {
		return "", fmt.Errorf("hub: bad file name %q", file)
	}
	if revision == "" {
		revision = "main"
	}
	root := filepath.Join(CacheDir(opt), "models--"+strings.ReplaceAll(repo, "/", "--"))
	if offline(opt) {
		commit := revision
		if b, err := os.ReadFile(filepath.Join(root, "refs", revision)); err == nil {
			commit = strings.TrimSpace(string(b))
		}
		p := filepath.Join(root, "snapshots", commit, filepath.FromSlash(file))
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("hub: %s/%s at %s: %w", repo, file, revision, ErrOffline)
		}
		return p, nil
	}
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
	resp, err := noRedirect.Do(head)
	if err != nil {
		return "", fmt.Errorf("hub: %s: %w", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return "", fmt.Errorf("hub: %s: %s", url, resp.Status)
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
		if err := fetch(ctx, client, url, token, blob, etag, size, file, opt.Progress); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		return "", fmt.Errorf("hub: %w", err)
	}
	if _, err := os.Lstat(snap); err != nil {
		rel, _ := filepath.Rel(filepath.Dir(snap), blob)
		if err := os.Symlink(rel, snap); err != nil {
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

// fetch downloads url into blob through a temporary file, checking the
// SHA-256 when the ETag is one.
func fetch(ctx context.Context, client *http.Client, url, token, blob, etag string, size int64, file string, progress func(int64, int64, string)) error {
	req, err := newRequest(ctx, http.MethodGet, url, token)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("hub: download %s: %w", file, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("hub: download %s: %s", file, resp.Status)
	}
	if size <= 0 {
		size = resp.ContentLength
	}
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(blob), filepath.Base(blob)+".*.incomplete")
	if err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	var done int64
	buf := make([]byte, 1<<16)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := tmp.Write(buf[:n]); err != nil {
				tmp.Close()
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
			tmp.Close()
			return fmt.Errorf("hub: download %s: %w", file, rerr)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	if size > 0 && done != size {
		return fmt.Errorf("hub: download %s: got %d bytes, want %d", file, done, size)
	}
	if isSHA256(etag) {
		if got := hex.EncodeToString(h.Sum(nil)); got != etag {
			return fmt.Errorf("hub: download %s: checksum mismatch: sha256 %s, want %s", file, got, etag)
		}
	}
	if err := os.Rename(tmp.Name(), blob); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	return nil
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
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
