package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	for _, tc := range []struct{ chunker, config string }{
		{"recursive", `{"size": 60}`},
		{"markdown", `{"size": 120}`},
		{"semantic", `{"size": 40}`},
		{"mst", `{"max_tokens": 40}`},
		{"fast", `{"size": 64}`},
	} {
		cfgPath := filepath.Join(dir, tc.chunker+".json")
		os.WriteFile(cfgPath, []byte(tc.config), 0o644)
		out, errs, code := runCmd(t, text, "chunk", "--chunker", tc.chunker, "--config", cfgPath, "-")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.chunker, code, errs)
		}
		body, _ := json.Marshal(map[string]any{"chunker": tc.chunker, "config": json.RawMessage(tc.config), "documents": []map[string]string{{"id": "-", "text": text}}})
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
