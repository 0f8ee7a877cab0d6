package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/npmtest"
)

// mcpClientScript is an agent on the official TypeScript SDK: it connects
// over stdio (spawning gochunk mcp) or streamable HTTP (gochunk serve
// --mcp), declares the docs directory as its root, lists the tools, calls
// each, reads a resource, tries a path outside the roots and bad
// arguments, and cancels a long index run; it prints what it saw as JSON.
const mcpClientScript = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const cfg = JSON.parse(process.argv[2]);
const out = {};
const connect = async (headers) => {
  const client = new Client({ name: "gochunk-test", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file://" + cfg.root, name: "docs" }] }));
  const transport = cfg.transport === "stdio"
    ? new StdioClientTransport({ command: cfg.command, args: cfg.args, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
};
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");

if (cfg.transport === "http") {
  try { await connect({}); out.noToken = "connected"; } catch (e) { out.noToken = String(e); }
}
const client = await connect({ Authorization: "Bearer " + cfg.token });
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, description: t.description, input: t.inputSchema, output: !!t.outputSchema }));

let progress = 0;
const indexed = await client.callTool({ name: "index", arguments: { paths: ["."], exclude: ["bulk"] } }, undefined,
  { onprogress: () => { progress++; } });
out.index = { isError: !!indexed.isError, summary: indexed.structuredContent, progress, text: text(indexed) };

const found = await client.callTool({ name: "search", arguments: { query: "installer checksum", k: 3, mode: "keyword" } });
out.search = { isError: !!found.isError, hits: found.structuredContent?.hits, links: found.content.filter((c) => c.type === "resource_link").map((c) => c.uri) };
const sec = await client.callTool({ name: "search", arguments: { query: "replaces the binary in place", k: 1, expand: "section" } });
out.section = { hit: sec.structuredContent?.hits?.[0], isError: !!sec.isError, text: text(sec) };
if (out.search.hits?.length) {
  const r = await client.readResource({ uri: out.search.hits[0].uri });
  out.read = r.contents[0];
}
out.resources = (await client.listResources()).resources.map((r) => r.uri);
out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
const chunked = await client.callTool({ name: "chunk", arguments: { path: "guide.md", chunker: "sentence", config: { size: 20 }, tokenizer: "words" } });
out.chunk = { isError: !!chunked.isError, total: chunked.structuredContent?.total, first: chunked.structuredContent?.records?.[0] };
const extracted = await client.callTool({ name: "extract", arguments: { path: "guide.md" } });
out.extract = { isError: !!extracted.isError, headings: extracted.structuredContent?.headings, length: extracted.structuredContent?.length };
const sources = await client.callTool({ name: "sources", arguments: {} });
out.sources = { isError: !!sources.isError, documents: sources.structuredContent?.documents, roots: sources.structuredContent?.roots };

const refused = await client.callTool({ name: "extract", arguments: { path: cfg.outside } });
out.refused = { isError: !!refused.isError, text: text(refused) };
const bad = await client.callTool({ name: "search", arguments: { query: "x", mode: "fuzzy" } });
out.badMode = { isError: !!bad.isError, text: text(bad) };
const badType = await client.callTool({ name: "search", arguments: { query: "x", k: "ten" } });
out.badType = { isError: !!badType.isError, text: text(badType) };
let unknown;
try { unknown = text(await client.callTool({ name: "nonesuch", arguments: {} })); } catch (e) { unknown = "rejected: " + e.message; }
out.unknownTool = unknown;

// A long index run, cancelled after its first progress notification.
const ac = new AbortController();
let seen = 0;
try {
  await client.callTool({ name: "index", arguments: { paths: ["bulk"] } }, undefined,
    { signal: ac.signal, onprogress: (p) => { seen++; out.bulkTotal = p.total; if (seen === 1) ac.abort("enough"); } });
  out.cancel = "finished";
} catch (e) {
  out.cancel = "rejected: " + String(e);
}
out.cancelProgress = seen;
// The server lives on, the index run has ended (another may start), and
// the documents done before the cancellation are kept.
await new Promise((r) => setTimeout(r, 500));
const after = await client.callTool({ name: "sources", arguments: { prefix: cfg.root + "/bulk" } });
out.afterCancel = { isError: !!after.isError, note: after.structuredContent?.note ?? "", listed: after.structuredContent?.list?.length };
// The cancelled run may take a moment to stop; until then another is
// told to wait.
let again;
for (let i = 0; i < 40; i++) {
  again = await client.callTool({ name: "index", arguments: { paths: ["guide.md"] } });
  if (!again.isError || !text(again).includes("another index run")) break;
  await new Promise((r) => setTimeout(r, 250));
}
out.indexAgain = { isError: !!again.isError, text: text(again).slice(0, 300) };
await client.close();
console.log(JSON.stringify(out));
`

// mcpFixture writes the documents an MCP client test works on: a root
// with two documents and a directory of many small ones (for an index
// run long enough to cancel), and a file outside the root.
func mcpFixture(t *testing.T) (root, outside string) {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	root = filepath.Join(dir, "docs")
	bulk := filepath.Join(root, "bulk")
	if err := os.MkdirAll(bulk, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(root, "guide.md"): "# Installing\n\nDownload the binary and put it on your PATH. The installer checks the checksum of every archive it downloads.\n\n" +
			"## Upgrading\n\nRun the installer again: it replaces the binary in place and keeps the configuration file untouched.\n\n" +
			"# Configuring\n\nThe configuration file lives next to the binary.\n",
		filepath.Join(root, "notes.txt"): "Meeting notes.\nThe checksum step was added in March.\n",
		filepath.Join(dir, "secret.txt"): "the password is swordfish\n",
	}
	for i := range 3000 {
		files[filepath.Join(bulk, fmt.Sprintf("note%04d.txt", i))] = fmt.Sprintf("Note %d.\nA line about item %d and its checksum.\n", i, i)
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, filepath.Join(dir, "secret.txt")
}

// mcpClientRun runs the TypeScript client with cfg and returns what it saw.
func mcpClientRun(t *testing.T, cfg map[string]any) map[string]any {
	t.Helper()
	node, dir := npmtest.Install(t, "npm-mcp-sdk", "@modelcontextprotocol/sdk@1.32.2")
	script := filepath.Join(dir, "gochunk-mcp-client.mjs")
	if err := os.WriteFile(script, []byte(mcpClientScript), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cfg)
	out, err := exec.CommandContext(t.Context(), node, script, string(b)).CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	var got map[string]any
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the client's report: %v\n%s", err, out)
	}
	return got
}

// checkMCPClient checks what the TypeScript client saw of a server whose
// root is root, indexing with parents (so that the store keeps the
// documents' texts, for section expansion).
func checkMCPClient(t *testing.T, got map[string]any, root string) {
	t.Helper()
	js := func(path ...string) any {
		var v any = got
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	str := func(path ...string) string { s, _ := js(path...).(string); return s }
	var names []string
	for _, tool := range js("tools").([]any) {
		m := tool.(map[string]any)
		names = append(names, m["name"].(string))
		if m["description"] == "" || m["output"] != true {
			t.Errorf("tool %v: no description or output schema", m["name"])
		}
	}
	if got := strings.Join(names, " "); got != "chunk extract index search sources" {
		t.Errorf("tools %s", got)
	}
	if d := js("index", "summary", "documents"); js("index", "isError") != false || d == nil || js("index", "summary", "store", "documents") != 2.0 {
		t.Errorf("index: %v", got["index"])
	}
	hits, _ := js("search", "hits").([]any)
	if len(hits) == 0 || js("search", "isError") != false {
		t.Fatalf("search: %v", got["search"])
	}
	first := hits[0].(map[string]any)
	if first["source"] != filepath.Join(root, "guide.md") || first["lines"] == nil || !strings.HasPrefix(first["uri"].(string), "gochunk://doc/") {
		t.Errorf("hit without provenance: %v", first)
	}
	if links, _ := js("search", "links").([]any); len(links) != len(hits) || links[0] != first["uri"] {
		t.Errorf("resource links %v for hits %v", links, hits)
	}
	if str("read", "text") != first["text"] || str("read", "uri") != first["uri"] {
		t.Errorf("reading %v gave %v", first["uri"], got["read"])
	}
	if !strings.HasPrefix(str("section", "hit", "text"), "## Upgrading") || str("section", "hit", "kind") != "section" {
		t.Errorf("section expansion: %v", got["section"])
	}
	if res, _ := js("resources").([]any); len(res) < 2 {
		t.Errorf("resources: %v", got["resources"])
	}
	if tpl, _ := js("templates").([]any); len(tpl) != 1 || tpl[0] != "gochunk://doc/{id}{?start,end}" {
		t.Errorf("templates: %v", got["templates"])
	}
	if js("chunk", "isError") != false || js("chunk", "total").(float64) < 2 || js("chunk", "first", "text") == nil {
		t.Errorf("chunk: %v", got["chunk"])
	}
	if h, _ := js("extract", "headings").([]any); len(h) != 3 || js("extract", "isError") != false {
		t.Errorf("extract: %v", got["extract"])
	}
	if js("sources", "documents") != 2.0 {
		t.Errorf("sources: %v", got["sources"])
	}
	if js("refused", "isError") != true || !strings.Contains(str("refused", "text"), "outside the allowed roots") || strings.Contains(str("refused", "text"), "swordfish") {
		t.Errorf("a path outside the roots: %v", got["refused"])
	}
	for _, k := range []string{"badMode", "badType"} {
		if js(k, "isError") != true || str(k, "text") == "" {
			t.Errorf("%s: %v, want a tool error the agent can read", k, got[k])
		}
	}
	if !strings.Contains(str("unknownTool"), "nonesuch") {
		t.Errorf("an unknown tool: %v", got["unknownTool"])
	}
	// The progress of the two-document run may reach the client in the
	// same read as its answer, which the TypeScript SDK handles first
	// (notifications wait for a microtask), dropping them as late; the
	// long run's are checked.
	if !strings.HasPrefix(str("cancel"), "rejected") || js("cancelProgress").(float64) < 1 {
		t.Errorf("a cancelled index: %v after %v progress notifications", got["cancel"], got["cancelProgress"])
	}
	if js("afterCancel", "isError") != false || js("indexAgain", "isError") != false {
		t.Errorf("after the cancelled index: %v; another index: %v", got["afterCancel"], got["indexAgain"])
	}
	// The documents indexed before the cancellation: the whole list, or
	// its first page and a note "documents 0 to 99 of N listed".
	done := int(js("afterCancel", "listed").(float64))
	fmt.Sscanf(str("afterCancel", "note")[strings.Index(str("afterCancel", "note"), " of ")+1:], "of %d", &done)
	if js("bulkTotal") != 3000.0 || done >= 3000 {
		t.Errorf("the cancelled index run of %v documents went on to the end: %v", got["bulkTotal"], got["afterCancel"])
	}
	t.Logf("the index run was cancelled after its first progress notification; %d of 3000 documents were done", done)
}

// TestMCPTypeScriptClientStdio runs the official TypeScript SDK's client
// against gochunk mcp over standard input and output.
func TestMCPTypeScriptClientStdio(t *testing.T) {
	root, outside := mcpFixture(t)
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "index.db")
	got := mcpClientRun(t, map[string]any{"transport": "stdio", "command": bin, "root": root, "outside": outside,
		"args": []string{"mcp", "--store", db, "--allow-index", "--size", "24", "--parents", "200", "--jobs", "1", root}})
	checkMCPClient(t, got, root)
}

// TestMCPTypeScriptClientHTTP runs it against gochunk serve --mcp over
// streamable HTTP, behind the server's bearer token.
func TestMCPTypeScriptClientHTTP(t *testing.T) {
	root, outside := mcpFixture(t)
	db := filepath.Join(t.TempDir(), "index.db")
	conf := filepath.Join(t.TempDir(), "chunking.yaml")
	if err := os.WriteFile(conf, []byte("size: 24\nparents: 200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// gochunk serve --store wants a store with an index in it; /mcp's
	// index tool then finds it current, made with the same configuration.
	if code := runContext(t.Context(), []string{"index", "--store", db, "--config", conf, "--exclude", "bulk", root}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
		t.Fatalf("gochunk index: exit %d", code)
	}
	s := serveInProcess(t, nil, "--addr", "127.0.0.1:0", "--token", "s3cret", "--store", db, "--mcp", "--mcp-root", root, "--mcp-allow-index", "--mcp-config", conf)
	defer s.stop()
	got := mcpClientRun(t, map[string]any{"transport": "http", "url": "http://" + s.addr + "/mcp", "token": "s3cret", "root": root, "outside": outside})
	if !strings.Contains(fmt.Sprint(got["noToken"]), "missing or wrong bearer token") {
		t.Errorf("without the token: %v", got["noToken"])
	}
	checkMCPClient(t, got, root)
	if d := got["index"].(map[string]any)["summary"].(map[string]any)["documents"].(map[string]any); d["unchanged"] != 2.0 {
		t.Errorf("the index tool re-indexed what gochunk index made with the same --config: %v", d)
	}
}
