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
