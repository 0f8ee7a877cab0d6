package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a bearer token to each request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// gochunk serve --mcp: /mcp is behind the token, and its tools take what
// they hold from the server's memory budget: a file that could never fit
// is a tool error saying so, and the server goes on serving.
func TestServeMCPTokenAndBudget(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(dir, "docs")
	os.Mkdir(root, 0o755)
	os.WriteFile(filepath.Join(root, "small.md"), []byte("# Small\n\nA small document about budgets.\n"), 0o644)
	big := strings.Repeat("A line of a large document that the budget cannot hold.\n", 600_000) // 34 MB
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(big), 0o644)
	db := filepath.Join(dir, "index.db")
	if code := runContext(t.Context(), []string{"index", "--store", db, filepath.Join(root, "small.md")}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
		t.Fatalf("gochunk index: exit %d", code)
	}
	s := serveInProcess(t, nil, "--addr", "127.0.0.1:0", "--token", "t0ken", "--max-memory", "96MiB", "--store", db, "--mcp", "--mcp-root", root)
	defer s.stop()
	url := "http://" + s.addr + "/mcp"

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/mcp without the token: %s, want 401", resp.Status)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"t0ken"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callText := func(name string, args map[string]any) (string, bool) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}
	if text, isErr := callText("chunk", map[string]any{"path": "big.txt"}); !isErr || !strings.Contains(text, "not enough memory") {
		t.Errorf("chunking a file larger than the budget: %v %.300s", isErr, text)
	}
	if text, isErr := callText("chunk", map[string]any{"path": "small.md"}); isErr {
		t.Errorf("chunking a small file after: %s", text)
	}
	if text, isErr := callText("search", map[string]any{"query": "budgets", "mode": "keyword"}); isErr || !strings.Contains(text, "small.md") {
		t.Errorf("search: %v %s", isErr, text)
	}
}

// gochunk mcp without a store to search, and without --allow-index to
// make one, says what to do; bad flags are usage errors.
func TestMCPCommandUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--store", filepath.Join(dir, "none.db"), dir}, "index documents first"},
		{[]string{"mcp", "--store", filepath.Join(dir, "none.db"), filepath.Join(dir, "nonesuch")}, "ROOT"},
		{[]string{"mcp", "--max-result", "10", dir}, "--max-result"},
	} {
		var stderr strings.Builder
		code := runContext(t.Context(), c.args, strings.NewReader(""), io.Discard, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d naming %q", c.args, code, stderr.String(), exitUsage, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("a refused start created the store")
	}
}

// gochunk mcp serves a client over its standard input and output (here
// pipes, in process) until the client goes.
func TestMCPCommandInProcess(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nSome text about pipes.\n"), 0o644)
	db := filepath.Join(t.TempDir(), "index.db")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- runContext(t.Context(), []string{"mcp", "--store", db, "--allow-index", dir}, inR, outW, &stderr)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "index", Arguments: map[string]any{"paths": []string{"."}}})
	if err != nil || res.IsError {
		t.Fatalf("index: %v %+v", err, res)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "pipes"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "a.md") {
		t.Fatalf("search: %v %+v", err, res)
	}
	cs.Close()
	inW.Close()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d when the client went: %s", code, stderr.String())
	}
}
