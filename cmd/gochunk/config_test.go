package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/pipeline/pipelineflag"
)

// Sweep values keep numbers exact.
func TestSweepExactNumbers(t *testing.T) {
	a, err := eval.ParseAxis("seed=9007199254740993,abc,true")
	if v := a.Values; err != nil || len(v) != 3 || v[1] != "abc" || v[2] != true {
		t.Errorf("sweep values %v", v)
	} else if b, _ := json.Marshal(v[0]); string(b) != "9007199254740993" {
		t.Errorf("sweep number %s", b)
	}
}

// serve's settings come from the flags, then the environment, then the
// config file, then the defaults; an unknown setting in the file is named.
func TestServeSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "serve.yaml")
	os.WriteFile(file, []byte("port: 9000\nmax_documents: 7\nembedder: static:x\nread_timeout: 1m30s\ntoken: from-file\n"), 0o644)
	t.Setenv("MAX_DOCUMENTS", "9")
	t.Setenv("GOCHUNK_TOKEN", "from-env")
	fs := flagSet(env{stderr: io.Discard}, "serve", "")
	port := fs.Int("port", 8080, "")
	docs := fs.Int("max-documents", 1000, "")
	emb := fs.String("embedder", "lexical", "")
	token := fs.String("token", "", "")
	conc := fs.Int("max-concurrent", 64, "")
	var read time.Duration
	pipelineflag.SecondsVar(fs, &read, "read-timeout", "")
	fs.String("config", "", "")
	if err := fs.Parse([]string{"--token", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pipelineflag.Layer(fs, file, envName); err != nil {
		t.Fatal(err)
	}
	if *port != 9000 || *docs != 9 || *emb != "static:x" || *token != "from-flag" || *conc != 64 || read != 90*time.Second {
		t.Errorf("port %d, documents %d, embedder %s, token %s, concurrent %d, read %v", *port, *docs, *emb, *token, *conc, read)
	}
	os.WriteFile(file, []byte("prot: 1\n"), 0o644)
	if _, err := pipelineflag.Layer(fs, file, envName); err == nil || !strings.Contains(err.Error(), `unknown setting "prot"`) {
		t.Errorf("unknown setting: %v", err)
	}
}

// gochunk cache shows a cache directory and prunes it to a size.
func TestCacheCommand(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), make([]byte, 1000), 0o644)
	}
	out, errs, code := runCmd(t, "", "cache", dir)
	if code != 0 || !strings.Contains(out, "5 entries, 4.9 KiB") {
		t.Fatalf("show: %d %q %q", code, out, errs)
	}
	out, _, code = runCmd(t, "", "cache", "--prune", "2500", dir)
	if code != 0 || !strings.Contains(out, "removed 3 entries") || !strings.Contains(out, "2 entries") {
		t.Errorf("prune: %d %q", code, out)
	}
	if _, _, code := runCmd(t, "", "cache", "--prune", "lots", dir); code != 2 {
		t.Errorf("bad size: exit %d", code)
	}
}
