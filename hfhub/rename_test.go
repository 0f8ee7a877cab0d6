package hfhub

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// A hub-wide name (bert-base-uncased) is a repository id; the hub's
// relative redirect of a renamed repository is followed for the file's
// headers, and the file is cached under the name asked for, as
// huggingface_hub caches it.
func TestDownloadRenamedRepository(t *testing.T) {
	srv, _ := fakeHub(t, map[string]string{"tokenizer.json": `{"model": {}}`})
	rename := http.NewServeMux()
	rename.HandleFunc("/bert-base-uncased/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/org/model"+r.URL.Path[len("/bert-base-uncased"):], http.StatusTemporaryRedirect)
	})
	rename.Handle("/", srv.Config.Handler)
	srv.Config.Handler = rename
	cache := t.TempDir()
	p, err := Download(context.Background(), "bert-base-uncased", "", "tokenizer.json", Options{CacheDir: cache, Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"model": {}}` || p != filepath.Join(cache, "models--bert-base-uncased", "snapshots", commit, "tokenizer.json") {
		t.Errorf("%s: %q", p, b)
	}
	for _, bad := range []string{"../x", "a/b/c", ".hidden", ""} {
		if _, err := Download(context.Background(), bad, "", "tokenizer.json", Options{CacheDir: cache, Endpoint: srv.URL}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
