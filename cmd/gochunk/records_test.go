package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/server"
)

// The same configuration gives byte-identical records from gochunk chunk
// and from POST /v1/chunk (whose records name the document id as their
// source: "-" here, as the command line names standard input).
func TestRecordsIdenticalToServer(t *testing.T) {
	srv, err := server.New(t.Context(), server.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	text := "# Tides\n\nTides rise and fall as the moon pulls the sea. \"Spring\" tides are the highest <high> & lowest.\n\n" +
		"## Volcanoes\n\nVolcanoes erupt when magma rises.\tLava flows over the land — slowly, 日本語 too.\n\n" +
		strings.Repeat("The ocean moves with the moon every day. ", 12)
	dir := t.TempDir()
	for _, tc := range []struct {
		chunker, config string
		embed           bool
	}{
		{"recursive", `{"size": 60}`, false},
		{"markdown", `{"size": 120}`, false},
		{"semantic", `{"size": 40}`, false},
		{"mst", `{"max_tokens": 40}`, false},
		{"fast", `{"size": 64}`, false},
		{"recursive", `{"size": 80}`, true}, // with each chunk's embedding
	} {
		cfgPath := filepath.Join(dir, tc.chunker+".json")
		os.WriteFile(cfgPath, []byte(tc.config), 0o644)
		args := []string{"chunk", "--chunker", tc.chunker, "--config", cfgPath, "-"}
		if tc.embed {
			args = append(args, "--embed-chunks")
		}
		out, errs, code := runCmd(t, text, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.chunker, code, errs)
		}
		body, _ := json.Marshal(map[string]any{"chunker": tc.chunker, "config": json.RawMessage(tc.config), "embed": tc.embed,
			"documents": []map[string]string{{"id": "-", "text": text}}})
		status, b, _ := postJSON(t, ts.URL+"/v1/chunk", string(body))
		if status != 200 {
			t.Fatalf("%s: status %d: %s", tc.chunker, status, b)
		}
		var resp struct {
			Documents []struct {
				Chunks []json.RawMessage `json:"chunks"`
			} `json:"documents"`
		}
		if err := json.Unmarshal(b, &resp); err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(out, "\n")
		lines = lines[:len(lines)-1]
		got := resp.Documents[0].Chunks
		if len(got) != len(lines) || len(lines) == 0 {
			t.Fatalf("%s: %d records from the server, %d from the command line", tc.chunker, len(got), len(lines))
		}
		if tc.embed && !strings.Contains(lines[0], `"embedding":[`) {
			t.Fatalf("no embedding in %s", lines[0])
		}
		for i := range lines {
			if string(got[i])+"\n" != lines[i] {
				t.Errorf("%s record %d:\nserver %s\ncli    %s", tc.chunker, i, got[i], lines[i])
			}
		}
	}
}

func postJSON(t *testing.T, url, body string) (int, []byte, error) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Many files with a few workers: output in input order, each file once.
func TestChunkManyFilesInOrder(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("f%02d.txt", i))
		os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("File %d says hello. ", i), 1+i%7)), 0o644)
		files = append(files, p)
	}
	out, errs, code := runCmd(t, "", append([]string{"chunk", "--jobs", "3", "--size", "30"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	last := -1
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ Source string }
		json.Unmarshal([]byte(l), &r)
		i := slices.Index(files, r.Source)
		if i < last {
			t.Fatalf("%s after file %d", r.Source, last)
		}
		last = i
	}
	if last != len(files)-1 {
		t.Errorf("last source %d", last)
	}
}

// A cancelled run (Ctrl-C) stops and says so, with the shells' code.
func TestChunkInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := runContext(ctx, []string{"chunk", "-"}, strings.NewReader("Some text."), &out, &errb)
	if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runCmd(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "github.com/gochunk/gochunk ") {
		t.Errorf("exit %d: %q", code, out)
	}
}
